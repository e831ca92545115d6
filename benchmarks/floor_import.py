"""The import floor of issue 9: what reading a ``.bib`` file costs with the libraries alone.

Usage::

    .venv/bin/python benchmarks/floor_import.py FILE.bib

Runs, in this one process, bibtexparser 2.x ``parse_file`` (its default parse stack:
``@string`` resolution and removal of enclosing braces/quotes), then decodes with
pylatexenc's ``LatexNodes2Text`` at its default settings (issue 9's floor; issue 17:
``strict_latex_spaces=True`` made it slower on LaTeX-heavy files) every ``title`` and
``author`` value that contains ``\\`` or ``{`` (each distinct string once; plain values are left alone, as issue 9
prescribes). ``run.py`` times this whole process (start-up included) and reads its
peak RSS, and compares ``readinglist import FILE`` with it. Prints the counts on
stderr: entries, failed blocks, distinct values decoded, seconds per phase.
"""

from __future__ import annotations

import sys
import time


def main(path: str) -> None:
    """Parse ``path`` and decode its LaTeX titles and author lists; report on stderr."""
    import logging

    import bibtexparser
    from pylatexenc.latex2text import LatexNodes2Text

    logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
    logging.getLogger("bibtexparser").propagate = False
    logging.getLogger("pylatexenc").setLevel(logging.ERROR)

    start, cpu_start = time.perf_counter(), time.process_time()
    library = bibtexparser.parse_file(path)
    parsed, cpu_parsed = time.perf_counter(), time.process_time()
    converter = LatexNodes2Text()
    decoded: dict[str, str] = {}
    for entry in library.entries:
        for name in ("title", "author"):
            field = entry.fields_dict.get(name)
            if field is None or not isinstance(field.value, str):
                continue
            value = field.value
            if ("\\" in value or "{" in value) and value not in decoded:
                try:
                    decoded[value] = converter.latex_to_text(value)
                except Exception:  # pylatexenc raises on some broken markup
                    decoded[value] = value
    done, cpu_done = time.perf_counter(), time.process_time()
    print(
        f"entries={len(library.entries)} failed={len(library.failed_blocks)} "
        f"decoded={len(decoded)} parse={parsed - start:.1f}s decode={done - parsed:.1f}s "
        f"(cpu {cpu_parsed - cpu_start:.1f}s, {cpu_done - cpu_parsed:.1f}s)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1])
