"""Importing our own Markdown list back syncs read status and tags, matched by citation key."""

from __future__ import annotations

import json
import re

import pytest
from helpers import seed

from readinglist import db, library
from readinglist.records import PaperRecord, Person


def seed_three(db_url: str) -> None:
    """Alpha and Beta (tagged ml) and Gamma; Beta is read."""
    seed(
        db_url,
        PaperRecord(title="Alpha Paper", authors=(Person("Ames", "A."),), year=2024, tags=("ml",)),
        PaperRecord(title="Beta Paper", authors=(Person("Bell", "B."),), year=2023, tags=("ml",)),
        PaperRecord(title="Gamma Paper", authors=(Person("Cole", "C."),), year=2022),
        fmt="bibtex",
    )
    engine = db.make_engine(db_url)
    with db.session_scope(engine) as session:
        library.set_status(session, [library.resolve(session, "bell2023beta")], "read")
    engine.dispose()


def states(invoke) -> dict[str, tuple[str, list[str]]]:
    result = invoke("list", "--json")
    assert result.exit_code == 0, result.stderr
    return {p["key"]: (p["status"], p["tags"]) for p in json.loads(result.stdout)}


def test_edited_markdown_list_syncs_status_and_tags(invoke, db_url, tmp_path) -> None:
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()

    def line_of(key: str) -> int:
        return next(i for i, line in enumerate(lines) if f"`{key}`" in line)

    def box_of(key: str) -> int:
        return max(i for i in range(line_of(key) + 1) if lines[i].startswith("- ["))

    # Tick Ames (new -> read); untick Bell (read -> to-read); drop #ml from Ames, add #later to Cole.
    a, b = box_of("ames2024alpha"), box_of("bell2023beta")
    lines[a] = lines[a].replace("- [ ]", "- [x]", 1)
    lines[b] = lines[b].replace("- [x]", "- [ ]", 1)
    key_a, key_c = line_of("ames2024alpha"), line_of("cole2022gamma")
    lines[key_a] = lines[key_a].replace(" · #ml", "")
    lines[key_c] = lines[key_c] + " · #later"
    edited = tmp_path / "edited.md"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = invoke("import", str(edited))
    assert result.exit_code == 0, result.stderr
    assert "(markdown)" in result.stderr
    assert states(invoke) == {
        "ames2024alpha": ("read", []),
        "bell2023beta": ("to-read", ["ml"]),
        "cole2022gamma": ("new", ["later"]),
    }


def test_paper_moved_under_another_status_heading_takes_that_status(invoke, db_url, tmp_path):
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    key_line = next(i for i, line in enumerate(lines) if "`cole2022gamma`" in line)
    start = max(i for i in range(key_line + 1) if lines[i].startswith("- ["))
    moved = lines[start : key_line + 1]
    del lines[start : key_line + 1]
    heading = next(i for i, line in enumerate(lines) if line.startswith("## Read ("))
    lines[heading + 1 : heading + 1] = ["", *moved]
    edited = tmp_path / "moved.md"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("import", str(edited))
    assert result.exit_code == 0, result.stderr
    assert states(invoke)["cole2022gamma"][0] == "read"


def test_unchanged_list_changes_nothing(invoke, db_url, tmp_path) -> None:
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    before = states(invoke)
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert "0 merged, 3 already present" in result.stderr
    assert states(invoke) == before


def test_checkbox_inside_an_html_comment_changes_nothing(invoke, db_url, tmp_path) -> None:
    """Issue 18: a ticked box inside ``<!-- -->`` is invisible when rendered, so it syncs nothing."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    before = states(invoke)
    text = out.read_text(encoding="utf-8")
    hidden = (
        "<!--\n- [x] **Alpha Paper**\n  `ames2024alpha` · #hidden\n-->\n\n"
        "<!-- - [x] **Gamma Paper** `cole2022gamma` -->\n\n"
        "  <!-- indented\n- [x] `cole2022gamma` #hidden2\n  -->\n"
    )
    edited = tmp_path / "commented.md"
    edited.write_text(text + "\n" + hidden, encoding="utf-8")
    result = invoke("import", str(edited))
    assert result.exit_code == 0, result.stderr
    assert "0 merged, 3 already present" in result.stderr
    assert (
        states(invoke)
        == before
        == {
            "ames2024alpha": ("new", ["ml"]),
            "bell2023beta": ("read", ["ml"]),
            "cole2022gamma": ("new", []),
        }
    )


def test_stale_list_keeps_decisions_made_after_it_was_written(invoke, db_url, tmp_path) -> None:
    """A list exported before a decision and synced back unedited must not undo it: the
    marker's ``decided=`` stamp tells a status changed in the library since (kept, with a
    warning naming both) from one changed in the list (applied)."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    marker = out.read_text(encoding="utf-8").splitlines()[0]
    assert re.fullmatch(r"<!-- .* decided=20\d\d-\d\d-\d\dT[\d:.]+Z -->", marker), marker
    # After the export: Ames skipped, Bell (read in the list) back to reading.
    assert invoke("mark", "skipped", "ames2024alpha").exit_code == 0
    assert invoke("mark", "reading", "bell2023beta").exit_code == 0
    # In the list: Cole ticked (an edit of the list, applied).
    lines = out.read_text(encoding="utf-8").splitlines()
    cole = next(i for i, line in enumerate(lines) if "`cole2022gamma`" in line)
    box = max(i for i in range(cole + 1) if lines[i].startswith("- ["))
    lines[box] = lines[box].replace("- [ ]", "- [x]", 1)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert states(invoke) == {
        "ames2024alpha": ("skipped", ["ml"]),
        "bell2023beta": ("reading", ["ml"]),
        "cole2022gamma": ("read", []),
    }
    assert "'ames2024alpha' was marked 'skipped' after this list was written" in result.stderr
    assert "the list says 'new'" in result.stderr
    assert "'bell2023beta' was marked 'reading' after this list was written" in result.stderr
    # Synced again: the list still disagrees, so the same two decisions are kept and said.
    again = invoke("import", str(out))
    assert again.exit_code == 0, again.stderr
    assert again.stderr.count("after this list was written") == 2
    assert states(invoke)["ames2024alpha"] == ("skipped", ["ml"])


def test_list_written_before_any_decision_is_stamped_none(invoke, db_url, tmp_path) -> None:
    """``decided=none``: the library had no status change, so every one since is newer."""
    seed(db_url, PaperRecord(title="Delta Paper", authors=(Person("Dunn", "D."),), year=2021))
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith(
        "<!-- readinglist:markdown v1 group-by=status decided=none -->\n"
    )
    assert invoke("mark", "to-read", "dunn2021delta").exit_code == 0
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert states(invoke) == {"dunn2021delta": ("to-read", [])}
    assert "'dunn2021delta' was marked 'to-read' after this list was written" in result.stderr


def test_list_without_a_stamp_applies_its_statuses_as_before(invoke, db_url, tmp_path) -> None:
    """A list written before the stamp existed cannot tell stale from edited: it applies."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    first, rest = text.split("\n", 1)
    out.write_text(first.split(" decided=")[0] + " -->\n" + rest, encoding="utf-8")
    assert invoke("mark", "skipped", "ames2024alpha").exit_code == 0
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert states(invoke)["ames2024alpha"] == ("new", ["ml"])


def test_paper_decided_since_keeps_its_tags_too(invoke, db_url, tmp_path) -> None:
    """A hostile-input find: the stale list kept the newer status but removed the tag
    added with it. The item is older than the paper, so none of it applies."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    assert invoke("tag", "add", "important", "ames2024alpha").exit_code == 0
    assert invoke("mark", "reading", "ames2024alpha").exit_code == 0
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert states(invoke)["ames2024alpha"] == ("reading", ["important", "ml"])
    assert "keeping it and its tags (the list says 'new')" in result.stderr


@pytest.mark.parametrize(
    ("stamp", "kept"),
    [("2100-01-01T00:00:00Z", True), ("2000-01-01T00:00:00Z", True), ("yesterday", True)],
)
def test_stamp_without_microseconds_is_read_and_a_garbled_one_is_said(
    invoke, db_url, tmp_path, stamp: str, kept: bool
) -> None:
    """``decided=`` without microseconds is a time too; one that is no time is not dropped
    silently: the import warns and reads it as ``decided=none`` (a forged stamp must
    not let a stale list overwrite newer decisions); a future one is refused too."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    first, rest = out.read_text(encoding="utf-8").split("\n", 1)
    out.write_text(re.sub(r"decided=\S+", f"decided={stamp}", first) + "\n" + rest, "utf-8")
    assert invoke("mark", "skipped", "ames2024alpha").exit_code == 0
    result = invoke("import", str(out))
    assert result.exit_code == 0, result.stderr
    assert states(invoke)["ames2024alpha"][0] == ("skipped" if kept else "new")
    garbled = "is not a time this program writes" in result.stderr
    assert garbled == (stamp == "yesterday")


def test_the_lists_own_warnings_are_printed(invoke, db_url, tmp_path) -> None:
    """The reader's problems (an item without a key) reach the import's output; they were
    dropped for a Markdown list, so a rejected item went unsaid."""
    seed_three(db_url)
    out = tmp_path / "list.md"
    assert invoke("export", "markdown", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8").replace("- [ ]", "- [x]", 1)
    out.write_text(text + "\n- [x] **No key here**\n", "utf-8")
    result = invoke("import", str(out))
    # As for any input with a rejected entry: the rest is applied, the exit code says so.
    assert result.exit_code == 5, result.stderr
    assert "list item without a citation key (expected `key` in code quotes): rejected" in (
        result.stderr
    )
    assert "1 merged, 2 already present, 1 rejected" in result.stderr
    assert states(invoke)["ames2024alpha"] == ("read", ["ml"])
