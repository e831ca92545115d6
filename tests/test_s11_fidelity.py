"""What biblatex, JabRef, Zotero and PubMed users really have, read and written back.

One test per class of input, each shaped like the files people report (biblatex's
extended names and dates, JabRef's disabled entries and metadata, crossref children
exported alone, unspaced initials, corporate authors, LaTeX in displayed text, pasted
PubMed lists), on SQLite and PostgreSQL, with the real ``bibtex``, ``biber`` and
``pandoc`` where the rule is about what they read.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import require_tools, shared_data, show
from test_real_tools import biber_messages, bibtex_messages


@pytest.fixture
def _real_tools() -> None:
    """Fail (never skip) when bibtex, biber or pandoc is missing (``require_tools``)."""
    require_tools("bibtex", "biber", "pandoc")


needs_tools = pytest.mark.usefixtures("_real_tools")


def _import(invoke: Any, tmp_path: Path, name: str, text: str, *args: str) -> Any:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = invoke("import", str(path), *args)
    assert result.exit_code == 0, result.output
    return result


def _export(invoke: Any, tmp_path: Path, fmt: str, *query: str, name: str = "out") -> str:
    suffix = {"bibtex": "bib", "biblatex": "bib", "ris": "ris", "csl-json": "json"}.get(fmt, "md")
    out = tmp_path / f"{name}.{suffix}"
    result = invoke("export", fmt, "-o", str(out), *query)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def _pandoc_run(bib: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(bib)],
        capture_output=True,
        text=True,
        check=True,
    )
    items: list[dict[str, Any]] = json.loads(done.stdout)
    return items


#: The real tools a test asks about an export, by name (run by :func:`_tool`).
TOOLS: dict[str, Callable[[Path], Any]] = {
    "bibtex": bibtex_messages,
    "biber": biber_messages,
    "pandoc": _pandoc_run,
}


@functools.cache
def _tool_run(tool: str, name: str, text: str) -> Any:
    """What :data:`TOOLS` ``[tool]`` says of a file ``name`` holding ``text``, run on a
    copy in a folder of its own: once per text (the SQLite and PostgreSQL libraries of a
    test export the same bytes; the tools read nothing else)."""
    with tempfile.TemporaryDirectory() as folder:
        bib = Path(folder) / name
        bib.write_text(text, encoding="utf-8")
        return TOOLS[tool](bib)


def _tool(tool: str, bib: Path) -> Any:
    """:func:`_tool_run` of the file ``bib`` (a copy of its answer: callers may change it)."""
    return copy.deepcopy(_tool_run(tool, bib.name, bib.read_text(encoding="utf-8")))


def _pandoc_csl(bib: Path) -> list[dict[str, Any]]:
    """pandoc's CSL-JSON of the BibTeX file ``bib``."""
    items: list[dict[str, Any]] = _tool("pandoc", bib)
    return items


def bibtex_checked(bib: Path) -> tuple[int, set[str], int, set[str]]:
    """``test_real_tools.bibtex_messages`` of ``bib``, once per text (:func:`_tool`)."""
    found: tuple[int, set[str], int, set[str]] = _tool("bibtex", bib)
    return found


def biber_checked(bib: Path) -> tuple[set[str], list[str]]:
    """``test_real_tools.biber_messages`` of ``bib``, once per text (:func:`_tool`)."""
    found: tuple[set[str], list[str]] = _tool("biber", bib)
    return found


BIBLATEX_NAMES = """\
@article{dejong2018,
  author = {family=Jong, given=Karel, prefix=de, useprefix=true and family=Smith, given=Anna, suffix=Jr.},
  title = {Particles in names},
  journaltitle = {Journal of Names},
  date = {2018-01-15},
  urldate = {Sept. 3, 2020},
}
@article{vries2019,
  author = {family=Vries, given=Anna, prefix=de},
  title = {Only the names are biblatex's},
  journal = {Journal of Names},
  year = {2019},
}
@article{roe2019,
  author = {Roe, Richard},
  title = {A month written out},
  journal = {Journal of Months},
  year = {2019},
  month = {Sept.},
}
@article{roe2019b,
  author = {Roe, Richard},
  title = {A month as a number},
  journal = {Journal of Months},
  year = {2019},
  month = {9},
}
@article{roe2019c,
  author = {Roe, Richard},
  title = {A season},
  journal = {Journal of Months},
  year = {2019},
  month = {Summer},
}
"""


@needs_tools
def test_biblatex_extended_names_and_dates(invoke: Any, tmp_path: Path) -> None:
    """biblatex's ``family=..., given=...`` names are two people with particle and
    suffix; the BibTeX export writes them classically and ``date``/``{Sept.}``/``{9}``
    as ``year`` and the bare month macro, which bibtex, biber and pandoc read."""
    result = _import(invoke, tmp_path, "biblatex.bib", BIBLATEX_NAMES)
    assert "separates people by commas" not in result.output
    assert "'Summer' names no month; kept as written" in result.output
    assert "urldate 'Sept. 3, 2020' is not an ISO 8601 date" in result.output
    assert show(invoke, "dejong2018")["authors"] == ["de Jong, Karel", "Smith, Jr., Anna"]
    text = _export(invoke, tmp_path, "bibtex")
    assert "author = {de Jong, Karel and Smith, Jr., Anna}," in text
    assert "author = {de Vries, Anna}," in text  # an entry otherwise copied as written
    # Only the values BibTeX cannot read are replaced, in place (date and journaltitle
    # by journal, year and month after the last field; the months by the macro).
    assert "urldate = {Sept. 3, 2020},\n  journal = {Journal of Names},\n" in text
    assert "year = {2018},\n  month = jan" in text
    assert "\n  date =" not in text
    assert text.count("month = sep,\n") == 2
    assert "month = {Summer}" in text
    bib = tmp_path / "out.bib"
    errors, _, _, warnings = bibtex_checked(bib)
    assert errors == 0
    assert not [w for w in warnings if "dejong2018" in w or "roe2019," in w]
    biber_errors, _ = biber_checked(bib)
    assert not biber_errors
    people = {item["id"]: item for item in _pandoc_csl(bib)}["dejong2018"]["author"]
    assert people == [
        {"dropping-particle": "de", "family": "Jong", "given": "Karel"},
        {"family": "Smith", "given": "Anna", "suffix": "Jr."},
    ]
    months = {item["id"]: item["issued"]["date-parts"][0] for item in _pandoc_csl(bib)}
    assert months["roe2019"] == months["roe2019b"] == [2019, 9]
    # The biblatex export keeps biblatex's own forms.
    latex = _export(invoke, tmp_path, "biblatex", name="latex")
    assert "family=Jong, given=Karel, prefix=de, useprefix=true and family=Smith" in latex
    assert "date = {2018-01-15}" in latex


CROSSREF = """\
@inproceedings{kid2020a,
  author = {Kid, Alice},
  title = {Child one},
  crossref = {conf2020},
  pages = {1--10},
}
@inproceedings{kid2020b,
  author = {Kid, Bob},
  title = {Child two},
  crossref = {conf2020},
  pages = {11--20},
}
@inproceedings{kid2020c,
  author = {Kid, Carol},
  title = {A child whose parent is elsewhere},
  booktitle = {Proceedings of Elsewhere},
  year = {2020},
  crossref = {elsewhere2020},
}
@xdata{springer,
  publisher = {Springer},
  address = {Berlin},
}
@book{writer2001,
  author = {Writer, Wanda},
  title = {A book},
  xdata = {springer},
  year = {2001},
}
@proceedings{conf2020,
  title = {Proceedings of the Twelfth Conference},
  booktitle = {Proceedings of the Twelfth Conference},
  editor = {Chair, Carl and Vice, Vera},
  publisher = {ACM},
  year = {2020},
}
"""


@needs_tools
def test_crossref_children_exported_alone_bring_their_parent(invoke: Any, tmp_path: Path) -> None:
    """Children inherit venue, year, editors and publisher (shown and searchable);
    ``@xdata`` is no paper; a missing parent is reported; exporting some children
    adds their parent, and a child whose parent is nowhere loses the link, so bibtex
    and biber report no bad cross reference."""
    result = _import(invoke, tmp_path, "crossref.bib", CROSSREF)
    assert (
        "crossref.bib:13: entry 'kid2020c': crossref entry 'elsewhere2020' is not" in result.output
    )
    child = show(invoke, "kid2020a")
    assert child["venue"] == "Proceedings of the Twelfth Conference"
    assert child["year"] == 2020
    assert child["editors"] == ["Chair, Carl", "Vice, Vera"]
    assert child["fields"]["publisher"] == "ACM"
    listed = invoke("list", "--json", "venue:twelfth")
    assert {p["key"] for p in json.loads(listed.output)} == {"kid2020a", "kid2020b", "conf2020"}
    assert invoke("show", "springer").exit_code == 3
    assert show(invoke, "writer2001")["fields"]["publisher"] == "Springer"
    out = tmp_path / "some.bib"
    result = invoke("export", "bibtex", "-o", str(out), "key:kid2020a", "OR", "key:kid2020c")
    assert result.exit_code == 0, result.output
    assert "added 'conf2020': 'kid2020a' names it in crossref" in result.output
    assert "entry 'kid2020c': crossref entry 'elsewhere2020' is not in the library" in result.output
    text = out.read_text(encoding="utf-8")
    assert text.count("@") == 3
    assert text.index("@inproceedings{kid2020a") < text.index("@proceedings{conf2020")
    assert "elsewhere2020" not in text
    errors, messages, _, _ = bibtex_checked(out)
    assert (errors, messages) == (0, set())
    assert not biber_checked(out)[0]
    aux = tmp_path / "paper.aux"
    aux.write_text("\\citation{kid2020b}\n", encoding="utf-8")
    result = invoke("export", "bibtex", "--aux", str(aux), "-o", str(out))
    assert "added 'conf2020'" in result.output
    assert bibtex_checked(out)[0] == 0


CSL_INITIALS = """[
 {"id": "bergstra2012", "type": "article-journal",
  "title": "Random search for hyper-parameter optimization",
  "author": [{"family": "Bergstra", "given": "J.A.M."}, {"family": "Bengio", "given": "Yoshua"},
             {"literal": "et al."}],
  "container-title": "Journal of Machine Learning Research", "issued": {"date-parts": [[2012]]}}
]
"""
RIS_JOINED = """\
TY  - JOUR
AU  - Smith, J.; Brown, K.
AU  - et al.
TI  - Joined authors in one line
JO  - Journal of Lines
PY  - 2019
ER  - 
"""


@needs_tools
def test_initials_joined_names_and_et_al(invoke: Any, tmp_path: Path) -> None:
    """``J.A.M.`` is written ``J. A. M.`` (bibtex abbreviates each initial); two RIS
    people joined by ``;`` are split with a warning; "et al." is a flag of the list,
    never a person named "others" in JSON, RIS, CSL-JSON or ``show``."""
    _import(invoke, tmp_path, "zotero.json", CSL_INITIALS)
    result = _import(invoke, tmp_path, "wos.ris", RIS_JOINED)
    assert "wos.ris:2: AU 'Smith, J.; Brown, K.' names 2 people joined by ';'" in result.output
    key = next(p["key"] for p in json.loads(invoke("list", "--json").output) if p["year"] == 2019)
    joined = show(invoke, key)
    assert (joined["authors"], joined["authors_et_al"]) == (["Smith, J.", "Brown, K."], True)
    bergstra = show(invoke, "bergstra2012")
    assert (bergstra["authors"], bergstra["authors_et_al"]) == (
        ["Bergstra, J.A.M.", "Bengio, Yoshua"],
        True,
    )
    assert (
        "Authors:     Bergstra, J.A.M.; Bengio, Yoshua; et al."
        in invoke("show", "bergstra2012").output
    )
    text = _export(invoke, tmp_path, "bibtex")
    assert "author = {Bergstra, J. A. M. and Bengio, Yoshua and others}" in text
    assert "author = {Smith, J. and Brown, K. and others}" in text
    # bibtex abbreviates each initial: the style's first-name abbreviation shows all three.
    bib = tmp_path / "out.bib"
    aux = bib.with_suffix(".aux")
    aux.write_text("\\citation{*}\n\\bibdata{out}\n\\bibstyle{abbrv}\n", encoding="utf-8")
    subprocess.run(["bibtex", "out"], cwd=tmp_path, capture_output=True, check=False)
    assert "J.~A.~M. Bergstra" in bib.with_suffix(".bbl").read_text(encoding="utf-8")
    ris = _export(invoke, tmp_path, "ris")
    csl = _export(invoke, tmp_path, "csl-json")
    assert "others" not in ris
    assert "et al" not in ris
    items = json.loads(csl)
    assert all("others" not in json.dumps(item.get("author")) for item in items)
    assert {item["custom"]["et_al"][0] for item in items} == {"author"}
    # pandoc reads our CSL-JSON without a person "others".
    done = subprocess.run(
        ["pandoc", "-f", "csljson", "-t", "biblatex", str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "others" not in done.stdout.replace("and others", "")
    # Read back, the flag is kept.
    invoke("rm", "--yes", "bergstra2012", key)
    _import(invoke, tmp_path, "again.json", csl)
    assert show(invoke, "bergstra2012")["authors_et_al"] is True


KEYLESS = """\
@techreport{,
  author = {{Statistics Netherlands}},
  title = {Annual report on labour},
  institution = {CBS},
  year = {2023},
}
@techreport{,
  author = {{Statistics Netherlands}},
  title = {2017 {R} tables of the census},
  institution = {CBS},
  year = {2023},
}
@manual{,
  title = {{R}: A Language and Environment for Statistical Computing},
  organization = {R Foundation},
  year = {2017},
}
"""


def test_generated_keys_take_corporate_names_whole_and_skip_symbols(
    invoke: Any, tmp_path: Path
) -> None:
    """A corporate author gives its whole name (``statisticsnetherlands2023...``), a
    title's leading digits, symbols and one-letter words never make the key, and
    each fallback is said."""
    result = _import(invoke, tmp_path, "keyless.bib", KEYLESS)
    keys = sorted(p["key"] for p in json.loads(invoke("list", "--json").output))
    assert keys == [
        "language2017",
        "statisticsnetherlands2023annual",
        "statisticsnetherlands2023tables",
    ]
    assert "keyless.bib:7: key 'statisticsnetherlands2023tables' generated with leading" in (
        result.output
    )
    assert "keyless.bib:13: key 'language2017' generated with leading title word(s) 'r:'" in (
        result.output
    )
    assert "'statisticsnetherlands2023annual' generated" not in result.output


DISPLAY = r"""@article{szolo2020,
  author = {Sz\H ol\H o, Anna and Jones, Bob},
  title = {The {\it italic} and \emph{emphasis} of {"}quotes{"}, {BERT} and a~tie},
  journal = {Journal of {CO$_{2}$} Studies},
  year = 2020,
  abstract = {A hard-wrapped
      abstract that goes on
      over lines.

      A second paragraph.},
}
"""
CSL_RICH = """[
 {"id": "rich2021", "type": "article-journal",
  "title": "Random <i>search</i> of <span class=\\"nocase\\">CO<sub>2</sub></span> sinks",
  "author": [{"family": "Rich", "given": "Text"}], "issued": {"date-parts": [[2021]]}}
]
"""


@needs_tools
def test_latex_and_rich_text_display_the_same_in_every_format(invoke: Any, tmp_path: Path) -> None:
    """``{\\it}``, ``\\emph``, ``{"}``, ``Sz\\H ol\\H o``, ``~`` read as a reader expects in
    ``show``, Markdown, RIS and CSL-JSON; a hard-wrapped abstract is one paragraph; CSL
    rich text and LaTeX markup are kept as markup in CSL-JSON (as pandoc writes them)
    and printed as text elsewhere; ``~`` stays ``~`` in BibTeX."""
    _import(invoke, tmp_path, "display.bib", DISPLAY)
    _import(invoke, tmp_path, "rich.json", CSL_RICH)
    title = 'The italic and emphasis of "quotes", BERT and a\u00a0tie'
    paper = show(invoke, "szolo2020")
    assert paper["title"] == title
    assert paper["authors"] == ["Szőlő, Anna", "Jones, Bob"]
    shown = invoke("show", "szolo2020").output
    assert "A hard-wrapped abstract that goes on over lines.\n" in shown
    markdown = _export(invoke, tmp_path, "markdown", "--abstracts")
    assert "> A hard-wrapped abstract that goes on over lines.\n" in markdown
    ris = _export(invoke, tmp_path, "ris")
    assert f"TI  - {title}\n" in ris
    assert "AB  - A hard-wrapped abstract that goes on over lines.\n\nA second paragraph.\n" in ris
    assert (
        "TI  - Random search of CO2 sinks\n" in ris or "TI  - Random search of CO_2 sinks\n" in ris
    )
    items = {item["id"]: item for item in json.loads(_export(invoke, tmp_path, "csl-json"))}
    assert items["szolo2020"]["title"] == (
        'The <i>italic</i> and <i>emphasis</i> of "quotes", '
        '<span class="nocase">BERT</span> and a\u00a0tie'
    )
    assert items["szolo2020"]["container-title"] == (
        'Journal of <span class="nocase">CO<sub>2</sub></span> Studies'
    )
    assert items["szolo2020"]["abstract"] == (
        "A hard-wrapped abstract that goes on over lines.\n\nA second paragraph."
    )
    assert items["rich2021"]["title"] == (
        'Random <i>search</i> of <span class="nocase">CO<sub>2</sub></span> sinks'
    )
    # pandoc's own CSL-JSON of our BibTeX export has the same italics and case
    # protection (pandoc writes $_{2}$ as math, CO_{2}).
    bib = _export(invoke, tmp_path, "bibtex")
    assert "a~tie" in bib
    assert "textasciitilde" not in bib
    pandoc = {item["id"]: item for item in _pandoc_csl(tmp_path / "out.bib")}
    assert pandoc["rich2021"]["title"].startswith("Random <i>search</i> of ")
    ours = items["szolo2020"]["title"].replace('<span class="nocase">BERT</span>', "BERT")
    assert pandoc["szolo2020"]["title"] == ours  # pandoc leaves an all-capital word bare


PUBMED_SUMMARY = """\
1. Deep learning for tumour segmentation in MRI: a systematic
review.
Smith J, Brown K, de Vries A.
Lancet Oncol. 2021 Mar;22(3):e120-e130. doi: 10.1016/S1470-2045(20)30619-6.
Review.
PMID: 33662287
Similar articles
2. Transfer learning in radiology: 2. lessons.
Garcia M, Chen L.
Radiology. 2020 Jan;294(1):45-52. doi: 10.1148/radiol.2019190613. Epub 2019 Nov 5.
Transfer learning reuses models trained elsewhere.
PMID: 31688004 Free PMC article.
3. Federated learning across hospitals.
Olsen P, Kumar R, Ng T.
Nat Med. 2022;28(4):700-710. doi: 10.1038/s41591-022-01768-5.
PMID: 35410392
"""


def test_pubmed_summary_list_gives_one_paper_per_record(invoke: Any, tmp_path: Path) -> None:
    """PubMed's "Summary" list (numbered title, authors, citation line, PMID; the
    results page's labels between) gives one paper per record with its citation."""
    result = _import(invoke, tmp_path, "pubmed.txt", PUBMED_SUMMARY)
    assert "3 added" in result.output
    papers = {p["key"]: p for p in json.loads(invoke("list", "--json").output)}
    assert sorted(papers) == ["garcia2020transfer", "olsen2022federated", "smith2021deep"]
    first = show(invoke, "smith2021deep")
    assert first["title"] == "Deep learning for tumour segmentation in MRI: a systematic review"
    assert first["authors"] == ["Smith, J.", "Brown, K.", "de Vries, A."]
    assert (first["venue"], first["year"], first["month"]) == ("Lancet Oncol", 2021, 3)
    assert first["doi"] == "10.1016/s1470-2045(20)30619-6"
    assert first["fields"]["pmid"] == "33662287"
    assert first["fields"]["pages"] == "e120--e130"
    assert first["abstract"] is None
    second = show(invoke, "garcia2020transfer")
    assert second["title"] == "Transfer learning in radiology: 2. lessons"
    assert second["abstract"] == "Transfer learning reuses models trained elsewhere."


JABREF = """\
% Encoding: UTF-8

@article{kept2013,
  author = {Keeper, Kim},
  title = {A damaged but kept entry},
  journal = {Journal of Repairs},
  year = {2013}
  url = {https://example.org/kept},,
  volume = {3},
}

@comment{@article{disabled2019,
  author = {Gone, Gina},
  title = {An entry the user disabled},
  journal = {Journal of Switches},
  year = {2019}
}}

@comment{jabref-meta: databaseType:bibtex;}

@comment{jabref-meta: grouping:
0 AllEntriesGroup:;
1 StaticGroup:Reading\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;
}
"""


@needs_tools
def test_jabref_disabled_entries_metadata_and_damaged_fields(invoke: Any, tmp_path: Path) -> None:
    """A JabRef file: an entry wrapped in ``@comment`` is no paper and no error, the
    ``jabref-meta`` blocks come back unchanged in the export, and a missing comma or
    ``,,`` loses no field (a warning names the key and line); bibtex and biber read
    the export without error."""
    result = _import(invoke, tmp_path, "jabref.bib", JABREF)
    assert "jabref.bib (bibtex): 1 added" in result.output
    assert "jabref.bib:8: entry 'kept2013': missing comma before field 'url'" in result.output
    assert "disabled2019" not in result.output
    assert "malformed" not in result.output
    kept = show(invoke, "kept2013")
    assert (kept["url"], kept["fields"]["volume"], kept["year"]) == (
        "https://example.org/kept",
        "3",
        2013,
    )
    assert invoke("show", "disabled2019").exit_code == 3
    text = _export(invoke, tmp_path, "bibtex")
    assert "@comment{jabref-meta: databaseType:bibtex;}" in text
    assert (
        "@comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n"
        "1 StaticGroup:Reading\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;\n}"
    ) in text
    assert text.count("url = ") == 1
    assert "volume = {3}" in text
    errors, messages, _, _ = bibtex_checked(tmp_path / "out.bib")
    assert (errors, messages) == (0, set())
    assert not biber_checked(tmp_path / "out.bib")[0]


CASED_FIELDS = """\
@Article{cased2020,
  Title = {Field Names in Capitals},
  title = {field names in lower case},
  Author = {Poe, Pat},
  Journal = {Journal of Cases},
  YEAR = {2020},
  Keywords = {sparsity, pruning},
  keywords = {pruning, lottery tickets},
}
"""
ZOTERO_RIS = """\
TY  - JOUR
AU  - Lee, Kim
TI  - Keywords from Zotero
JO  - Journal of Tags
PY  - 2021
KW  - sparsity
KW  - graph neural networks
ER  - 
"""
ZOTERO_CSL = """[
 {"id": "park2022", "type": "article-journal", "title": "Keywords in CSL",
  "author": [{"family": "Park", "given": "Min"}], "issued": {"date-parts": [[2022]]},
  "keyword": "sparsity, transformers"}
]
"""


@needs_tools
def test_cased_fields_are_one_and_keywords_become_tags_in_every_format(
    invoke: Any, tmp_path: Path
) -> None:
    """``Title`` and ``title`` are one field (the first kept, said) and no export writes a
    field twice; ``--keywords-as-tags`` makes BibTeX ``keywords``, RIS ``KW`` and CSL
    ``keyword`` tags, and the export writes ``keywords`` once."""
    result = _import(invoke, tmp_path, "cased.bib", CASED_FIELDS, "--keywords-as-tags")
    assert "entry 'cased2020' has field 'title' twice (lines 2 and 3)" in result.output
    _import(invoke, tmp_path, "zotero.ris", ZOTERO_RIS, "--keywords-as-tags")
    _import(invoke, tmp_path, "zotero.json", ZOTERO_CSL, "--keywords-as-tags")
    cased = show(invoke, "cased2020")
    assert cased["title"] == "Field Names in Capitals"
    assert sorted(cased["tags"]) == ["lottery tickets", "pruning", "sparsity"]
    tagged = json.loads(invoke("list", "--json", "tag:sparsity").output)
    assert {p["key"] for p in tagged} == {"cased2020", "lee2021keywords", "park2022"}
    for fmt in ("bibtex", "biblatex"):
        text = _export(invoke, tmp_path, fmt, "--keywords", name=fmt)
        for entry in text.split("\n\n"):
            names = [line.split("=")[0].strip().lower() for line in entry.split("\n")[1:-1]]
            assert len(names) == len(set(names)), entry
        assert "keywords = {sparsity, pruning, lottery tickets}" in text
    errors, messages, _, _ = bibtex_checked(tmp_path / "bibtex.bib")
    assert (errors, messages) == (0, set())
    ris = _export(invoke, tmp_path, "ris")
    assert ris.count("KW  - sparsity\n") == 3


def _in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``readinglist ARGS`` in this process (:data:`fixpoint.Runner`)."""
    from click.testing import CliRunner

    from readinglist.cli import cli

    result = CliRunner().invoke(cli, list(args))
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


@needs_tools
@pytest.mark.slow
def test_round_trip_fixpoint_on_shared_files() -> None:
    """import -> export -> import -> export gives the same bytes, and bibtex and biber
    report no error on the exports, for one shared file of each format
    (``benchmarks/fixpoint.py`` runs every file of ``../shared/data/``, each command a
    process; here its commands run in this process: the bytes do not depend on it)."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "fixpoint.py"
    spec = importlib.util.spec_from_file_location("bench_fixpoint", script)
    assert spec is not None
    assert spec.loader is not None
    fixpoint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixpoint)
    names = ["pmlr-v260-acml2024.bib", "asreview-scopus.ris", "bbt-1179-library.csl.json"]
    for name in names:
        result = fixpoint.run(shared_data(name), _in_process)
        assert result["file"] == name
        assert result["fixpoint"] is True, result
        assert result.get("bibtex_fixpoint", True) is True, result
        assert (result["bibtex_errors"], result["biber_errors"]) == (0, 0), result


def test_month_macro_rule_reads_the_value_as_written() -> None:
    """Which written months a BibTeX export turns into the bare macro: one month named
    in braces, quotes or as a number; never a macro already, nor a ``#`` join."""
    from readinglist.formats.bibtex.fields import month_needs_macro

    def entry(month: str) -> str:
        return f"@article{{k, title={{T}}, year=2001, month={month}}}"

    for written in ('"September"', "{Sep}", "9", "{sept.}", "{9}", '"9"'):
        assert month_needs_macro(entry(written)), written
    for written in ("sep", 'jan # "~15"', "{Summer}", "{20--22 Jun}", "dec"):
        assert not month_needs_macro(entry(written)), written
