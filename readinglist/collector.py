"""The cyclic garbage collector's pace during long reads and imports (stdlib only).

Here, not in :mod:`readinglist.db`, so that an import's reader process, which loads no
SQLAlchemy (``readinglist.pipelines.reader_process``), sets the same pace.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: The young-generation threshold of :func:`collector_paused` (CPython's default: 700).
PAUSED_THRESHOLD = 200_000


@contextmanager
def collector_paused(threshold: int = PAUSED_THRESHOLD) -> Iterator[None]:
    """Run the cyclic garbage collector rarely until the block ends (then restore it):
    its young generation is collected after ``threshold`` allocations, not 700.

    For whole-library reads (``list``, the text exports, issue 17): they allocate
    hundreds of thousands of rows, records and strings, none in a reference cycle,
    which reference counting frees; each young-generation collection would only walk
    them, and the full collections their number triggers walk everything still held
    (a table's rows): about 40% of ``list``'s CPU on 100,000 papers. The collector is
    not switched off: decoding LaTeX with pylatexenc (RIS and CSL-JSON exports of
    BibTeX papers) leaves node trees in cycles, and with the collector off an export of
    100,000 Beebe papers grew to 4.5 GB. A young generation of
    :data:`PAUSED_THRESHOLD` allocations keeps both small. An import passes
    :data:`IMPORT_THRESHOLD`.
    """
    if not gc.isenabled():
        yield
        return
    previous = gc.get_threshold()
    gc.set_threshold(threshold, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


#: The young-generation threshold while an import runs (its reader and writer sides).
#: Readers, records and rows are freed by reference counting, and each young collection
#: only walked them: 0.75 s of CPU, a tenth of the import of 10,000 ACL Anthology
#: entries (issue 17 item 5). Measured there: 50,000 -> 0.23 s and 138 MiB peak
#: (CPython's default 700: 145 MiB); 200,000 -> 0.13 s but 176 MiB (bibtexparser's
#: blocks of a batch wait longer for the collection that frees them).
IMPORT_THRESHOLD = 50_000
