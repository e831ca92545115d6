"""The one merge rule: what a paper takes from another record of the same paper (issue 13).

:func:`plan_merge` decides, on plain values, for the import merge
(``library.importing``), ``merge`` (``library.papers.merge_papers``) and ``resolve``
(``library.completing.complete_papers``) alike:

* everything the paper lacks is filled: the columns of ``records.FILLABLE``, authors
  and editors, the entry type (for ``misc``) and every ``fields`` entry (pages,
  volume, number, publisher, series, address, ISSN, note, file links ...);
* a provisional title (made up from an abstract) is replaced by a real one, even one
  equal up to case; the user's title, status, priority, tags and notes are never
  touched (they are not merge data);
* when the paper was provisional, the source's venue, month and URL
  (``records.REPLACED_WHEN_PROVISIONAL``) replace the list's (the header's "ICML" by
  the proceedings' full name);
* a value both have, different, stays the paper's; the other is reported and kept in
  the merge history (``models.MergeConflict``), so ``merge --take REF FIELD`` takes it;
* a provisional citation key is replaced by the source's (or a generated one), the old
  key staying an alias (``real`` in the plan; the caller renames).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, object_session

from readinglist import citekeys, dedupe
from readinglist.library import hooks as _hooks  # noqa: F401  (the ORM flush hooks)
from readinglist.library._sql import CHUNK
from readinglist.library.refs import follow_crossrefs, key_taken
from readinglist.library.rows import insert_people, person_key, person_record, record_values
from readinglist.library.search import refresh_search_text
from readinglist.library.snapshots import HIDDEN_FIELDS
from readinglist.models import (
    Alias,
    ImportBatch,
    MergeConflict,
    NotDuplicate,
    Paper,
    utcnow,
)
from readinglist.records import (
    COLUMN_FIELDS,
    FILLABLE,
    REPLACED_WHEN_PROVISIONAL,
    PaperRecord,
    Person,
)
from readinglist.text import title_key
from readinglist.versions import USER_TITLE_FIELD, VERSION_FIELD, Version, complete_people

#: Columns a published version replaces in a preprint (``MergePlan.supersede``),
#: besides the title, entry type, people and fields; the old value goes to the history.
SUPERSEDED: tuple[str, ...] = ("year", "month", "venue", "doi", "url", "abstract")
#: Fields only a preprint has, dropped (kept in the history) when it is superseded.
PREPRINT_FIELDS: tuple[str, ...] = ("howpublished", "copyright")

#: ``fields`` name -> the column whose raw form it holds (inverse of COLUMN_FIELDS).
_MIRRORS: dict[str, str] = {f: col for col, names in COLUMN_FIELDS.items() for f in names}


@dataclass
class MergePlan:
    """What a merge changes: ``values`` (columns to write, ``fields`` included),
    ``people`` (role list name -> people to link, for roles the paper had none of),
    ``filled`` (names for the report), ``conflicts`` (name, other value as JSON data)
    and ``real`` (the paper was provisional and the source brings real data)."""

    values: dict[str, Any] = field(default_factory=dict)
    people: dict[str, tuple[Person, ...]] = field(default_factory=dict)
    filled: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, Any]] = field(default_factory=list)
    real: bool = False
    #: The paper is a preprint and the record its published version (``versions``): the
    #: record's bibliographic data replaces the paper's, the old values go to the history.
    supersede: bool = False
    #: Whether the paper's fields are LaTeX (it has a BibTeX source), from ``values``.
    target_latex: bool = True


def brings_real_data(record: PaperRecord) -> bool:
    """True when ``record`` has a real title (not made up) or authors."""
    return bool(record.title and not record.title_provisional) or any(
        not p.is_others for p in record.authors
    )


def plan_merge(
    values: dict[str, Any],
    authors: Sequence[Person],
    editors: Sequence[Person],
    record: PaperRecord,
) -> MergePlan:
    """Decide what a paper takes from ``record`` (the rules in the module docstring).

    Args:
        values: the paper's columns of ``records.FILLABLE`` plus ``title_provisional``,
            ``entry_type``, ``fields``, ``citekey_provisional`` and ``latex_fields``
            (its fields are LaTeX, :func:`holds_latex`; when absent, as for a paper of
            this import: it has a ``source_text``).
        authors, editors: the paper's people.
        record: the other record of the same paper (normalized).

    Returns:
        A :class:`MergePlan`; nothing is written here.
    """
    plan = MergePlan(
        target_latex=bool(values.get("latex_fields", values.get("source_text") is not None))
    )
    if plan.target_latex and not record.latex_fields:
        record = as_latex(record)
    provisional = bool(values.get("title_provisional") or values.get("citekey_provisional"))
    if is_echo(values, record):
        # Our own made-up title read back (an export of a provisional paper re-imported
        # without its provisional flag) is not a real one.
        record = replace(record, title_provisional=True)
    upgrading = provisional and brings_real_data(record)
    # A new key only when the source can give a better one: its own key, or authors.
    better_key = bool(record.citekey and citekeys.is_valid_key(record.citekey)) or any(
        not p.is_others for p in record.authors
    )
    plan.real = bool(values.get("citekey_provisional")) and upgrading and better_key
    plan.supersede = Version.of_values(values).preprint and Version.of_record(record).published
    taken: set[str] = set()
    _plan_title(values, record, plan, taken)
    incoming = record_values(record)
    for name in FILLABLE:
        if name == "title":
            continue
        have, new = values.get(name), incoming.get(name)
        if new in (None, "") or have == new:
            continue
        if have in (None, ""):
            plan.values[name] = new
        elif name == "keywords":
            union = list(dict.fromkeys([*_split(have), *_split(new)]))
            if len(union) == len(_split(have)):
                continue
            plan.values[name] = ", ".join(union)
        elif (upgrading and name in REPLACED_WHEN_PROVISIONAL) or (
            plan.supersede and name in SUPERSEDED
        ):
            plan.values[name] = new
            plan.conflicts.append((name, have))
        else:
            plan.conflicts.append((name, new))
            continue
        plan.filled.append(name)
        taken.add(name)
    entry_type = str(values.get("entry_type") or "misc")
    if record.entry_type not in ("", "misc", entry_type) and (
        entry_type == "misc" or upgrading or plan.supersede
    ):
        plan.values["entry_type"] = record.entry_type
        plan.filled.append("entry_type")
    for role, have_people in (("authors", authors), ("editors", editors)):
        _plan_people(role, tuple(have_people), tuple(getattr(record, role)), plan, taken)
    _plan_fields(dict(values.get("fields") or {}), record, plan, taken)
    return plan


def as_latex(record: PaperRecord) -> PaperRecord:
    """``record``, a record of plain text (RIS, CSL-JSON, a pasted list, an online
    answer), with its abstract and fields in the LaTeX form a BibTeX paper holds
    (:func:`readinglist.formats.bibtex.encode.latex_of_text`: escaped, never copied
    raw), so that a merge into such a paper never makes text LaTeX: an export copies
    the fields of a BibTeX paper as LaTeX when they are inert markup. A raw ``title`` is
    LaTeX already, whatever the source (a pasted title's math, CSL rich text), and stays
    as it is: exports write it only while it is inert and decodes to the title."""
    from readinglist.formats.bibtex.encode import latex_of_text

    fields = {
        name: value if name == "title" else latex_of_text(name, value)
        for name, value in record.fields.items()
    }
    abstract = None if record.abstract is None else latex_of_text("abstract", record.abstract)
    return replace(record, fields=fields, abstract=abstract, latex_fields=True)


def holds_latex(paper: Paper) -> bool:
    """Whether ``paper``'s fields and abstract are LaTeX: it has a BibTeX source text,
    or a BibTeX import added it (the rule ``library.rows`` applies to exports with
    ``bibtex_batch_ids``; ``PaperRecord.latex_fields``)."""
    if paper.source_text is not None:
        return True
    session = object_session(paper)
    if paper.batch_id is None or session is None:
        return False
    query = select(ImportBatch.format).where(ImportBatch.id == paper.batch_id)
    return bool(session.scalar(query) == "bibtex")


def _plan_people(
    role: str, have: tuple[Person, ...], new: tuple[Person, ...], plan: MergePlan, taken: set[str]
) -> None:
    """People: a role the paper lacks is filled; two lists of the same people
    (``versions.complete_people``: initials, a list cut short with "and others") become
    the fuller one; a published version's list replaces a preprint's; any other
    difference is a conflict (the new list goes to the merge history)."""
    if not new:
        return
    if not have:
        plan.people[role] = new
    else:
        same = [person_key(p) for p in have] == [person_key(p) for p in new]
        completed = None if same else complete_people(have, new)
        if same or completed == have:
            return
        if completed is not None:
            plan.people[role] = completed
        elif plan.supersede:
            plan.people[role] = new
            plan.conflicts.append((role, [asdict(p) for p in have]))
        else:
            plan.conflicts.append((role, [asdict(p) for p in new]))
            return
    plan.filled.append(role)
    taken.add(role)


def is_echo(values: dict[str, Any], record: PaperRecord) -> bool:
    """True when ``record`` brings back the paper's own provisional title, word for word
    (a title equal only up to case is a real one: "MuTual: A Dataset ..." replaces the
    made-up "MuTual: a dataset ...")."""
    have, new = values.get("title"), record.title
    return bool(
        values.get("title_provisional")
        and have
        and new
        and not any(not p.is_others for p in record.authors)
        and " ".join(have.split()) == " ".join(new.split())
    )


class RawValue(str):
    """A column value of a merge conflict that carries the raw source form of the column
    (``raw``: field name -> raw value, e.g. ``{"title": "The $\\ell_{1,p}$-Norm"}``), so
    that ``merge --take`` gives the column back with its LaTeX (issue 15: title math
    survives merges). It is the decoded text everywhere else; :func:`conflict_rows`
    stores ``raw`` beside the value."""

    raw: dict[str, str]

    def __new__(cls, value: str, raw: dict[str, str]) -> RawValue:
        made = super().__new__(cls, value)
        made.raw = raw
        return made


def _with_raw(name: str, value: str, fields: Any) -> str:
    """``value`` as a :class:`RawValue` when ``fields`` hold the raw form of column ``name``."""
    raw = {f: fields[f] for f in COLUMN_FIELDS.get(name, ()) if f in (fields or {})}
    return RawValue(value, raw) if raw else value


def _split(keywords: str) -> list[str]:
    return [k.strip() for k in keywords.split(",") if k.strip()]


def _plan_title(
    values: dict[str, Any], record: PaperRecord, plan: MergePlan, taken: set[str]
) -> None:
    have = values.get("title")
    if not record.title:
        return
    if not have:
        plan.values["title"] = record.title
        plan.values["title_provisional"] = record.title_provisional
    elif values.get("title_provisional") and not record.title_provisional:
        # A real title replaces a made-up one, even one equal up to case (issue 13:
        # "MuTual: a dataset for Multi-Turn dialogue Reasoning" stayed provisional).
        plan.values["title"] = record.title
        plan.values["title_provisional"] = False
    elif (
        plan.supersede
        and not record.title_provisional
        and not values.get("title_by_user")
        and have != record.title
    ):
        # The published title replaces a preprint's (a camera-ready retitled, or Google
        # Scholar's sentence case); a title the user set stays (``title_by_user``).
        plan.values["title"] = record.title
        plan.values["title_provisional"] = False
        plan.conflicts.append(("title", _with_raw("title", have, values.get("fields"))))
    else:
        if not record.title_provisional and title_key(have) != title_key(record.title):
            plan.conflicts.append(("title", _with_raw("title", record.title, record.fields)))
        return
    plan.filled.append("title")
    taken.add("title")


def _plan_fields(
    have: dict[str, Any], record: PaperRecord, plan: MergePlan, taken: set[str]
) -> None:
    """Fields: a column's raw form travels with the column; any other field the paper
    lacks is taken; a different value is a conflict."""
    new_fields = dict(have)
    for column in taken:
        for name in COLUMN_FIELDS.get(column, ()):
            if name not in record.fields:
                new_fields.pop(name, None)
    # A paper whose fields are plain text (it came from a list, RIS, CSL-JSON: no BibTeX
    # source) takes a BibTeX record's fields decoded, or its exports would print the
    # LaTeX as text (`pages = {1-{}-9}`, `M\{\"u\}nchen`). Raw forms of columns stay
    # LaTeX: they are read as such whatever the paper's provenance (writer.raw_as_is).
    decode = record.latex_fields and not plan.target_latex
    for name, value in record.fields.items():
        mirrored = _MIRRORS.get(name)
        if mirrored is not None:
            if mirrored in taken:
                new_fields[name] = value
            continue
        if decode:
            from readinglist.formats.bibtex.fields import decode_text

            value = decode_text(value)
        if name not in have:
            new_fields[name] = value
            plan.filled.append(name)
        elif have[name] != value and plan.supersede:
            new_fields[name] = value
            plan.filled.append(name)
            plan.conflicts.append((name, have[name]))
        elif have[name] != value:
            plan.conflicts.append((name, value))
    if plan.supersede:
        for name in PREPRINT_FIELDS:
            if name in new_fields and name not in record.fields:
                plan.conflicts.append((name, new_fields.pop(name)))
    if new_fields != have:
        plan.values["fields"] = new_fields


def paper_values(paper: Paper, *, latex: bool | None = None) -> dict[str, Any]:
    """The values :func:`plan_merge` reads of a stored paper (without ``title_by_user``:
    :func:`titles_by_user` or ``matching.load_history`` adds it). ``latex``: whether its
    fields are LaTeX, when the caller knows (:func:`latex_paper_ids`, one query for many
    papers); None asks :func:`holds_latex` (a query for a paper without a source text)."""
    values: dict[str, Any] = {name: getattr(paper, name) for name in FILLABLE}
    values["title_provisional"] = paper.title_provisional
    values["citekey_provisional"] = paper.citekey_provisional
    values["entry_type"] = paper.entry_type
    values["fields"] = dict(paper.fields or {})
    values["latex_fields"] = holds_latex(paper) if latex is None else latex
    return values


def latex_paper_ids(session: Session, papers: Sequence[Paper]) -> set[int]:
    """The ids of ``papers`` whose fields are LaTeX (:func:`holds_latex`'s rule), with one
    query per :data:`~readinglist.library._sql.CHUNK` import batches, not one per paper."""
    plain = [p for p in papers if p.source_text is None and p.batch_id is not None]
    batches = sorted({int(p.batch_id) for p in plain if p.batch_id is not None})
    bibtex: set[int] = set()
    for start in range(0, len(batches), CHUNK):
        chunk = batches[start : start + CHUNK]
        stmt = select(ImportBatch.id).where(
            ImportBatch.id.in_(chunk), ImportBatch.format == "bibtex"
        )
        bibtex.update(session.scalars(stmt))
    return {p.id for p in papers if p.source_text is not None} | {
        p.id for p in plain if p.batch_id in bibtex
    }


def titles_by_user(session: Session, paper_ids: Sequence[int]) -> set[int]:
    """The ids of ``paper_ids`` whose title is the user's: the merge history marks it
    (``versions.USER_TITLE_FIELD``, written by ``title`` and ``edit``), with
    one query per :data:`~readinglist.library._sql.CHUNK` papers."""
    ids = sorted(set(paper_ids))
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        stmt = select(MergeConflict.paper_id).where(
            MergeConflict.paper_id.in_(ids[start : start + CHUNK]),
            MergeConflict.field == USER_TITLE_FIELD,
        )
        found.update(session.scalars(stmt))
    return found


def derived_values(values: dict[str, Any]) -> dict[str, Any]:
    """Add to planned column ``values`` the keys that follow them (title and abstract keys)."""
    out = dict(values)
    if "title" in out:
        out["title_key"] = title_key(out["title"]) if out["title"] else None
    if "abstract" in out:
        out["abstract_key"] = dedupe.abstract_key(out["abstract"])
    return out


def conflict_rows(
    paper_id: int, conflicts: Iterable[tuple[str, Any]], source: str
) -> list[dict[str, Any]]:
    """The ``merge_conflicts`` rows of a plan's conflicts (a :class:`RawValue` also
    stores its raw form, under ``raw``)."""
    now = utcnow()
    return [
        {
            "paper_id": paper_id,
            "field": name,
            "value": (
                {"value": str(value), "raw": value.raw}
                if isinstance(value, RawValue)
                else {"value": value}
            ),
            "source": source,
            "at": now,
        }
        for name, value in conflicts
    ]


def history_key(name: str, value: Any) -> tuple[str, str]:
    """A merge-history row's identity: its field and its value as canonical JSON (of a
    version, ``VERSION_FIELD``: its kind and key, wherever it was read). ``value`` is the
    conflicting value itself (the stored row's ``value["value"]``); its raw form does not
    count. The one rule of "the history already holds this" (:func:`unseen_history`)."""
    if name == VERSION_FIELD and isinstance(value, dict):
        value = {"kind": value.get("kind"), "key": value.get("key")}
    return name, json.dumps(value, sort_keys=True, default=str)


def unseen_history(
    held: set[tuple[str, str]], rows: Iterable[tuple[str, Any]]
) -> list[tuple[str, Any]]:
    """The (field, value) ``rows`` whose :func:`history_key` neither ``held`` (one paper's
    history) nor an earlier row holds, in order; their keys are added to ``held``."""
    fresh = []
    for name, value in rows:
        key = history_key(name, value)
        if key not in held:
            held.add(key)
            fresh.append((name, value))
    return fresh


def write_conflicts(session: Session, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Insert the ``merge_conflicts`` rows the history does not hold yet (one executemany);
    return them. A value the history already holds for a paper's field
    (:func:`unseen_history`) is not added again, so importing the same data twice leaves
    the history as the first import left it (a re-import changes nothing)."""
    fresh = _new_conflicts(session, rows)
    if fresh:
        session.execute(insert(MergeConflict), fresh)
    return fresh


def _new_conflicts(session: Session, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``rows`` whose (field, value) neither their paper's history nor an earlier row
    holds (:func:`unseen_history`)."""
    ids = sorted({row["paper_id"] for row in rows})
    held: dict[int, set[tuple[str, str]]] = {paper_id: set() for paper_id in ids}
    table = MergeConflict.__table__
    for start in range(0, len(ids), 500):
        stored = session.execute(
            select(table.c.paper_id, table.c.field, table.c.value).where(
                table.c.paper_id.in_(ids[start : start + 500])
            )
        )
        for paper_id, name, value in stored:
            held[paper_id].add(history_key(name, (value or {}).get("value")))
    return [
        row
        for row in rows
        if unseen_history(held[row["paper_id"]], [(row["field"], row["value"].get("value"))])
    ]


def real_key(
    session: Session,
    paper: Paper,
    record: PaperRecord,
    *,
    taken: Callable[[str, str], bool] | None = None,
    own: set[str] | None = None,
) -> str:
    """The key a provisional paper takes from ``record``: the record's own when usable
    and free (or already this paper's alias), else one generated from the completed
    paper's authors, year and title (made unique). ``taken(folded, base)`` says whether a
    folded key (``base`` or a suffixed form of it) is used (default
    :func:`~readinglist.library.refs.key_taken`; a batch passes its
    ``refs.KeyRegistry``, which knows the keys the batch gave); ``own``: the paper's
    folded aliases when the caller read them (default: ``paper.aliases``)."""
    used = taken or (lambda folded, _base: key_taken(session, folded))
    mine = own if own is not None else {a.alias_folded for a in paper.aliases}
    given = record.citekey
    if given and citekeys.is_valid_key(given):
        folded = given.lower()
        if folded in mine or folded == paper.citekey_folded or not used(folded, given):
            return given
    completed = replace(
        record,
        title=paper.title,
        year=paper.year,
        authors=tuple(person_record(pp.person) for pp in paper.people if pp.role == "author"),
    )
    base = citekeys.base_key(completed)
    return citekeys.unique_key(
        base, lambda k: k != paper.citekey_folded and k not in mine and used(k, base)
    )


def adopt_key(session: Session, paper: Paper, new_key: str) -> str | None:
    """Give ``paper`` the real key ``new_key``; the old key becomes an alias. Returns the
    old key (None when unchanged)."""
    old, folded = paper.citekey, new_key.lower()
    paper.citekey_provisional = False
    if folded == paper.citekey_folded:
        return None
    session.execute(delete(Alias).where(Alias.alias_folded == folded))
    session.add(Alias(alias=old, alias_folded=paper.citekey_folded, paper_id=paper.id))
    paper.citekey, paper.citekey_folded = new_key, folded
    session.flush()
    follow_crossrefs(session, {old: new_key})
    return old


def take_conflict(session: Session, paper: Paper, name: str) -> Any:
    """Take the latest value of ``name`` the merge history holds for ``paper``
    (``merge --take REF FIELD``); the paper's value goes to the history instead, so
    nothing is lost. Returns the value taken. Raises NotFound when the history holds
    no value of ``name`` for the paper.
    """
    from readinglist.errors import NotFound

    row = session.scalars(
        select(MergeConflict)
        .where(
            MergeConflict.paper_id == paper.id,
            MergeConflict.field == name,
            MergeConflict.field.not_in(HIDDEN_FIELDS),
        )
        .order_by(MergeConflict.id.desc())
    ).first()
    if row is None:
        raise NotFound(f"no other value of {name!r} is kept for {paper.citekey!r}")
    value = row.value.get("value")
    if name in ("authors", "editors"):
        role = name[:-1]
        old: Any = [asdict(person_record(pp.person)) for pp in paper.people if pp.role == role]
        for link in [pp for pp in paper.people if pp.role == role]:
            paper.people.remove(link)
        session.flush()
        people = tuple(Person(**p) for p in value or ())
        insert_people(session, [PaperRecord(**{name: people})], [paper.id])  # type: ignore[arg-type]
        session.expire(paper, ["people"])
    elif name in FILLABLE:
        old = getattr(paper, name)
        if name == "title" and old:
            old = _with_raw(name, old, paper.fields)
        for column, new in derived_values({name: value}).items():
            setattr(paper, column, new)
        _take_raw(paper, name, row.value.get("raw") or {})
        if name == "title":
            paper.title_provisional = False
    else:
        fields = dict(paper.fields or {})
        old = fields.get(name)
        fields[name] = value
        paper.fields = fields
    session.delete(row)
    paper.source_digest = None
    paper.updated_at = utcnow()
    session.flush()
    if old not in (None, "", []):
        write_conflicts(session, conflict_rows(paper.id, [(name, old)], "taken over"))
    refresh_search_text(session, [paper.id])
    return value


def _take_raw(paper: Paper, name: str, raw: dict[str, str]) -> None:
    """Replace the raw forms of column ``name`` in the paper's fields by ``raw`` (those a
    taken value brought; none: the old ones no longer match the column)."""
    mirrors = COLUMN_FIELDS.get(name, ())
    fields = {k: v for k, v in (paper.fields or {}).items() if k not in mirrors}
    fields.update({k: v for k, v in raw.items() if k in mirrors})
    if fields != (paper.fields or {}):
        paper.fields = fields


def adopt_source_keys(session: Session, papers: Sequence[Paper]) -> list[tuple[str, str]]:
    """Give every paper of ``papers`` whose key is provisional a real key (``rekey
    --source``): the key a merged source brought (an alias: a provisional paper gets
    aliases only from merges), else one generated from its authors, year and title;
    the old key stays an alias. Papers with a real key are left alone. Returns
    (old, new) per paper renamed.
    """
    renamed: list[tuple[str, str]] = []
    for paper in papers:
        if not paper.citekey_provisional:
            continue
        sources = sorted(
            (a.alias for a in paper.aliases if citekeys.is_valid_key(a.alias)), key=str.lower
        )
        record = PaperRecord(citekey=sources[0] if sources else None)
        old = adopt_key(session, paper, real_key(session, paper, record))
        if old is not None:
            renamed.append((old, paper.citekey))
    return renamed


def conflicts_of(session: Session, paper: Paper) -> list[tuple[str, Any, str]]:
    """The other values the merge history keeps for ``paper``: (field, value, source),
    oldest first."""
    rows = session.scalars(
        select(MergeConflict)
        .where(
            MergeConflict.paper_id == paper.id,
            MergeConflict.field.not_in(HIDDEN_FIELDS),
        )
        .order_by(MergeConflict.id)
    )
    return [(r.field, r.value.get("value"), r.source) for r in rows]


def are_not_duplicates(session: Session, a: int, b: int) -> bool:
    """True when the user said papers ``a`` and ``b`` (ids) are different
    (``readinglist not-duplicate``): ``duplicates`` never offers the pair, and ``merge``
    refuses it without ``--force`` (``library.papers.merge_papers``)."""
    low, high = sorted((a, b))
    stmt = select(NotDuplicate.low_id).where(
        NotDuplicate.low_id == low, NotDuplicate.high_id == high
    )
    return session.scalar(stmt) is not None
