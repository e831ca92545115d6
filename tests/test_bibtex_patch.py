"""An export changes only what must change: an entry read from BibTeX is its own text,
with only the values that must change replaced in place (formats/bibtex/patch.py).

A value with a bare ``%``, ``&``, ``#`` or an unbalanced ``$`` (LaTeX would break), or
with markup that is not inert (LaTeX would run it), is replaced by what a generated
entry writes for it; field order, indentation, the entry type's case and every other
value stay byte for byte. So does a value the library changed after the import.
The real PMLR file is checked on SQLite and PostgreSQL through the CLI, its export
with the real ``bibtex`` and ``biber``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import shared_data

from readinglist.cli import cli
from readinglist.formats import bibtex
from readinglist.formats.bibtex.encode import escaping_needs
from readinglist.formats.bibtex.salvage import salvage
from readinglist.formats.bibtex.values import evaluate

PMLR = "pmlr-v244-uai2024.bib"


def entries(text: str) -> dict[str, str]:
    """Citation key -> the entry's text as the reader cut it (``source_text``)."""
    return {
        r.citekey: r.source_text
        for r in bibtex.read(text, "<test>").records
        if r.citekey and r.source_text
    }


def masked(entry: str) -> tuple[list[str], list[str], list[str]]:
    """``entry`` cut at its value spans: (field names, the text between the values,
    the value expressions)."""
    parts = salvage(entry)
    between, pos = [], 0
    for _, _, start, end in parts.spans:
        between.append(entry[pos:start])
        pos = end
    between.append(entry[pos:])
    return [n for n, _, _ in parts.fields], between, [v for _, v, _ in parts.fields]


def needs_escaping(entry: str) -> int:
    """How many values of ``entry`` cannot be copied as written: a bare ``& % # _``, an
    unbalanced ``$`` or brace, or markup that is not inert (the reader's rule,
    :func:`escaping_needs`, asked one value at a time)."""
    count = 0
    for name, expr, _ in salvage(entry).fields:
        escaped, as_text = escaping_needs({name.lower(): evaluate(expr, {})[0]})
        count += bool(escaped or as_text)
    return count


def compare(source: str, exported: str) -> tuple[int, int, int]:
    """(entries of ``source`` written byte for byte but for replaced values, values
    replaced, values of the source that needed escaping), checking that every entry
    of ``source`` is in ``exported`` so."""
    src, out = entries(source), entries(exported)
    kept = replaced = needed = 0
    for key, text in src.items():
        names, between, values = masked(text)
        new_names, new_between, new_values = masked(out[key])
        assert (new_names, new_between) == (names, between), key
        changed = sum(a != b for a, b in zip(values, new_values, strict=True))
        replaced += changed
        needed += needs_escaping(text)
        kept += 1
        # What replaced a value is safe: nothing left to escape in the exported entry.
        assert needs_escaping(out[key]) == 0, key
    return kept, replaced, needed


def rl(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", url, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_pmlr_export_changes_only_the_values_to_escape(db_url: str, tmp_path: Path) -> None:
    """PMLR's UAI 2024 proceedings: 202 entries, 10 of which have an abstract with a
    bare ``%`` or ``&`` (10 values; measured 2026-12-06). Every entry is exported as
    its own text, those 10 values escaped in place and nothing else changed."""
    path = shared_data(PMLR)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    out = tmp_path / "out.bib"
    rl(db_url, "import", str(path))
    rl(db_url, "export", "bibtex", "-o", str(out))
    source = path.read_text(encoding="utf-8")
    kept, replaced, needed = compare(source, out.read_text(encoding="utf-8"))
    assert kept == len(entries(source)) == 202
    assert replaced == needed == 10


@pytest.mark.tools("bibtex", "biber")
def test_pmlr_export_passes_bibtex_and_biber(sqlite_url: str, tmp_path: Path) -> None:
    from test_real_tools import biber_messages, bibtex_messages

    path = shared_data(PMLR)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    out = tmp_path / "out.bib"
    rl(sqlite_url, "import", str(path))
    rl(sqlite_url, "export", "bibtex", "-o", str(out))
    errors, messages, _, _ = bibtex_messages(out)
    assert (errors, messages) == (0, set())
    biber_errors, _ = biber_messages(out)
    assert biber_errors == set()


SOURCE = """\
@InProceedings{Kim2024,
\tTitle = "Cats & Dogs: {A} Survey",
\tyear = 2024,
\tbooktitle = {Proc. of {UAI}},
\tnote = {100% \\textbf{new}},
}
"""


def test_quoted_and_bare_values_keep_their_delimiters() -> None:
    record = bibtex.read(SOURCE, "<test>").records[0]
    written = bibtex.write([record])
    assert written == SOURCE.replace("Cats & Dogs", "Cats \\& Dogs").replace("100%", "100\\%")


def test_a_value_changed_after_import_is_replaced_in_place() -> None:
    """An edit (title), a resolve (a DOI the source lacks) and a new year: each value
    replaced or added in the source's layout, the rest byte for byte."""
    record = bibtex.read(SOURCE, "<test>").records[0]
    edited = replace(record, title="Cats and Dogs: A Survey", doi="10.1000/xyz", year=2025)
    written = bibtex.write([edited])
    assert written == (
        "@InProceedings{Kim2024,\n"
        '\tTitle = "Cats and {Dogs}: A {Survey}",\n'
        "\tyear = 2025,\n"
        "\tbooktitle = {Proc. of {UAI}},\n"
        "\tnote = {100\\% \\textbf{new}},\n"
        "\tdoi = {10.1000/xyz},\n"
        "}\n"
    )


def test_a_value_that_is_not_inert_is_never_copied() -> None:
    """The allow-list rule holds in a patched entry: ``\\input`` is written as text."""
    text = "@misc{k,\n  title = {Safe},\n  note = {see \\input{/etc/passwd} & more}\n}\n"
    record = bibtex.read(text, "<test>").records[0]
    written = bibtex.write([record])
    assert "\\input" not in written
    assert written.startswith("@misc{k,\n  title = {Safe},\n  note = {")


LIBRARY = """\
@InProceedings{Kim2024,
\tTitle = "Cats & Dogs: {A} Survey",
\tyear = 2024,
\tbooktitle = {Proc. of {UAI}},
}

@Article{Lee2023,
\ttitle = {Old Title},
\tauthor = {Lee, Ann},
\tjournal = {J},
\tyear = {2023},
}
"""


def test_library_edits_and_tags_are_replaced_in_place(db_url: str, tmp_path: Path) -> None:
    """Through the library: a title set after the import (also on an entry with a value
    to escape) and tags merged into ``keywords`` change those values only."""
    source = tmp_path / "in.bib"
    source.write_text(LIBRARY, encoding="utf-8")
    rl(db_url, "import", str(source))
    rl(db_url, "title", "Lee2023", "A Brand New Title")
    rl(db_url, "title", "Kim2024", "Cats & Cows: A Survey")
    rl(db_url, "tag", "add", "mytag", "Lee2023")
    out = tmp_path / "out.bib"
    rl(db_url, "export", "bibtex", "--keywords", "-o", str(out))
    assert out.read_text(encoding="utf-8") == (
        LIBRARY.replace('"Cats & Dogs: {A} Survey"', '"Cats \\& {Cows}: A {Survey}"')
        .replace("{Old Title}", "{A {Brand} {New} {Title}}")
        .replace("\tyear = {2023},\n", "\tyear = {2023},\n\tkeywords = {mytag},\n")
    )


def test_biblatex_forms_are_replaced_in_place_for_bibtex() -> None:
    """A BibTeX export of a biblatex entry: extended names, ``journaltitle`` and a month
    not written as the macro are replaced (``journal`` added in the entry's layout);
    the other values and the layout are kept."""
    text = (
        "@article{B1,\n    title = {T},\n"
        "    author = {family=Jong, given=Karel, prefix=de, useprefix=true},\n"
        "    journaltitle = {JJ},\n    year = 2018,\n    month = {Sept.},\n    note = {n},\n}"
    )
    record = bibtex.read(text, "<test>").records[0]
    assert bibtex.write([record]) == (
        "@article{B1,\n    title = {T},\n    author = {de Jong, Karel},\n"
        "    year = 2018,\n    month = sep,\n    note = {n},\n    journal = {JJ},\n}\n"
    )
