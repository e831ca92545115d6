"""No citation key makes LaTeX run a command: BibTeX and biber copy a key verbatim into
the ``.bbl`` (``\\bibitem{key}``, ``\\entry{key}``) and LaTeX into the ``.aux``, where
TeX reads ``^^7d`` as ``}`` and ``^^5c`` as ``\\``. Hostile keys arrive by every route
(a BibTeX key, a biblatex ``ids`` old key, a RIS ``ID``, a CSL-JSON ``id``, the key of a
RIS duplicate merged on import, ``rekey``) and through a library that holds
such keys already (written before the rule); the exports are compiled with ``pdflatex
-shell-escape`` + bibtex and + biber and nothing may run. A control compile shows the
payload does run when the key is written raw; a hypothesis property checks that every
generated or export-made key holds no character TeX reads as markup."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result
from helpers import require_tools
from hypothesis import given, settings
from hypothesis import strategies as st
from test_latex_allowlist_compile import INERT, compile_biber, compile_bibtex, effects

from readinglist import citekeys
from readinglist.formats import bibtex
from readinglist.formats.bibtex import valid_citekey
from readinglist.records import PaperRecord, Person

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("_real_tools")]
Invoke = Callable[..., Result]


@pytest.fixture
def _real_tools() -> None:
    """Fail (never skip) when pdflatex, bibtex, biber or mutool is missing."""
    require_tools("pdflatex", "bibtex", "biber", "mutool")


def hostile(mark: str) -> str:
    """A key that, copied raw into a ``.bbl``, closes ``\\bibitem{key}`` (bibtex) or
    ``\\entry{key}{type}{}`` (biber) and touches ``mark``."""
    return (
        "k^^7d^^7barticle^^7d^^7b^^7d^^5cendentry^^5cimmediate^^5cwrite18"
        f"^^7btouch^^20{mark}^^7d^^5centry^^7bz"
    )


@pytest.fixture
def invoke(runner: CliRunner, sqlite_url: str) -> Invoke:
    """``readinglist --db <sqlite_url> ARGS...`` in-process (the compiles are slow: one
    database kind; the key rule is not the database's)."""
    from readinglist.cli import cli

    def run(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, ["--db", sqlite_url, *args], input=input)

    return run


def test_the_harness_sees_a_raw_hostile_key_run(tmp_path: Path) -> None:
    """Control: the key written raw runs its command under bibtex and under biber."""
    bib = f"@article{{{hostile('pwnctl')},\n  author = {{Roe, R}},\n  title = {{Any}},\n  year = 2018\n}}\n"
    compile_bibtex(tmp_path / "bibtex", bib, "plain")
    assert effects(tmp_path / "bibtex")["markers"] == ["pwnctl"]
    compile_biber(tmp_path / "biber", bib)
    assert effects(tmp_path / "biber")["markers"] == ["pwnctl"]


def _fill(invoke: Invoke, tmp_path: Path) -> list[str]:
    """Import hostile keys by every route; returns the import warnings (stderr lines)."""
    bib = tmp_path / "k.bib"
    bib.write_text(
        f"@article{{{hostile('pwnbib')},\n  author = {{Roe, R}},\n  title = {{Bib Route}},\n"
        "  year = 2018,\n  doi = {10.1234/bib}\n}\n\n"
        f"@article{{ids1,\n  author = {{Poe, E}},\n  title = {{Ids Route}},\n  year = 2019,\n"
        f"  ids = {{{hostile('pwnids')}, oldgood}}\n}}\n"
    )
    ris = tmp_path / "k.ris"
    ris.write_text(
        f"TY  - JOUR\nID  - {hostile('pwnris')}\nTI  - Ris Route\nAU  - Doe, D\nPY  - 2017\nER  - \n\n"
        # A duplicate of the BibTeX paper (same DOI): its key would become an alias.
        f"TY  - JOUR\nID  - {hostile('pwndup')}\nTI  - Bib Route\nAU  - Roe, R\nPY  - 2018\n"
        "DO  - 10.1234/bib\nER  - \n"
    )
    csl = tmp_path / "k.json"
    item = {
        "id": hostile("pwncsl"),
        "type": "article-journal",
        "title": "Csl Route",
        "author": [{"family": "Moe", "given": "M"}],
        "issued": {"date-parts": [[2016]]},
    }
    csl.write_text(json.dumps([item]))
    lines = []
    for path in (bib, ris, csl):
        result = invoke("import", str(path))
        assert result.exit_code == 0, result.output
        lines += result.stderr.splitlines()
    return lines


def test_hostile_keys_by_every_route_are_replaced_with_a_warning(
    invoke: Invoke, tmp_path: Path
) -> None:
    warnings = _fill(invoke, tmp_path)
    rule = citekeys.KEY_RULE
    for path, line, mark, key in (
        ("k.bib", 1, "pwnbib", "roe2018bib"),
        ("k.ris", 1, "pwnris", "doe2017ris"),
        ("k.json", 1, "pwncsl", "moe2016csl"),
    ):
        said = (
            f"warning: {tmp_path / path}:{line}: citation key {hostile(mark)!r} is not "
            f"usable ({rule}); imported as {key!r}"
        )
        assert said in warnings
    assert sorted(invoke("list", "-k").stdout.split()) == [
        "doe2017ris",
        "ids1",
        "moe2016csl",
        "roe2018bib",
    ]
    shown = json.loads(invoke("show", "ids1", "--json").stdout)
    assert shown["aliases"] == ["oldgood"]
    assert json.loads(invoke("show", "roe2018bib", "--json").stdout)["aliases"] == []
    # rekey refuses such a key, naming the rule.
    result = invoke("rekey", "ids1", hostile("pwnrekey"))
    assert (result.exit_code, rule in result.stderr) == (2, True)
    assert json.loads(invoke("show", "ids1", "--json").stdout)["key"] == "ids1"


def _compile_all(invoke: Invoke, tmp_path: Path) -> dict[str, str]:
    """Export both dialects and compile them under ``-shell-escape``; every compile is
    inert and cites every entry. Returns the exports' stderr by dialect."""
    said = {}
    for dialect in ("bibtex", "biblatex"):
        out = tmp_path / f"{dialect}.bib"
        result = invoke("export", dialect, "-o", str(out))
        assert result.exit_code == 0, result.output
        said[dialect] = result.stderr
        text = out.read_text(encoding="utf-8")
        assert "^" not in text
        entries = text.count("@")
        folder = tmp_path / f"compile-{dialect}"
        if dialect == "bibtex":
            assert compile_bibtex(folder, text, "plain") == entries
        else:
            assert compile_biber(folder, text) == entries
        assert effects(folder) == INERT, dialect
    return said


def test_exports_of_hostile_imports_are_inert_under_shell_escape(
    invoke: Invoke, tmp_path: Path
) -> None:
    _fill(invoke, tmp_path)
    for dialect, said in _compile_all(invoke, tmp_path).items():
        assert said == f"exported 4 papers to {tmp_path / dialect}.bib ({dialect})\n"


def test_a_library_holding_hostile_keys_exports_them_renamed(
    invoke: Invoke, sqlite_url: str, tmp_path: Path
) -> None:
    """A library written before the rule holds a hostile key and a hostile old key: the
    export never writes them verbatim (nor the entry's source text, which holds the
    key as read) and warns naming each; a document citing the old key still compiles."""
    bib = tmp_path / "ok.bib"
    bib.write_text("@article{okay,\n  author = {Roe, R},\n  title = {Any},\n  year = 2018\n}\n")
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("rekey", "okay", "okay2").exit_code == 0
    bad, old = hostile("pwnlegacy"), hostile("pwnalias")
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as db:
        db.execute(
            sa.text("UPDATE papers SET citekey = :k, citekey_folded = :f"),
            {"k": bad, "f": bad.lower()},
        )
        db.execute(
            sa.text("UPDATE aliases SET alias = :k, alias_folded = :f"),
            {"k": old, "f": old.lower()},
        )
        # The entry's text as read holds the key too (as an import before the rule kept it).
        source = db.execute(sa.text("SELECT source_text FROM papers")).scalar_one()
        assert source.startswith("@article{okay,")
        db.execute(
            sa.text("UPDATE papers SET source_text = :t"), {"t": source.replace("okay", bad)}
        )
    engine.dispose()
    said = _compile_all(invoke, tmp_path)
    made = citekeys.inert_key(bad)
    assert made == (
        "k-7d-7barticle-7d-7b-7d-5cendentry-5cimmediate-5cwrite18-7btouch-20pwnlegacy"
        "-7d-5centry-7bz"
    )
    warning = (
        f"warning: citation key {bad!r} holds characters TeX would read as markup; "
        f"written as {made!r} (rename it with rekey)"
    )
    assert said["bibtex"].splitlines()[0] == warning
    biblatex = (tmp_path / "biblatex.bib").read_text()
    assert f"@article{{{made}," in biblatex
    assert f"ids = {{{citekeys.inert_key(old)}}}" in biblatex
    # The old key cited in an .aux: the classic export writes the entry under it too,
    # made inert, with a warning naming it.
    aux = tmp_path / "doc.aux"
    aux.write_text(f"\\citation{{{old}}}\n")
    out = tmp_path / "cited.bib"
    result = invoke("export", "bibtex", "--aux", str(aux), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"citation key {old!r} holds characters" in result.stderr
    assert "^" not in out.read_text()
    assert f"@article{{{citekeys.inert_key(old)}," in out.read_text()


# --- the rule itself ----------------------------------------------------------------------

#: TeX's special characters under LaTeX's category codes (The TeXbook, chapter 7) and
#: the control characters: none may be in a key written to a .bib.
TEX_SPECIALS = set("\\{}$&#^%~") | {chr(c) for c in (*range(32), *range(0x7F, 0xA0))}


@settings(max_examples=300, deadline=None)
@given(
    family=st.text(max_size=30),
    title=st.text(max_size=60),
    year=st.one_of(st.none(), st.integers(1000, 2999)),
    short=st.one_of(st.none(), st.text(max_size=20)),
)
def test_any_generated_key_is_inert(
    family: str, title: str, year: int | None, short: str | None
) -> None:
    record = PaperRecord(title=title, year=year, short_name=short, authors=(Person(family=family),))
    key = citekeys.base_key(record)
    assert citekeys.is_valid_key(key)
    assert not set(key) & TEX_SPECIALS


@settings(max_examples=300, deadline=None)
@given(key=st.text(min_size=1, max_size=80))
def test_any_key_an_export_writes_is_inert(key: str) -> None:
    for dialect in ("bibtex", "biblatex"):
        written = valid_citekey(key, dialect)
        assert not set(written) & TEX_SPECIALS
        assert citekeys.is_inert_key(written)
        assert not any(ch.isspace() or ch in ",\"'()=" for ch in written)
    assert citekeys.is_valid_key(key) == (
        citekeys.is_inert_key(key) and len(key) <= 250 and not key.startswith("-")
    )


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_an_entry_whose_key_breaks_the_rule_is_never_copied(dialect: str) -> None:
    """An entry read with a key holding ``$ & ~`` (no ``^^``: the LaTeX scan of its text
    lets it through) is generated with the key made inert, not copied as written; so
    is one whose biblatex ``ids`` holds such an old key."""
    source = "@article{a$b&c~d,\n  author = {Roe, R},\n  title = {Any},\n  year = 2018\n}"
    (record,) = bibtex.read(source).records
    assert record.citekey == "a$b&c~d"
    assert bibtex.write([record], dialect=dialect).splitlines()[0] == "@article{a-b-c-d,"
    olds = "@article{ok,\n  author = {Roe, R},\n  title = {Any},\n  ids = {o$ld},\n  year = 2018\n}"
    (record,) = bibtex.read(olds).records
    written = bibtex.write([record], dialect="biblatex")
    assert "ids = {o-ld}" in written
    assert "$" not in written
