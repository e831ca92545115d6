"""Export profiles (``export --keep``): the file follows every committing command, is left
untouched when its text is unchanged, changes by one entry for one paper, follows an
``.aux`` file, stays while paused, survives a broken target; on SQLite and PostgreSQL."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

OWNER = "tester@here"

LIBRARY_BIB = """\
@inproceedings{alpha2020,
  title = {Alpha Attention},
  author = {Smith, Ann},
  booktitle = {Proc. A},
  year = {2020}
}

@article{beta2021,
  title = {Beta Networks},
  author = {Jones, Bo},
  journal = {Journal B},
  year = {2021}
}

@article{gamma2022,
  title = {Gamma Rays for Learning},
  author = {Chen, Cy},
  journal = {Journal C},
  year = {2022}
}

@article{epsilon2019,
  title = {Epsilon Copies},
  author = {Eve, Ed},
  journal = {Journal E},
  year = {2019},
  note = {a second copy}
}
"""

MORE_BIB = """\
@article{delta2023,
  title = {Delta Rules},
  author = {Diaz, Dee},
  journal = {Journal D},
  year = {2023}
}
"""

COMPLETION_BIB = """\
@article{beta2021final,
  title = {Beta Networks},
  author = {Jones, Bo},
  journal = {Journal B},
  year = {2021},
  doi = {10.1234/beta.2021}
}
"""


@pytest.fixture(autouse=True)
def _owner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", OWNER)


def ok(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    return str(result.stderr)


def library(invoke, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """Import :data:`LIBRARY_BIB`; return the paper's folder."""
    source = tmp_path / "library.bib"
    source.write_text(LIBRARY_BIB, encoding="utf-8")
    ok(invoke("import", str(source)))
    paper = tmp_path / "paper"
    paper.mkdir()
    return paper


def stamp(path: Path) -> tuple[int, int]:
    """(inode, mtime in ns) after setting the mtime back an hour: an untouched file keeps it."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 3_600_000_000_000))
    info = path.stat()
    return info.st_ino, info.st_mtime_ns


def untouched(path: Path, before: tuple[int, int]) -> bool:
    info = path.stat()
    return (info.st_ino, info.st_mtime_ns) == before


def changed_entries(old: str, new: str) -> set[str]:
    """The keys of the entries whose lines ``difflib`` finds removed from ``old`` or added
    in ``new`` (a line that is blank or a lone ``}`` may align with a neighbour's: it
    names no entry)."""
    touched: set[str] = set()
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for lines, lo, hi in ((old_lines, i1, i2), (new_lines, j1, j2)):
            for index in range(lo, hi):
                if lines[index].strip() not in ("", "}"):
                    touched.add(_entry_at(lines, index))
    return touched


def _entry_at(lines: list[str], index: int) -> str:
    for line in reversed(lines[: index + 1]):
        if line.startswith("@"):
            return line[line.index("{") + 1 : -1]
    return "(head)"


def test_bibtex_profile_follows_every_change(invoke, db_url, tmp_path) -> None:
    paper = library(invoke, tmp_path)
    refs = paper / "refs.bib"
    err = ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    assert f"updated profile 'refs.bib' ({refs}): 4 papers" in err
    assert "registered export profile 'refs.bib'" in err
    plain = tmp_path / "plain.bib"
    ok(invoke("export", "bibtex", "-o", str(plain)))
    assert refs.read_bytes() == plain.read_bytes()  # the same bytes as a plain export

    # Per-reader changes write nothing to a BibTeX profile: the file is not touched.
    before = stamp(refs)
    for args in (
        ("mark", "read", "alpha2020"),
        ("priority", "high", "beta2021"),
        ("tag", "add", "thesis", "beta2021"),
        ("note", "add", "beta2021", "-m", "check the proofs"),
    ):
        assert ok(invoke(*args)).count("profile") == 0, args
        assert untouched(refs, before), args
    assert "mine" not in refs.read_text(encoding="utf-8")

    # rekey: one paper's entry changes, and only its lines.
    old = refs.read_text(encoding="utf-8")
    err = ok(invoke("rekey", "beta2021", "jones2021beta"))
    assert f"updated profile 'refs.bib' ({refs}): 4 papers" in err
    new = refs.read_text(encoding="utf-8")
    assert "@article{jones2021beta," in new
    assert "beta2021," not in new
    assert changed_entries(old, new) == {"beta2021", "jones2021beta"}

    # title: one entry's lines.
    old = new
    ok(invoke("title", "alpha2020", "Alpha Attention Revisited"))
    new = refs.read_text(encoding="utf-8")
    assert "title = {Alpha {Attention} {Revisited}}," in new
    assert changed_entries(old, new) == {"alpha2020"}

    # merge: the duplicate's entry goes.
    ok(invoke("merge", "gamma2022", "epsilon2019"))
    assert "epsilon2019" not in refs.read_text(encoding="utf-8")

    # resolve: the completed paper gains its DOI.
    completion = tmp_path / "completion.bib"
    completion.write_text(COMPLETION_BIB, encoding="utf-8")
    ok(invoke("resolve", "key:jones2021beta", "--from", str(completion)))
    assert "10.1234/beta.2021" in refs.read_text(encoding="utf-8")

    # import, then --undo: the new entry comes and goes.
    more = tmp_path / "more.bib"
    more.write_text(MORE_BIB, encoding="utf-8")
    ok(invoke("import", str(more)))
    assert "@article{delta2023," in refs.read_text(encoding="utf-8")
    batches = json.loads(ok_out(invoke("import", "--list-batches", "--json")))
    undo = max(batch["id"] for batch in batches)
    err = ok(invoke("import", "--undo", str(undo)))
    assert "updated profile 'refs.bib'" in err
    assert "delta2023" not in refs.read_text(encoding="utf-8")

    # The same library state writes the same bytes: a refresh leaves the file alone.
    before = stamp(refs)
    err = ok(invoke("export", "--refresh"))
    assert f"unchanged profile 'refs.bib' ({refs}): 3 papers" in err
    assert untouched(refs, before)
    ok(invoke("export", "bibtex", "-o", str(plain)))
    assert refs.read_bytes() == plain.read_bytes()


def ok_out(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, (result.output, result.stderr)
    return str(result.stdout)


def test_markdown_profile_follows_mark_and_bibtex_profile_does_not(
    invoke, db_url, tmp_path
) -> None:
    paper = library(invoke, tmp_path)
    md, bib = paper / "reading.md", paper / "refs.bib"
    ok(invoke("export", "markdown", "-o", str(md), "--keep"))
    ok(invoke("export", "bibtex", "tag:thesis", "-o", str(bib), "--keep", "--name", "thesis"))
    assert bib.read_text(encoding="utf-8") == ""  # nothing tagged yet
    md_before, bib_before = stamp(md), stamp(bib)
    err = ok(invoke("mark", "to-read", "beta2021"))
    assert "updated profile 'reading.md'" in err
    assert "thesis" not in err
    assert not untouched(md, md_before)
    assert untouched(bib, bib_before)
    # A tag changes what the query selects: the thesis profile follows.
    err = ok(invoke("tag", "add", "thesis", "beta2021"))
    assert "updated profile 'thesis'" in err
    assert "@article{beta2021," in bib.read_text(encoding="utf-8")
    # tag:thesis selects by tag only: a status change leaves it alone.
    bib_before = stamp(bib)
    ok(invoke("mark", "read", "beta2021"))
    assert untouched(bib, bib_before)


def test_keywords_profile_writes_tags_only_when_asked(invoke, db_url, tmp_path) -> None:
    paper = library(invoke, tmp_path)
    plain, tagged = paper / "plain.bib", paper / "tagged.bib"
    ok(invoke("export", "bibtex", "-o", str(plain), "--keep"))
    ok(invoke("export", "bibtex", "-o", str(tagged), "--keep", "--keywords"))
    plain_before = stamp(plain)
    err = ok(invoke("tag", "add", "secret-reading", "alpha2020"))
    assert "updated profile 'tagged.bib'" in err
    assert "'plain.bib'" not in err
    assert "secret-reading" in tagged.read_text(encoding="utf-8")
    assert untouched(plain, plain_before)
    assert "secret-reading" not in plain.read_text(encoding="utf-8")


AUX = r"""\relax
\citation{alpha2020}
\bibstyle{plain}
\bibdata{refs}
"""


def test_aux_profile_follows_new_citations_and_crossref_parents(invoke, db_url, tmp_path) -> None:
    source = tmp_path / "lib.bib"
    source.write_text(
        LIBRARY_BIB + "\n@inproceedings{child2020,\n  title = {Child},\n  author = {Kid, Kay},\n"
        "  crossref = {conf2020}\n}\n\n@proceedings{conf2020,\n  title = {Proc. of Conf},\n"
        "  editor = {Ed, Ed},\n  year = {2020}\n}\n",
        encoding="utf-8",
    )
    ok(invoke("import", str(source)))
    aux = tmp_path / "main.aux"
    aux.write_text(AUX, encoding="utf-8")
    refs = tmp_path / "refs.bib"
    ok(invoke("export", "bibtex", "--aux", str(aux), "-o", str(refs), "--keep"))
    assert keys_of(refs) == ["alpha2020"]
    # A new \citation and a biblatex \abx@aux@cite: --refresh reads the .aux again.
    aux.write_text(AUX + "\\citation{child2020}\n\\abx@aux@cite{0}{beta2021}\n", encoding="utf-8")
    err = ok(invoke("export", "--refresh"))
    assert "updated profile 'refs.bib'" in err
    # The crossref parent comes with its child, after it (BibTeX needs that order).
    assert keys_of(refs) == ["alpha2020", "beta2021", "child2020", "conf2020"]
    # A new paper that is not cited does not enter the file.
    more = tmp_path / "more.bib"
    more.write_text(MORE_BIB, encoding="utf-8")
    before = stamp(refs)
    ok(invoke("import", str(more)))
    assert untouched(refs, before)


def keys_of(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [line[line.index("{") + 1 : -1] for line in text.splitlines() if line.startswith("@")]


def test_paused_profile_stays_and_resume_catches_up(invoke, db_url, tmp_path) -> None:
    paper = library(invoke, tmp_path)
    refs = paper / "refs.bib"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    err = ok(invoke("export", "--pause", "refs.bib"))
    assert "paused export profile 'refs.bib'" in err
    before = stamp(refs)
    ok(invoke("rekey", "beta2021", "jones2021"))
    assert untouched(refs, before)
    assert "refs.bib" in ok(invoke("export", "--refresh"))  # "skipped paused ..."
    assert untouched(refs, before)
    listed = json.loads(ok_out(invoke("export", "--profiles", "--json")))
    assert [(p["name"], p["paused"]) for p in listed] == [("refs.bib", True)]
    err = ok(invoke("export", "--resume", str(refs)))  # by path too
    assert "updated profile 'refs.bib'" in err
    assert "jones2021" in refs.read_text(encoding="utf-8")


def test_broken_target_is_a_warning_and_the_command_succeeds(invoke, db_url, tmp_path) -> None:
    paper = library(invoke, tmp_path)
    refs, other = paper / "refs.bib", tmp_path / "other.bib"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    ok(invoke("export", "bibtex", "-o", str(other), "--keep"))
    refs.unlink()
    paper.rmdir()
    result = invoke("rekey", "beta2021", "jones2021")
    assert result.exit_code == 0
    assert "renamed beta2021 to jones2021" in result.stderr
    assert (
        f"warning: profile 'refs.bib' ({refs}): cannot write: No such file or directory; "
        "marked failing" in result.stderr
    )
    assert "jones2021" in other.read_text(encoding="utf-8")  # the others still run
    listed = {p["name"]: p for p in json.loads(ok_out(invoke("export", "--profiles", "--json")))}
    assert listed["refs.bib"]["status"] == "failing"
    assert listed["other.bib"]["status"] == "ok"
    # A folder that is a file: the same warning, exit 0.
    paper.write_text("not a folder", encoding="utf-8")
    result = invoke("title", "alpha2020", "New Alpha")
    assert result.exit_code == 0
    assert "profile 'refs.bib'" in result.stderr
    assert "Not a directory" in result.stderr
    # Put back, a refresh clears the failure.
    paper.unlink()
    paper.mkdir()
    ok(invoke("export", "--refresh"))
    listed = {p["name"]: p for p in json.loads(ok_out(invoke("export", "--profiles", "--json")))}
    assert (listed["refs.bib"]["status"], listed["refs.bib"]["papers"]) == ("ok", 4)


def test_registering_into_a_missing_folder_registers_nothing(invoke, db_url, tmp_path) -> None:
    library(invoke, tmp_path)
    result = invoke("export", "bibtex", "-o", str(tmp_path / "gone" / "refs.bib"), "--keep")
    assert result.exit_code == 5
    assert "not registered" in result.stderr
    assert json.loads(ok_out(invoke("export", "--profiles", "--json"))) == []


def test_profiles_list_forget_and_other_owners(invoke, db_url, tmp_path, monkeypatch) -> None:
    paper = library(invoke, tmp_path)
    mine = paper / "refs.bib"
    ok(invoke("export", "bibtex", "year:2021", "-o", str(mine), "--keep", "--strict"))
    # Another machine: another owner, and that account's own data directory.
    mine_data = os.environ["XDG_DATA_HOME"]
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "other@laptop")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "laptop-data"))
    theirs = tmp_path / "theirs.bib"
    ok(invoke("export", "biblatex", "-o", str(theirs), "--keep", "--name", "thesis"))
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", OWNER)
    monkeypatch.setenv("XDG_DATA_HOME", mine_data)
    listed = json.loads(ok_out(invoke("export", "--profiles", "--json")))
    assert [(p["name"], p["owner"], p["mine"]) for p in listed] == [
        ("refs.bib", OWNER, True),
        ("thesis", "other@laptop", False),
    ]
    assert listed[0]["query"] == "year:2021"
    assert listed[0]["options"]["strict"] is True
    assert listed[0]["target"] == str(mine)
    assert listed[0]["papers"] == 1
    table = ok_out(invoke("export", "--profiles"))
    assert "refs.bib\tbibtex\tok\t1 papers" in table
    assert "[other@laptop]" in table
    # Another machine's profile is not run here (its path is that machine's).
    before = stamp(theirs)
    err = ok(invoke("rekey", "alpha2020", "smith2020"))
    assert "thesis" not in err
    assert untouched(theirs, before)
    # --forget by name; the file stays; an unknown name exits 3.
    err = ok(invoke("export", "--forget", "refs.bib"))
    assert "forgot export profile 'refs.bib'" in err
    assert mine.exists()
    assert invoke("export", "--forget", "refs.bib").exit_code == 3
    assert invoke("export", "--forget", "thesis").exit_code == 3  # not ours


def test_strict_profile_fails_without_writing(invoke, db_url, tmp_path) -> None:
    paper = library(invoke, tmp_path)
    refs = paper / "refs.bib"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep", "--strict"))
    before = stamp(refs)
    ok(invoke("add", "--title", "No Author Here", "--year", "2024"))
    result = invoke("export", "--profiles", "--json")
    [profile] = json.loads(ok_out(result))
    assert profile["status"] == "failing"
    assert "not written (strict)" in profile["message"]
    assert untouched(refs, before)


def test_usage_errors(invoke, db_url, tmp_path) -> None:
    library(invoke, tmp_path)
    assert invoke("export", "bibtex", "--keep").exit_code == 2  # no -o FILE
    assert (
        invoke("export", "markdown", "-o", str(tmp_path / "x.md"), "--keep", "--date").exit_code
        == 2
    )
    assert invoke("export", "--profiles", "--refresh").exit_code == 2
    assert invoke("export", "bibtex", "--name", "x").exit_code == 2
    assert invoke("export").exit_code == 2
    if db_url.startswith("sqlite"):  # the library file itself is never a target
        library_file = db_url.removeprefix("sqlite:///")
        assert invoke("export", "bibtex", "-o", library_file, "--keep").exit_code == 2
    assert json.loads(ok_out(invoke("export", "--profiles", "--json"))) == []


def test_concurrent_refreshes_leave_one_complete_file(db_url, tmp_path) -> None:
    """Four processes refresh the same profile at once, after changes that each rewrite
    it: the file is always one whole export, and no temporary file is left. (Each is
    ``python -m readinglist export --refresh --force`` forked from one interpreter that
    has imported the library: tests/workers.py.)"""
    from workers import run_commands

    env = {**os.environ, "READINGLIST_DB": db_url, "READINGLIST_PROFILE_OWNER": OWNER}
    source = tmp_path / "library.bib"
    source.write_text(LIBRARY_BIB, encoding="utf-8")

    def rl(*args: str) -> int:
        """One command in this process (only the four refreshes need processes of their own)."""
        from click.testing import CliRunner

        from readinglist.cli import cli

        result = CliRunner().invoke(cli, ["--db", db_url, *args], env=env)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        return result.exit_code

    assert rl("import", str(source)) == 0
    refs = tmp_path / "refs.bib"
    assert rl("export", "bibtex", "-o", str(refs), "--keep") == 0
    for round_ in range(3):
        assert rl("title", "alpha2020", f"Alpha Title {round_}") == 0
        # Edit the file behind the library's back, so every refresh must rewrite it.
        refs.write_text("stale\n", encoding="utf-8")
        refreshes = run_commands([["export", "--refresh", "--force"]] * 4, env, tmp_path)
        for code, _, err in refreshes:
            assert code == 0, err
        expected = tmp_path / "expected.bib"
        assert rl("export", "bibtex", "-o", str(expected)) == 0
        assert refs.read_bytes() == expected.read_bytes()
        assert f"Alpha {{Title}} {round_}" in refs.read_text(encoding="utf-8")
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_which_changes_reach_which_profiles() -> None:
    from datetime import UTC, datetime

    from readinglist.library.profiles import CHANGE_KINDS, Profile, depends_on, query_kinds

    assert query_kinds("") == frozenset()
    assert query_kinds("tag:thesis year:2020") == {"tags"}
    assert query_kinds("status:to-read OR read:2026-05") == {"status"}
    assert query_kinds("-priority:high has:notes") == {"priority", "notes"}
    assert query_kinds("diffusion") == {"tags", "notes"}  # the full-text index holds both
    assert query_kinds('"unbalanced') == CHANGE_KINDS

    def profile(fmt: str, query: str = "", aux: str | None = None, **options: object) -> Profile:
        now = datetime.now(UTC)
        return Profile(1, OWNER, "p", fmt, "/p", query, aux, dict(options), False, now,
                       None, None, None, None, None)  # fmt: skip

    assert depends_on(profile("bibtex")) == {"papers"}
    assert depends_on(profile("bibtex", keywords=True, annote=True)) == {"papers", "tags", "notes"}
    assert depends_on(profile("biblatex", "status:read")) == {"papers", "status"}
    assert depends_on(profile("bibtex", "status:read", aux="/p/main.aux")) == {"papers"}
    assert depends_on(profile("markdown")) == {"papers", "status", "priority", "tags"}
    assert depends_on(profile("ris")) == {"papers", "tags", "notes"}


def test_a_failing_refresh_never_fails_the_committed_command(
    invoke, db_url, tmp_path, monkeypatch
) -> None:
    paper = library(invoke, tmp_path)
    ok(invoke("export", "bibtex", "-o", str(paper / "refs.bib"), "--keep"))
    from readinglist.pipelines import keeping

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("exporter bug")

    monkeypatch.setattr(keeping, "refresh_profile", broken)
    result = invoke("rekey", "beta2021", "jones2021")
    assert result.exit_code == 0
    assert "warning: export profiles not kept current: RuntimeError: exporter bug" in result.stderr
    monkeypatch.undo()
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", OWNER)
    assert "jones2021" in [line["key"] for line in json.loads(ok_out(invoke("list", "--json")))]


def test_a_copy_of_the_library_keeps_none_of_its_files_current(sqlite_url, tmp_path) -> None:
    """A profile belongs to the library it was registered on: a copy of the SQLite file
    (an experiment, a backup) says so and leaves the paper's .bib alone, while the
    original still keeps it current (SQLite: a file is what gets copied)."""
    import shutil

    from click.testing import CliRunner

    from readinglist.cli import cli

    original = Path(sqlite_url.removeprefix("sqlite:///"))
    copy = tmp_path / "copy.db"

    def on(db: Path, *args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, ["--db", str(db), *args])

    paper = library(lambda *args: on(original, *args), tmp_path)
    refs = paper / "refs.bib"
    ok(on(original, "export", "bibtex", "-o", str(refs), "--keep"))
    shutil.copyfile(original, copy)
    before = stamp(refs)
    err = ok(on(copy, "rekey", "beta2021", "jones2021"))
    assert untouched(refs, before)
    assert (
        f"warning: export profile 'refs.bib' was registered on the library at {original}, "
        f"not this one ({copy}): not kept current" in err
    )
    assert "not kept current" in ok(on(copy, "export", "--refresh"))
    assert untouched(refs, before)
    ok(on(original, "rekey", "beta2021", "jones2021"))
    assert "@article{jones2021," in refs.read_text(encoding="utf-8")
