"""A Markdown list cannot claim to be newer than the library: a ``decided=`` stamp in the
future or after the library's newest status change is refused with a warning; our own
list without its marker line is recognised as ours, never read as abstracts. On SQLite
and PostgreSQL."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import seed

from readinglist import db, library
from readinglist.library import marks
from readinglist.records import PaperRecord, Person


def _seed(db_url: str) -> None:
    seed(
        db_url,
        PaperRecord(title="Alpha Paper", authors=(Person("Ames", "A."),), year=2024, tags=("ml",)),
        PaperRecord(title="Beta Paper", authors=(Person("Bell", "B."),), year=2023),
        fmt="bibtex",
    )
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.set_status(session, [library.resolve(session, "bell2023beta")], "to-read")
    engine.dispose()


def _states(invoke: Callable[..., Any]) -> dict[str, tuple[str, list[str]]]:
    result = invoke("list", "--json")
    assert result.exit_code == 0, result.stderr
    return {p["key"]: (p["status"], p["tags"]) for p in json.loads(result.stdout)}


def _latest(db_url: str) -> Any:
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        latest = marks.latest_status_change(session)
    engine.dispose()
    return latest


@pytest.mark.parametrize("forge", ["far future", "after the last change", "one second ahead"])
def test_a_stamp_newer_than_the_library_is_refused(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path, forge: str
) -> None:
    """A stale list whose ``decided=`` was forged to a later time overwrote the newer
    statuses. The stamp is refused with a warning naming the file and read as
    ``decided=none``: the decision made since is kept."""
    _seed(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    assert invoke("mark", "skipped", "ames2024alpha").exit_code == 0
    latest = _latest(db_url)
    stamp = {
        "far future": "2999-01-01T00:00:00.000000Z",
        "after the last change": (latest + timedelta(microseconds=1)).strftime(
            "%Y-%m-%dT%H:%M:%S.%fZ"
        ),
        "one second ahead": (latest + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }[forge]
    first, rest = out.read_text(encoding="utf-8").split("\n", 1)
    out.write_text(re.sub(r"decided=\S+", f"decided={stamp}", first) + "\n" + rest, "utf-8")
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert _states(invoke)["ames2024alpha"] == ("skipped", ["ml"])
    assert f"decided={stamp}" in result.stderr
    future, after = (
        "is in the future" in result.stderr,
        "after the library's newest" in result.stderr,
    )
    assert (future, after) != (False, False)
    assert future == (forge == "far future") or forge == "one second ahead"
    assert str(out) in result.stderr


def test_the_genuine_stamp_is_kept(invoke: Callable[..., Any], db_url: str, tmp_path: Path) -> None:
    """The stamp an export writes (the library's newest change) is accepted: a list
    edited after it applies where the library did not change, without a warning."""
    _seed(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8").replace("- [ ] **Alpha", "- [x] **Alpha", 1)
    out.write_text(text, encoding="utf-8")
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert "decided=" not in result.stderr
    assert _states(invoke)["ames2024alpha"] == ("read", ["ml"])


@pytest.mark.parametrize("name", ["list.md", "list.txt", "-"])
def test_our_list_without_its_marker_is_read_as_ours(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path, name: str
) -> None:
    """Our list with its marker line deleted (an editor, a copy) was read as a list of
    abstracts: every item became a junk paper. It is recognised as ours: no paper is
    added, the missing marker is said, and, with no stamp to trust, a decision the
    library made is kept (as ``decided=none``)."""
    _seed(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out), "--abstracts").exit_code == 0
    assert invoke("mark", "skipped", "ames2024alpha").exit_code == 0
    text = out.read_text(encoding="utf-8").split("\n", 1)[1]
    before = _states(invoke)
    if name == "-":
        result = invoke("import", "-", input=text)
    else:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert _states(invoke) == before
    assert "marker on the first line" in result.stderr


def test_a_list_without_the_generated_line_or_marker_is_still_ours(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    """Only items left (title line, then the key line): still our shape."""
    _seed(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    items = [line for line in out.read_text(encoding="utf-8").splitlines() if line[:1] in "- "]
    path = tmp_path / "items.md"
    path.write_text("\n".join(items) + "\n", encoding="utf-8")
    before = _states(invoke)
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert _states(invoke) == before


def test_detect_tells_our_list_from_abstracts() -> None:
    from readinglist import formats

    ours = "- [ ] **A title**  \n  A. Ames · 2024  \n  `ames2024alpha` · #ml\n"
    assert formats.detect("x.md", ours) == "markdown"
    assert formats.detect("x.txt", ours) == "markdown"
    abstracts = "A title\nA. Ames\nAbstract: something about `code` here.\n"
    assert formats.detect("x.md", abstracts) == "abstracts"
    assert formats.detect("x.txt", abstracts) == "abstracts"
