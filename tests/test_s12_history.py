"""One rule for "the merge history already holds this value": ``merging.history_key``.

``write_conflicts`` (a ``merge``, an import's rows) and ``versioning.new_history`` (an
import's candidate) apply the same identity: a field and its value, a version by kind and
key wherever it was read, the raw form not counting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from readinglist import db
from readinglist.library.matching import Candidate
from readinglist.library.merging import RawValue, conflict_rows, write_conflicts
from readinglist.library.versioning import new_history
from readinglist.models import MergeConflict, Paper
from readinglist.versions import VERSION_FIELD


def _paper(invoke: Any, tmp_path: Path) -> None:
    bib = tmp_path / "one.bib"
    bib.write_text("@article{a1, title={One}, author={Ada Lovelace}, year={2020}}\n")
    assert invoke("import", str(bib)).exit_code == 0


def _version(where: str) -> dict[str, Any]:
    return {
        "kind": "preprint",
        "key": "a1",
        "venue": "arXiv:2001.00001",
        "year": 2020,
        "where": where,
    }


def test_write_conflicts_keeps_one_row_per_version_wherever_read(
    invoke: Any, db_url: str, tmp_path: Path
) -> None:
    _paper(invoke, tmp_path)
    engine = db.make_engine(db_url)
    try:
        with db.session_scope(engine) as session:
            pid = session.scalar(select(Paper.id))
            first = conflict_rows(pid, [(VERSION_FIELD, _version("a.bib:1"))], "a.bib")
            again = conflict_rows(pid, [(VERSION_FIELD, _version("b.bib:7"))], "b.bib")
            raw = conflict_rows(pid, [("title", RawValue("Two", {"title": "{T}wo"}))], "a.bib")
            same = conflict_rows(pid, [("title", RawValue("Two", {"title": "Two"}))], "b.bib")
            assert len(write_conflicts(session, first + raw)) == 2
            assert write_conflicts(session, again + same) == []
            count = session.scalar(select(func.count()).select_from(MergeConflict))
        assert count == 2
    finally:
        engine.dispose()


def test_new_history_and_write_conflicts_agree() -> None:
    cand = Candidate(paper_id=None, key="a1", title="One", year=2020, family="lovelace", values={})
    rows = [(VERSION_FIELD, _version("a.bib:1")), (VERSION_FIELD, _version("b.bib:2"))]
    assert new_history(cand, rows) == rows[:1]
    assert new_history(cand, [("title", RawValue("Two", {"title": "{T}wo"}))]) != []
    assert new_history(cand, [("title", RawValue("Two", {"title": "Two"}))]) == []
