"""Check that the LaTeX fast path of ``readinglist.text`` agrees with pylatexenc on real data.

Usage::

    .venv/bin/python benchmarks/check_latex_fast_path.py FILE.bib [FILE.bib ...] [--limit N]

Reads each file with bibtexparser's default parse stack (``@string`` resolved,
enclosing braces removed), takes every distinct value of ``title``, ``author``,
``editor``, ``journal``, ``booktitle``, ``keywords`` and ``abstract`` that contains
``\\ { } $ ~``, and compares ``text.simple_latex`` (where it does not give up; with the
pylatexenc formula decoder that ``text.latex_to_unicode`` hands it) with
pylatexenc's result as ``text.latex_to_unicode`` computes it. Prints the counts and
every disagreement; exits 1 if there is one. ``text.latex_to_unicode`` must give
exactly pylatexenc's text: search text and duplicate keys stored by earlier
versions are compared with new ones (issue 9).
"""

from __future__ import annotations

import argparse
import logging
import random
import re
import sys

FIELDS = ("title", "author", "editor", "journal", "booktitle", "keywords", "abstract")
LATEX = re.compile(r"[\\{}$~]")


def values(path: str) -> set[str]:
    """Return the distinct LaTeX-bearing values of :data:`FIELDS` in the file at ``path``."""
    import bibtexparser

    logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
    logging.getLogger("bibtexparser").propagate = False
    library = bibtexparser.parse_file(path)
    found: set[str] = set()
    for entry in library.entries:
        for name in FIELDS:
            field = entry.fields_dict.get(name)
            if field is not None and isinstance(field.value, str) and LATEX.search(field.value):
                found.add(field.value)
                if name == "abstract":  # as dedupe.abstract_key folds it
                    found.add(field.value.replace("*", "").replace("_", " "))
    return found


def main() -> int:
    """Compare the fast path with pylatexenc; return the exit status."""
    from readinglist import text

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--limit", type=int, default=0, help="check a random sample of N values")
    args = parser.parse_args()
    pool: set[str] = set()
    for path in args.files:
        pool |= values(path)
    ordered = sorted(pool)
    if args.limit and len(ordered) > args.limit:
        ordered = random.Random(9).sample(ordered, args.limit)
    fast = disagree = 0
    for value in ordered:
        # As text._latex_to_unicode prepares a value and calls the fast path.
        escaped = text._lone_dollar_escaped(text._BARE_PERCENT.sub(r"\\%", value))
        quick = text.simple_latex(escaped, formula=text._formula_text)
        if quick is None:
            continue
        fast += 1
        try:
            slow = str(text._converter("text").latex_to_text(escaped))
        except Exception:
            slow = None
        if quick != slow:
            disagree += 1
            print(f"DIFFER {value!r}\n  fast {quick!r}\n  slow {slow!r}")
    print(f"values with LaTeX: {len(ordered)}; fast path took {fast}; disagreements: {disagree}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
