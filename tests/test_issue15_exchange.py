"""Issue 15 "Display and exchange", title math through merges, and one bad byte.

Inputs are written here; expected values are exact. Tests that store papers run on
SQLite and PostgreSQL (the ``invoke`` fixture).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from readinglist.formats import bibtex, decode
from readinglist.formats.bibtex.repair import repair_name_list
from readinglist.text import inline_formulas, readable, readable_paragraphs

Invoke = Callable[..., Any]

BIB = r"""@article{a1,
  title = {On the $\ell_{1,p}$-Norm --- a {S}tudy of Schr{\"o}dinger},
  author = {M{\"u}ller, Hans and Smith, John},
  journal = {J. Stuff},
  year = {2020},
  abstract = {We show that \textbf{S} works --- with 20\% gain.

See https://github.com/x/y and ``quotes''.},
  keywords = {sparsity, norms},
}
"""
ABSTRACT_SHOWN = "We show that S works — with 20% gain.\n\nSee https://github.com/x/y and “quotes”."


@pytest.fixture
def library(invoke: Invoke, tmp_path: Path) -> Invoke:
    """A library with one BibTeX paper, a tag and a note."""
    source = tmp_path / "a.bib"
    source.write_text(BIB, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("tag", "add", "reading-group/soon", "a1").exit_code == 0
    assert invoke("note", "add", "a1", "-m", "Check the proof of Lemma 2.").exit_code == 0
    return invoke


# --- one display rule -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "paragraphs"),
    [
        (r"We show \textbf{S} --- 20\% gain.", ["We show S — 20% gain."]),
        ("Plain --- dashes and ``quotes'' only.", ["Plain — dashes and “quotes” only."]),
        ("One\n\n \n\nTwo $x^2$ and $\\alpha$.", ["One", "Two x^2 and α."]),
        ("It costs $5 and 20% more.", ["It costs $5 and 20% more."]),
        # pandoc's rule: no formula opens at $5 (a space before the next $): prices.
        ("It costs $5 and $10, and $x$ is 2.", ["It costs $5 and $10, and x is 2."]),
        # A hard-wrapped paragraph is one line (a line break and its indentation are
        # one space); spaces inside a line stay.
        ("Nothing  to\n    decode here.", ["Nothing  to decode here."]),
        ("  Springer-Verlag, 1999 ", ["Springer-Verlag, 1999"]),
        ("  ", []),
        ("It's Smith's ''Fish'' 1--2", ["It's Smith's ”Fish” 1–2"]),
        ("", []),
    ],
)
def test_readable_paragraphs(text: str, paragraphs: list[str]) -> None:
    assert readable_paragraphs(text) == paragraphs
    assert readable(text) == "\n\n".join(paragraphs)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab '`-\n\t\\{}$~%", max_size=12))
def test_readable_is_its_paragraphs_joined(text: str) -> None:
    # readable() skips the paragraph split for a value with nothing to decode (issue 17):
    # the same text as the rule it stands for.
    assert readable(text) == "\n\n".join(readable_paragraphs(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab5 $", max_size=14))
def test_every_dollar_that_opens_no_formula_is_shown(text: str) -> None:
    """The display rule drops the two dollars of each formula (``text.inline_formulas``,
    pandoc's rule) and shows every other ``$`` as a dollar sign (``$$``, display math,
    is the LaTeX decoder's)."""
    assume("$$" not in text)
    shown = readable(text).count("$")
    assert shown == text.count("$") - 2 * len(inline_formulas(text))


def test_show_prints_the_abstract_readable(library: Invoke) -> None:
    out = library("show", "a1").stdout
    assert out.split("Abstract:\n", 1)[1].split("\n\nNotes:")[0] == (
        "  We show that S works — with 20% gain.\n\n  See https://github.com/x/y and “quotes”."
    )
    assert out.splitlines()[0] == "On the ℓ_1,p-Norm — a Study of Schrödinger"


def test_ris_export_is_readable_and_carries_tags_and_notes(library: Invoke) -> None:
    text = library("export", "ris").stdout
    assert text == (
        "TY  - JOUR\nID  - a1\nTI  - On the ℓ_1,p-Norm — a Study of Schrödinger\n"
        "AU  - Müller, Hans\nAU  - Smith, John\nPY  - 2020\nT2  - J. Stuff\n"
        "KW  - sparsity\nKW  - norms\nKW  - reading-group/soon\n"
        "AB  - We show that S works — with 20% gain.\n\nSee https://github.com/x/y and “quotes”.\n"
        "N1  - Check the proof of Lemma 2.\nER  - \n"
    )


def test_csl_json_export_is_readable_and_carries_tags_and_notes(library: Invoke) -> None:
    (item,) = json.loads(library("export", "csl-json").stdout)
    assert (item["title"], item["abstract"], item["keyword"], item["custom"], item["note"]) == (
        # The case protection of the BibTeX title is CSL's nocase span (as pandoc writes it).
        'On the ℓ_1,p-Norm — a <span class="nocase">S</span>tudy of Schrödinger',
        ABSTRACT_SHOWN,
        "sparsity, norms, reading-group/soon",
        {"tags": ["reading-group/soon"]},
        "Check the proof of Lemma 2.",
    )


def test_bibtex_export_keeps_the_latex(library: Invoke) -> None:
    text = library("export", "bibtex").stdout
    assert r"title = {On the $\ell_{1,p}$-Norm --- a {S}tudy of Schr{\"o}dinger}" in text
    assert r"We show that \textbf{S} works --- with 20\% gain." in text


def test_markdown_export_decodes_with_the_same_rule(library: Invoke) -> None:
    text = library("export", "markdown", "--abstracts").stdout
    assert (
        "  > We show that S works — with 20% gain.\n  >\n  > See <https://github.com/x/y> and “quotes”."
        in text
    )


def test_csl_json_round_trip_keeps_tags_exactly(library: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert library("export", "csl-json", "-o", str(out)).exit_code == 0
    assert library("rm", "--yes", "a1").exit_code == 0
    assert library("import", str(out)).exit_code == 0
    shown = json.loads(library("show", "a1", "--json").stdout)
    assert (shown["tags"], shown["keywords"], shown["abstract"], shown["fields"]["note"]) == (
        ["reading-group/soon"],
        ["sparsity", "norms"],
        ABSTRACT_SHOWN,
        "Check the proof of Lemma 2.",
    )
    # The re-imported abstract is text now: exported again, it is the same.
    assert json.loads(library("export", "csl-json").stdout)[0]["abstract"] == ABSTRACT_SHOWN


def test_ris_round_trip_tags_come_back_with_keywords_as_tags(
    library: Invoke, tmp_path: Path
) -> None:
    out = tmp_path / "out.ris"
    assert library("export", "ris", "-o", str(out)).exit_code == 0
    assert library("rm", "--yes", "a1").exit_code == 0
    assert library("import", str(out), "--keywords-as-tags").exit_code == 0
    shown = json.loads(library("show", "a1", "--json").stdout)
    assert (shown["tags"], shown["abstract"], shown["fields"]["ris_n1"]) == (
        ["norms", "reading-group/soon", "sparsity"],
        ABSTRACT_SHOWN,
        "Check the proof of Lemma 2.",
    )


# --- title math survives merges -------------------------------------------------------------

MATH_BIB = r"""@article{b1,
  title = {Sparse Recovery with the $\ell_{1,p}$-Norm},
  author = {Doe, Jane},
  journal = {J. Stuff},
  year = {2021},
  doi = {10.1000/abc},
  abstract = {We study sparse recovery under mixed norms and prove a sharp bound for group lasso estimators in high dimension.}
}
"""
PLAIN_RIS = (
    "TY  - JOUR\nTI  - Sparse Recovery with the l1p-Norm\nAU  - Doe, Jane\nPY  - 2021\n"
    "DO  - 10.1000/abc\nER  - \n"
)
MATH_TITLE = r"  title = {Sparse Recovery with the $\ell_{1,p}$-Norm},"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _title_line(invoke: Invoke) -> str:
    text = invoke("export", "bibtex").stdout
    return next(line for line in text.splitlines() if line.startswith("  title = "))


def test_title_math_survives_merge_take(invoke: Invoke, tmp_path: Path) -> None:
    ris, bib = _write(tmp_path, "c.ris", PLAIN_RIS), _write(tmp_path, "b.bib", MATH_BIB)
    assert invoke("import", ris, bib).exit_code == 0  # merged by DOI; the RIS title stays
    assert _title_line(invoke) == r"  title = {Sparse {Recovery} with the l1p-{Norm}},"
    taken = invoke("merge", "doe2021sparse", "--take", "title")
    assert taken.stderr == "doe2021sparse: took title = Sparse Recovery with the ℓ_1,p-Norm\n"
    assert _title_line(invoke) == MATH_TITLE
    # And back: the RIS title, which has no LaTeX form, is encoded from its text.
    assert invoke("merge", "doe2021sparse", "--take", "title").exit_code == 0
    assert _title_line(invoke) == r"  title = {Sparse {Recovery} with the l1p-{Norm}},"
    assert invoke("merge", "doe2021sparse", "--take", "title").exit_code == 0
    assert _title_line(invoke) == MATH_TITLE


def test_title_math_survives_resolve_and_import_merge(invoke: Invoke, tmp_path: Path) -> None:
    abstracts = _write(
        tmp_path,
        "e.txt",
        "We study sparse recovery under mixed norms and prove a sharp bound for group lasso "
        "estimators in high dimension.\n",
    )
    bib = _write(tmp_path, "b.bib", MATH_BIB)
    assert invoke("import", abstracts).exit_code == 0
    assert invoke("resolve", "--from", bib).exit_code == 0
    assert _title_line(invoke) == MATH_TITLE
    ris = _write(tmp_path, "c.ris", PLAIN_RIS)
    assert invoke("import", ris).exit_code == 0  # a duplicate with a plain title: kept apart
    assert _title_line(invoke) == MATH_TITLE


def test_title_math_survives_the_merge_command(invoke: Invoke, tmp_path: Path) -> None:
    ris = _write(tmp_path, "c.ris", PLAIN_RIS.replace("10.1000/abc", "10.1000/other"))
    bib = _write(tmp_path, "b.bib", MATH_BIB)
    assert invoke("import", "--no-merge", ris, bib).exit_code == 0
    assert invoke("merge", "doe2021sparse", "b1").exit_code == 0
    assert invoke("merge", "doe2021sparse", "--take", "title").exit_code == 0
    assert _title_line(invoke) == MATH_TITLE


# --- one bad byte is not a bad file -----------------------------------------------------------

BAD = {
    "bad.ris": (
        b"TY  - JOUR\nTI  - First \x00title\nPY  - 2020\nER  - \n\n"
        b"TY  - JOUR\nTI  - Second caf\xff\nPY  - 2021\nER  - \n\n"
        b"TY  - JOUR\nTI  - Third M\xc3\xbcller\xe2\x80\x94ok\nPY  - 2022\nER  - \n",
        (2, 7),
    ),
    "bad.json": (
        b'[{"id": "a", "type": "article", "title": "First \x00title"},\n'
        b'{"id": "b", "type": "article", "title": "Second caf\xff"},\n'
        b'{"id": "c", "type": "article", "title": "Third M\xc3\xbcller\xe2\x80\x94ok"}]\n',
        (1, 2),
    ),
    "bad.bib": (
        b"@article{a,\n  title = {First \x00title},\n  year = 2020\n}\n"
        b"@article{b,\n  title = {Second caf\xff},\n  year = 2021\n}\n"
        b"@article{c,\n  title = {Third M\xc3\xbcller\xe2\x80\x94ok},\n  year = 2022\n}\n",
        (2, 6),
    ),
    "bad.txt": (
        b"## First title\n\nA first abstract about sparse models, with a \x00 NUL inside it.\n\n"
        b"## Second caf\xff\n\nA second abstract that studies a problem with one bad byte.\n\n"
        b"## Third M\xc3\xbcller\xe2\x80\x94ok\n\nA third abstract that reads fine and says it.\n",
        (3, 5),
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_one_bad_byte_cleans_one_value(invoke: Invoke, tmp_path: Path, name: str) -> None:
    data, (nul_line, bad_line) = BAD[name]
    path = tmp_path / name
    path.write_bytes(data)
    result = invoke("import", str(path))
    assert result.exit_code == 0
    assert result.stderr.splitlines()[:2] == [
        f"warning: {path}:{nul_line}: a NUL byte in this line was removed",
        f"warning: {path}:{bad_line}: not valid UTF-8: the bad bytes of this line were "
        "replaced by U+FFFD",
    ]
    titles = [paper["title"] for paper in json.loads(invoke("list", "--json").stdout)]
    assert titles == ["First title", "Second caf\ufffd", "Third Müller—ok"]


def test_strict_refuses_a_file_with_a_nul_byte(invoke: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "nul.ris"
    path.write_bytes(b"TY  - JOUR\nTI  - A \x00title\nER  - \n")
    result = invoke("import", "--strict", str(path))
    assert result.exit_code == 5
    assert (
        result.stderr.splitlines()[-1]
        == "Error: 1 line with a NUL byte; nothing imported (--strict)"
    )
    assert invoke("list", "-k").stdout == ""


def test_a_png_is_still_binary() -> None:
    from readinglist.errors import InvalidInput

    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256))
    with pytest.raises(InvalidInput, match="binary file"):
        decode(png, "x.png")
    text, warnings = decode(b"one\ntwo \x00 three\n", "t.txt")
    assert (text, [str(w) for w in warnings]) == (
        "one\ntwo  three\n",
        ["t.txt:2: a NUL byte in this line was removed"],
    )


def test_utf8_with_one_bad_byte_stays_utf8() -> None:
    text, _ = decode(b"M\xc3\xbcller\xe2\x80\x94ok\ncaf\xff\n", "t.txt")
    assert text == "Müller—ok\ncaf\ufffd\n"


# --- names BibTeX rejects -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "fixed"),
    [
        ("Miller, D., Firby, J. and Dean, T.", "Miller, D. and Firby, J. and Dean, T."),
        (
            "Ryszard Michalski, Jaime G. Carbonell, and Tom M. Mitchell",
            "Ryszard Michalski and Jaime G. Carbonell and Tom M. Mitchell",
        ),
        ("Smith, John,", "Smith, John"),
        ("van Berg, Jr, Jan and Doe, J.", None),
        ("{Barnes, Noble, and Sons} and X", None),
    ],
)
def test_repair_name_list(raw: str, fixed: str | None) -> None:
    assert repair_name_list(raw) == fixed


def test_name_lists_bibtex_rejects_are_read_as_people() -> None:
    text = (
        "@book{m,\n  title = {T},\n  editor = {A. One, B. Two, and C. Three},\n  year = 1983\n}\n"
    )
    result = bibtex.read(text, "m.bib")
    (record,) = result.records
    assert [p.display() for p in record.editors] == ["One, A.", "Two, B.", "Three, C."]
    assert [str(p) for p in result.problems] == [
        "m.bib:3: entry 'm': editor 'A. One, B. Two, and C. Three' separates people by "
        "commas, which BibTeX rejects; read as 'A. One and B. Two and C. Three'"
    ]
    assert "  editor = {A. One and B. Two and C. Three}," in bibtex.write(result.records)


# --- crossref parents after their children --------------------------------------------------

CROSSREF_BIB = """@proceedings{aaai96,
  title = {Proceedings of AAAI-96},
  year = {1996}
}

@inproceedings{zeta96,
  title = {Planning for Goals},
  author = {Bacchus, Fahiem},
  crossref = {AAAI96}
}
"""


def test_crossref_parents_are_written_after_their_children(invoke: Invoke, tmp_path: Path) -> None:
    assert invoke("import", _write(tmp_path, "x.bib", CROSSREF_BIB)).exit_code == 0
    keys = [
        line.split("{", 1)[1].rstrip(",")
        for line in invoke("export", "bibtex").stdout.splitlines()
        if line.startswith("@")
    ]
    assert keys == ["zeta96", "aaai96"]  # BibTeX: "A bad cross reference" otherwise
    records = bibtex.read(CROSSREF_BIB, "x.bib").records
    written = bibtex.write(records)
    assert written.index("@inproceedings{zeta96") < written.index("@proceedings{aaai96")
