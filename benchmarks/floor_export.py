"""The BibTeX export floor (issues 9 and 17): bibtexparser ``write_string`` of a whole library.

Usage::

    .venv/bin/python benchmarks/floor_export.py FILE.bib

Parses ``FILE.bib`` with bibtexparser 2.x ``parse_file`` (not timed: the library is
taken as already in memory), then times ``write_string`` of it twice: with the
default unparse stack, which deep-copies every block it changes (issue 9's floor),
and with the same middlewares built with ``allow_inplace_modification=True`` (the
in-place writer stack issue 17 names as the floor from now on). Prints one line on
stdout: ``default_seconds entries characters inplace_seconds``. ``run.py`` adds the start-up of a
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
    from bibtexparser.middlewares.parsestack import default_unparse_stack

    start = time.perf_counter()
    text = bibtexparser.write_string(library)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    bibtexparser.write_string(
        library, unparse_stack=default_unparse_stack(allow_inplace_modification=True)
    )
    inplace = time.perf_counter() - start
    print(f"{seconds:.3f} {len(library.entries)} {len(text)} {inplace:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
