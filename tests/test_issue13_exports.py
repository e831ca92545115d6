"""Issue 13 items 2 and 5: exports that don't lie, and provisional papers that stay
provisional through every export and re-import (BibTeX, biblatex, CSL-JSON, RIS), on
SQLite and PostgreSQL; biblatex ``ids``; the ICML 2015 story through real ``bibtex``.
What an export reports and how it writes its file, and what biber makes of it
(``helpers.SQLITE_SUFFICES``), on SQLite: every format's bytes and report are the same
on PostgreSQL (test_databases_agree.py)."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from helpers import run_biber  # the module whose biber server the other tests share
from test_bibtex_library_round_trip import two_dbs  # noqa: F401  (fixture)
from test_merge_completion import ICML, abstracts_list, bib_records

from readinglist import db, formats, library
from readinglist.cli import cli
from readinglist.formats import bibtex
from readinglist.models import Paper
from readinglist.records import PaperRecord, Person, citation_problems
from tests.conftest import shared_data
from tests.helpers import SQLITE_SUFFICES, sql_rows, sql_values

EXTENSIONS = {"bibtex": "bib", "biblatex": "bib", "csl-json": "json", "ris": "ris"}


def run(url: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", url, *args])


def papers_of(url: str) -> list[tuple[Paper, PaperRecord]]:
    """Every paper of the library at ``url`` with its record, in the order of addition."""
    engine = db.make_engine(url)
    try:
        with db.session_scope(engine, write=False) as session:
            papers = library.all_papers(session)
            return [(p, library.to_record(p, with_aliases=True)) for p in papers]
    finally:
        engine.dispose()


# --- the report on stderr and --strict -----------------------------------------------------------

MIXED = """\
@inproceedings{real2020,
  author = {Ann Smith},
  title = {A Real Paper},
  year = {2020}
}

@misc{anon2020,
  title = {Nobody Wrote This},
  year = {2020}
}

@proceedings{procs2020,
  editor = {Bob Jones},
  title = {Proceedings of Tests},
  year = {2020}
}
"""


def abstracts(count: int) -> str:
    topics = [
        "graph sparsification",
        "protein folding",
        "tokenizer drift",
        "sensor fusion",
        "query rewriting",
        "crop yield",
        "glacier melt",
        "voice cloning",
        "market making",
        "code repair",
        "tide prediction",
        "font synthesis",
    ]
    paragraphs = [
        f"We study {topic} with a new estimator. Our estimator of {topic} is unbiased "
        f"and fast, and beats every baseline on three {topic} benchmarks."
        for topic in topics[:count]
    ]
    return "ICML 2026 Papers\n\n" + "\n\n".join(paragraphs) + "\n"


@pytest.fixture
def mixed_library(invoke, tmp_path: Path) -> list[str]:
    """A library of 12 provisional papers, one without author, two real; the keys of the
    papers that are not real references in BibTeX order."""
    (tmp_path / "list.txt").write_text(abstracts(12), encoding="utf-8")
    (tmp_path / "mixed.bib").write_text(MIXED, encoding="utf-8")
    assert invoke("import", str(tmp_path / "list.txt")).exit_code == 0
    assert invoke("import", str(tmp_path / "mixed.bib")).exit_code == 0
    keys = invoke("list", "-k", "-key:real2020", "-key:procs2020").stdout.split()
    assert len(keys) == 13
    return sorted(keys, key=str.casefold)


@SQLITE_SUFFICES
@pytest.mark.parametrize("fmt", ["bibtex", "biblatex", "csl-json", "ris", "markdown"])
def test_every_format_counts_entries_that_are_not_real_references(
    invoke, mixed_library: list[str], fmt: str
) -> None:
    result = invoke("export", fmt)
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "warning: 13 of 15 exported entries are not real references yet "
        "(12 with a provisional title, 13 with no author): "
    )
    named = lines[0].split(": ", 2)[2].removesuffix("; complete them with readinglist resolve")
    keys, more = named.split(" and ")
    assert more == "3 more"
    assert len(keys.split(", ")) == 10
    assert set(keys.split(", ")) <= set(mixed_library)
    if fmt in ("bibtex", "biblatex"):  # BibTeX writes in key order, and counts as it writes
        assert keys.split(", ") == mixed_library[:10]


@SQLITE_SUFFICES
def test_a_library_of_real_references_exports_without_a_word(invoke, tmp_path: Path) -> None:
    (tmp_path / "mixed.bib").write_text(MIXED, encoding="utf-8")
    assert invoke("import", str(tmp_path / "mixed.bib")).exit_code == 0
    result = invoke("export", "ris", "-key:anon2020", "--strict")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.count("TY  - ") == 2
    result = invoke("export", "bibtex", "key:anon2020")
    assert result.stderr == (
        "warning: 1 of 1 exported entry is not a real reference yet (1 with no author): "
        "anon2020; complete them with readinglist resolve\n"
    )


@SQLITE_SUFFICES
@pytest.mark.parametrize("fmt", ["bibtex", "biblatex", "csl-json", "ris", "markdown"])
def test_strict_refuses_and_writes_nothing(
    invoke, mixed_library: list[str], tmp_path: Path, fmt: str
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    new, old = folder / "new.out", folder / "old.out"
    old.write_text("the previous export\n", encoding="utf-8")
    for target in (new, old):
        result = invoke("export", fmt, "--strict", "-o", str(target))
        assert result.exit_code == 5
        assert result.stderr.startswith(
            "Error: 13 of 15 exported entries are not real references yet "
            "(12 with a provisional title, 13 with no author): "
        )
        assert result.stderr.endswith(" and 3 more; nothing written (--strict)\n")
    assert not new.exists()
    assert old.read_text(encoding="utf-8") == "the previous export\n"
    assert [p.name for p in folder.iterdir()] == ["old.out"]  # no temporary file left
    result = invoke("export", fmt, "--strict")  # standard output: nothing either
    assert result.exit_code == 5
    assert result.stdout == ""


def test_strict_still_refuses_to_overwrite_the_library(sqlite_url: str) -> None:
    path = sqlite_url.removeprefix("sqlite:///")
    result = run(sqlite_url, "export", "bibtex", "--strict", "-o", path)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {path} is the database itself; name another file\n"


def test_citation_problems_rule() -> None:
    smith = (Person(family="Smith", given="Ann"),)
    others = (Person(literal="others"),)
    assert citation_problems(PaperRecord(title="T", authors=smith)) == ()
    assert citation_problems(PaperRecord(title="T", authors=others)) == ("no author",)
    assert citation_problems(PaperRecord(title="T", title_provisional=True, authors=smith)) == (
        "provisional title",
    )
    # editors stand in for authors only where BibTeX's styles take them (a book, proceedings)
    book = PaperRecord(entry_type="book", title="B", editors=smith)
    assert citation_problems(book) == ()
    assert citation_problems(PaperRecord(entry_type="inproceedings", editors=smith)) == (
        "no author",
    )


# --- the provisional marks survive every round trip ----------------------------------------------


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex", "csl-json", "ris"])
@pytest.mark.parametrize(
    ("title", "key"), [(True, True), (True, False), (False, True), (False, False)]
)
def test_marks_round_trip_in_each_format(fmt: str, title: bool, key: bool) -> None:
    record = PaperRecord(
        citekey="we2015",
        entry_type="inproceedings",
        title="We Propose a Method",
        title_provisional=title,
        citekey_provisional=key,
        year=2015,
        abstract="We propose a method. It works.",
    )
    written = formats.writer(fmt)([record], **({"dialect": fmt} if "bib" in fmt else {}))
    back = formats.read(written, "bibtex" if "bib" in fmt else fmt, "x").records[0]
    assert (back.title_provisional, back.citekey_provisional) == (title, key)
    assert "readinglist-provisional" not in back.fields
    assert back.fields.get("ris_c8") is None
    assert ("readinglist-provisional" in written) == (title or key) or fmt == "csl-json"


def test_other_c8_values_of_a_ris_file_are_kept() -> None:
    text = "TY  - JOUR\nTI  - x\nC8  - lab code 7\nC8  - readinglist-provisional: key\nER  - \n"
    record = formats.read(text, "ris", "x.ris").records[0]
    assert record.fields["ris_c8"] == "lab code 7"
    assert (record.title_provisional, record.citekey_provisional) == (False, True)


def round_trip(
    first: str,
    second: str,
    tmp_path: Path,
    fmt: str,
    records: list[Any],
    proceedings: Path | None = None,
) -> None:
    """The abstracts of ``records`` into ``first``; its provisional papers exported in
    ``fmt`` and imported into ``second``: still provisional (title and key); then the
    ``proceedings`` (by default a .bib of ``records``) complete every one of them."""
    listed = tmp_path / "icml2015.txt"
    listed.write_text(abstracts_list(records, "exact"), encoding="utf-8")
    assert run(first, "import", str(listed)).exit_code == 0
    out = tmp_path / f"provisional.{EXTENSIONS[fmt]}"
    result = run(first, "export", fmt, "is:provisional", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    count = len(records)
    assert f"{count} of {count} exported entries are not real references yet" in result.stderr
    assert run(second, "import", str(out)).exit_code == 0
    again = sql_rows(second, "SELECT citekey, title_provisional, citekey_provisional FROM papers")
    assert len(again) == count
    assert all(title for _, title, _ in again)
    assert all(key for _, _, key in again)
    keys_before = set(sql_values(first, "SELECT citekey FROM papers"))
    assert {key for key, _, _ in again} == keys_before

    if proceedings is None:
        proceedings = tmp_path / "proceedings.bib"
        proceedings.write_text(bibtex.write(records), encoding="utf-8")
    result = run(second, "import", str(proceedings))
    assert result.exit_code == 0, result.stderr
    done = papers_of(second)
    assert len(done) == count
    by_key = {record.citekey: record for record in records}
    assert {p.citekey for p, _ in done} == set(by_key)
    for paper, record in done:
        assert not paper.title_provisional
        assert not paper.citekey_provisional
        assert record.authors == by_key[record.citekey].authors
        assert record.title == by_key[record.citekey].title
        assert len(set(record.aliases) & keys_before) == 1  # the made-up key is an alias


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex", "csl-json", "ris"])
def test_provisional_export_reimported_is_completed_by_the_proceedings(
    two_dbs: tuple[str, str],  # noqa: F811
    tmp_path: Path,
    fmt: str,
) -> None:
    """Twenty papers of the ICML 2015 list exported provisional, imported into a fresh
    library: still provisional; a .bib of their proceedings' entries completes them."""
    round_trip(*two_dbs, tmp_path, fmt, bib_records()[100:120])


@pytest.mark.slow  # 270 papers, three imports: 10 to 25 s each; each format once, each database twice
@pytest.mark.parametrize(
    ("fmt", "two_dbs"),
    [
        ("bibtex", "postgresql"),
        ("biblatex", "sqlite"),
        ("csl-json", "postgresql"),
        ("ris", "sqlite"),
    ],
    indirect=["two_dbs"],
)
def test_icml2015_provisional_export_reimported_is_completed_by_the_proceedings(
    two_dbs: tuple[str, str],  # noqa: F811
    tmp_path: Path,
    fmt: str,
) -> None:
    """The whole ICML 2015 list, as above; pmlr-v37-icml2015.bib itself completes all 270."""
    records = bib_records()
    assert len(records) == 270
    round_trip(*two_dbs, tmp_path, fmt, records, shared_data(ICML))


# --- biblatex ids ---------------------------------------------------------------------------------


def test_biblatex_writes_aliases_as_ids_and_reads_them_back(two_dbs, tmp_path: Path) -> None:  # noqa: F811
    first, second = two_dbs
    source = tmp_path / "a.bib"
    source.write_text(
        "@article{smith2020deep,\n  author = {Ann Smith},\n  title = {Deep Nets},\n"
        "  journal = {J. Tests},\n  year = {2020}\n}\n",
        encoding="utf-8",
    )
    assert run(first, "import", str(source)).exit_code == 0
    assert run(first, "rekey", "smith2020deep", "smith2020nets").exit_code == 0
    biblatex = run(first, "export", "biblatex").stdout
    assert "  ids = {smith2020deep}\n" in biblatex
    assert "ids" not in run(first, "export", "bibtex").stdout  # BibTeX has no use for it
    out = tmp_path / "b.bib"
    out.write_text(biblatex, encoding="utf-8")
    assert run(second, "import", str(out)).exit_code == 0
    shown = run(second, "show", "smith2020deep", "--json")
    assert shown.exit_code == 0
    assert '"key": "smith2020nets"' in shown.stdout
    assert '"aliases": [\n    "smith2020deep"\n  ]' in shown.stdout
    # unchanged since import: copied byte for byte, ids and all
    assert run(second, "export", "biblatex").stdout == biblatex


def test_ids_that_name_another_paper_are_not_taken(invoke, tmp_path: Path) -> None:
    source = tmp_path / "a.bib"
    source.write_text(
        "@article{one,\n  author = {A B},\n  title = {One},\n  year = {2020}\n}\n\n"
        "@article{two,\n  ids = {one, zwei},\n  author = {C D},\n  title = {Two},\n"
        "  year = {2021}\n}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("show", "zwei", "--json").stdout.count('"key": "two"') == 1
    assert invoke("show", "one", "--json").stdout.count('"key": "one"') == 1
    exported = invoke("export", "biblatex", "key:two").stdout
    # Only the ids value is replaced (in place): the rest of the entry as written.
    assert exported == (
        "@article{two,\n  ids = {zwei},\n  author = {C D},\n  title = {Two},\n  year = {2021}\n}\n"
    )


def export_renamed_paper(invoke: Any, tmp_path: Path) -> Path:
    """Import ``smith2020deep``, rekey it ``smith2020nets`` and export biblatex to refs.bib."""
    source = tmp_path / "a.bib"
    source.write_text(
        "@article{smith2020deep,\n  author = {Ann Smith},\n  title = {Deep Nets},\n"
        "  journal = {J. Tests},\n  year = {2020}\n}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("rekey", "smith2020deep", "smith2020nets").exit_code == 0
    refs = tmp_path / "refs.bib"
    assert invoke("export", "biblatex", "-o", str(refs)).exit_code == 0
    return refs


@SQLITE_SUFFICES
@pytest.mark.tools("biber")
def test_biber_takes_the_ids_of_the_biblatex_export(invoke, tmp_path: Path) -> None:
    """biber's own reading of the export (``--tool``): the old key is the entry's alias
    (biber warns when an alias clashes with another entry's)."""
    export_renamed_paper(invoke, tmp_path)
    done = run_biber(["--tool", "--output-file=out.bib", "refs.bib"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARN" not in done.stdout + done.stderr
    assert "ERROR" not in done.stdout + done.stderr
    out = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert out.startswith("@ARTICLE{smith2020nets,\n")
    assert "  IDS = {smith2020deep},\n" in out


#: The parts of biber's own tool configuration (``biber --tool-config``) that a control
#: file needs: option scopes, name and sorting templates, the data model.
_BCF_PARTS = (
    "optionscope",
    "datafieldset",
    "inheritance",
    "uniquenametemplate",
    "sortingnamekeytemplate",
    "sortingtemplate",
    "datamodel",
)


@functools.cache
def tool_config() -> str:
    """The text of biber's default tool configuration (the file ``biber --tool-config``
    names), read once per test process: the installed file does not change during a run."""
    found = run_biber(["--tool-config"], Path.cwd(), 60)
    return Path(found.stdout.strip().splitlines()[-1]).read_text(encoding="utf-8")


def control_file(bib: str, cited: list[str]) -> str:
    """A biblatex control file (``.bcf``, what a LaTeX run with biblatex writes for
    biber) citing ``cited`` from ``bib``, built from biber's default tool configuration
    (this machine's TeX Live lacks etoolbox.sty, without which biblatex cannot run)."""
    conf = tool_config()
    conf = re.sub(r"<!--.*?-->", "", conf, flags=re.DOTALL)
    parts = [m for tag in _BCF_PARTS for m in re.findall(rf"<{tag}\b.*?</{tag}>", conf, re.DOTALL)]
    body = re.sub(r"<(/?)([A-Za-z])", r"<\1bcf:\2", "\n".join(parts))
    option = "<bcf:option type='singlevalued'><bcf:key>{}</bcf:key><bcf:value>{}</bcf:value></bcf:option>"
    keys = "".join(
        f"<bcf:citekey order='{i}' intorder='1'>{k}</bcf:citekey>" for i, k in enumerate(cited, 1)
    )
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        "<bcf:controlfile version='3.9' bltxversion='3.18' "
        "xmlns:bcf='https://sourceforge.net/projects/biblatex'>\n"
        f"<bcf:options component='biber' type='global'>{option.format('output_encoding', 'utf8')}"
        f"{option.format('input_encoding', 'utf8')}</bcf:options>\n"
        f"<bcf:options component='biblatex' type='global'>"
        f"{option.format('sortingtemplatename', 'tool')}</bcf:options>\n{body}\n"
        "<bcf:bibdata section='0'><bcf:datasource type='file' datatype='bibtex' glob='false'>"
        f"{bib}</bcf:datasource></bcf:bibdata>\n<bcf:section number='0'>{keys}</bcf:section>\n"
        "<bcf:datalist section='0' name='tool/global//global/global' type='entry' "
        "sortingtemplatename='tool' sortingnamekeytemplatename='global' labelprefix='' "
        "uniquenametemplatename='global' labelalphanametemplatename='global'/>\n"
        "</bcf:controlfile>\n"
    )


@SQLITE_SUFFICES
@pytest.mark.tools("biber")
@pytest.mark.parametrize("dialect", ["biblatex", "bibtex"])
def test_biber_resolves_a_cite_of_an_old_key(invoke, tmp_path: Path, dialect: str) -> None:
    """``\\cite{smith2020deep}`` after ``rekey smith2020deep smith2020nets``: biber finds
    the entry through the biblatex export's ``ids``; the BibTeX export (no ``ids``) is the
    control that shows the test can fail."""
    refs = export_renamed_paper(invoke, tmp_path)
    if dialect == "bibtex":
        assert invoke("export", "bibtex", "-o", str(refs)).exit_code == 0
    (tmp_path / "doc.bcf").write_text(control_file("refs.bib", ["smith2020deep"]), "utf-8")
    done = run_biber(["doc"], tmp_path)
    log = (tmp_path / "doc.blg").read_text(encoding="utf-8")
    assert done.returncode == 0, log
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8")
    if dialect == "biblatex":
        assert "WARN" not in log, log
        assert "ERROR" not in log, log
        assert "\\entry{smith2020nets}{article}{}" in bbl
        assert "\\keyalias{smith2020deep}{smith2020nets}" in bbl
    else:
        assert "I didn't find a database entry for 'smith2020deep'" in log
        assert "\\entry{" not in bbl


# --- the ICML 2015 story through the CLI and the real bibtex -----------------------------------


def triage_ten_by_cli(invoke: Any) -> None:
    keys = invoke("list", "-k").stdout.split()[:10]
    assert invoke("mark", "to-read", *keys[:5]).exit_code == 0
    assert invoke("mark", "read", *keys[5:]).exit_code == 0
    assert invoke("priority", "high", *keys[:3]).exit_code == 0
    assert invoke("tag", "add", "icml-pick", *keys[::2]).exit_code == 0
    assert invoke("note", "add", keys[0], "-m", "read the appendix").exit_code == 0


@pytest.mark.tools("bibtex")
def test_icml2015_story_exports_bibtex_that_bibtex_accepts(sqlite_url: str, tmp_path: Path) -> None:
    """The abstracts list, ten triaged, the proceedings imported, ``export bibtex
    --strict``: the real ``bibtex`` on a document citing all 270 keys warns of no empty
    author and reports no error (SQLite: the export's text is the same on PostgreSQL)."""

    def invoke(*args: str) -> Result:
        return run(sqlite_url, *args)

    records = bib_records()
    listed = tmp_path / "icml2015.txt"
    listed.write_text(abstracts_list(records, "exact"), encoding="utf-8")
    assert invoke("import", str(listed)).exit_code == 0
    triage_ten_by_cli(invoke)
    assert invoke("import", str(shared_data(ICML))).exit_code == 0
    refs = tmp_path / "refs.bib"
    result = invoke("export", "bibtex", "--strict", "-o", str(refs))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == f"exported 270 papers to {refs} (bibtex)\n"
    exported = bibtex.read(refs.read_text(encoding="utf-8")).records
    assert {r.citekey for r in exported} == {r.citekey for r in records}
    (tmp_path / "doc.aux").write_text(
        "\\relax\n\\bibstyle{plain}\n\\bibdata{refs}\n"
        + "".join(f"\\citation{{{r.citekey}}}\n" for r in records),
        encoding="utf-8",
    )
    done = subprocess.run(
        ["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    log = done.stdout + (tmp_path / "doc.blg").read_text(encoding="utf-8")
    assert done.returncode in (0, 1), log  # 2 and more: errors
    assert log.count("empty author") == 0
    assert "error message" not in log
    assert "I didn't find a database entry" not in log
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8")
    assert bbl.count("\\bibitem") == 270
    picked = invoke("list", "-k", "tag:icml-pick").stdout.split()
    assert len(picked) == 5
    assert all(f"\\bibitem{{{key}}}" in bbl for key in picked)


# --- not-duplicate and merge; undoing a resolve ---------------------------------------------------

EDITORIALS = """\
@article{ed1,
  author = {Ann Smith},
  title = {Editorial},
  journal = {J. Tests},
  year = {2019},
  volume = {12},
  number = {1}
}

@article{ed2,
  author = {Ann Smith},
  title = {Editorial},
  journal = {J. Tests},
  year = {2019},
  volume = {12},
  number = {2},
  pages = {7--8}
}
"""


def test_merge_refuses_a_pair_marked_not_duplicate_unless_forced(invoke, tmp_path: Path) -> None:
    source = tmp_path / "ed.bib"
    source.write_text(EDITORIALS, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("not-duplicate", "ed1", "ed2").exit_code == 0
    result = invoke("merge", "ed1", "ed2")
    assert result.exit_code == 4
    assert result.stderr == (
        "Error: 'ed1' and 'ed2' were marked as different papers (not-duplicate); "
        "merge --force merges them anyway\n"
    )
    assert invoke("list", "-k").stdout.split() == ["ed1", "ed2"]  # nothing changed
    assert invoke("merge", "ed2", "ed1").exit_code == 4  # either order
    result = invoke("merge", "ed1", "ed2", "--force")
    assert result.exit_code == 0, result.stderr
    assert invoke("list", "-k").stdout.split() == ["ed1"]
    shown = invoke("show", "ed2", "--json").stdout
    assert '"key": "ed1"' in shown
    assert '"pages": "7--8"' in shown  # filled from the merged one


def test_import_undo_of_a_resolve_batch_restores_the_papers(invoke, tmp_path: Path) -> None:
    records = bib_records()[:5]
    listed = tmp_path / "icml.txt"
    listed.write_text(abstracts_list(records, "exact"), encoding="utf-8")
    assert invoke("import", str(listed)).exit_code == 0
    before = invoke("list", "--json").stdout
    keys = invoke("list", "-k").stdout.split()
    assert invoke("mark", "to-read", keys[0]).exit_code == 0
    assert invoke("tag", "add", "pick", keys[1]).exit_code == 0
    triaged = invoke("list", "--json").stdout
    proceedings = tmp_path / "icml.bib"
    proceedings.write_text(bibtex.write(records), encoding="utf-8")
    result = invoke("resolve", "--from", str(proceedings))
    assert result.exit_code == 0, result.stderr
    assert invoke("list", "-k").stdout.split() == [r.citekey for r in records]
    batch = invoke("import", "--list-batches", "--json").stdout
    assert '"format": "resolve"' in batch
    batch_id = json_batches(invoke)[-1]

    # a paper changed since the resolve is kept as it is
    assert invoke("title", records[4].citekey or "", "My Own Title").exit_code == 0
    result = invoke("import", "--undo", str(batch_id))
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == f"kept {records[4].citekey}: changed since resolve"
    assert lines[1:5] == [
        f"restored {r.citekey} -> {k}" for r, k in zip(records[:4], keys[:4], strict=True)
    ]
    assert lines[5] == (
        f"undid resolve {batch_id} (resolve --from {proceedings}): restored 4 papers, "
        "kept 1 you have worked on since"
    )
    assert invoke("list", "-k").stdout.split() == [*keys[:4], records[4].citekey]
    restored = json_of(invoke("list", "--json").stdout)[:4]
    assert restored == json_of(triaged)[:4]  # titles, authors, keys, triage: as before
    assert json_of(before)[2:4] == restored[2:4]
    history = invoke("merge", "--history", keys[0])
    assert history.stdout == ""  # the completion's merge history went with it
    # the provisional papers can be resolved again
    result = invoke("resolve", "--from", str(proceedings))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("4 of 5 incomplete papers completed, 1 not found")


def json_of(text: str) -> Any:
    import json

    papers = json.loads(text)
    for paper in papers:
        paper.pop("interest", None)
    return papers


def json_batches(invoke: Any) -> list[int]:
    return [b["id"] for b in json_of(invoke("import", "--list-batches", "--json").stdout)]
