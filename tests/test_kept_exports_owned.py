"""Kept exports write only where their owner asked: a profile someone else stored in the
library (any owner name, any target) is never written; a kept file changed by hand is
not overwritten without ``--force``; ``-o`` is never the ``.aux`` file read; a query
that selects nothing leaves an existing file as it is. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import SQLITE_ONLY, run_sql

LIBRARY = """\
@article{alpha2020,
  title = {Alpha Attention},
  author = {Smith, Ann},
  journal = {Journal A},
  year = {2020}
}

@article{beta2021,
  title = {Beta Networks},
  author = {Jones, Bo},
  journal = {Journal B},
  year = {2021}
}
"""
#: The owner name both accounts go by: the library (or the variable) can name anyone.
OWNER = "alice@alicebox"


def ok(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    return str(result.stderr)


def imported(invoke, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "library.bib"
    source.write_text(LIBRARY, encoding="utf-8")
    ok(invoke("import", str(source)))


def as_alice(db_url: str, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``readinglist ARGS`` in a process of its own, as Alice: her data directory, and
    READINGLIST_PROFILE_OWNER naming the owner the library's profiles name. (The
    process is forked from the fork server of tests/workers.py: nothing of this one.)"""
    from workers import run_commands

    env = {
        **os.environ,
        "READINGLIST_DB": db_url,
        "READINGLIST_PROFILE_OWNER": OWNER,
        "XDG_DATA_HOME": str(data),
    }
    [(code, out, err)] = run_commands([list(args)], env, Path.cwd())
    return subprocess.CompletedProcess(["readinglist", *args], code, out, err)


def test_a_profile_another_writer_stored_is_never_written(
    invoke, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob, who can write the library, keeps an export to Alice's file under Alice's owner
    name, with a title that is shell code: Alice's commands never write that file
    (whatever READINGLIST_PROFILE_OWNER says), and her --refresh and --profiles say it
    is kept by someone else."""
    imported(invoke, tmp_path)
    victim = tmp_path / "alice" / ".bashrc"
    victim.parent.mkdir()
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", OWNER)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "bob-data"))
    ok(invoke("add", "--title", "x; touch PWNBASH; #", "--author", "Evil, Bob", "--year", "2020"))
    ok(invoke("export", "ris", "-o", str(victim), "--keep"))
    # The library option a profile records is no defence either: Bob removes it.
    run_sql(db_url, "UPDATE export_profiles SET options = :o", {"o": json.dumps({})})
    victim.write_text("alias ll='ls -l'\n", encoding="utf-8")  # Alice's own file

    alice = tmp_path / "alice-data"
    done = as_alice(db_url, alice, "tag", "add", "mine", "alpha2020")
    assert done.returncode == 0, done.stderr
    assert victim.read_text(encoding="utf-8") == "alias ll='ls -l'\n"
    refreshed = as_alice(db_url, alice, "export", "--refresh")
    assert refreshed.returncode == 0, refreshed.stderr
    assert f"({victim}): kept by someone else: not refreshed here" in refreshed.stderr
    assert victim.read_text(encoding="utf-8") == "alias ll='ls -l'\n"
    listed = as_alice(db_url, alice, "export", "--profiles", "--json")
    [profile] = json.loads(listed.stdout)
    assert (profile["mine"], profile["kept_here"]) == (True, False)
    table = as_alice(db_url, alice, "export", "--profiles").stdout
    assert "[kept by someone else: not refreshed here]" in table


def test_a_kept_profile_another_writer_retargets_is_not_written(
    invoke, db_url: str, tmp_path: Path
) -> None:
    """Alice keeps refs.bib; a writer of the library points the profile at another file:
    neither file is written after her next change, and --refresh says why."""
    imported(invoke, tmp_path)
    refs, victim = tmp_path / "refs.bib", tmp_path / "victim.txt"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    victim.write_text("mine\n", encoding="utf-8")
    run_sql(db_url, "UPDATE export_profiles SET target = :t", {"t": str(victim)})
    ok(invoke("rekey", "beta2021", "jones2021"))
    assert victim.read_text(encoding="utf-8") == "mine\n"
    assert "jones2021" not in refs.read_text(encoding="utf-8")
    assert "kept by someone else: not refreshed here" in ok(invoke("export", "--refresh"))
    assert victim.read_text(encoding="utf-8") == "mine\n"


def test_a_kept_file_changed_by_hand_is_not_overwritten(
    invoke, db_url: str, tmp_path: Path
) -> None:
    """An entry appended to a kept refs.bib survives the next changes (said once, exit 0);
    --refresh says it again; --refresh --force overwrites it, and later changes refresh
    the file again."""
    imported(invoke, tmp_path)
    refs = tmp_path / "refs.bib"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    edited = refs.read_text(encoding="utf-8") + "\n@misc{mine, title = {My Own}}\n"
    refs.write_text(edited, encoding="utf-8")
    said = f"{refs} was changed by hand since readinglist wrote it; not refreshed"
    assert said in ok(invoke("rekey", "beta2021", "jones2021"))
    assert refs.read_text(encoding="utf-8") == edited
    assert said not in ok(invoke("rekey", "alpha2020", "smith2020"))  # said once
    assert refs.read_text(encoding="utf-8") == edited
    [profile] = json.loads(invoke("export", "--profiles", "--json").stdout)
    assert profile["status"] == "failing"
    assert "changed by hand" in profile["message"]
    assert said in ok(invoke("export", "--refresh"))
    assert refs.read_text(encoding="utf-8") == edited
    ok(invoke("export", "--refresh", "--force"))
    text = refs.read_text(encoding="utf-8")
    assert "@misc{mine" not in text
    assert "@article{jones2021," in text
    assert "@article{smith2020," in text
    ok(invoke("rekey", "jones2021", "bo2021"))
    assert "@article{bo2021," in refs.read_text(encoding="utf-8")


@SQLITE_ONLY
def test_force_goes_with_refresh(invoke) -> None:
    result = invoke("export", "--profiles", "--force")
    assert result.exit_code == 2
    assert "--force goes with --refresh" in result.stderr


def test_the_aux_file_read_is_never_the_output(invoke, db_url: str, tmp_path: Path) -> None:
    """``--aux main.aux -o main.aux`` (or another name of that file) is refused, as the
    library file is: exit 2, the .aux file as it was, no profile kept."""
    imported(invoke, tmp_path)
    aux = tmp_path / "main.aux"
    aux.write_text("\\relax\n\\citation{alpha2020}\n", encoding="utf-8")
    (tmp_path / "link.aux").symlink_to(aux)
    for output in (str(aux), str(tmp_path / "link.aux")):
        for keep in ((), ("--keep",)):
            result = invoke("export", "bibtex", "--aux", str(aux), "-o", output, *keep)
            assert result.exit_code == 2, result.output
            assert "is the .aux file the export reads" in result.stderr
            assert "Traceback" not in result.output
    assert aux.read_text(encoding="utf-8") == "\\relax\n\\citation{alpha2020}\n"
    assert json.loads(invoke("export", "--profiles", "--json").stdout) == []


def test_a_query_that_selects_nothing_leaves_the_file(invoke, db_url: str, tmp_path: Path) -> None:
    imported(invoke, tmp_path)
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n", encoding="utf-8")
    result = invoke("export", "bibtex", "-o", str(paper), "a1")
    err = ok(result)
    assert "no paper matches 'a1'" in err
    assert f"{paper} not written: the query selects no paper" in err
    assert paper.read_text(encoding="utf-8") == "\\documentclass{article}\n"
    absent = tmp_path / "none.bib"
    ok(invoke("export", "bibtex", "-o", str(absent), "a1"))
    assert not absent.exists()


def test_a_registry_that_cannot_be_read_writes_nothing(invoke, db_url: str, tmp_path: Path) -> None:
    """A kept-exports registry that is not one: a change still commits (exit 0) and says
    the file's name; --refresh fails naming it (exit 1, no traceback); nothing written."""
    imported(invoke, tmp_path)
    refs = tmp_path / "refs.bib"
    ok(invoke("export", "bibtex", "-o", str(refs), "--keep"))
    registry = Path(os.environ["XDG_DATA_HOME"]) / "readinglist" / "kept-exports.json"
    registry.write_text("{not json", encoding="utf-8")
    before = refs.read_text(encoding="utf-8")
    err = ok(invoke("rekey", "beta2021", "jones2021"))
    assert f"{registry}: not a registry of kept exports" in err
    result = invoke("export", "--refresh")
    assert result.exit_code == 1
    assert f"{registry}: not a registry of kept exports" in result.stderr
    assert "Traceback" not in result.output
    assert refs.read_text(encoding="utf-8") == before
