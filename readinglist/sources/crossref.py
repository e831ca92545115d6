"""Crossref's REST API (https://api.crossref.org/swagger-ui/index.html): works as records.

:func:`by_doi` asks ``/works/{doi}``; :func:`by_bibliographic` asks
``/works?query.bibliographic=...`` (title, authors, venue and year in one string).
Each work (the ``message`` of a work answer, or an item of a list answer) becomes a
``PaperRecord`` (:func:`work_record`). The client sends the contact address and reads
Crossref's ``x-rate-limit-*`` headers (``sources.http``); the ``mailto`` parameter
puts the requests in Crossref's "polite" pool.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import quote

from readinglist.errors import SourceUnavailable
from readinglist.identifiers import normalize_doi
from readinglist.records import PaperRecord, Person
from readinglist.sources.http import HttpClient

API = "https://api.crossref.org/works"
SERVICE = "Crossref"
#: Items asked for per bibliographic query.
ROWS = 5

#: Crossref work type -> BibTeX entry type.
ENTRY_TYPES: dict[str, str] = {
    "journal-article": "article",
    "proceedings-article": "inproceedings",
    "book-chapter": "incollection",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "posted-content": "misc",
    "dissertation": "phdthesis",
    "report": "techreport",
}


def by_doi(client: HttpClient, doi: str, contact: str | None = None) -> list[PaperRecord]:
    """The work with DOI ``doi`` (empty when Crossref does not know it: 404)."""
    params = {"mailto": contact} if contact else None
    text = client.get_optional(SERVICE, f"{API}/{quote(doi, safe='/')}", params)
    if text is None:
        return []
    message = _message(text)
    return [r for r in [work_record(message)] if r is not None]


def by_bibliographic(
    client: HttpClient, query: str, contact: str | None = None
) -> list[PaperRecord]:
    """Up to :data:`ROWS` works that best fit ``query`` (a title, authors, year)."""
    params = {"query.bibliographic": query, "rows": str(ROWS)}
    if contact:
        params["mailto"] = contact
    message = _message(client.get(SERVICE, API, params))
    items = message.get("items")
    if not isinstance(items, list):
        raise SourceUnavailable(f"{SERVICE} sent a list answer without items; nothing changed")
    return [r for r in (work_record(i) for i in items if isinstance(i, dict)) if r is not None]


def _message(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        raise SourceUnavailable(
            f"{SERVICE} sent an answer that is not JSON; nothing changed"
        ) from None
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, dict) or data.get("status") != "ok":
        raise SourceUnavailable(f"{SERVICE} sent an answer without a message; nothing changed")
    return message


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return " ".join(str(value).split()) if value else None


def _people(items: Any) -> tuple[Person, ...]:
    people = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("family"):
            people.append(Person(family=str(item["family"]), given=str(item.get("given") or "")))
        elif item.get("name"):
            people.append(Person(literal=str(item["name"])))
    return tuple(people)


def _date(work: dict[str, Any]) -> tuple[int | None, int | None]:
    for name in ("published-print", "published", "issued", "published-online"):
        parts = (work.get(name) or {}).get("date-parts") or [[]]
        first = parts[0] if parts and isinstance(parts[0], list) else []
        if first and isinstance(first[0], int):
            month = first[1] if len(first) > 1 and isinstance(first[1], int) else None
            return first[0], month
    return None, None


def _plain(value: Any) -> str | None:
    """A JATS abstract or an HTML-marked title as plain text: the heading of an
    abstract (``<jats:title>``) and every tag dropped, spaces folded."""
    if isinstance(value, list):
        value = value[0] if value else None
    if not isinstance(value, str) or not value.strip():
        return None
    text = re.sub(r"<jats:title>.*?</jats:title>", " ", value, flags=re.S)
    return html.unescape(" ".join(re.sub(r"<[^>]+>", "", text).split())) or None


def work_record(work: dict[str, Any]) -> PaperRecord | None:
    """One Crossref work as a record (None without a title): title, authors, editors,
    year and month (print date first), container title as venue, volume, issue, pages,
    publisher, ISSN, DOI, URL and abstract."""
    title = _plain(work.get("title"))
    if not title:
        return None
    year, month = _date(work)
    fields: dict[str, str] = {}
    for name, key in (("volume", "volume"), ("number", "issue"), ("pages", "page")):
        value = _first(work.get(key))
        if value:
            fields[name] = value.replace("-", "--") if name == "pages" else value
    for name, key in (("publisher", "publisher"), ("issn", "ISSN"), ("isbn", "ISBN")):
        value = _first(work.get(key))
        if value:
            fields[name] = value
    entry_type = ENTRY_TYPES.get(str(work.get("type") or ""), "misc")
    return PaperRecord(
        entry_type=entry_type,
        title=title,
        authors=_people(work.get("author")),
        editors=_people(work.get("editor")),
        year=year,
        month=month,
        venue=_first(work.get("container-title")),
        abstract=_plain(work.get("abstract")),
        doi=normalize_doi(str(work.get("DOI") or "")),
        url=_first(work.get("URL")),
        fields=fields,
        latex_fields=False,
    )
