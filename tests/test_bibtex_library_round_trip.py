"""BibTeX through the library (issue 4): import -> export -> import -> export is identical,
entries that use ``@string`` macros are copied byte for byte with the definitions they
use, and ``@preamble`` blocks survive; on SQLite and PostgreSQL.

The format-level round trips (read -> write -> read) live in test_formats_bibtex.py;
here every step goes through the CLI and a real database.
"""

from __future__ import annotations

import functools
import gzip
import re
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_database, shared_data
from hypothesis import HealthCheck, given, settings
from test_formats_bibtex import _records as generated_records

from readinglist.cli import cli


@pytest.fixture(params=["sqlite", "postgresql"])
def two_dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two fresh databases of one kind: the first library and the one re-importing."""
    with ExitStack() as stack:
        urls = []
        for name in ("first", "second"):
            folder = tmp_path / name
            folder.mkdir()
            gen = make_database(request.param, request, folder)
            urls.append(next(gen))
            stack.callback(lambda g=gen: next(g, None))
        yield urls[0], urls[1]


def rl(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def round_trip(source: Path, first: str, second: str, tmp_path: Path) -> tuple[str, str]:
    """Import ``source`` into ``first``, export, import that into ``second``, export."""
    one, two = tmp_path / "one.bib", tmp_path / "two.bib"
    rl(first, "import", str(source))
    rl(first, "export", "bibtex", "-o", str(one))
    rl(second, "import", str(one))
    rl(second, "export", "bibtex", "-o", str(two))
    return one.read_text(encoding="utf-8"), two.read_text(encoding="utf-8")


ENTRIES = """\
@article{a1,
  author = {Jane Doe},
  title = {First},
  journal = jt,
  publisher = pubacm,
  year = 2020,
}

@article{b2,
  author = {John Roe},
  title = {Second},
  journal = jt # " Letters",
  year = 2021,
  month = mar,
}
"""

MACROS = (
    """\
@preamble{"\\providecommand{\\noopsort}[1]{}"}
@string{jt = "Journal of Tests"}
@string{unused = "Nobody"}
@STRING{acm = "ACM"}
@string{pubacm = acm # " Press"}

"""
    + ENTRIES
)

#: The ``@preamble`` defines a command: not inert markup, so the export leaves it out
#: (with a warning) -- LaTeX would run it before any entry.
MACROS_EXPORT = (
    """\
@string{jt = "Journal of Tests"}
@STRING{acm = "ACM"}
@string{pubacm = acm # " Press"}

"""
    + ENTRIES
)


def test_entries_with_macros_are_copied_with_the_definitions_they_use(
    two_dbs: tuple[str, str], tmp_path: Path
) -> None:
    source = tmp_path / "macros.bib"
    source.write_text(MACROS, encoding="utf-8")
    one, two = round_trip(source, *two_dbs, tmp_path)
    # The used definitions (``pubacm`` needs ``acm``) in file order; ``unused`` and the
    # preamble (it defines a command) are left out; both entries byte for byte.
    assert one == MACROS_EXPORT
    assert two == one


def test_export_of_some_papers_writes_only_the_macros_they_use(invoke, tmp_path: Path) -> None:
    source = tmp_path / "macros.bib"
    source.write_text(MACROS, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    result = invoke("export", "bibtex", "key:b2")
    assert result.exit_code == 0, result.output
    assert "@preamble left out: \\providecommand is not inert" in result.stderr
    assert result.stdout == (
        '@string{jt = "Journal of Tests"}\n\n'
        "@article{b2,\n"
        "  author = {John Roe},\n"
        "  title = {Second},\n"
        '  journal = jt # " Letters",\n'
        "  year = 2021,\n"
        "  month = mar,\n"
        "}\n"
    )


def test_papers_from_a_file_without_macros_get_no_header(invoke, tmp_path: Path) -> None:
    with_macros, plain = tmp_path / "macros.bib", tmp_path / "plain.bib"
    with_macros.write_text(MACROS, encoding="utf-8")
    plain.write_text("@misc{c3,\n  title = {Third},\n}\n", encoding="utf-8")
    assert invoke("import", str(with_macros)).exit_code == 0
    assert invoke("import", str(plain)).exit_code == 0
    result = invoke("export", "bibtex", "key:c3")
    assert result.stdout == "@misc{c3,\n  title = {Third},\n}\n"


def test_a_macro_two_imports_define_differently(invoke, tmp_path: Path) -> None:
    """Both entries are copied, each after the definition it was read with (issue 17:
    before, the one that used the earlier definition was regenerated)."""
    old, new = tmp_path / "old.bib", tmp_path / "new.bib"
    old.write_text(
        '@string{jt = "Old Journal"}\n@article{x1,\n  title = {One},\n  journal = jt,\n}\n',
        encoding="utf-8",
    )
    new.write_text(
        '@string{jt = "New Journal"}\n@article{y2,\n  title = {Two},\n  journal = jt,\n}\n',
        encoding="utf-8",
    )
    assert invoke("import", str(old)).exit_code == 0
    assert invoke("import", str(new)).exit_code == 0
    result = invoke("export", "bibtex")
    assert result.stdout == (
        '@string{jt = "Old Journal"}\n\n'
        "@article{x1,\n  title = {One},\n  journal = jt,\n}\n\n"
        '@string{jt = "New Journal"}\n\n'
        "@article{y2,\n  title = {Two},\n  journal = jt,\n}\n"
    )


def test_undone_import_takes_its_macros_along(invoke, tmp_path: Path) -> None:
    source = tmp_path / "macros.bib"
    source.write_text(MACROS, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    plain = tmp_path / "plain.bib"
    plain.write_text("@misc{c3,\n  title = {Third},\n}\n", encoding="utf-8")
    assert invoke("import", str(plain)).exit_code == 0
    assert invoke("import", "--undo", "1").exit_code == 0
    assert invoke("export", "bibtex").stdout == "@misc{c3,\n  title = {Third},\n}\n"


REAL = [
    "pmlr-v48-icml2016.bib",
    "pmlr-v244-uai2024.bib",
    "acl-2020.bib",
    "bbt-import-mendeley-export.bib",
    "bbt-import-873-user-library.bib",
]


@pytest.mark.parametrize("name", REAL)
def test_real_bibliography_round_trips_through_sqlite(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    path = shared_data(name)
    urls = []
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        urls.append(next(make_database("sqlite", request, tmp_path / folder)))
    one, two = round_trip(path, urls[0], urls[1], tmp_path)
    assert one == two
    # Nothing lost on the way: the second library holds the first one's papers.
    keys = rl(urls[0], "list", "-k", "--sort", "key").split()
    assert rl(urls[1], "list", "-k", "--sort", "key").split() == keys
    assert len(keys) > 80


def beebe_slice(tmp_path: Path, entries: int) -> Path:
    """The text before the (entries+1)-th ``@Article{`` line of the Beebe file
    (SOURCES.md's slicing rule): its ``@string`` and ``@preamble`` header included."""
    path = shared_data("beebe-fisheries-journals.bib.gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        text = handle.read(6_000_000)
    starts = [m.start() for m in re.finditer(r"^@Article\{", text, re.MULTILINE)]
    assert len(starts) > entries
    target = tmp_path / f"beebe-{entries}.bib"
    target.write_text(text[: starts[entries]], encoding="utf-8")
    return target


@functools.cache
def read_records(bib: str) -> tuple[Any, ...]:
    """The records ``bibtex.read`` gives of the text ``bib``, read once per text (the
    reader is a pure function of it: the Beebe source is the same text on both
    databases, and so is each one's export when they agree)."""
    from readinglist.formats import bibtex

    return tuple(bibtex.read(bib).records)


@functools.cache
def compared(source: str, exported: str) -> tuple[int, int, int]:
    """``test_bibtex_patch.compare`` of the two texts, run once per pair of texts (a
    pure function of them: its checks passed for that pair, or it raised)."""
    from test_bibtex_patch import compare

    return compare(source, exported)


#: The entries of the Beebe slice: both parts (156 entries of the first file, then the
#: second with its own preamble and ``ack-nhfb``) and every pair of articles sharing title,
#: first author and year (the last at entry 764). It was 1,500: twice the imports,
#: exports and comparisons of the same constructs.
BEEBE_ENTRIES = 800


def test_beebe_slice_with_macros_and_preambles_round_trips(
    two_dbs: tuple[str, str], tmp_path: Path
) -> None:
    """The Beebe file is several ``.bib`` files joined, each with its ``@Preamble`` and
    ``@String`` header. The first 800 entries (800 papers) come from two of them,
    and the second redefines ``ack-nhfb`` with a different value (``(Internet)`` after
    a space). The export keeps the preamble, copies every entry byte for byte (issue
    17: before, the 156 of the first part, read with the earlier ``ack-nhfb``, were
    regenerated; the values that use the preamble's commands are replaced in place),
    defines at the top the macros in use with the values the first
    entry needing each was read with, and ``ack-nhfb`` again before each copied entry
    (in key order) that was read with the other value than the one before it. Read
    again, every entry has the acknowledgement it had, and it exports identically.
    The preamble starts with ``\\input bibnames.sty`` (a file read): not inert markup,
    so it is left out, and the entries using the commands it defines are generated.

    No entry is merged (issue 13): the 13 that share title, first author and year
    with another all have a DOI of their own. Ten are different papers (the "Issue
    Information" of issues 1 to 4 of one volume, "Book reviews and notices" of
    different issues ...); three (Nasution:2005:LTEa/b, Lennard:2005:CRFa/b,
    Soto-Hernandez:2005:GDHa/b) are one article listed under two DOIs, and different
    DOIs veto a merge."""
    source = beebe_slice(tmp_path, BEEBE_ENTRIES)
    one, two = round_trip(source, *two_dbs, tmp_path)
    assert one == two
    text = source.read_text(encoding="utf-8")
    assert not one.startswith("@Preamble")  # it reads bibnames.sty (\\input): left out
    head = one[: one.index("\n@Article")]
    assert re.findall(r"^@String\{[\w-]+", head, re.MULTILINE) == [
        "@String{j-AQUAC-FISH-FISH",
        "@String{ack-nhfb",
        "@String{j-AQUACULT-INT",
    ]
    again = re.findall(r"^@String\{[\w-]+", one[len(head) :], re.MULTILINE)
    blocks = [b for b in one.split("\n\n") if b.startswith("@")]
    entries = [b for b in blocks if not re.match(r"@(string|preamble)\b", b, re.I)]
    # 496 entries use \bioname, \geoname ... which only the left-out preamble defines:
    # those values (496) are replaced by the text they display, in place; the 304 other
    # entries are byte for byte, and so is the rest of every entry.
    assert (len(entries), len([b for b in entries if b in text])) == (BEEBE_ENTRIES, 304)
    assert compared(text, one) == (BEEBE_ENTRIES, 496, 496)

    def acknowledgements(bib: str) -> dict[str | None, str | None]:
        return {r.citekey: r.fields.get("acknowledgement") for r in read_records(bib)}

    read = acknowledgements(text)
    assert len(set(read.values())) == 2
    assert acknowledgements(one) == read
    # ``ack-nhfb`` is defined again before each entry (in key order) read with the
    # other value than the entry before it that uses it.
    keys = [r.citekey for r in read_records(one)]
    order = [read[k] for k in keys if read.get(k)]
    assert len(again) == sum(a != b for a, b in pairwise(order)) > 44


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(records=generated_records(unicode=False))
def test_generated_library_round_trips_through_the_database(
    records: list[Any], sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A hypothesis-generated bibliography, imported, exported, imported into a new
    library and exported again: the two exports are identical."""
    from readinglist import db, library
    from readinglist.formats import bibtex

    folder = tmp_path_factory.mktemp("generated")
    texts = [bibtex.write(records)]
    for step in range(2):
        path = folder / f"library-{step}.db"
        # a plain copy of the closed template, as conftest.make_database makes (the
        # backup API's commit waits for the disk: 10 ms an example, twice each)
        shutil.copyfile(sqlite_template, path)
        engine = db.make_engine(f"sqlite:///{path}")
        try:
            result = bibtex.read(texts[-1], "generated.bib")
            with db.session_scope(engine) as session:
                library.import_records(
                    session, result.records, source="generated.bib", fmt="bibtex", meta=result.meta
                )
            with db.session_scope(engine, write=False) as session:
                ids = [paper_id for paper_id, _ in library.select_ids_and_keys(session, "")]
                strings, preamble, _ = library.bibtex_context(session, ids)
                exported = list(library.iter_records(session, ids))
                texts.append(bibtex.write(exported, strings=strings, preamble=preamble))
        finally:
            engine.dispose()
    assert texts[1] == texts[2]


# --- hostile-input finds (helper pass, session 2) -----------------------------------------------


def _import_and_export(invoke, tmp_path: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert invoke("import", str(path)).exit_code == 0
    result = invoke("export", "bibtex")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_macro_whose_dependency_a_later_import_redefines(invoke, tmp_path: Path) -> None:
    """``conf = pre # "ICML"`` read with ``pre = "Proc. "``; a later import redefines
    ``pre``. Both entries are copied, after the three definitions in the order read:
    ``conf`` keeps the value it got from the first ``pre``, ``b1`` gets the second
    (issue 17: before, the first entry was regenerated)."""
    out = _import_and_export(
        invoke,
        tmp_path,
        {
            "a.bib": '@string{pre = "Proc. "}\n@string{conf = pre # "ICML"}\n'
            "@inproceedings{a1, title={Paper A}, booktitle = conf, year={2020}}\n",
            "b.bib": '@string{pre = "Proceedings of "}\n'
            '@inproceedings{b1, title={Paper B}, booktitle = pre # "NeurIPS", year={2021}}\n',
        },
    )
    assert out == (
        '@string{pre = "Proc. "}\n@string{conf = pre # "ICML"}\n'
        '@string{pre = "Proceedings of "}\n\n'
        "@inproceedings{a1, title={Paper A}, booktitle = conf, year={2020}}\n\n"
        '@inproceedings{b1, title={Paper B}, booktitle = pre # "NeurIPS", year={2021}}\n'
    )


def test_a_redefined_month_macro_is_never_written(invoke, tmp_path: Path) -> None:
    """``@string{jan = "Enero"}`` in one import must not change the ``month = jan`` of
    other entries: the export never redefines a month name."""
    out = _import_and_export(
        invoke,
        tmp_path,
        {
            "m1.bib": "@article{m1, title={January Paper}, year={2020}, month = jan}\n",
            "m2.bib": '@string{jan = "Enero"}\n'
            "@article{m2, title={Spanish Paper}, year={2021}, month = jan}\n",
        },
    )
    assert out == (
        "@article{m1, title={January Paper}, year={2020}, month = jan}\n\n"
        "@article{m2,\n  title = {Spanish Paper},\n  year = {2021},\n  month = {Enero}\n}\n"
    )


def test_a_preamble_that_uses_a_macro_gets_its_definition_first(invoke, tmp_path: Path) -> None:
    out = _import_and_export(
        invoke,
        tmp_path,
        {
            "p.bib": '@string{pnote = "Printed {\\\\em here}"}\n'
            '@preamble{ pnote # " and \\\\relax" }\n'
            "@article{p1, title={Uses \\emph{x}}, year={2020}}\n",
        },
    )
    assert out == (
        '@string{pnote = "Printed {\\\\em here}"}\n\n'
        '@preamble{ pnote # " and \\\\relax" }\n\n'
        "@article{p1, title={Uses \\emph{x}}, year={2020}}\n"
    )


def test_a_preamble_that_is_not_inert_markup_is_left_out_with_a_warning(
    invoke, tmp_path: Path
) -> None:
    """``\\providecommand`` (LaTeX runs a preamble before any entry) is not on the
    allow-list: the export leaves the preamble out and says so; an entry using the
    command it defined has that value written as the text it displays."""
    source = tmp_path / "p.bib"
    source.write_text(
        '@preamble{"\\providecommand{\\ZZ}{ZZZ}"}\n@article{p1, title={Uses \\ZZ}, year={2020}}\n'
    )
    imported = invoke("import", str(source))
    assert imported.exit_code == 0
    assert "entry 'p1': title (\\ZZ): LaTeX that is not inert markup" in imported.stderr
    result = invoke("export", "bibtex")
    assert result.exit_code == 0, result.output
    assert "@preamble left out: \\providecommand is not inert" in result.stderr
    # Only the title is replaced (by the text it displays: the unknown command's name,
    # braced to keep its case); the rest is as written.
    assert result.stdout == "@article{p1, title={Uses {ZZ}}, year={2020}}\n"


def test_a_file_redefining_a_macro_between_entries_exports_both_as_read(
    invoke, db_url: str, tmp_path: Path
) -> None:
    """Issue 17: the library keeps every ``@string`` block of the import and each
    paper's place among them, so the export is the writer's on the file itself
    (both entries copied, ``ack`` defined again before ``b1``), and imports again
    into the same values. A row from before migration 0004 (no place) is checked
    against the last definitions, as before."""
    from sqlalchemy import create_engine, text
    from test_formats_bibtex import REDEFINED, REDEFINED_EXPORT

    from readinglist.formats import bibtex

    source = tmp_path / "redefined.bib"
    source.write_text(REDEFINED, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    out = invoke("export", "bibtex").stdout
    assert out == REDEFINED_EXPORT
    assert {r.citekey: r.fields["note"] for r in bibtex.read(out).records} == {
        "a2": "Second text",
        "b1": "First text",
    }
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            rows = conn.execute(text("SELECT citekey, source_strings_read FROM papers"))
            stored = dict(rows.tuples().all())
            assert stored == {"b1": 2, "a2": 3}
            conn.execute(text("UPDATE papers SET source_strings_read = NULL"))
    finally:
        engine.dispose()
    assert invoke("export", "bibtex", "key:b1").stdout == (
        "@article{b1,\n  author = {A. Author},\n  title = {One},\n  journal = {J. First text},\n"
        "  year = {2001},\n  note = {First text}\n}\n"
    )
