"""Hostile input that used to be taken: junk that is no reference list, look-alike
reader names. Each is refused with a message naming the file and line (or the names),
a non-zero exit, no traceback and nothing written; SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import SQLITE_ONLY, sql_value

from readinglist.records import PaperRecord


def _library(db_url: str) -> None:
    from helpers import seed

    seed(db_url, PaperRecord(citekey="kept2020", title="A Paper Already There", year=2020))


def _counts(db_url: str) -> tuple[int, int]:
    """Papers, and papers added by an import (a refused import is logged, with its
    rejected count, as an import batch that added nothing)."""
    return (
        sql_value(db_url, "SELECT count(*) FROM papers"),
        sql_value(db_url, "SELECT coalesce(sum(added), 0) FROM import_batches"),
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "a.json",
            '{"a": 1}\n',
            "a.json:1: item with no title and no identifier (DOI, arXiv id, URL): "
            "not a reference: rejected",
        ),
        ("b.json", "[1,\n 2]\n", "b.json:2: expected a CSL-JSON item (an object), found int"),
        ("c.ris", "AU  - Doe, Jane\nPY  - 2020\nER  - \n", "c.ris:1: no RIS record found"),
        (
            "d.ris",
            "TY  - JOUR\nAU  - Doe, Jane\nER  - \n\nTY  - JOUR\nPY  - 2020\nER  - \n",
            "d.ris:5: record with no title and no identifier (DOI, arXiv id, URL): "
            "not a reference: rejected",
        ),
        (
            "e.json",
            '[{"id": "j", "type": "webpage", "URL": "javascript:alert(1)"}]\n',
            "e.json:1: item with no title and no identifier (DOI, arXiv id, URL): "
            "not a reference: rejected",
        ),
        (
            "f.ris",
            "TY  - ELEC\nUR  - file:///etc/passwd\nER  - \n",
            "f.ris:1: record with no title and no identifier (DOI, arXiv id, URL): "
            "not a reference: rejected",
        ),
    ],
)
def test_junk_is_refused_naming_file_and_line(
    invoke, db_url: str, tmp_path: Path, name: str, text: str, message: str
) -> None:
    _library(db_url)
    before = _counts(db_url)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 5
    assert f"{tmp_path}/{message}" in result.stderr
    assert "Traceback" not in result.output
    assert _counts(db_url) == before


def test_a_few_empty_records_are_skipped_and_counted(invoke, db_url: str, tmp_path: Path) -> None:
    path = tmp_path / "refs.json"
    path.write_text(
        '[{"id": "x1", "type": "article-journal", "title": "A Real One"},\n'
        ' {"id": "e1", "type": "article-journal"},\n'
        ' {"id": "e2", "DOI": "10.1234/abc"},\n'
        " {}]\n",
        encoding="utf-8",
    )
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert f"{path}: 2 of 4 items skipped: no title and no identifier" in result.stderr
    assert f"{path}:2: item with no title and no identifier" in result.stderr
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 2


def test_a_look_alike_reader_is_the_reader_not_a_new_one(invoke, db_url: str) -> None:
    _library(db_url)
    assert invoke("--reader", "Ana", "mark", "read", "kept2020").exit_code == 0
    result = invoke("--reader", "ＡＮＡ", "mark", "skipped", "kept2020")
    assert (result.exit_code, result.stderr) == (0, "marked 1 paper skipped\n")
    assert sql_value(db_url, "SELECT count(*) FROM readers") == 1


def undo_under_kept_aux(invoke, tmp_path: Path, batch: object, cited: str) -> Any:
    """Keep a BibTeX export (``p.bib``) of a document citing key ``cited``, then undo
    import batch ``batch``; return the undo's result."""
    aux = tmp_path / "main.aux"
    aux.write_text(f"\\relax\n\\citation{{{cited}}}\n", encoding="utf-8")
    kept = invoke("export", "bibtex", "--aux", str(aux), "-o", str(tmp_path / "p.bib"), "--keep")
    assert kept.exit_code == 0, kept.stderr
    return invoke("import", "--undo", str(batch))


def test_undo_refuses_to_remove_papers_a_kept_aux_export_cites(
    invoke, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "me@desk")
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{Cited2024, title = {A Cited Paper}, author = {Doe, Jane}, year = 2024}\n"
        "@article{other2024, title = {Another Paper}, author = {Roe, Ann}, year = 2024}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    batch = sql_value(db_url, "SELECT max(id) FROM import_batches")
    result = undo_under_kept_aux(invoke, tmp_path, batch, "cited2024")
    assert result.exit_code == 4
    assert "Cited2024 (cited by kept export 'p.bib')" in result.stderr
    assert "nothing removed" in result.stderr
    assert "Traceback" not in result.output
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 2
    result = invoke("import", "--undo", str(batch), "--force")
    assert result.exit_code == 0, result.stderr
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 0


@SQLITE_ONLY
def test_force_alone_is_a_usage_error(invoke) -> None:
    result = invoke("import", "--force")
    assert result.exit_code == 2
    assert "--undo BATCH [--force]" in result.stderr


def test_undo_refuses_when_a_kept_export_cites_a_paper_by_an_alias(
    invoke, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second import of the same DOI under another key merges into the paper and
    leaves that key as an alias; a document citing the alias cites the paper: undoing
    the first import would remove it, so it is refused, naming the paper and the alias."""
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "me@desk")
    first, second = tmp_path / "b1.bib", tmp_path / "b2.bib"
    first.write_text(
        "@article{k1, title = {Undo Paper}, author = {Doe, Jane}, year = 2024,"
        " doi = {10.1234/undo.1}}\n",
        encoding="utf-8",
    )
    second.write_text(first.read_text(encoding="utf-8").replace("{k1,", "{k2,"), encoding="utf-8")
    assert invoke("import", str(first)).exit_code == 0
    batch = sql_value(db_url, "SELECT max(id) FROM import_batches")
    assert invoke("import", str(second)).exit_code == 0
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 1
    result = undo_under_kept_aux(invoke, tmp_path, batch, "k2")
    assert result.exit_code == 4, result.output
    assert "k1 (cited as k2) (cited by kept export 'p.bib')" in result.stderr
    assert sql_value(db_url, "SELECT count(*) FROM papers") == 1


def test_undo_of_a_resolve_refuses_to_drop_a_key_a_kept_aux_export_cites(
    invoke, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undoing a ``resolve`` drops the keys it gave (the paper gets its provisional key
    back): a kept ``.aux`` export citing such a key refuses it as an import's undo does
    (exit 4, nothing changed), and ``--force`` goes ahead."""
    monkeypatch.setenv("READINGLIST_PROFILE_OWNER", "me@desk")
    pasted = tmp_path / "pasted.txt"
    pasted.write_text(
        "Attention Is All You Need\n\n"
        "The dominant sequence transduction models are based on complex recurrent networks.\n",
        encoding="utf-8",
    )
    proceedings = tmp_path / "proceedings.bib"
    proceedings.write_text(
        "@inproceedings{NIPS2017_att, title = {Attention Is All You Need},\n"
        " author = {Vaswani, Ashish and Shazeer, Noam}, year = {2017},\n"
        " booktitle = {Advances in Neural Information Processing Systems}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(pasted), "--year", "2017").exit_code == 0
    resolved = invoke("resolve", "--from", str(proceedings))
    assert "attention2017 -> NIPS2017_att" in resolved.stderr + resolved.output
    batch = sql_value(db_url, "SELECT max(id) FROM import_batches")
    result = undo_under_kept_aux(invoke, tmp_path, batch, "NIPS2017_att")
    assert result.exit_code == 4, result.stderr
    assert "NIPS2017_att (cited by kept export 'p.bib')" in result.stderr
    assert "nothing removed" in result.stderr
    assert sql_value(db_url, "SELECT citekey FROM papers") == "NIPS2017_att"
    result = invoke("import", "--undo", str(batch), "--force")
    assert result.exit_code == 0, result.stderr
    assert sql_value(db_url, "SELECT citekey FROM papers") == "attention2017"
