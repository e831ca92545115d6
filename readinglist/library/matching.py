"""What an import decides per record: is it a duplicate (of what), and under which key.

:class:`Index` finds duplicate candidates (``readinglist.dedupe`` rules);
:func:`fill_missing` and :func:`apply_merges` complete a duplicate;
:class:`KeyRegistry` and :func:`choose_key` give each new paper a free citation key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz
from sqlalchemy import select, true
from sqlalchemy.orm import Session

from readinglist import citekeys, dedupe, versions
from readinglist.identifiers import arxiv_from_doi
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library._sql import CHUNK, update_many
from readinglist.library.merging import (
    MergePlan,
    derived_values,
    latex_paper_ids,
    paper_values,
    plan_merge,
)
from readinglist.library.refs import KeyRegistry
from readinglist.library.rows import load_papers, person_record
from readinglist.library.snapshots import paper_snapshot
from readinglist.models import (
    Paper,
    utcnow,
)
from readinglist.prepare import Prepared
from readinglist.records import (
    PaperRecord,
    ParseProblem,
    Person,
)
from readinglist.text import fold, search_tokens, title_key
from readinglist.versions import Version


@dataclass
class Candidate:
    """An existing or just-added paper an incoming record may duplicate.

    ``values`` holds what :func:`~readinglist.library.merging.plan_merge` reads (the
    FILLABLE columns, ``title_provisional``, ``citekey_provisional``, ``entry_type``,
    ``fields``); for a paper of this import it is its insert row (``pending``).
    """

    paper_id: int | None
    key: str
    title: str | None
    year: int | None
    family: str
    values: dict[str, Any]
    tags: set[str] = field(default_factory=set)
    pending: dict[str, Any] | None = None  # the insert row, for papers of this import
    batch_id: int | None = None  # the import that added it
    authors: tuple[Person, ...] = ()
    editors: tuple[Person, ...] = ()
    #: What the merge history holds for a stored paper
    #: (:func:`~readinglist.library.merging.history_key` of each row), so that importing
    #: a file again writes no row twice; None until loaded.
    history: set[tuple[str, str]] | None = None
    #: Identifiers, URL and title key of the papers marked not-duplicate of it: a record
    #: resembling one of them is not merged into it (``not-duplicate`` A B keeps later
    #: copies of B out of A).
    apart: list[dict[str, Any]] = field(default_factory=list)
    #: A stored preprint as it was (``snapshots.paper_snapshot``), for ``import --undo``.
    before: dict[str, Any] | None = None


def identifier_shared_apart(cand: Candidate, record: PaperRecord, family: str) -> bool:
    """True when ``record`` and ``cand``, which share a DOI or an arXiv id, are still two
    works: a shared identifier is strong evidence, not proof (a source giving two papers
    one DOI): clearly different real titles (``dedupe.titles_conflict``), or different
    first authors (``family``: the record's first author's folded family name) and
    different pages (``dedupe.pages_conflict``), keep them apart."""
    differ = dedupe.titles_conflict(record.title, cand.title) and not (
        record.title_provisional or cand.values.get("title_provisional")
    )
    fields = cand.values.get("fields") or {}
    return differ or (
        bool(family and cand.family and family != cand.family)
        and dedupe.pages_conflict(fields.get("pages"), record.fields.get("pages"))
    )


def veto(cand: Candidate, record: PaperRecord, family: str) -> str | None:
    """Why ``record`` cannot be the paper ``cand`` whatever else they share, or None.

    Different DOIs, different arXiv ids, years more than one apart, different first
    authors (family names, or given names: ``versions.authors_conflict``), no co-author
    in common, clearly different real titles, different first pages
    (``dedupe.pages_conflict``), two published records of one entry type in different
    volumes or numbers (``dedupe.numbering_conflict``), and for a generic title ("Editorial", "Books Received",
    ``dedupe.GENERIC_TITLES``) different volume, number, issue, venue or URL; front matter
    without authors unless venue, volume and pages agree; a record resembling a paper
    marked not-duplicate of ``cand``; another work (``versions.other_work``: an erratum,
    another edition, Part I and Part II, a thesis, a technical report and its published
    version, a journal extension; returned as ``versions.OtherWork``).
    An arXiv DOI beside a publisher's is no veto, and a preprint may be dated up to
    ``versions.PREPRINT_YEARS`` before its published version.
    """
    values = cand.values
    mine_doi, other_doi = record.doi, values.get("doi")
    if mine_doi and other_doi and mine_doi != other_doi:
        # arXiv's DOI beside a publisher's is one work in two versions: the arXiv ids
        # decide (https://info.arxiv.org/help/doi.html).
        arxivs = (arxiv_from_doi(other_doi), arxiv_from_doi(mine_doi))
        if not any(arxivs) or all(arxivs):
            return f"different DOIs ({other_doi} vs {mine_doi})"
    mine, other = record.arxiv, values.get("arxiv")
    if mine and other and mine != other:
        return f"different arXiv ids ({other} vs {mine})"
    theirs, ours = Version.of_values(values), Version.of_record(record)
    if not dedupe.years_close(record.year, cand.year) and not _preprint_before(theirs, ours):
        return f"different years ({cand.year} vs {record.year})"
    if family and cand.family and family != cand.family:
        return "different first authors"
    if (people := versions.authors_conflict(cand.authors, record.authors)) is not None:
        return people
    if (
        not record.title_provisional
        and not values.get("title_provisional")
        and not values.get("title_by_user")  # the user's own title is no evidence
        and dedupe.titles_conflict(record.title, cand.title)
    ):
        return "different titles"
    fields = values.get("fields") or {}
    if dedupe.pages_conflict(fields.get("pages"), record.fields.get("pages")):
        return "different pages"
    same_type = fold(theirs.entry_type or "misc") == fold(ours.entry_type or "misc")
    numbered = same_type and theirs.published and ours.published
    if numbered and (clash := dedupe.numbering_conflict(fields, record.fields)):
        return f"different {clash}s ({fields[clash]} vs {record.fields[clash]})"
    generic = dedupe.is_generic_title(record.title) or dedupe.is_generic_title(cand.title)
    if generic and not cand.authors and not record.authors:
        # Front matter without authors ("Title Index", "Advertisements") of different
        # issues: one only with the same venue, volume and pages.
        for name, mine, other in (
            ("venue", record.venue, values.get("venue")),
            ("volume", record.fields.get("volume"), fields.get("volume")),
            ("pages", record.fields.get("pages"), fields.get("pages")),
        ):
            if fold(mine or "") != fold(other or ""):
                return f"front matter without authors, different {name}"
    if cand.apart and any(_resembles(other, record, cand) for other in cand.apart):
        return "looks like a paper marked not-duplicate of it"
    if generic:
        clash = dedupe.coordinates_conflict(fields, record.fields)
        if clash is None and record.venue and values.get("venue"):
            clash = "venue" if fold(record.venue) != fold(values["venue"]) else None
        if clash is None and record.url and values.get("url") and record.url != values["url"]:
            clash = "URL"
        if clash is not None:
            return f"same generic title, different {clash}"
    return versions.other_work(theirs, ours)


def _resembles(other: dict[str, Any], record: PaperRecord, cand: Candidate) -> bool:
    """True when ``record`` shares with ``other`` (a paper marked not-duplicate of
    ``cand``) an identifier, URL or title that tells it from ``cand``."""
    mine = {
        "doi": record.doi,
        "arxiv": record.arxiv,
        "url": record.url,
        "title_key": title_key(record.title) if record.title else None,
    }
    own = {**cand.values, "title_key": title_key(cand.title) if cand.title else None}
    return any(other.get(n) and other[n] == mine[n] and other[n] != own.get(n) for n in mine)


def _preprint_before(a: Version, b: Version) -> bool:
    """True when one of two versions is a preprint dated up to
    :data:`versions.PREPRINT_YEARS` years before the other (a published version)."""
    if a.year is None or b.year is None:
        return True
    if a.preprint and not b.preprint:
        return 0 <= b.year - a.year <= versions.PREPRINT_YEARS
    if b.preprint and not a.preprint:
        return 0 <= a.year - b.year <= versions.PREPRINT_YEARS
    return False


class Index:
    """Look-up of duplicate candidates by DOI, arXiv id, title key, abstract key and
    citation key (re-importing our own export of papers without a title)."""

    def candidates(self) -> list[Candidate]:
        """Every candidate indexed (each once)."""
        tables = (self.key, self.doi, self.arxiv, self.title, self.abstract)
        return list({id(c): c for t in tables for cs in t.values() for c in cs}.values())

    def __init__(self) -> None:
        self.key: dict[str, list[Candidate]] = defaultdict(list)
        self.doi: dict[str, list[Candidate]] = defaultdict(list)
        self.arxiv: dict[str, list[Candidate]] = defaultdict(list)
        self.title: dict[str, list[Candidate]] = defaultdict(list)
        self.abstract: dict[str, list[Candidate]] = defaultdict(list)
        #: Look-alikes the last :meth:`match` vetoed, with the reason (for the report).
        self.vetoed: list[tuple[Candidate, str]] = []

    def add(
        self,
        cand: Candidate,
        doi: str | None,
        arxiv: str | None,
        tkey: str | None,
        akey: str | None,
        keys: Sequence[str | None] = (),
    ) -> None:
        """Index ``cand`` under its identifiers, title key, abstract key and citation ``keys``."""
        for key in {k.lower() for k in keys if k}:
            self.key[key].append(cand)
        if doi:
            self.doi[doi].append(cand)
        if arxiv:
            self.arxiv[arxiv].append(cand)
        if tkey:
            self.title[tkey].append(cand)
        if akey:
            self.abstract[akey].append(cand)

    def match(
        self,
        record: PaperRecord,
        tkey: str | None,
        akey: str | None,
        family: str,
        batch_id: int | None = None,
    ) -> tuple[Candidate | None, Candidate | None, str]:
        """Return ``(duplicate, conflict, evidence)``: the same paper, or an identifier
        clash, and why ("same DOI").

        ``batch_id`` is the running import's: a title match with a paper the same
        import added under another citation key and another year is no duplicate (one
        source listing both, e.g. the ACL Anthology's yearly "Introduction" of one
        author; the year tolerance is for one paper seen in two sources). A match on
        the title or the abstract is vetoed by :func:`veto` (different DOIs, or a
        generic title with different pages ...).
        """
        conflict = None
        self.vetoed = []
        for ident, table, what in (
            (record.doi, self.doi, "same DOI"),
            (record.arxiv, self.arxiv, "same arXiv id"),
        ):
            for cand in table.get(ident or "", ()):
                if identifier_shared_apart(cand, record, family):
                    conflict = conflict or cand
                else:
                    return cand, None, what
        if akey:
            for cand in self.abstract.get(akey, ()):
                if veto(cand, record, family) is None:
                    return cand, None, "same abstract, 100% similar"
        for cand in self.key.get((record.citekey or "").lower(), ()):
            # The same key from the source: the same paper unless the data disagree.
            if (
                dedupe.titles_same(record.title, cand.title)
                and dedupe.years_close(record.year, cand.year)
                and (not family or not cand.family or family == cand.family)
                and veto(cand, record, family) is None
            ):
                return cand, None, "same citation key and title"
        if tkey and not record.title_provisional:
            for cand in self.title.get(tkey, ()):
                if cand.values.get("title_provisional"):
                    continue
                if (
                    batch_id is not None
                    and cand.batch_id == batch_id
                    and record.year is not None
                    and cand.year is not None
                    and record.year != cand.year
                    and record.citekey
                    and record.citekey.lower() != cand.key.lower()
                ):
                    continue
                reason = veto(cand, record, family)
                if reason is None:
                    return cand, None, "same title, author and year"
                if isinstance(reason, (versions.OtherWork, versions.NamesDiffer)):
                    self.vetoed.append((cand, reason))
        return None, conflict, ""


def candidates_of(session: Session, papers: Sequence[Paper]) -> list[Candidate]:
    """The :class:`Candidate` of each of ``papers`` (:func:`candidate_of`), their LaTeX
    flags read together (``merging.latex_paper_ids``: one query, not one per paper)."""
    latex = latex_paper_ids(session, papers)
    return [candidate_of(paper, latex=paper.id in latex) for paper in papers]


def candidate_of(paper: Paper, *, latex: bool | None = None) -> Candidate:
    """The :class:`Candidate` of a stored paper (loaded with its people and tags);
    ``latex``: whether its fields are LaTeX, when known (``merging.paper_values``)."""
    authors = tuple(person_record(pp.person) for pp in paper.people if pp.role == "author")
    editors = tuple(person_record(pp.person) for pp in paper.people if pp.role == "editor")
    family = next((pp.person.family_folded for pp in paper.people if pp.role == "author"), "")
    values = paper_values(paper, latex=latex)
    cand = Candidate(
        paper.id,
        paper.citekey,
        paper.title,
        paper.year,
        family,
        values,
        {t.name_folded for t in paper.tags},
        batch_id=paper.batch_id,
        authors=authors,
        editors=editors,
    )
    if Version.of_values(values).preprint:
        cand.before = paper_snapshot(paper)
    return cand


def load_candidates(
    session: Session,
    prepared: Sequence[Prepared],
    index: Index,
    known: dict[int, Candidate] | None = None,
) -> None:
    """Fill ``index`` with existing papers sharing an identifier, title or abstract key.

    One ``IN (...)`` query per column and :data:`CHUNK` values; the matching papers
    are then loaded with their people and tags (never one query per record). A paper
    of ``known`` (id -> Candidate, the fuzzy pool) is indexed as that same object, so
    what one merge filled is seen by the next.

    A paper sharing only a title key is loaded when its year is close
    (``dedupe.years_close``) to that of a record with that key: :func:`veto` rejects
    the others, so :meth:`Index.match` never takes them. A generic title matches
    papers of every year ("Reviews": 1,431 of the first 100,000 Beebe entries, over
    58 years); loading them all with their people for every chunk that held one such
    title made the import's CPU per entry grow with the library (issue 17, session 8).
    """
    dois = {p.record.doi for p in prepared if p.record.doi}
    arxivs = {p.record.arxiv for p in prepared if p.record.arxiv}
    title_years: dict[str, set[int | None]] = defaultdict(set)
    for p in prepared:
        if p.tkey and not p.record.title_provisional:
            title_years[p.tkey].add(p.record.year)
    akeys = {p.akey for p in prepared if p.akey}
    ckeys = {p.record.citekey.lower() for p in prepared if p.record.citekey}
    ids: set[int] = set()
    for column, values in (
        (Paper.citekey_folded, ckeys),
        (Paper.doi, dois),
        (Paper.arxiv, arxivs),
        (Paper.abstract_key, akeys),
    ):
        for chunk in _chunks(values):
            ids.update(session.scalars(select(Paper.id).where(column.in_(chunk))))
    for chunk in _chunks(title_years):
        rows = session.execute(
            select(Paper.id, Paper.title_key, Paper.year).where(Paper.title_key.in_(chunk))
        )
        for paper_id, tkey, year in rows:
            if any(dedupe.years_close(wanted, year) for wanted in title_years[tkey]):
                ids.add(paper_id)
    if not ids:
        return
    known = known if known is not None else {}
    papers = load_papers(session, sorted(ids))
    latex = latex_paper_ids(session, [p for p in papers if p.id not in known])
    for paper in papers:
        cand = known.get(paper.id) or candidate_of(paper, latex=paper.id in latex)
        index.add(
            cand, paper.doi, paper.arxiv, paper.title_key, paper.abstract_key, [paper.citekey]
        )


def _chunks(values: Iterable[str]) -> Iterable[list[str]]:
    """The non-empty ``values``, sorted, in lists of at most :data:`CHUNK`."""
    ordered = sorted(v for v in values if v)
    for start in range(0, len(ordered), CHUNK):
        yield ordered[start : start + CHUNK]


def merge_into(dup: Candidate, record: PaperRecord) -> MergePlan:
    """Plan the merge of ``record`` into ``dup`` (:func:`plan_merge`, the one merge rule)
    and apply it to ``dup``'s values and people (its insert row for a paper of this
    import, with the title and abstract keys that follow)."""
    plan = plan_merge(dup.values, dup.authors, dup.editors, record)
    changed = derived_values(plan.values)
    if dup.pending is not None and changed:
        # As :func:`apply_merges` does for a stored paper: merged data is no longer
        # the source text's, whichever chunk of the import the paper came from.
        changed["source_digest"] = None
    if dup.pending is not None and (changed or plan.people):
        changed["source_intact"] = None  # migration 0005
    dup.values.update(changed if dup.pending is not None else plan.values)
    if "title" in plan.values:
        dup.title = plan.values["title"]
    dup.authors = plan.people.get("authors", dup.authors)
    dup.editors = plan.people.get("editors", dup.editors)
    if plan.people.get("authors"):
        dup.family = dedupe.first_family(record)
    return plan


def apply_merges(session: Session, merged: dict[int, tuple[Candidate, set[str]]]) -> None:
    """Write the columns an import changed in existing papers (``merged``: paper id ->
    (candidate, changed column names)), with the title and abstract keys that follow
    and ``updated_at``; the people they took are linked by the caller.

    One ``executemany`` UPDATE per set of changed columns (a 2,000-paper merge is a
    handful of statements, not 2,000).
    """
    now = utcnow()
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for paper_id, (cand, names) in merged.items():
        if not names:
            continue
        values = derived_values({name: cand.values[name] for name in names})
        values["source_digest"] = None
        values["source_intact"] = None  # sources_changed, in the same statement
        values["updated_at"] = now
        groups[tuple(sorted(values))].append(
            {"b_id": paper_id, **{f"b_{k}": v for k, v in values.items()}}
        )
    update_many(session, groups)


def choose_key(
    record: PaperRecord,
    keys: KeyRegistry,
    problems: list[ParseProblem],
    source: str,
    base: str | None = None,
) -> str:
    """Return a free citation key for a new paper and claim it in ``keys``.

    The record's own key when BibTeX can use it and no paper or alias has it, else
    ``base`` (or the record's generated base key, ``citekeys.base_key``) made unique
    with ``a``, ``b``, ... suffixes (``citekeys.unique_key``). A key given but not
    used adds a warning to ``problems`` (``source`` and the record's line name it).
    """
    given = record.citekey if record.citekey and citekeys.is_valid_key(record.citekey) else None
    base = base or given or citekeys.base_key(record)
    key = citekeys.unique_key(base, lambda folded: keys.taken(folded, base))
    if given and key != given:
        problems.append(
            ParseProblem(
                f"citation key {given!r} is already used by another paper; imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    elif record.citekey and citekeys.looks_like_option(record.citekey):
        problems.append(
            ParseProblem(
                f"citation key {record.citekey!r} looks like a command-line option; "
                f"imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    elif record.citekey and not given:
        problems.append(
            ParseProblem(
                f"citation key {record.citekey!r} is not usable ({citekeys.KEY_RULE}); "
                f"imported as {key!r}",
                source,
                record.line,
                "warning",
            )
        )
    if not given and (why := citekeys.key_fallback(record)):
        problems.append(
            ParseProblem(f"key {key!r} generated with {why}", source, record.line, "warning")
        )
    keys.claim(key)
    return key


@dataclass
class Found:
    """What tolerant matching found for one record: the paper to merge into (or None)
    with its evidence, weaker candidates, and vetoed look-alikes with the reason."""

    merge: Candidate | None = None
    evidence: str = ""
    score: float = 0.0
    candidates: list[tuple[Candidate, dedupe.Evidence]] = field(default_factory=list)
    vetoed: list[tuple[Candidate, str]] = field(default_factory=list)


class Pool:
    """Papers tolerant matching may complete, indexed by abstract 3-grams and title words
    (``dedupe.AbstractIndex``, ``dedupe.TitleIndex``: rapidfuzz scores, no O(n*m) loop).

    An import's pool holds the library's incomplete papers (a provisional title or
    key); :func:`match_records` uses the papers a query selected.
    """

    def __init__(self) -> None:
        self.abstracts = dedupe.AbstractIndex()
        self.titles = dedupe.TitleIndex()
        self.cands: dict[int, Candidate] = {}
        #: Paper id -> its stored ``abstract_key`` (``dedupe.abstract_key`` of its
        #: abstract), for the papers added with it.
        self.akeys: dict[int, str | None] = {}

    def add(self, cand: Candidate, abstract: str | None, akey: str | None = None) -> None:
        """Offer ``cand`` (a stored paper) with its abstract and, when real, its title;
        ``akey``: the paper's stored ``abstract_key`` (kept in :attr:`akeys`)."""
        if cand.paper_id is None:
            return
        self.cands[cand.paper_id] = cand
        if akey is not None:
            self.akeys[cand.paper_id] = akey
        if abstract:
            self.abstracts.add(cand.paper_id, search_tokens(abstract))
        if cand.title and not cand.values.get("title_provisional"):
            self.titles.add(cand.paper_id, title_key(cand.title))

    def remove(self, paper_id: int | None) -> None:
        """Stop offering a paper (it took its source record)."""
        if paper_id is not None and self.cands.pop(paper_id, None) is not None:
            self.akeys.pop(paper_id, None)
            self.abstracts.discard(paper_id)
            self.titles.discard(paper_id)

    def find(
        self,
        record: PaperRecord,
        words: Sequence[str],
        tkey: str | None,
        exclude: int | None = None,
    ) -> Found:
        """Match ``record`` (its abstract's folded ``words``, its title key) against the
        pool (``exclude``: a paper id never returned, the record's own paper)."""
        found = Found()
        family = dedupe.first_family(record)
        hits: list[tuple[Hashable, dedupe.Evidence]] = []
        if words:
            hits.extend(self.abstracts.query(words))
        if tkey and not record.title_provisional:
            for ident, ratio in self.titles.query(tkey):
                cand = self.cands.get(int(str(ident)))
                same_people = bool(family) and family == (cand.family if cand else "")
                close = cand is not None and dedupe.years_close(record.year, cand.year)
                if ratio >= dedupe.TITLE_NEAR and same_people and close:
                    text = f"same title, {ratio:.0f}% similar, same first author and year"
                    hits.append((ident, dedupe.Evidence("merge", ratio, text)))
                else:
                    text = f"similar title, {ratio:.0f}%"
                    hits.append((ident, dedupe.Evidence("candidate", ratio, text)))
        hits.sort(key=lambda hit: (hit[1].kind != "merge", -hit[1].score))
        seen: set[int] = set()
        for ident, evidence in hits:
            cand = self.cands.get(int(str(ident)))
            if cand is None or cand.paper_id in seen or cand.paper_id == exclude:
                continue
            seen.add(int(str(ident)))
            reason = veto(cand, record, family)
            if reason is None and evidence.kind == "merge":
                evidence = _version_evidence(cand, record, evidence)
            if reason is not None:
                found.vetoed.append((cand, reason))
            elif evidence.kind == "merge" and found.merge is None:
                found.merge, found.evidence, found.score = cand, evidence.text, evidence.score
            else:
                found.candidates.append((cand, evidence))
        return found


def _version_evidence(
    cand: Candidate, record: PaperRecord, evidence: dedupe.Evidence
) -> dedupe.Evidence:
    """The evidence of a merge into a complete paper (a preprint meeting its published
    version, perhaps retitled): the same authors in the same order (initials and a list
    cut short allowed, ``versions.people_agree``) besides the abstract or title; without
    them, a candidate only (``duplicates`` offers it). A provisional paper (from a list
    of abstracts, no authors) keeps the evidence as it is."""
    if cand.values.get("title_provisional") or cand.values.get("citekey_provisional"):
        return evidence
    if not versions.people_agree(cand.authors, record.authors):
        return dedupe.Evidence("candidate", evidence.score, f"{evidence.text}, other authors")
    ratio = fuzz.token_set_ratio(title_key(cand.title or ""), title_key(record.title or ""))
    return dedupe.Evidence(
        "merge", evidence.score, f"{evidence.text}, same authors, related title ({ratio:.0f}%)"
    )


def load_pool(session: Session, paper_ids: Sequence[int] | None = None) -> Pool:
    """The :class:`Pool` of ``paper_ids``, or of every paper with a provisional title
    or key (the papers an incoming bibliography may complete)."""
    if paper_ids is None:
        paper_ids = list(
            session.scalars(
                select(Paper.id).where(
                    (Paper.title_provisional == true()) | (Paper.citekey_provisional == true())
                )
            )
        )
    pool = Pool()
    extend_pool(session, pool, paper_ids)
    return pool


def extend_pool(session: Session, pool: Pool, paper_ids: Sequence[int]) -> None:
    """Add the papers ``paper_ids`` (not in it yet) to ``pool``."""
    wanted = [i for i in paper_ids if i not in pool.cands]
    papers = load_papers(session, wanted)
    for paper, cand in zip(papers, candidates_of(session, papers), strict=True):
        pool.add(cand, paper.abstract, paper.abstract_key)


#: At most this many complete papers are offered to a list of abstracts imported after
#: its bibliography (the most recently added of its years).
LIST_POOL_LIMIT = 20_000


def complete_papers_for(session: Session, years: set[int | None]) -> list[int]:
    """Ids of papers with an abstract from ``years`` (any year when None is among them),
    newest first, at most :data:`LIST_POOL_LIMIT`: what a pasted list of abstracts,
    imported after the bibliography that holds its papers, is matched against."""
    stmt = select(Paper.id).where(Paper.abstract.is_not(None))
    known = sorted(y for y in years if y is not None)
    if None not in years and known:
        stmt = stmt.where(Paper.year.in_([y + d for y in known for d in (-1, 0, 1)]))
    stmt = stmt.order_by(Paper.id.desc()).limit(LIST_POOL_LIMIT)
    return list(session.scalars(stmt))
