"""Exports never let a value break out of its field: no raw line break inside a one-line
RIS value, no entry type or brace that ends a BibTeX entry or starts another; each
export read back gives the papers written. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: Line breaks a reader may split at (``str.splitlines``), each with an injected tag line.
BREAKS = ["\n", "\r", "\r\n", "\u2028", "\x0c", "\x85"]


def _csl(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


@pytest.mark.parametrize("brk", BREAKS)
def test_ris_export_writes_no_line_break_inside_a_value(
    invoke: Callable[..., Any], tmp_path: Path, runner: Any, brk: str
) -> None:
    """A name, title or venue holding a line break and ``AU  - Evil, Injected`` was
    written as two lines: on re-import the injected line became an author. Each
    one-line value is written on one line; read back, the paper has its one author."""
    from readinglist.cli import cli

    item = {
        "id": "k1",
        "type": "article-journal",
        "title": f"Safe title{brk}AU  - Evil, Injected",
        "author": [{"family": f"Smith{brk}AU  - Evil", "given": "Ann"}],
        "container-title": f"Journal{brk}ER  - {brk}TY  - BOOK",
        "issued": {"date-parts": [[2020]]},
    }
    assert invoke("import", str(_csl(tmp_path, [item]))).exit_code == 0
    out = tmp_path / "out.ris"
    result = invoke("export", "ris", "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("AU  - ")] == ["AU  - Smith AU - Evil, Ann"]
    assert [line[:2] for line in lines].count("TY") == 1
    again = f"sqlite:///{tmp_path / 'again.db'}"
    assert runner.invoke(cli, ["--db", again, "import", str(out)]).exit_code == 0
    shown = json.loads(runner.invoke(cli, ["--db", again, "list", "--json"]).stdout)
    assert len(shown) == 1
    assert len(shown[0]["authors"]) == 1


def test_ris_abstract_keeps_its_lines_without_a_tag_line(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """A multi-line abstract stays multi-line (RIS continuation lines; a single newline is
    a hard wrap, joined into its paragraph), but a line of it that looks like a tag line,
    after any line break, is indented: never a tag."""
    item = {
        "id": "k1",
        "type": "article-journal",
        "title": "T",
        "abstract": "First line.\u2028AU  - Evil, Injected\nLast line.",
    }
    assert invoke("import", str(_csl(tmp_path, [item]))).exit_code == 0
    text = invoke("export", "ris").stdout
    assert not any(line.startswith("AU  - ") for line in text.splitlines())
    assert " AU  - Evil, Injected Last line." in text.splitlines()


def test_bibtex_export_of_a_stored_entry_type_that_is_not_a_name(
    invoke: Callable[..., Any], db_url: str
) -> None:
    """An entry type stored before types were checked (or written by another tool into
    the database) with braces and a newline injected an entry into the BibTeX export.
    The writer writes ``misc`` for a type that is not an entry type name."""
    from readinglist import db

    assert invoke("add", "--title", "Deep residual learning").exit_code == 0
    engine = db.make_engine(db_url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE papers SET entry_type = 'article{x,\n title={Injected}}\n@misc{evil'"
        )
    engine.dispose()
    for dialect in ("bibtex", "biblatex"):
        text = invoke("export", dialect).stdout
        assert text.count("@") == 1, text
        assert text.startswith("@misc{deep")
        assert "Injected" not in text


def test_bibtex_export_balances_braces_of_text_values(
    invoke: Callable[..., Any], tmp_path: Path, runner: Any
) -> None:
    """Text values (here from CSL-JSON) with unbalanced braces and a line starting with
    ``@`` are written so that the entry reads back whole, with the same title."""
    from readinglist.cli import cli

    title = "Closing } first { then\n@misc{evil, title={x}}"
    item = {"id": "k1", "type": "article-journal", "title": title, "note": "a } b"}
    assert invoke("import", str(_csl(tmp_path, [item]))).exit_code == 0
    shown_before = json.loads(invoke("list", "--json").stdout)[0]["title"]
    out = tmp_path / "out.bib"
    assert invoke("export", "bibtex", "-o", str(out)).exit_code == 0
    again = f"sqlite:///{tmp_path / 'again.db'}"
    imported = runner.invoke(cli, ["--db", again, "import", str(out)])
    assert imported.exit_code == 0, imported.output
    shown = json.loads(runner.invoke(cli, ["--db", again, "list", "--json"]).stdout)
    assert len(shown) == 1
    assert shown[0]["title"] == shown_before
