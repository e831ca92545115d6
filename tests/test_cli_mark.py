"""``mark`` and ``priority``: read status with its history, priority; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from helpers import seed, show

from readinglist.records import PaperRecord, Person

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def paper(key: str, title: str, **extra: Any) -> PaperRecord:
    """A small record with a fixed key."""
    return PaperRecord(citekey=key, title=title, authors=(Person("Doe", "Jane"),), **extra)


def three(db_url: str) -> None:
    seed(
        db_url,
        paper("spar2026", "Support-Preserving Action Rectification", year=2026),
        paper("safeseek2026", "SafeSeek: Safety Circuits", year=2026),
        paper("ns:gsfixer", "GSFixer: Sparse-View 3DGS", year=2025),
    )


def test_mark_records_each_change_with_its_time(invoke, db_url) -> None:
    three(db_url)
    start = datetime.now(UTC).replace(microsecond=0)
    result = invoke("mark", "to-read", "spar2026", "safeseek2026")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "marked 2 papers to-read\n")
    result = invoke("mark", "read", "spar2026")
    assert (result.exit_code, result.stderr) == (0, "marked 1 paper read\n")
    data = show(invoke, "spar2026")
    assert data["status"] == "read"
    history = data["history"]
    assert [(h["from"], h["to"]) for h in history] == [("new", "to-read"), ("to-read", "read")]
    for event in history:
        assert ISO.match(event["at"])
        assert datetime.fromisoformat(event["at"]) >= start
    assert data["read_at"] == history[-1]["at"]
    assert show(invoke, "safeseek2026")["read_at"] is None
    human = invoke("show", "spar2026").stdout
    assert f"{history[0]['at']}  new -> to-read" in human
    assert f"{history[1]['at']}  to-read -> read" in human


def test_leaving_read_clears_the_read_date(invoke, db_url) -> None:
    three(db_url)
    assert invoke("mark", "read", "spar2026").exit_code == 0
    assert invoke("mark", "reading", "spar2026").exit_code == 0
    data = show(invoke, "spar2026")
    assert (data["status"], data["read_at"]) == ("reading", None)
    assert [h["to"] for h in data["history"]] == ["read", "reading"]


def test_mark_unknown_ref_changes_nothing_and_exits_3(invoke, db_url) -> None:
    three(db_url)
    result = invoke("mark", "read", "spar2026", "nosuch2020", "safeseek2026")
    assert result.exit_code == 3
    assert result.stderr == "Error: no paper with citation key 'nosuch2020'; nothing changed\n"
    assert show(invoke, "spar2026")["status"] == "new"
    assert show(invoke, "spar2026")["history"] == []


def test_mark_counts_papers_already_there_and_json(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "skipped", "spar2026")
    result = invoke("mark", "skipped", "spar2026", "ns:gsfixer", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"changed": ["ns:gsfixer"], "unchanged": ["spar2026"]}
    assert result.stderr == "marked 1 paper skipped (1 already skipped)\n"
    # A second mark to the same status records nothing new.
    assert [h["to"] for h in show(invoke, "spar2026")["history"]] == ["skipped"]


def test_a_ref_with_a_colon_is_a_key_and_aliases_resolve(invoke, db_url) -> None:
    three(db_url)
    assert invoke("rekey", "spar2026", "zhang2026spar").exit_code == 0
    result = invoke("mark", "reading", "NS:GSFIXER", "spar2026")
    assert (result.exit_code, result.stderr) == (0, "marked 2 papers reading\n")
    assert show(invoke, "zhang2026spar")["status"] == "reading"
    assert show(invoke, "ns:gsfixer")["status"] == "reading"


def test_mark_needs_refs_or_a_query(invoke, db_url) -> None:
    three(db_url)
    result = invoke("mark", "read")
    assert result.exit_code == 2
    assert result.stderr == ("Error: give at least one REF (citation key or alias) or -q QUERY\n")
    result = invoke("mark", "read", "spar2026", "-q", "status:new")
    assert (result.exit_code, result.stderr) == (2, "Error: give REFs or -q QUERY, not both\n")
    result = invoke("mark", "read", "-q", " ")
    assert result.exit_code == 2
    result = invoke("mark", "done", "spar2026")
    assert result.exit_code == 2
    assert "'done' is not one of 'new', 'to-read', 'reading', 'read', 'skipped'" in result.stderr


def test_mark_by_query(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "to-read", "spar2026")
    result = invoke("mark", "skipped", "-q", "status:new")
    assert (result.exit_code, result.stderr) == (0, "marked 2 papers skipped\n")
    statuses = {p["key"]: p["status"] for p in json.loads(invoke("list", "--json").stdout)}
    assert statuses == {"spar2026": "to-read", "safeseek2026": "skipped", "ns:gsfixer": "skipped"}
    result = invoke("mark", "read", "-q", "status:reading")
    assert (result.exit_code, result.stderr) == (
        0,
        "no paper matches the query; nothing changed\n",
    )


def test_priority_levels(invoke, db_url) -> None:
    three(db_url)
    result = invoke("priority", "high", "spar2026", "safeseek2026")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "set 2 papers to priority high\n",
    )
    assert invoke("priority", "low", "safeseek2026").exit_code == 0
    listed = {p["key"]: p["priority"] for p in json.loads(invoke("list", "--json").stdout)}
    assert listed == {"spar2026": "high", "safeseek2026": "low", "ns:gsfixer": None}
    result = invoke("priority", "none", "spar2026", "ns:gsfixer", "--json")
    assert json.loads(result.stdout) == {"changed": ["spar2026"], "unchanged": ["ns:gsfixer"]}
    assert result.stderr == "cleared the priority of 1 paper (1 had none)\n"
    assert show(invoke, "spar2026")["priority"] is None


def test_priority_is_stored_as_its_code(db_url, invoke) -> None:
    from sqlalchemy import text

    from readinglist import db

    three(db_url)
    invoke("priority", "medium", "spar2026")
    engine = db.make_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT p.citekey, d.priority FROM papers p LEFT JOIN decisions d "
                "ON d.paper_id = p.id ORDER BY p.id"
            )
        ).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [
        ("spar2026", 2),
        ("safeseek2026", None),
        ("ns:gsfixer", None),
    ]


def test_priority_errors(invoke, db_url) -> None:
    three(db_url)
    result = invoke("priority", "high", "spar2026", "nope")
    assert (result.exit_code, result.stderr) == (
        3,
        "Error: no paper with citation key 'nope'; nothing changed\n",
    )
    assert show(invoke, "spar2026")["priority"] is None
    result = invoke("priority", "urgent", "spar2026")
    assert result.exit_code == 2


def test_priority_by_query(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "x", "spar2026", "ns:gsfixer")
    result = invoke("priority", "medium", "-q", "tag:x")
    assert (result.exit_code, result.stderr) == (0, "set 2 papers to priority medium\n")
    listed = {p["key"]: p["priority"] for p in json.loads(invoke("list", "--json").stdout)}
    assert listed == {"spar2026": "medium", "safeseek2026": None, "ns:gsfixer": "medium"}
