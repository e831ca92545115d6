"""Readers: each reader's own decisions in one library (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from helpers import run_sql, sql_value, sql_values
from test_cli_mark import three
from test_ranking import cache_dir_fixture, filled_fixture  # noqa: F401 (fixtures)


def statuses(invoke, *args: str) -> dict[str, str]:
    result = invoke(*args, "list", "--json")
    assert result.exit_code == 0, result.stderr
    return {p["key"]: p["status"] for p in json.loads(result.stdout)}


def test_each_reader_has_their_own_status(invoke, db_url) -> None:
    three(db_url)
    assert invoke("mark", "to-read", "spar2026").exit_code == 0
    result = invoke("--reader", "ana", "mark", "read", "spar2026", "safeseek2026")
    assert (result.exit_code, result.stderr) == (0, "new reader ana\nmarked 2 papers read\n")
    assert statuses(invoke) == {"spar2026": "to-read", "safeseek2026": "new", "ns:gsfixer": "new"}
    assert statuses(invoke, "--reader", "Ana") == {
        "spar2026": "read",
        "safeseek2026": "read",
        "ns:gsfixer": "new",
    }
    # a second write by ana creates nothing and says nothing of it
    result = invoke("--reader", "ana", "mark", "skipped", "ns:gsfixer")
    assert (result.exit_code, result.stderr) == (0, "marked 1 paper skipped\n")


def test_the_query_asks_about_other_readers(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "to-read", "spar2026", "safeseek2026")
    invoke("--reader", "ana", "mark", "reading", "spar2026")
    invoke("--reader", "bob", "mark", "skipped", "spar2026", "safeseek2026")

    def keys(query: str) -> list[str]:
        result = invoke("list", "-k", query)
        assert result.exit_code == 0, result.stderr
        return result.stdout.split()

    assert keys("status:reading@ana") == ["spar2026"]
    assert keys("status:new@ana") == ["safeseek2026", "ns:gsfixer"]
    assert keys("status:skipped@BOB") == ["spar2026", "safeseek2026"]
    assert keys("wanted-by:2") == ["spar2026"]
    assert keys("wanted-by:1..") == ["spar2026", "safeseek2026"]
    assert keys("wanted-by:0") == ["ns:gsfixer"]
    assert keys("status:to-read") == ["spar2026", "safeseek2026"]
    bad = invoke("list", "status:read@a b")
    assert bad.exit_code == 2


def test_an_unknown_reader_of_a_read_command_is_an_error(invoke, db_url) -> None:
    three(db_url)
    invoke("--reader", "ana", "mark", "read", "spar2026")
    result = invoke("--reader", "zoe", "list")
    assert result.exit_code == 3
    assert "no reader 'zoe'" in result.stderr
    assert "(readers: ana)" in result.stderr
    assert result.stdout == ""


def test_readers_lists_counts(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "to-read", "spar2026")
    invoke("--reader", "ana", "mark", "read", "spar2026", "safeseek2026")
    invoke("--reader", "ana", "mark", "skipped", "ns:gsfixer")
    rows = json.loads(invoke("readers", "--json").stdout)
    assert [(r["reader"], r["decided"], r["to-read"], r["read"], r["skipped"]) for r in rows] == [
        ("ana", 3, 0, 2, 1),
        ("default", 1, 1, 0, 0),
    ]
    assert all(r["created"].endswith("Z") for r in rows)
    table = invoke("readers").stdout.splitlines()
    assert table[0].split() == ["READER", "DECIDED", "TO-READ", "READING", "READ", "SKIPPED"]
    assert table[1].split() == ["ana", "3", "0", "0", "2", "1"]


def test_notes_are_private_unless_shared(invoke, db_url) -> None:
    three(db_url)
    assert invoke("--reader", "ana", "note", "add", "spar2026", "-m", "mine").exit_code == 0
    shared = invoke("--reader", "ana", "note", "add", "spar2026", "--shared", "-m", "ours")
    assert shared.stderr == "added shared note 2 to spar2026\n"
    mine = invoke("--reader", "ana", "show", "spar2026").stdout
    theirs = invoke("show", "spar2026").stdout
    assert "mine" in mine
    assert "ours" in mine
    assert "mine" not in theirs
    assert "ours" in theirs
    assert invoke("list", "-k", "has:notes").stdout.split() == ["spar2026"]
    # the words of a private note find the paper for its author only; a shared note's
    # for everyone
    invoke("--reader", "ana", "note", "add", "safeseek2026", "-m", "Secretzebra diagnosis")
    invoke("--reader", "ana", "note", "add", "ns:gsfixer", "--shared", "-m", "Openotter")
    assert invoke("--reader", "ana", "list", "-k", "secretzebra").stdout.split() == ["safeseek2026"]
    assert invoke("--reader", "ana", "list", "-k", "secretzeb*").stdout.split() == ["safeseek2026"]
    assert invoke("list", "-k", "secretzebra").stdout.split() == []
    assert invoke("list", "-k", "secretzeb*").stdout.split() == []
    assert invoke("list", "-k", "openotter").stdout.split() == ["ns:gsfixer"]
    # a shared note is changed or removed by its author only
    for args in (("edit", "2", "-m", "not ours"), ("rm", "2")):
        refused = invoke("note", *args)
        assert refused.exit_code == 4, args
        assert "only its author can" in refused.stderr
        assert "ours" in invoke("show", "spar2026").stdout
    assert invoke("--reader", "ana", "note", "edit", "2", "-m", "ours, edited").exit_code == 0
    assert invoke("--reader", "ana", "note", "rm", "2").exit_code == 0


def test_undo_is_per_reader(invoke, db_url) -> None:
    from readinglist import db, decided
    from readinglist.library import marks

    three(db_url)
    invoke("mark", "to-read", "spar2026")
    invoke("mark", "read", "spar2026")
    invoke("--reader", "ana", "mark", "skipped", "spar2026")
    invoke("--reader", "ana", "mark", "reading", "spar2026")
    engine = db.make_engine(db_url)
    try:
        decided.use(None)
        with db.session_scope(engine) as session:
            top = marks.last_undoable(session)
            assert top is not None
            assert top[2:] == ("to-read", "read")
            marks.undo_status(session, top[0])
        decided.use("ana")
        with db.session_scope(engine) as session:
            top = marks.last_undoable(session)
            assert top is not None
            assert top[2:] == ("skipped", "reading")
    finally:
        decided.use(None)
        engine.dispose()
    assert statuses(invoke)["spar2026"] == "to-read"
    assert statuses(invoke, "--reader", "ana")["spar2026"] == "reading"


def test_exports_write_one_readers_state_only_in_markdown(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "to-read", "spar2026")
    invoke("--reader", "ana", "mark", "skipped", "spar2026")
    invoke("--reader", "ana", "priority", "high", "spar2026")
    mine = invoke("export", "markdown").stdout
    anas = invoke("export", "markdown", "--reader", "ana").stdout
    assert "1 to read" in mine
    assert "1 skipped" in anas
    assert anas == invoke("--reader", "ana", "export", "markdown").stdout
    for fmt in ("bibtex", "ris", "csl-json"):
        assert (
            invoke("--reader", "ana", "export", fmt, "-o", "-").stdout
            == invoke("export", fmt, "-o", "-").stdout
        ), fmt
        refused = invoke("export", fmt, "--reader", "ana")
        assert refused.exit_code == 2, fmt


def test_a_kept_markdown_list_stays_its_readers_whoever_changes_the_library(
    invoke, db_url, tmp_path
) -> None:
    """A kept Markdown profile is refreshed after any reader's change, always with the
    decisions of the reader it was made for (a profile made before readers: the
    implicit reader's)."""
    three(db_url)
    anas, mine = tmp_path / "ana.md", tmp_path / "mine.md"
    invoke("--reader", "ana", "mark", "skipped", "spar2026")
    kept = invoke("export", "markdown", "--reader", "ana", "-o", str(anas), "--keep")
    assert kept.exit_code == 0, kept.stderr
    assert invoke("export", "markdown", "-o", str(mine), "--keep").exit_code == 0
    # the implicit reader's change refreshes ana's list: still ana's decisions
    assert invoke("mark", "to-read", "safeseek2026").exit_code == 0
    assert anas.read_text() == invoke("export", "markdown", "--reader", "ana").stdout
    assert "1 skipped" in anas.read_text()
    assert "to read" not in anas.read_text()
    # and ana's change refreshes the implicit reader's list with the implicit reader's
    assert invoke("--reader", "ana", "mark", "read", "ns:gsfixer").exit_code == 0
    assert mine.read_text() == invoke("export", "markdown").stdout
    assert "1 to read" in mine.read_text()


def test_a_reading_list_syncs_back_only_as_the_reader_it_was_written_for(
    invoke, db_url, tmp_path
) -> None:
    """The marker line names the reader whose decisions a list holds (``reader=``; none
    for the implicit reader); importing it as another reader is refused, nothing changed."""
    three(db_url)
    invoke("--reader", "bo", "mark", "to-read", "spar2026")
    bos = tmp_path / "bo.md"
    assert invoke("--reader", "bo", "export", "markdown", "-o", str(bos)).exit_code == 0
    first = bos.read_text().splitlines()[0]
    assert first.startswith("<!-- readinglist:markdown v")
    assert first.endswith(" reader=bo -->")
    bos.write_text(bos.read_text().replace("- [ ] ", "- [x] ", 1))
    before = statuses(invoke), invoke("readers", "--json").stdout
    refused = invoke("import", str(bos))
    assert refused.exit_code == 5
    assert f"{bos}:1: this reading list holds the decisions of reader 'bo'" in refused.stderr
    assert "import it with --reader bo" in refused.stderr
    assert (statuses(invoke), invoke("readers", "--json").stdout) == before
    synced = invoke("--reader", "bo", "import", str(bos))
    assert synced.exit_code == 0, synced.stderr
    assert statuses(invoke, "--reader", "bo")["spar2026"] == "read"
    # the implicit reader's list names no reader, and is refused to bo
    mine = tmp_path / "mine.md"
    assert invoke("export", "markdown", "-o", str(mine)).exit_code == 0
    assert " reader=" not in mine.read_text().splitlines()[0]
    assert invoke("--reader", "bo", "import", str(mine)).exit_code == 5


def test_a_merge_keeps_every_readers_decision(invoke, db_url) -> None:
    """``merge KEEP OTHER``: a reader's decision on KEEP stays; a reader who decided on
    OTHER only keeps that decision on KEEP (nobody's work is lost by someone's merge)."""
    three(db_url)
    invoke("--reader", "bo", "mark", "to-read", "safeseek2026")
    invoke("--reader", "bo", "priority", "high", "safeseek2026")
    invoke("--reader", "ana", "mark", "read", "safeseek2026")
    invoke("--reader", "ana", "mark", "skipped", "spar2026")
    merged = invoke("merge", "spar2026", "safeseek2026", "--force")
    assert merged.exit_code == 0, merged.stderr
    bo = {p["key"]: p for p in json.loads(invoke("--reader", "bo", "list", "--json").stdout)}
    assert (bo["spar2026"]["status"], bo["spar2026"]["priority"]) == ("to-read", "high")
    assert statuses(invoke, "--reader", "ana")["spar2026"] == "skipped"


def test_the_reader_comes_from_the_environment_or_the_configuration_file(
    invoke, db_url, tmp_path
) -> None:
    three(db_url)
    config = tmp_path / "config.toml"
    config.write_text('reader = "cleo"\n', encoding="utf-8")
    env = {"READINGLIST_CONFIG": str(config)}
    assert invoke("mark", "read", "spar2026", env=env).stderr.startswith("new reader cleo\n")
    assert statuses(invoke, "--reader", "cleo")["spar2026"] == "read"
    env_reader = {**env, "READINGLIST_READER": "dan"}
    assert invoke("mark", "skipped", "spar2026", env=env_reader).exit_code == 0
    assert statuses(invoke, "--reader", "dan")["spar2026"] == "skipped"
    assert statuses(invoke)["spar2026"] == "new"  # the implicit reader decided nothing
    config.write_text("reader = [1]\n", encoding="utf-8")
    bad = invoke("list", env=env)
    assert bad.exit_code == 2
    assert str(config) in bad.stderr


def test_stats_are_the_readers_and_an_unknown_reader_is_named(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "read", "spar2026")
    invoke("--reader", "ana", "mark", "skipped", "spar2026", "safeseek2026")
    mine = json.loads(invoke("stats", "--json").stdout)["status"]
    anas = json.loads(invoke("--reader", "ana", "stats", "--json").stdout)["status"]
    assert (mine["read"], mine["skipped"], mine["new"]) == (1, 0, 2)
    assert (anas["read"], anas["skipped"], anas["new"]) == (0, 2, 1)
    unknown = invoke("--reader", "zoe", "stats")
    assert unknown.exit_code == 3
    assert "readers: ana, default" in unknown.stderr


def test_each_reader_has_their_own_interest_model(filled, cache_dir) -> None:
    """Ana wants biology and skips RL, Bob the opposite: each one's new papers are ranked
    by their own decisions (the cached matrix of texts is shared)."""
    assert filled("--reader", "ana", "mark", "to-read", "bio0").exit_code == 0
    assert filled("--reader", "ana", "mark", "skipped", "rl0").exit_code == 0
    assert filled("--reader", "bob", "mark", "to-read", "rl0").exit_code == 0
    assert filled("--reader", "bob", "mark", "skipped", "bio0").exit_code == 0

    def order(reader: str) -> list[str]:
        result = filled("--reader", reader, "list", "-k", "--sort", "interest", "status:new")
        assert result.exit_code == 0, result.stderr
        return result.stdout.split()

    anas, bobs = order("ana"), order("bob")
    assert all(k.startswith("bio") for k in anas[:5]), anas
    assert all(k.startswith("rl") for k in bobs[:5]), bobs
    # the implicit reader decided nothing: no model, the order of addition
    plain = filled("list", "-k", "--sort", "interest").stdout.split()
    assert plain == filled("list", "-k").stdout.split()


def test_a_command_run_in_process_leaves_no_reader_behind(invoke, db_url) -> None:
    from readinglist import decided

    three(db_url)
    assert invoke("--reader", "ana", "mark", "read", "spar2026").exit_code == 0
    assert decided.current() == decided.DEFAULT_READER


def test_look_alike_reader_names_are_one_reader(invoke, db_url) -> None:
    """NFKC (UAX #15) then case folding: a full-width or ligature spelling of a reader's
    name is that reader, never a second one."""
    three(db_url)
    result = invoke("--reader", "ﬁona", "mark", "read", "spar2026")
    assert (result.exit_code, result.stderr) == (0, "new reader fiona\nmarked 1 paper read\n")
    result = invoke("--reader", "ＦＩＯＮＡ", "mark", "skipped", "safeseek2026")
    assert (result.exit_code, result.stderr) == (0, "marked 1 paper skipped\n")
    assert sql_values(db_url, "SELECT name FROM readers ORDER BY name") == ["fiona"]
    assert statuses(invoke, "--reader", "Fiona")["safeseek2026"] == "skipped"


def test_a_reader_stored_before_nfkc_is_found_and_two_look_alikes_refused(invoke, db_url) -> None:
    three(db_url)
    invoke("--reader", "bob", "mark", "read", "spar2026")
    bob = sql_value(db_url, "SELECT id FROM readers WHERE name = 'bob'")
    # Rows as a library written before the NFKC fold holds them (case folding only).
    with_row = "UPDATE readers SET name = :n, name_folded = :f WHERE id = :i"
    run_sql(db_url, with_row, {"n": "Ａｎａ", "f": "Ａｎａ".casefold(), "i": bob})
    result = invoke("--reader", "ana", "mark", "skipped", "safeseek2026")
    assert (result.exit_code, result.stderr) == (0, "marked 1 paper skipped\n")
    assert sql_value(db_url, "SELECT count(*) FROM readers") == 1
    run_sql(
        db_url,
        "INSERT INTO readers (name, name_folded, created_at) VALUES (:n, :f, :t)",
        {"n": "ａna", "f": "ａna", "t": "2026-01-01 00:00:00"},
    )
    result = invoke("--reader", "Ana", "mark", "read", "ns:gsfixer")
    assert result.exit_code == 2
    assert "'Ａｎａ', 'ａna'" in result.stderr
    assert "refused" in result.stderr
    assert "Traceback" not in result.output
    assert sql_value(db_url, "SELECT count(*) FROM readers") == 2


def test_a_name_whose_folded_form_is_too_long_is_refused_on_both_databases(invoke, db_url) -> None:
    """``ß`` folds to ``ss``: 33 of them fit the name's 64 characters but not its folded
    form (``readers.name_folded``, 64 characters on PostgreSQL): a usage error, exit 2,
    no reader and no traceback (it was a StringDataRightTruncation traceback there)."""
    three(db_url)
    result = invoke("--reader", "ß" * 33, "mark", "to-read", "spar2026")
    assert result.exit_code == 2, result.output
    assert "reader name of 66 characters" in result.stderr
    assert "Traceback" not in result.output
    assert sql_values(db_url, "SELECT name FROM readers") == []
    assert invoke("--reader", "ß" * 32, "mark", "to-read", "spar2026").exit_code == 0


def test_a_long_reader_name_gets_its_own_fitted_scores_file(runner, sqlite_url) -> None:
    """64 letters outside the Basic Multilingual Plane are 256 bytes of UTF-8: the fitted
    scores' file is named by a digest, within the 255 bytes a file name may take."""
    from pathlib import Path

    from readinglist.cli import cli

    three(sqlite_url)
    name = "\U00010428" * 64  # DESERET SMALL LETTER LONG I: NFKC and case folding keep it
    for args in (["mark", "to-read", "spar2026"], ["list", "--sort", "interest"]):
        result = runner.invoke(cli, ["--db", sqlite_url, "--reader", name, *args])
        assert result.exit_code == 0, result.stderr
    folder = Path(sqlite_url.removeprefix("sqlite:///")).parent
    fitted = sorted(p.name for p in folder.iterdir() if ".interest-" in p.name)
    assert [n.rsplit(".", 1)[1] for n in fitted] == ["npz", "order"]  # scores, their order
    assert all(len(n.encode("utf-8")) <= 255 and name not in n for n in fitted)
