"""DBLP's publication search API (https://dblp.org/faq/13501473.html): hits as records.

:func:`by_title` asks ``/search/publ/api?q=...&format=json``. Each hit's ``info``
becomes a ``PaperRecord`` (:func:`hit_record`): title (DBLP ends it with a period,
dropped), authors (DBLP's homonym numbers such as ``0001`` dropped), venue, volume,
number, pages, year, DOI, the electronic edition as URL and the DBLP record as
``biburl``. DBLP asks for moderate use; ``sources.http`` sends one request a second.
"""

from __future__ import annotations

import json
import re
from typing import Any

from readinglist.errors import SourceUnavailable
from readinglist.formats._abstracts_authors import parse_name
from readinglist.identifiers import normalize_doi
from readinglist.records import PaperRecord
from readinglist.sources.http import HttpClient

API = "https://dblp.org/search/publ/api"
SERVICE = "DBLP"
#: Hits asked for per search.
HITS = 5

#: DBLP publication type -> BibTeX entry type.
ENTRY_TYPES: dict[str, str] = {
    "Conference and Workshop Papers": "inproceedings",
    "Journal Articles": "article",
    "Books and Theses": "book",
    "Parts in Books or Collections": "incollection",
    "Informal and Other Publications": "misc",
    "Informal Publications": "misc",
}


def by_title(client: HttpClient, title: str) -> list[PaperRecord]:
    """Up to :data:`HITS` publications whose title fits ``title``."""
    text = client.get(SERVICE, API, {"q": title, "format": "json", "h": str(HITS)})
    return parse_hits(text)


def parse_hits(text: str) -> list[PaperRecord]:
    """The hits of a DBLP search answer as records. Raises SourceUnavailable for an
    answer that is not DBLP's JSON (``result.hits``)."""
    try:
        data = json.loads(text)
        result = data["result"]
        hits = result["hits"]
    except (ValueError, KeyError, TypeError):
        raise SourceUnavailable(
            f"{SERVICE} sent an answer that is not its search JSON; nothing changed"
        ) from None
    found = hits.get("hit", []) if isinstance(hits, dict) else []
    if isinstance(found, dict):
        found = [found]
    records = []
    for hit in found if isinstance(found, list) else []:
        info = hit.get("info") if isinstance(hit, dict) else None
        record = hit_record(info) if isinstance(info, dict) else None
        if record is not None:
            records.append(record)
    return records


def _authors(info: dict[str, Any]) -> list[str]:
    value = (info.get("authors") or {}).get("author", [])
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        name = item.get("text") if isinstance(item, dict) else item
        if isinstance(name, str) and name.strip():
            names.append(re.sub(r"\s+\d{4}$", "", name.strip()))
    return names


def hit_record(info: dict[str, Any]) -> PaperRecord | None:
    """One hit's ``info`` as a record (None without a title)."""
    title = " ".join(str(info.get("title") or "").split())
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1]
    if not title:
        return None
    fields: dict[str, str] = {}
    for name in ("volume", "number", "pages"):
        value = info.get(name)
        if isinstance(value, str) and value.strip():
            fields[name] = value.strip().replace("-", "--") if name == "pages" else value.strip()
    if isinstance(info.get("url"), str):
        fields["biburl"] = str(info["url"])
    year = str(info.get("year") or "")
    venue = info.get("venue")
    if isinstance(venue, list):
        venue = venue[0] if venue else None
    ee = info.get("ee")
    if isinstance(ee, list):
        ee = ee[0] if ee else None
    doi = normalize_doi(str(info.get("doi") or ""))
    return PaperRecord(
        entry_type=ENTRY_TYPES.get(str(info.get("type") or ""), "misc"),
        title=title,
        authors=tuple(parse_name(n) for n in _authors(info)),
        year=int(year) if year.isdigit() else None,
        venue=str(venue) if venue else None,
        doi=doi,
        url=str(ee) if ee and not (doi and "doi.org" in str(ee)) else None,
        fields=fields,
        latex_fields=False,
    )
