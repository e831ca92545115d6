"""The abstracts reader's labelled lines: ``Title:``, ``**Authors:**``, ``DOI:`` ... (:func:`read_label`).

A label's key is looked up in :data:`LABEL_KEYS`; an unknown bold label becomes a
``field:`` key, kept in the record's ``fields`` under
:data:`~readinglist.records.LIST_FIELD_PREFIX` (``list_oral_presentation``): a label
is no BibTeX field, and BibTeX exports leave such fields out (issue 15).
"""

from __future__ import annotations

import re

from readinglist.formats._abstracts_header import YEAR
from readinglist.formats._abstracts_links import URL
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.naming.markup import HTML_TAG, WHITESPACE
from readinglist.records import LIST_FIELD_PREFIX

_BOLD_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+)?(\*\*|__)\s*(?P<label>[^*_:\n<>]{1,40}?)\s*(?::\s*\1|\1\s*:)\s*(?P<value>.*)$"
)

_PLAIN_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<label>[A-Za-z][A-Za-z .()/;&'-]{0,28}?)\s*:\s*(?P<value>.*)$"
)

#: The line of an arXiv listing mail that stands for ``Date:`` of a replaced paper.
_ARXIV_REPLACED = re.compile(r"(?i)^replaced with revised version\s+(.*)$")


#: Presentation tags of conference pages: before or after a title ("[Spotlight] AbDiffuser",
#: "Title (Oral)"), or a line of their own ("Poster", "Spotlight Poster"), kept as
#: ``list_presentation``.
PRESENTATION_TAGS: frozenset[str] = frozenset(
    {"spotlight", "oral", "poster", "highlight", "award", "featured", "invited", "demo", "new"}
    | {"best paper", "outstanding paper", "honorable mention"}
)
#: The tags (of :data:`PRESENTATION_TAGS`) a list writes as a label before a title,
#: "Oral: Diffusion Policies ..." (not "Demo:", which begins real titles).
TAG_LABELS: tuple[str, ...] = ("spotlight", "oral", "poster", "highlight")
#: The tags a line of its own may hold ("Poster", "Spotlight Poster", "Invited talk").
_LINE_TAGS = "|".join((*TAG_LABELS, "invited", "demo"))
_TAG_LINE = re.compile(
    rf"^[\s*_#\[(]*((?:{_LINE_TAGS})(?:[\s/,&+-]+(?:{_LINE_TAGS}|presentation|paper|talk))*)"
    r"[\s*_\])]*$",
    re.IGNORECASE,
)


def read_label(line: str) -> tuple[str, str] | None:
    """Return ``(key, value)`` for a labelled line, ``("_markup", "")`` for markup only, else None."""
    stripped = line.strip()
    if not stripped:
        return None
    tag = _TAG_LINE.match(stripped)
    if tag:  # "Poster", "**Spotlight Poster**": a presentation tag on a line of its own
        return f"field:{LIST_FIELD_PREFIX}presentation", WHITESPACE.sub(" ", tag.group(1))
    bold = _BOLD_LABEL.match(stripped)
    if bold and not HTML_TAG.search(bold.group("label")):
        key = _label_key(bold.group("label"))
        field_name = re.sub(r"[^a-z0-9]+", "_", bold.group("label").strip().lower()).strip("_")
        if key is None:
            key = f"field:{LIST_FIELD_PREFIX}{field_name}" if field_name else "field:note"
        return key, bold.group("value").strip()
    without_tags = HTML_TAG.sub("", stripped)
    if without_tags != stripped:
        bare = without_tags.replace("*", "").replace("_", "").strip().rstrip(":").strip()
        if not bare:
            return "_markup", ""
        if bare.lower() in ("abstract", "summary"):
            return "abstract", ""
        stripped = without_tags.strip()
    if stripped.startswith("\\\\"):  # arXiv listing mail: "\\" rules and "\\ ( URL , 120kb)"
        rest = stripped[2:].strip()
        return ("url", rest) if URL.search(rest) else ("_markup", "")
    replaced = _ARXIV_REPLACED.match(stripped)
    if replaced:  # arXiv listing mail: the date line of a replaced paper
        return f"field:{LIST_FIELD_PREFIX}date", replaced.group(1).strip()
    bare_word = stripped.strip("*_#").strip().rstrip(":").strip()
    if bare_word.lower() in ("abstract", "summary") and len(stripped) <= 20:
        return "abstract", ""
    plain = _PLAIN_LABEL.match(stripped)
    if plain:
        key = _label_key(plain.group("label"))
        value = plain.group("value").strip()
        if key and _label_value_fits(key, value):
            return key, value
    return None


#: Label (lower case, single spaces) -> key: a record attribute, or ``field:<name>``: a
#: BibTeX field of that meaning (``pages``, ``note``), else a ``list_`` field.
LABEL_KEYS: dict[str, str] = {
    "title": "title",
    "paper title": "title",
    "paper": "title",
    "authors": "authors",
    "author": "authors",
    "author(s)": "authors",
    "by": "authors",
    "abstract": "abstract",
    "summary": "abstract",
    "url": "url",
    "link": "url",
    "links": "url",
    "pdf": "url",
    "paper url": "url",
    "paper link": "url",
    "openreview": "url",
    "project page": "url",
    "project": "url",
    "website": "url",
    "homepage": "url",
    "arxiv": "arxiv",
    "doi": "doi",
    "code": "code",
    "github": "code",
    "repo": "code",
    "repository": "code",
    "code url": "code",
    "source code": "code",
    "venue": "venue",
    "conference": "venue",
    "booktitle": "venue",
    "journal": "venue",
    "year": "year",
    "keywords": "keywords",
    "key words": "keywords",
    "tl;dr": "field:" + LIST_FIELD_PREFIX + "tldr",
    "date": "field:" + LIST_FIELD_PREFIX + "date",
    "categories": "field:" + LIST_FIELD_PREFIX + "categories",
    "subjects": "field:" + LIST_FIELD_PREFIX + "subjects",
    "comments": "field:" + LIST_FIELD_PREFIX + "comments",
    "journal-ref": "field:" + LIST_FIELD_PREFIX + "journal_ref",
    "report-no": "field:" + LIST_FIELD_PREFIX + "report_no",
    "msc-class": "field:" + LIST_FIELD_PREFIX + "msc_class",
    "acm-class": "field:" + LIST_FIELD_PREFIX + "acm_class",
    "license": "field:" + LIST_FIELD_PREFIX + "license",
    "session": "field:" + LIST_FIELD_PREFIX + "session",
    "track": "field:" + LIST_FIELD_PREFIX + "track",
    "pages": "field:pages",
    "note": "field:note",
    "notes": "field:note",
    "tldr": "field:" + LIST_FIELD_PREFIX + "tldr",
}


def _label_key(label: str) -> str | None:
    """The key of a known label (any case and spacing), or None."""
    return LABEL_KEYS.get(WHITESPACE.sub(" ", label.strip().lower()))


def _label_value_fits(key: str, value: str) -> bool:
    """A plain ``Code:``/``DOI:``/... label must carry a link or identifier, so titles are not eaten."""
    if key in ("url", "code"):
        return bool(URL.search(value))
    if key == "arxiv":
        return normalize_arxiv(value) is not None or bool(URL.search(value))
    if key == "doi":
        return normalize_doi(value) is not None
    if key == "year":
        return bool(YEAR.search(value))
    if key == "title":
        return bool(value)
    return True
