"""Online sources of bibliographic data for ``resolve --online`` (issue 13).

One module per service, each turning the service's documented answer format into
``PaperRecord`` objects: :mod:`~readinglist.sources.arxiv` (Atom API),
:mod:`~readinglist.sources.dblp` (search JSON) and :mod:`~readinglist.sources.crossref`
(REST ``/works``). All requests go through :class:`~readinglist.sources.http.HttpClient`
(User-Agent with a contact address, per-service rate limits, retries on 429/503,
timeouts, an on-disk cache). Nothing here touches the database: the library matches
what :func:`search` finds against the paper (``library.resolving``).

This package imports httpx: only ``resolve --online`` imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from readinglist.records import PaperRecord
from readinglist.sources import arxiv, crossref, dblp
from readinglist.sources.http import HttpClient

#: The services ``resolve --online`` asks, in the order asked.
SERVICES: tuple[str, ...] = (arxiv.SERVICE, dblp.SERVICE, crossref.SERVICE)


def service_names(names: Sequence[str]) -> tuple[str, ...]:
    """The services of :data:`SERVICES` named in ``names`` (case-insensitive), in
    :data:`SERVICES` order; unknown names raise ValueError naming them."""
    wanted = {n.strip().lower() for n in names if n.strip()}
    unknown = wanted - {s.lower() for s in SERVICES}
    if unknown:
        raise ValueError(", ".join(sorted(unknown)))
    return tuple(s for s in SERVICES if s.lower() in wanted)


class Finder:
    """Asks the chosen services about one paper at a time (``library.resolving.Search``).

    For a paper with a DOI: Crossref's record of it; with an arXiv id: arXiv's. Then,
    by title when the paper has a real one (arXiv, DBLP, Crossref bibliographic query
    with the first author and year), or by a distinctive phrase of its abstract when
    its title was made up (arXiv only: DBLP and Crossref do not search abstracts).
    Returns ``(service, label, record)`` hits, unverified: the library matches them.
    ``unasked`` counts the papers none of the chosen services could be asked about (a
    made-up title and no DOI or arXiv id, with DBLP or Crossref only).
    """

    def __init__(
        self, client: HttpClient, services: Sequence[str] = SERVICES, contact: str | None = None
    ) -> None:
        self.client = client
        self.services = tuple(services)
        self.contact = contact
        self.unasked = 0

    def __call__(
        self, record: PaperRecord, used: frozenset[str]
    ) -> list[tuple[str, str, PaperRecord]]:
        """Hits for ``record`` from the services not in ``used``."""
        ask = [s for s in self.services if s not in used]
        hits: list[tuple[str, str, PaperRecord]] = []
        if crossref.SERVICE in ask and record.doi:
            hits += _label(crossref.SERVICE, crossref.by_doi(self.client, record.doi, self.contact))
        if arxiv.SERVICE in ask and record.arxiv:
            hits += _label(arxiv.SERVICE, arxiv.by_id(self.client, record.arxiv))
        found = {service for service, _, _ in hits}
        title = record.title if record.title and not record.title_provisional else None
        if arxiv.SERVICE in ask and arxiv.SERVICE not in found:
            if title:
                hits += _label(arxiv.SERVICE, arxiv.by_title(self.client, title))
            elif record.abstract:
                hits += _label(arxiv.SERVICE, arxiv.by_phrase(self.client, record.abstract))
        if title and dblp.SERVICE in ask:
            hits += _label(dblp.SERVICE, dblp.by_title(self.client, title))
        if title and crossref.SERVICE in ask and crossref.SERVICE not in found:
            query = " ".join(
                x
                for x in (
                    title,
                    record.authors[0].short() if record.authors else "",
                    str(record.year or ""),
                )
                if x
            )
            hits += _label(
                crossref.SERVICE, crossref.by_bibliographic(self.client, query, self.contact)
            )
        if not used and not self._askable(record, ask, title):
            self.unasked += 1
        return hits

    @staticmethod
    def _askable(record: PaperRecord, ask: Sequence[str], title: str | None) -> bool:
        """True when a service of ``ask`` has a question for ``record`` (the rules above)."""
        by_id = (crossref.SERVICE in ask and record.doi) or (arxiv.SERVICE in ask and record.arxiv)
        by_text = arxiv.SERVICE in ask and (title or record.abstract)
        return bool(
            by_id or by_text or (title and (dblp.SERVICE in ask or crossref.SERVICE in ask))
        )


def _label(service: str, records: list[PaperRecord]) -> list[tuple[str, str, PaperRecord]]:
    """Name each record by its id at the service (arXiv id, DOI, DBLP record)."""
    out = []
    for record in records:
        label = record.arxiv if service == arxiv.SERVICE else None
        label = label or record.doi or record.fields.get("biburl", "").rsplit("/rec/", 1)[-1]
        out.append((service, label or (record.title or "")[:40], record))
    return out


__all__ = ["SERVICES", "Finder", "HttpClient", "service_names"]
