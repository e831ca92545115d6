"""The export floor of issue 9: bibtexparser ``write_string`` of a whole library.

Usage::

    .venv/bin/python benchmarks/floor_export.py FILE.bib

Parses ``FILE.bib`` with bibtexparser 2.x ``parse_file`` (not timed: the library is
taken as already in memory), then times ``write_string`` of it. Prints one line on
stdout: ``write_seconds entries characters``. ``run.py`` adds the start-up of a
process that imports bibtexparser (``python -c "import bibtexparser"``, measured in
the same run) to get a whole-process floor for ``readinglist export bibtex``.
"""

from __future__ import annotations

import sys
import time


def main(path: str) -> None:
    """Parse ``path`` (untimed), then time ``write_string`` of the library; print the result."""
    import logging

    import bibtexparser

    logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
    logging.getLogger("bibtexparser").propagate = False
    library = bibtexparser.parse_file(path)
    # Only entries, @string and @preamble blocks: failed blocks are not part of a library
    # a program would write back.
    for block in list(library.failed_blocks):
        library.remove(block)
    start = time.perf_counter()
    text = bibtexparser.write_string(library)
    seconds = time.perf_counter() - start
    print(f"{seconds:.3f} {len(library.entries)} {len(text)}")


if __name__ == "__main__":
    main(sys.argv[1])
