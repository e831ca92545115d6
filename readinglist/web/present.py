"""What a paper looks like on the page: plain values for the templates (Jinja2 escapes
every one of them; nothing here is marked safe).

The abstract's LaTeX is decoded to Unicode (``text.latex_to_unicode``, as the terminal
card does) outside its math; the math (``$...$``, ``$$...$$``, ``\\(...\\)``,
``\\[...\\]``, the delimiters of KaTeX's auto-render) is kept as written, for KaTeX to
render in the browser (with ``trust`` off: no link or HTML command of TeX is honoured).
"""

from __future__ import annotations

import re
from typing import Any

from readinglist.records import PaperRecord
from readinglist.render import PROVISIONAL_MARK
from readinglist.text import latex_to_unicode
from readinglist.triage_view import KEY_HELP, links, why_lines

MATH = re.compile(r"(\$\$.+?\$\$|(?<!\\)\$[^$]+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\])", re.DOTALL)
#: The page's own keys beside the terminal's (:data:`readinglist.triage_view.KEY_HELP`):
#: what differs in the browser.
PAGE_KEYS: dict[str, str] = {
    "o": "open the first link in a new tab",
    "v": "move to the list (arrow keys and Enter choose a paper)",
    "w": "show or hide why: the terms that raised and lowered the interest",
    "x": "show or hide the whole abstract",
    "q": "nothing to quit: close the tab; Ctrl-C in the terminal stops the server",
    "space/j": "later: next paper without deciding (it stays new)",
}
#: Keys only the page has.
EXTRA_KEYS: tuple[tuple[str, str], ...] = (
    ("g", "topics: choose one to filter the list, or skip a whole topic"),
    ("Esc", "close a prompt, this help or the topics"),
)


def key_help() -> list[tuple[str, str]]:
    """The keys of the ``?`` overlay: the terminal's, with the page's meaning where it
    differs, then the page's own."""
    return [(key, PAGE_KEYS.get(key, text)) for key, text in KEY_HELP] + list(EXTRA_KEYS)


def abstract_text(abstract: str | None) -> str:
    """Return the abstract with its LaTeX decoded outside the math (kept as written)."""
    if not abstract:
        return ""
    parts = MATH.split(abstract)
    return "".join(
        part if n % 2 else latex_to_unicode(part) for n, part in enumerate(parts)
    ).strip()


def title_text(record: PaperRecord) -> str:
    """The title the page shows: with its math kept as written for KaTeX when the
    paper's raw LaTeX title (``fields["title"]``: a BibTeX title, a pasted list's title
    with ``$...$``) has a formula, decoded outside it (:func:`abstract_text`); else the
    stored title, or ``(no title)``."""
    raw = record.fields.get("title")  # the raw LaTeX form (records.COLUMN_FIELDS)
    if raw and "$" in raw:
        shown = abstract_text(raw)
        if shown:
            return shown
    return record.title or "(no title)"


def paper_view(record: PaperRecord, pid: int) -> dict[str, Any]:
    """Return the values of the paper pane for ``record`` (paper ``pid``)."""
    found = links(record)
    labelled = []
    for url in found:
        if url == record.code_url:
            label = "code"
        elif record.doi and url.endswith(record.doi):
            label = "DOI"
        elif record.arxiv and url.endswith(record.arxiv):
            label = "arXiv"
        else:
            label = "link"
        labelled.append((label, url))
    return {
        "id": pid,
        "key": record.citekey,
        "title": title_text(record) + (PROVISIONAL_MARK if record.title_provisional else ""),
        "plain_title": record.title or "",
        "authors": "; ".join(p.display() for p in record.authors) or "(no authors)",
        "where": " · ".join(str(x) for x in (record.venue, record.year) if x),
        "abstract": abstract_text(record.abstract),
        "links": labelled,
        "status": record.status,
        "priority": record.priority,
        "tags": list(record.tags),
        "notes": [note.text for note in record.notes],
    }


def why_view(key: str | None, why: Any) -> list[str]:
    """The lines of the why panel: ``show --why``'s (:func:`triage_view.why_lines`)."""
    return why_lines(key, why)
