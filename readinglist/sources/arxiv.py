"""arXiv's API (https://info.arxiv.org/help/api/user-manual.html): Atom feeds as records.

Three questions: :func:`by_id` (``id_list``), :func:`by_title` (``ti:"..."``) and
:func:`by_phrase` (``abs:"..."``, for a paper whose title was made up from its
abstract: :func:`distinctive_phrase` picks the words). Each entry of the feed becomes
a ``PaperRecord`` (:func:`parse_feed`): title, authors, abstract, the year of
the first version (no month: a preprint's is not the venue's), arXiv id, DOI (``arxiv:doi``) and the abstract page as URL.
The API asks for one request every three seconds (``sources.http.MIN_INTERVAL``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from readinglist.errors import SourceUnavailable
from readinglist.formats._abstracts_authors import parse_name
from readinglist.identifiers import normalize_arxiv, normalize_doi
from readinglist.records import PaperRecord
from readinglist.sources.http import HttpClient

API = "https://export.arxiv.org/api/query"
SERVICE = "arXiv"
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
#: Results asked for per search.
MAX_RESULTS = 5
#: Words of the phrase :func:`distinctive_phrase` picks.
PHRASE_WORDS = 8


def by_id(client: HttpClient, arxiv_id: str) -> list[PaperRecord]:
    """The record of arXiv id ``arxiv_id`` (empty when arXiv does not know it)."""
    return parse_feed(client.get(SERVICE, API, {"id_list": arxiv_id, "max_results": "1"}))


def by_title(client: HttpClient, title: str) -> list[PaperRecord]:
    """Up to :data:`MAX_RESULTS` records whose title holds the words of ``title``."""
    return _search(client, f'ti:"{_query_words(title)}"')


def by_phrase(client: HttpClient, abstract: str) -> list[PaperRecord]:
    """Up to :data:`MAX_RESULTS` records whose abstract holds the distinctive phrase of
    ``abstract`` (empty when it has none)."""
    phrase = distinctive_phrase(abstract)
    return _search(client, f'abs:"{phrase}"') if phrase else []


def _search(client: HttpClient, query: str) -> list[PaperRecord]:
    params = {"search_query": query, "start": "0", "max_results": str(MAX_RESULTS)}
    return parse_feed(client.get(SERVICE, API, params))


def _query_words(text: str) -> str:
    """``text`` as words arXiv's query syntax cannot misread (no quotes, colons, brackets)."""
    return " ".join(re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", text))


def distinctive_phrase(abstract: str, size: int = PHRASE_WORDS) -> str | None:
    """The run of ``size`` plain words of ``abstract`` with the most letters in long
    words (seven letters or more): words that pick one abstract out of many. Words with
    markup (``$``, ``\\``, braces) or digits break a run, since sources spell them
    differently. None when the abstract has no such run."""
    best: tuple[int, str] | None = None
    run: list[str] = []
    for token in abstract.split():
        word = token.strip(".,;:()[]\"'!?")
        if not word or not re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", word):
            run = []
            continue
        run.append(word)
        if len(run) > size:
            run.pop(0)
        if len(run) == size:
            score = sum(len(w) for w in run if len(w) >= 7)
            if best is None or score > best[0]:
                best = (score, " ".join(run))
    return best[1] if best else None


def parse_feed(text: str) -> list[PaperRecord]:
    """The entries of an arXiv Atom feed as records.

    Raises SourceUnavailable for text that is not an Atom feed, and for arXiv's error
    entry (an entry whose id is ``http://arxiv.org/api/errors#...``).
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SourceUnavailable(
            f"{SERVICE} sent an answer that is not Atom XML ({exc}); nothing changed"
        ) from None
    if root.tag != f"{_ATOM}feed":
        raise SourceUnavailable(f"{SERVICE} sent XML that is not an Atom feed; nothing changed")
    records = []
    for entry in root.iter(f"{_ATOM}entry"):
        ident = entry.findtext(f"{_ATOM}id") or ""
        if "/api/errors" in ident:
            message = entry.findtext(f"{_ATOM}summary") or "error"
            raise SourceUnavailable(f"{SERVICE} refused the query: {message.strip()}")
        record = _record(entry, ident)
        if record is not None:
            records.append(record)
    return records


def _text(entry: ET.Element, tag: str) -> str:
    return " ".join((entry.findtext(tag) or "").split())


def _record(entry: ET.Element, ident: str) -> PaperRecord | None:
    arxiv_id = normalize_arxiv(ident)
    title = _text(entry, f"{_ATOM}title")
    if arxiv_id is None or not title:
        return None
    published = _text(entry, f"{_ATOM}published")
    date = re.match(r"(\d{4})-", published)  # the month of a preprint is not the venue's
    authors = tuple(
        parse_name(name.findtext(f"{_ATOM}name") or "")
        for name in entry.iter(f"{_ATOM}author")
        if (name.findtext(f"{_ATOM}name") or "").strip()
    )
    fields = {"eprint": arxiv_id, "archiveprefix": "arXiv"}
    category = entry.find(f"{_ARXIV}primary_category")
    if category is not None and category.get("term"):
        fields["primaryclass"] = category.get("term") or ""
    journal = _text(entry, f"{_ARXIV}journal_ref")
    if journal:
        fields["journal-ref"] = journal
    return PaperRecord(
        entry_type="misc",
        title=title,
        authors=authors,
        year=int(date.group(1)) if date else None,
        abstract=_text(entry, f"{_ATOM}summary") or None,
        doi=normalize_doi(_text(entry, f"{_ARXIV}doi")),
        arxiv=arxiv_id,
        url=f"https://arxiv.org/abs/{arxiv_id}",
        fields=fields,
        latex_fields=False,
    )
