"""``tag add|remove|list|rename|merge``: case-insensitive tags, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from helpers import search_text, seed, sql_values

from readinglist.records import PaperRecord, Person


def three(db_url: str) -> None:
    seed(
        db_url,
        PaperRecord(citekey="spar2026", title="Support-Preserving Action Rectification"),
        PaperRecord(citekey="safeseek2026", title="SafeSeek", authors=(Person("Li", "Wei"),)),
        PaperRecord(citekey="gsfixer2026", title="GSFixer", tags=("Vision",)),
    )


def tags_of(invoke: Any) -> dict[str, list[str]]:
    """Tags per key, sorted case-insensitively (the database's own order of mixed-case
    names depends on its collation)."""
    listed = json.loads(invoke("list", "--json").stdout)
    return {p["key"]: sorted(p["tags"], key=str.lower) for p in listed}


def tag_rows(db_url: str) -> list[str]:
    """Every row of the tags table (a tag on no paper would show here, not in tag list)."""
    return [str(n) for n in sql_values(db_url, "SELECT name FROM tags ORDER BY id")]


def test_tag_add_is_case_insensitive_and_keeps_the_first_spelling(invoke, db_url) -> None:
    three(db_url)
    result = invoke("tag", "add", "ML/RL", "spar2026", "safeseek2026")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "tagged 2 papers ML/RL\n")
    result = invoke("tag", "add", "ml/rl", "spar2026", "gsfixer2026", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"changed": ["gsfixer2026"], "unchanged": ["spar2026"]}
    assert result.stderr == "tagged 1 paper ML/RL (1 already ML/RL)\n"
    assert tags_of(invoke) == {
        "spar2026": ["ML/RL"],
        "safeseek2026": ["ML/RL"],
        "gsfixer2026": ["ML/RL", "Vision"],
    }
    assert search_text(db_url, "spar2026").endswith("ml rl")


def test_tag_list_counts(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "rl", "spar2026", "safeseek2026")
    invoke("tag", "add", "a/b", "gsfixer2026")
    result = invoke("tag", "list", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [
        {"tag": "a/b", "count": 1},
        {"tag": "rl", "count": 2},
        {"tag": "Vision", "count": 1},
    ]
    assert invoke("tag", "list").stdout == "a/b     1\nrl      2\nVision  1\n"


def test_tag_list_empty(invoke, db_url) -> None:
    assert invoke("tag", "list", "--json").stdout == "[]\n"
    assert invoke("tag", "list").stdout == ""


def test_tag_add_unknown_ref_changes_nothing(invoke, db_url) -> None:
    three(db_url)
    result = invoke("tag", "add", "rl", "spar2026", "missing2020")
    assert result.exit_code == 3
    assert result.stderr == "Error: no paper with citation key 'missing2020'; nothing changed\n"
    assert json.loads(invoke("tag", "list", "--json").stdout) == [{"tag": "Vision", "count": 1}]


def test_tag_names_that_would_not_survive_an_export_are_refused(invoke, db_url) -> None:
    three(db_url)
    for bad in ("a,b", "two words", " ", "a{b", 'q"', "back\\slash", "50%"):
        result = invoke("tag", "add", bad, "spar2026")
        assert result.exit_code == 2, bad
    assert invoke("tag", "add", "a b", "spar2026").stderr == (
        "Error: tag 'a b' is not usable: no commas, spaces, control characters, braces, "
        "quotes, backslashes or %, and / only between words; use - or / instead\n"
    )
    assert json.loads(invoke("tag", "list", "--json").stdout) == [{"tag": "Vision", "count": 1}]


def test_tag_remove(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "rl", "spar2026", "safeseek2026")
    result = invoke("tag", "remove", "RL", "spar2026", "gsfixer2026")
    assert (result.exit_code, result.stderr) == (0, "untagged 1 paper rl (1 without rl)\n")
    assert tags_of(invoke)["spar2026"] == []
    assert "rl" not in search_text(db_url, "spar2026").split()
    # The last paper losing a tag removes the tag.
    invoke("tag", "remove", "rl", "safeseek2026")
    assert json.loads(invoke("tag", "list", "--json").stdout) == [{"tag": "Vision", "count": 1}]
    assert tag_rows(db_url) == ["Vision"]


def test_tag_remove_unknown_tag_or_ref(invoke, db_url) -> None:
    three(db_url)
    result = invoke("tag", "remove", "nosuchtag", "spar2026")
    assert (result.exit_code, result.stderr) == (3, "Error: no tag 'nosuchtag'; nothing changed\n")
    result = invoke("tag", "remove", "vision", "gsfixer2026", "x2020")
    assert (result.exit_code, result.stderr) == (
        3,
        "Error: no paper with citation key 'x2020'; nothing changed\n",
    )
    assert tags_of(invoke)["gsfixer2026"] == ["Vision"]


def test_tag_rename(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "ml", "spar2026", "safeseek2026")
    result = invoke("tag", "rename", "ML", "machine-learning")
    assert (result.exit_code, result.stderr) == (
        0,
        "renamed tag ml to machine-learning (2 papers)\n",
    )
    assert tags_of(invoke)["spar2026"] == ["machine-learning"]
    assert search_text(db_url, "spar2026").endswith("machine learning")
    # Only the case: allowed.
    result = invoke("tag", "rename", "vision", "VISION")
    assert (result.exit_code, result.stderr) == (0, "renamed tag Vision to VISION (1 paper)\n")
    assert tags_of(invoke)["gsfixer2026"] == ["VISION"]


def test_tag_rename_errors(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "ml", "spar2026")
    result = invoke("tag", "rename", "nosuch", "x")
    assert (result.exit_code, result.stderr) == (3, "Error: no tag 'nosuch'; nothing changed\n")
    result = invoke("tag", "rename", "ml", "vision")
    assert result.exit_code == 4
    assert result.stderr == (
        "Error: tag 'Vision' already exists; use `readinglist tag merge ml Vision` to join them\n"
    )
    assert tags_of(invoke)["spar2026"] == ["ml"]


def test_tag_merge(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "ml", "spar2026", "safeseek2026")
    invoke("tag", "add", "machine_learning", "safeseek2026", "gsfixer2026")
    invoke("tag", "add", "ai", "spar2026")
    result = invoke("tag", "merge", "ml", "MACHINE_LEARNING", "ai")
    assert (result.exit_code, result.stderr) == (
        0,
        "merged ml, MACHINE_LEARNING into ai (3 papers)\n",
    )
    assert tags_of(invoke) == {
        "spar2026": ["ai"],
        "safeseek2026": ["ai"],
        "gsfixer2026": ["ai", "Vision"],
    }
    assert json.loads(invoke("tag", "list", "--json").stdout) == [
        {"tag": "ai", "count": 3},
        {"tag": "Vision", "count": 1},
    ]
    assert sorted(tag_rows(db_url)) == ["Vision", "ai"]


def test_tag_merge_into_a_new_tag_and_errors(invoke, db_url) -> None:
    three(db_url)
    result = invoke("tag", "merge", "vision", "nope", "cv")
    assert (result.exit_code, result.stderr) == (3, "Error: no tag 'nope'; nothing changed\n")
    assert invoke("tag", "merge", "vision").exit_code == 2
    result = invoke("tag", "merge", "vision", "cv")
    assert (result.exit_code, result.stderr) == (0, "merged vision into cv (1 paper)\n")
    assert tags_of(invoke)["gsfixer2026"] == ["cv"]


def test_tag_add_by_query(invoke, db_url) -> None:
    three(db_url)
    invoke("mark", "to-read", "spar2026", "gsfixer2026")
    result = invoke("tag", "add", "queue", "-q", "status:to-read")
    assert (result.exit_code, result.stderr) == (0, "tagged 2 papers queue\n")
    result = invoke("tag", "remove", "queue", "-q", "tag:queue")
    assert (result.exit_code, result.stderr) == (0, "untagged 2 papers queue\n")
    result = invoke("tag", "add", "ghost", "-q", "status:reading")
    assert (result.exit_code, result.stderr) == (
        0,
        "no paper matches the query; nothing changed\n",
    )
    assert tag_rows(db_url) == ["Vision"]  # no tag without papers was left behind


def test_hierarchical_tags_are_found_by_their_parent(invoke, db_url) -> None:
    three(db_url)
    invoke("tag", "add", "ml/rl", "spar2026")
    invoke("tag", "add", "ml", "safeseek2026")
    result = invoke("list", "-k", "tag:ml")
    assert result.exit_code == 0, result.stderr
    assert sorted(result.stdout.split()) == ["safeseek2026", "spar2026"]
