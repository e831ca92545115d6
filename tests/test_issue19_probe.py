"""Inputs taken from public bug reports of other tools, run through import and export.

Each case of :data:`CASES` is an input shaped after a bug report of another reference
tool (the thread is named), with what readinglist must read from it. The tests after
it are the faults the probe found, each failing on the code before its fix:

* RIS and CSL-JSON exports wrote a BibTeX paper's fields as LaTeX (``PB  - Barnes {\\&}
  Noble``); imported again, that RIS was text, and its BibTeX export printed the
  backslash (``Barnes \\{\\textbackslash{}\\&\\} Noble``).
* ``AU  - others`` / ``AU  - et al.`` (RIS) and ``{"literal": "et al."}`` (CSL-JSON) made
  a person named "others"; the BibTeX export then wrote ``and others, {}``.
* A name with an accent command written with a space (``Fran\\c cois``, ``Sz\\H ol\\H o``,
  latexcodec#96, biblib#5) was cut at the space: given name ``Fraņ``, von ``cois``.
* A Markdown list of references whose items cite authors and a DOI ("- *Title*. Karras
  et al. 2022. doi:...") was one paper with the other items as its abstract, and the
  DOI of the last item on the first paper.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from readinglist.formats import abstracts, bibtex, csljson, ris
from readinglist.formats.bibtex.fields import parse_names
from readinglist.records import PaperRecord

Read = tuple[str | None, list[str], int | None, int | None]


def summary(record: PaperRecord) -> Read:
    """Title, authors (display form), year and month of a record."""
    return record.title, [p.display() for p in record.authors], record.year, record.month


#: (report it is shaped after, reader, input, expected (title, authors, year, month) of each
#: record). Every one passed before this probe's fixes unless its test below says otherwise.
CASES: list[tuple[str, str, str, list[Read]]] = [
    (
        "papis#4 nested braces, bare month macro before year",
        "bibtex",
        "@article{h, title = {What is love? {Baby} don't hurt me}, author = {Haddaway},\n"
        "  month = may, year = {1993}}\n",
        [("What is love? Baby don't hurt me", ["Haddaway"], 1993, 5)],
    ),
    (
        "bibtexparser#185 Mendeley: braced family with accent, file with $\\backslash$",
        "bibtex",
        "@article{m, author = {{Bedran de Magalh{\\~{a}}es}, Claudio Marcos and Kirkwood, R},\n"
        "  file = {:C$\\backslash$:/x.pdf:pdf}, title = {{Strategies}}, year = {2016}}\n",
        [("Strategies", ["Bedran de Magalhães, Claudio Marcos", "Kirkwood, R"], 2016, None)],
    ),
    (
        "renanbr/bibtex-parser#87 Web of Science: every value double-braced",
        "bibtex",
        "@article{ ISI:000440287200008,\nAuthor = {Dubos, Nicolas and Le Viol, Isabelle},\n"
        "Title = {{Disentangling the effects\n   of spring}},\nYear = {{2018}},\n"
        "Month = {{AUG}},\nDOI = {{10.1111/ecog.03413}},\n}\n",
        [("Disentangling the effects of spring", ["Dubos, Nicolas", "Le Viol, Isabelle"], 2018, 8)],
    ),
    (
        "latex-decode#10 doi2bib: K{\\'{a}}ssio, month = {sep}",
        "bibtex",
        "@article{p, author = {Maria Paraskevaidi and K{\\'{a}}ssio M. G. Lima},\n"
        "  title = {T}, year = 2017, month = {sep}}\n",
        [("T", ["Paraskevaidi, Maria", "Lima, Kássio M. G."], 2017, 9)],
    ),
    (
        "citeproc-java#103 {Barnes and Noble, Inc.} is one corporate author",
        "bibtex",
        "@book{b, author = {{Barnes and Noble, Inc.}}, title = {R}, year = 2001}\n",
        [("R", ["Barnes and Noble, Inc."], 2001, None)],
    ),
    (
        "zotero-better-bibtex#565 particles, Jr/Sr/III, braced families",
        "bibtex",
        "@book{n, author = {{van Gogh}, Vincent and von Humboldt, Alexander and King, Jr.,"
        " Martin Luther and Stevenson, III, Adlai E. and {La Follette}, Sr., Robert M. and"
        " Ludwig {Mies van der Rohe} and Jean de La Fontaine}, title = {P}, year = 1900}\n",
        [
            (
                "P",
                [
                    "van Gogh, Vincent",
                    "von Humboldt, Alexander",
                    "King, Jr., Martin Luther",
                    "Stevenson, III, Adlai E.",
                    "La Follette, Sr., Robert M.",
                    "Mies van der Rohe, Ludwig",
                    "de La Fontaine, Jean",
                ],
                1900,
                None,
            )
        ],
    ),
    (
        "bib2json#9, bibimbap#1, aspect#2306: month concatenations and numbers",
        "bibtex",
        '@proceedings{a, title = {A}, month = "4 " # jan # {--} # "6 " # dec, year = "2019"}\n'
        '@misc{b, title = {B}, month = aug # "\\slash " # sep, year = 2018}\n'
        "@misc{c, title = {C}, month = {Apr}, year = 2022}\n"
        "@misc{d, title = {D}, month = 5, year = 2017}\n",
        [("A", [], 2019, 1), ("B", [], 2018, 8), ("C", [], 2022, 4), ("D", [], 2017, 5)],
    ),
    (
        'bibtexparser#161 accents: {\\^{i}}, {\\"{\\i}}, \\ss{}, \\oe with a space',
        "bibtex",
        '@article{a, author = {Stra{\\ss}e, G{\\"u}nther and {\\O}ster, {\\AA}se},\n'
        "  title = {{\\^{i}}le, {\\\"{\\i}}, \\ss{}, \\oe uvre and \\'{E}cole}, year = 2001}\n",
        [("île, ï, ß, œuvre and École", ["Straße, Günther", "Øster, Åse"], 2001, None)],
    ),
    (
        "JabRef: @preamble, @String, paren-delimited entry, jabref-meta comments",
        "bibtex",
        '@preamble{ "\\newcommand{\\noopsort}[1]{}" }\n@String{ jgg = "J. Gnats" }\n'
        "@article(paren, author = {Zeta, Alpha}, title = {Paren}, journal = jgg, year = 1999)\n"
        "@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n}\n",
        [("Paren", ["Zeta, Alpha"], 1999, None)],
    ),
    (
        "BOM, CRLF and a blank line inside a value",
        "bibtex",
        "\ufeff@article{bom,\r\n  author = {Bom, Byte},\r\n  title = {CRLF},\r\n  year = 2010\r\n}\r\n",
        [("CRLF", ["Bom, Byte"], 2010, None)],
    ),
    (
        "rispy#62 Embase: an empty SP tag is not a continuation, Y1 2020//",
        "ris",
        "TY  - JOUR\nT1  - Outcome Measures\nA1  - Fanning, E.\nY1  - 2020//\nIS  - 9\nSP  -\n"
        "DO  - http://dx.doi.org/10.1177/2325967120950040\nER  -\n",
        [("Outcome Measures", ["Fanning, E."], 2020, None)],
    ),
    (
        "litstudy#36 Web of Science RIS: ED and SN repeated; last record without ER",
        "ris",
        "TY  - CHAP\nAU  - Doe, Jane\nTI  - A chapter\nED  - Andrews, David M.\n"
        "ED  - Brown, Carla\nSN  - 978-3-16-148410-0\nSN  - 978-3-16-148411-7\nPY  - 2015\n"
        "ER  - \n\nTY  - JOUR\nAU  - Roe, Richard\nTI  - No ER\nPY  - 2016\n",
        [("A chapter", ["Doe, Jane"], 2015, None), ("No ER", ["Roe, Richard"], 2016, None)],
    ),
    (
        "pkp/citeproc-php#198, BBT#811, jgm/citeproc#149: seasons, literal and raw dates",
        "csl-json",
        json.dumps(
            [
                {
                    "id": "a",
                    "type": "book",
                    "title": "A",
                    "issued": {"date-parts": [["2021", "season-01"]]},
                },
                {
                    "id": "b",
                    "type": "book",
                    "title": "B",
                    "issued": {"date-parts": [[2015, 14], [2016, 16]]},
                },
                {"id": "c", "type": "book", "title": "C", "issued": {"literal": "Spring 1985"}},
                {"id": "d", "type": "book", "title": "D", "issued": {"raw": "2000-3-15/2000-3-17"}},
            ]
        ),
        [("A", [], 2021, None), ("B", [], 2015, None), ("C", [], 1985, None), ("D", [], 2000, 3)],
    ),
    (
        "CSL-JSON particles, suffix and a literal organisation",
        "csl-json",
        json.dumps(
            [
                {
                    "id": "p",
                    "type": "report",
                    "title": "P",
                    "author": [
                        {"literal": "World Health Organization"},
                        {"family": "Smith", "given": "John", "suffix": "Jr."},
                        {"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van"},
                    ],
                }
            ]
        ),
        [("P", ["World Health Organization", "Smith, Jr., John", "van Gogh, Vincent"], None, None)],
    ),
]


@pytest.mark.parametrize(("report", "reader", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_inputs_from_other_tools_bug_reports(
    report: str, reader: str, text: str, expected: list[Read]
) -> None:
    module: Any = {"bibtex": bibtex, "ris": ris, "csl-json": csljson}[reader]
    result = module.read(text, "case")
    assert [summary(r) for r in result.records] == expected, report


def test_ris_and_csl_exports_write_a_bibtex_papers_fields_as_text(
    invoke: Any, tmp_path: Path
) -> None:
    source = tmp_path / "corporate.bib"
    source.write_text(
        "@book{bn2001, author = {{Barnes and Noble, Inc.}}, title = {Annual Report},\n"
        '  publisher = {Barnes {\\&} Noble}, address = {M{\\"u}nchen}, year = 2001,\n'
        "  note = {See \\url{https://x.org/a_b}}, pages = {e0123--e0130}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(source)).exit_code == 0
    exported = invoke("export", "ris")
    assert exported.exit_code == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert "PB  - Barnes & Noble" in lines
    assert "CY  - München" in lines
    assert "N1  - See <https://x.org/a_b>" in lines
    assert (
        lines[lines.index("SP  - e0123")],
        lines[lines.index("SP  - e0123") + 1],
    ) == ("SP  - e0123", "EP  - e0130")
    item = json.loads(invoke("export", "csl-json").stdout)[0]
    assert (item["publisher"], item["publisher-place"], item["page"]) == (
        "Barnes & Noble",
        "München",
        "e0123–e0130",
    )
    # The RIS read back (a new library) gives the publisher, not its LaTeX as text.
    records = ris.read(exported.stdout, "back.ris").records
    assert records[0].fields["publisher"] == "Barnes & Noble"
    assert "publisher = {Barnes \\& Noble}" in bibtex.write(records)


def test_et_al_in_ris_and_csl_is_not_a_person(invoke: Any, tmp_path: Path) -> None:
    ris_text = (
        "TY  - JOUR\nAU  - van der Berg, Jan\nAU  - others\nTI  - One\nPY  - 2023\nER  - \n\n"
        "TY  - JOUR\nAU  - Roe, R.\nAU  - et al.\nTI  - Two\nPY  - 2023\nER  - \n"
    )
    csl_text = json.dumps(
        [
            {
                "id": "three",
                "type": "book",
                "title": "Three",
                "author": [{"family": "de la Cruz", "given": "Juana"}, {"literal": "et al."}],
            }
        ]
    )
    marks = [
        [p.is_others for p in r.authors]
        for r in [*ris.read(ris_text, "e.ris").records, *csljson.read(csl_text, "e.json").records]
    ]
    assert marks == [[False, True], [False, True], [False, True]]
    (tmp_path / "e.ris").write_text(ris_text, encoding="utf-8")
    (tmp_path / "e.json").write_text(csl_text, encoding="utf-8")
    assert invoke("import", str(tmp_path / "e.ris"), str(tmp_path / "e.json")).exit_code == 0
    written = invoke("export", "bibtex").stdout
    authors = sorted(re.findall(r"^  author = \{(.*)\},$", written, re.MULTILINE))
    assert authors == [
        "Roe, R. and others",
        "van der Berg, Jan and others",
        "{de la Cruz}, Juana and others",  # a CSL family with its particle: one family
    ]
    # RIS has no "et al.": written back, a list gives its people only, never a
    # person named "others".
    written_ris = invoke("export", "ris").stdout
    assert "others" not in written_ris
    again = ris.read(written_ris, "again.ris").records
    assert sorted(tuple(p.display() for p in r.authors) for r in again) == [
        ("Roe, R.",),
        ("de la Cruz, Juana",),
        ("van der Berg, Jan",),
    ]


def test_an_accent_command_written_with_a_space_stays_in_its_word() -> None:
    people = parse_names(
        "Sz\\H ol\\H o, Baker and Fran\\c cois Dupont and Stra\\ss e, G. and Bj\\o rn Berg"
        " and Ko\\v{c}i, Du\\v san"
    )
    assert [p.display() for p in people] == [
        "Szőlő, Baker",
        "Dupont, François",
        "Straße, G.",
        "Berg, Bjørn",
        "Koči, Dušan",
    ]
    # The entry is still copied as written (its names decode to the same people).
    source = "@article{s,\n  author = {Fran\\c cois Dupont},\n  title = {T},\n  year = 1999\n}\n"
    record = bibtex.read(source, "s.bib").records[0]
    assert bibtex.write([record]) == source


def test_a_markdown_reference_list_is_one_paper_per_item() -> None:
    text = (
        "# Reading list: diffusion\n\n"
        "- [Denoising Diffusion Probabilistic Models](https://arxiv.org/abs/2006.11239)"
        " — Ho, Jain, Abbeel (NeurIPS 2020)\n"
        "- [Score-Based Generative Modeling through SDEs]"
        "(https://openreview.net/forum?id=PxTIG12RRHS), Song et al., ICLR 2021\n"
        "- *Elucidating the Design Space of Diffusion-Based Generative Models*. Karras et al."
        " 2022. doi:10.48550/arXiv.2206.00364\n"
        "- Improved Denoising Diffusion Probabilistic Models. Nichol & Dhariwal. ICML 2021."
        " https://doi.org/10.48550/arXiv.2102.09672\n"
    )
    records = abstracts.read(text, "list.md").records
    assert [(r.title or "")[:28] for r in records] == [
        "Denoising Diffusion Probabil",
        "Score-Based Generative Model",
        "Elucidating the Design Space",
        "Improved Denoising Diffusion",
    ]
    assert [(r.arxiv, r.doi) for r in records] == [
        ("2006.11239", None),
        (None, None),
        (None, None),
        ("2102.09672", "10.48550/arxiv.2102.09672"),
    ]
    assert [r.abstract for r in records] == [None, None, None, None]


def test_a_ris_name_written_family_initials_is_that_person(invoke: Any, tmp_path: Path) -> None:
    """rispy#62 (Embase RIS): ``A1  - Fanning E.`` is family Fanning, given E.; read as one
    literal name it was not the first author of the same paper from BibTeX, and the
    import made a duplicate."""
    record = ris.read(
        "TY  - JOUR\nA1  - Fanning E.\nA1  - Smith A.M.\nA1  - van der Berg J. H.\nA1  - Team B\n"
        "A1  - WHO Collaborating Group\nT1  - Names\nER  -\n",
        "n.ris",
    ).records[0]
    assert [p.display() for p in record.authors] == [
        "Fanning, E.",
        "Smith, A. M.",
        "van der Berg, J. H.",
        "Team B",  # bare initials: as likely a corporate name
        "WHO Collaborating Group",
    ]
    bib = tmp_path / "a.bib"
    bib.write_text(
        "@article{fanning2020,\n author = {Fanning, Eric and Maritz, J.},\n"
        " title = {Outcome Measures After Shoulder Stabilization in the Athletic Population},\n"
        " journal = {Orthop. J. Sports Med.},\n year = 2020}\n",
        encoding="utf-8",
    )
    embase = tmp_path / "a.ris"
    embase.write_text(
        "TY  - JOUR\nT1  - Outcome Measures After Shoulder Stabilization in the Athletic"
        " Population\nA1  - Fanning E.\nA1  - Maritz J.\nY1  - 2020//\n"
        "JF  - Orthopaedic Journal of Sports Medicine\nER  -\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    second = invoke("import", str(embase))
    assert second.exit_code == 0, second.stderr
    assert "0 added" in second.stderr
    assert invoke("list", "-k").stdout.split() == ["fanning2020"]
