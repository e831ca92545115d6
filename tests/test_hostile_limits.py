"""Issue 18: the same column limits on SQLite and PostgreSQL; bounded author lists."""

from __future__ import annotations

import json
from pathlib import Path

from readinglist.pipelines import limits


def test_too_long_values_reject_only_their_entry_on_both_databases(invoke, tmp_path: Path) -> None:
    key, doi, kind = "k" * 300, "10.1000/" + "d" * 300, "a" * 100
    bib = tmp_path / "long.bib"
    bib.write_text(
        "@article{ok1, title={Fine one}, year={2020}}\n"
        f"@article{{{key}, title={{Long key}}, year={{2020}}}}\n"
        f"@article{{ok2, title={{Fine two}}, doi={{{doi}}}, year={{2020}}}}\n"
        f"@{kind}{{ok3, title={{Long type}}, year={{2020}}}}\n"
        "@article{ok4, title={Fine four}, keywords={x}, year={2020}}\n"
    )
    result = invoke("import", str(bib))
    assert result.exit_code == 5
    assert result.stderr.splitlines() == [
        f"{bib}:2: citation key of 300 characters; the longest readinglist stores is 255: rejected",
        f"{bib}:3: DOI of 308 characters; the longest readinglist stores is 255: rejected",
        f"{bib}:4: entry type of 100 characters; the longest readinglist stores is 64: rejected",
        f"{bib} (bibtex): 2 added, 0 merged, 0 already present, 3 rejected",
        "Error: 3 entries rejected; 2 imported or merged (see above)",
    ]
    assert invoke("list", "-k").stdout == "ok1\nok4\n"


def test_too_long_tag_option_is_refused_before_anything(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "a.bib"
    bib.write_text("@article{ok1, title={Fine one}, year={2020}}\n")
    result = invoke("import", str(bib), "--tag", "t" * 300)
    assert result.exit_code == 5
    assert result.stderr == "Error: tag of 300 characters; the longest readinglist stores is 255\n"
    assert invoke("list", "-k").stdout == ""


def test_a_too_long_tag_of_a_record_rejects_that_entry() -> None:
    from readinglist.records import PaperRecord

    record = PaperRecord(citekey="x", title="T", tags=("t" * 256,), line=7)
    checked, problems = limits.check(record, "list.md")
    assert checked is None
    assert [str(p) for p in problems] == [
        "list.md:7: tag of 256 characters; the longest readinglist stores is 255"
    ]


def test_a_million_authors_are_cut_with_a_warning(invoke, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_PEOPLE", 50)
    ris = tmp_path / "many.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Many authors\n"
        + "".join(f"AU  - Person{i}, A.\n" for i in range(120))
        + "ER  - \n"
    )
    result = invoke("import", str(ris))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"warning: {ris}:1: 120 authors; kept the first 50 followed by 'and others'"
    )
    exported = invoke("export", "bibtex").stdout
    assert "Person49, A. and others}" in exported
    assert "Person50" not in exported


def test_limits_hold_in_the_reader_process(sqlite_url: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from readinglist.cli import cli

    bib = tmp_path / "long.bib"
    bib.write_text(
        "@article{ok1, title={Fine one}, year={2020}}\n"
        f"@article{{{'k' * 300}, title={{Long key}}, year={{2020}}}}\n"
    )
    result = CliRunner().invoke(
        cli, ["--db", sqlite_url, "import", str(bib)], env={"READINGLIST_READER_PROCESS": "1"}
    )
    assert result.exit_code == 5
    assert result.stderr.splitlines()[0] == (
        f"{bib}:2: citation key of 300 characters; the longest readinglist stores is 255: rejected"
    )


def test_nul_byte_in_an_aux_citation_is_a_missing_key(invoke, tmp_path: Path) -> None:
    bib = tmp_path / "a.bib"
    bib.write_text("@article{ok1, author={Ann Smith}, title={Fine one}, year={2020}}\n")
    assert invoke("import", str(bib)).exit_code == 0
    aux = tmp_path / "paper.aux"
    aux.write_bytes(b"\\relax\n\\citation{ok1}\n\\citation{bad\x00key}\n")
    result = invoke("export", "bibtex", "--aux", str(aux))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("@article{ok1,")
    assert result.stderr == f"warning: {aux}: cited key 'bad\\x00key' is not in the library\n"


def test_undo_removes_papers_merged_with_later_duplicates_of_the_same_file(
    invoke, tmp_path: Path, monkeypatch
) -> None:
    from readinglist.pipelines import importing

    monkeypatch.setattr(importing, "IMPORT_CHUNK", 2)  # the duplicate comes in a later chunk
    bib = tmp_path / "a.bib"
    bib.write_text(
        "@article{first, title={A study of things}, doi={10.1000/abc}, year={2020}}\n"
        "@article{other, title={Something else}, year={2021}}\n"
        "@article{third, title={A third paper}, year={2022}}\n"
        "@article{again, title={A study of things}, doi={10.1000/abc}, year={2020},\n"
        "  abstract={The abstract the first entry lacked.}, keywords={late}}\n"
    )
    result = invoke("import", "--verbose", str(bib))
    assert result.exit_code == 0, result.stderr
    assert "merged into first (same DOI): abstract, keywords" in result.stderr
    batch = invoke("import", "--list-batches", "--json")
    (info,) = json.loads(batch.stdout)
    result = invoke("import", "--undo", str(info["id"]))
    assert result.exit_code == 0, result.stderr
    assert "kept" not in result.stderr
    assert invoke("list", "-k").stdout == ""
