"""No file, record or answer makes LaTeX run a command or read a file: hostile values
arrive by every path (BibTeX itself, a RIS and a CSL-JSON duplicate merged on import,
``resolve --from`` a RIS file, a replayed Crossref answer, ``merge BIBKEY RISKEY``, a
pasted abstract merged), are exported, and the exports are compiled with ``pdflatex
-shell-escape`` and bibtex (``plain``, ``plainnat``, a style printing every field,
abstracts included) and with biber (biblatex). Nothing may run (no marker file), nothing
may be read (the canary's text and digest are absent from the PDF and the log) and the
PDF has no ``/OpenAction``. A control compile of the raw payloads shows the harness sees
each effect. The payloads are extended by a hypothesis strategy over TeX control
sequences: the allow-list predicate is checked on many, and a few are compiled."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import Result
from helpers import compile_once, require_tools, run_steps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readinglist.formats import bibtex
from readinglist.formats.bibtex.fields import decode_text
from readinglist.formats.bibtex.inert import INERT_COMMANDS, is_inert, offending
from readinglist.records import PaperRecord, Person

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("_real_tools")]


@pytest.fixture
def _real_tools() -> None:
    """Fail (never skip) when pdflatex, bibtex, biber or mutool is missing."""
    require_tools("pdflatex", "bibtex", "biber", "mutool")


Invoke = Callable[..., Result]
CANARY = "CANARYSECRET4711"
#: What pdfTeX prints for ``\pdfmdfivesum file{canary.tex}``.
CANARY_MD5 = hashlib.md5(f"{CANARY}\n".encode()).hexdigest().upper()
OPEN_ACTION = "/OpenAction << /S /JavaScript /JS (app.alert(1)) >>"


def payloads(tag: str) -> list[str]:
    """Every way the hostile-input runs reached ``\\write18``, ``\\input`` or the PDF
    catalog, each touching a marker ``pwn<tag><n>`` (relative: the compile's folder)."""
    mark = [f"pwn{tag}{n}" for n in range(12)]
    return [
        f"\\immediate\\write18{{touch {mark[0]}}}",
        f"\\UseName{{immediate}}\\UseName{{write}}18{{touch {mark[1]}}}",
        f"\\begin{{write}}18{{touch {mark[2]}}}\\end{{write}}",
        f"^^5cimmediate^^5cwrite18{{touch {mark[3]}}}",
        f"\\csname immediate\\endcsname\\csname write\\endcsname18{{touch {mark[4]}}}",
        f"$\\ExplSyntaxOn \\sys_shell_now:n {{touch~{mark[5]}}} \\ExplSyntaxOff$",
        f"\\directlua{{os.execute('touch {mark[6]}')}}\\write18{{touch {mark[7]}}}",
        "\\input{canary.tex}",
        "\\UseName{input}{canary.tex}",
        "\\begin{input}{canary.tex}\\end{input}",
        "^^5cinput{canary.tex} \\csname input\\endcsname{canary.tex}",
        "\\message{\\pdfmdfivesum file{canary.tex}}\\pdfmdfivesum file{canary.tex}",
        f"\\pdfcatalog{{{OPEN_ACTION}}}",
        f"\\UseName{{pdfcatalog}}{{{OPEN_ACTION}}}",
        "\\catcode`\\Q=0 Qinput{canary.tex}",
        f"\\def\\x{{\\immediate\\write18{{touch {mark[8]}}}}}\\x",
        f"\\special{{pdf:docview {OPEN_ACTION}}}\\openin1=canary.tex",
    ]


#: A style that prints every field it knows as it is (abstract, note, publisher, URL
#: ...): the harshest reader of a value, as styles printing abstracts are.
ALLFIELDS_BST = """\
ENTRY { abstract address annote author booktitle doi edition editor eprint howpublished
  institution journal keywords note number organization pages publisher school series
  title url volume year } {} { }
FUNCTION {show} { duplicate$ empty$ 'pop$ { write$ newline$ } if$ }
FUNCTION {begin.bib} { "\\begin{thebibliography}{99}" write$ newline$ }
FUNCTION {item}
{ newline$ "\\bibitem{" cite$ * "}" * write$ newline$
  author show title show abstract show address show annote show booktitle show
  doi show edition show editor show eprint show howpublished show institution show
  journal show keywords show note show number show organization show pages show
  publisher show school show series show url show volume show year show }
FUNCTION {end.bib} { newline$ "\\end{thebibliography}" write$ newline$ }
READ
EXECUTE {begin.bib}
ITERATE {item}
EXECUTE {end.bib}
"""


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",  # pdflatex prints the bytes of a value as they are
        timeout=180,
        check=False,
    )


#: The LaTeX run of every compile: shell escape on, as the most permissive build would.
LATEX = ("pdflatex", "-shell-escape", "-interaction=nonstopmode", "doc.tex")


def _prepare(folder: Path, bib: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    (folder / "canary.tex").write_text(CANARY + "\n", encoding="utf-8")
    (folder / "allfields.bst").write_text(ALLFIELDS_BST, encoding="ascii")


def compile_bibtex(folder: Path, bib: str, style: str) -> int:
    """``pdflatex -shell-escape``, bibtex, ``pdflatex -shell-escape`` twice on ``bib``
    cited whole in ``style``; returns the number of ``\\bibitem`` in the ``.bbl``. The
    same files compiled before in this process are not compiled again
    (:func:`helpers.compile_once`: their outputs and markers are written back)."""
    _prepare(folder, bib)
    package = "\\usepackage{natbib}" if style == "plainnat" else ""
    (folder / "doc.tex").write_text(
        f"\\documentclass{{article}}{package}\\begin{{document}}Text.\\nocite{{*}}"
        f"\\bibliographystyle{{{style}}}\\bibliography{{refs}}\\end{{document}}\n"
    )
    steps = (LATEX, ("bibtex", "doc"), LATEX, LATEX)
    compile_once(folder, repr(steps), lambda: [_run(folder, *step) for step in steps])
    return (folder / "doc.bbl").read_text(encoding="latin-1").count("\\bibitem")


def compile_biber(folder: Path, bib: str) -> int:
    """The same with biblatex and biber (:func:`helpers.run_steps`: biber forked from one
    that compiled once); returns the number of entries in the ``.bbl``."""
    _prepare(folder, bib)
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}"
        "\\addbibresource{refs.bib}\\begin{document}Text.\\nocite{*}"
        "\\printbibliography\\end{document}\n"
    )
    steps = (LATEX, ("biber", "doc"), LATEX, LATEX)
    compile_once(folder, repr(steps), lambda: run_steps(folder, steps, 180))
    return (folder / "doc.bbl").read_text(encoding="utf-8").count("\\entry{")


def effects(folder: Path) -> dict[str, Any]:
    """What the compile in ``folder`` did: marker files made, the canary (or its digest)
    in the PDF's text, its decompressed bytes or the log, an ``/OpenAction`` or
    JavaScript among the PDF's objects."""
    pdf = folder / "doc.pdf"
    assert pdf.exists(), (folder / "doc.log").read_text(errors="replace")[-3000:]
    text = _run(folder, "mutool", "draw", "-F", "txt", "-o", "-", "doc.pdf").stdout
    _run(folder, "mutool", "clean", "-d", "doc.pdf", "clean.pdf")
    raw = (folder / "clean.pdf").read_bytes().decode("latin-1")
    log = (folder / "doc.log").read_text(errors="replace")
    # The PDF's objects without their streams (printed text is in the streams).
    objects = _run(folder, "mutool", "show", "doc.pdf", "grep").stdout
    return {
        "markers": sorted(p.name for p in folder.glob("pwn*")),
        "read": [s for s in (CANARY, CANARY_MD5) if s in text or s in raw or s in log],
        # A whole PDF name: a font's subset tag may start with JS (/JSAOXW+CMR10).
        "open_action": re.search(r"/(?:OpenAction|JavaScript|JS)(?![A-Za-z0-9+])", objects)
        is not None,
    }


INERT = {"markers": [], "read": [], "open_action": False}


def test_the_harness_sees_what_raw_payloads_do(tmp_path: Path) -> None:
    """Control: the payloads written raw into a ``.bib`` (as the block-list let through)
    do run a command, read the canary and add an OpenAction under this compile."""
    fields = {
        "note": "\\immediate\\write18{touch pwnctl0}",
        "publisher": "\\UseName{input}{canary.tex}",
        "address": f"\\pdfcatalog{{{OPEN_ACTION}}}",
    }
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    bib = f"@book{{ctl,\n  author = {{Doe, J.}},\n  title = {{Control}},\n  year = 2020,\n{body}\n}}\n"
    folder = tmp_path / "control"
    assert compile_bibtex(folder, bib, "plain") == 1
    assert effects(folder) == {"markers": ["pwnctl0"], "read": [CANARY], "open_action": True}


def _bibtex_source(marks: list[str]) -> str:
    """The BibTeX file of the library: hostile entries (one payload each, in several
    fields), entries joined from pieces that are inert alone (``"\\i" # "nput"`` and a
    ``@string`` macro), hostile preambles, and the targets the other paths complete."""
    blocks = [
        # An untitled @proceedings heading the file (the layout of PMLR's volume files),
        # a value joined from inert pieces, and a paper after it that names no parent.
        "@proceedings{vol0,\n  booktitle = {Proceedings P},\n  year = 2024,\n"
        '  note = "\\i" # {nput|"touch pwnvol0"}\n}',
        "@inproceedings{afterv0,\n  title = {After the Volume},\n  author = {Kim, Dae}\n}",
        '@preamble{"\\immediate\\write18{touch pwnpre0}"}',
        '@preamble{"\\i" # "nput{canary.tex}"}',
        '@string{hi = "\\i"}',
    ]
    for n, payload in enumerate(marks):
        blocks.append(
            f"@book{{bib{n},\n  author = {{Doe, Jane and {{{payload}}}}},\n"
            f"  title = {{Title {n} {payload}}},\n  publisher = {{{payload}}},\n"
            f"  address = {{{payload}}},\n  note = {{{payload}}},\n  year = 2020,\n"
            f"  abstract = {{An abstract {payload}}},\n  series = {{{payload}}}\n}}"
        )
    blocks.append(
        '@misc{joined1,\n  author = {Roe, R.},\n  title = "Joined" # " \\i" # "nput{canary.tex}",\n'
        '  howpublished = hi # "nput{canary.tex}",\n  year = 2021\n}'
    )
    for key, doi, title in TARGETS:
        author = "" if key in ("tfrom", "tonline") else "  author = {Smith, Ann},\n"
        blocks.append(
            f"@book{{{key},\n{author}  title = {{{title}}},\n  doi = {{{doi}}},\n  year = 2015\n}}"
        )
    return "\n\n".join(blocks) + "\n"


#: BibTeX papers that the other paths complete: key, DOI, title.
TARGETS = [
    ("tris", "10.1000/ris.1", "Target Completed From a RIS Duplicate"),
    ("tcsl", "10.1000/csl.1", "Target Completed From a CSL-JSON Duplicate"),
    ("tfrom", "10.1000/from.1", "Target Completed By Resolve From a File"),
    ("tonline", "10.1038/nature14539", "Deep learning"),
    ("tmerge", "10.1000/merge.1", "Target Completed By the Merge Command"),
    ("tpaste", "10.1000/paste.1", "Target Completed From a Pasted Abstract"),
]


def _ris(doi: str, title: str, marks: list[str], author: str = "Smith, Ann") -> str:
    tags = ["PB", "CY", "N1", "AB", "VL", "IS", "SN", "T3", "ET", "KW"]
    lines = ["TY  - BOOK", f"TI  - {title}", f"AU  - {author}", "PY  - 2015", f"DO  - {doi}"]
    lines += [f"{tag}  - {marks[i % len(marks)]}" for i, tag in enumerate(tags)]
    lines += [f"UR  - http://a/{marks[0]}", "ER  - "]
    return "\n".join(lines) + "\n"


def _crossref_answer(marks: list[str]) -> str:
    work = {
        "DOI": "10.1038/nature14539",
        "type": "book",
        "title": ["Deep learning"],
        "author": [{"given": "Yann", "family": "LeCun"}],
        "publisher": marks[0],
        "container-title": [marks[1]],
        "page": marks[2],
        "volume": marks[3],
        "issue": marks[4],
        "abstract": f"<jats:p>{marks[5]} and {marks[7]}</jats:p>",
        "ISSN": [marks[12]],
        "URL": f"https://doi.org/10.1038/nature14539{marks[8]}",
        "issued": {"date-parts": [[2015, 5, 28]]},
    }
    return json.dumps({"status": "ok", "message-type": "work", "message": work})


def _key_of(invoke: Invoke, title_word: str) -> str:
    listed = json.loads(invoke("list", "--json").stdout)
    return next(p["key"] for p in listed if title_word in (p.get("title") or ""))


def _fill_library(invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every path at once: import the BibTeX file, then each text source."""
    data = tmp_path / "in"
    data.mkdir()
    marks = payloads("b")
    (data / "lib.bib").write_text(_bibtex_source(marks), encoding="utf-8")
    imported = invoke("import", str(data / "lib.bib"))
    assert imported.exit_code == 0, imported.output
    assert "entry 'bib0': " in imported.stderr
    assert "not inert markup" in imported.stderr
    assert "@preamble: \\immediate is not inert" in imported.stderr
    # A RIS and a CSL-JSON duplicate of BibTeX papers, merged on import.
    (data / "dup.ris").write_text(_ris(TARGETS[0][1], TARGETS[0][2], payloads("r")))
    merged = invoke("import", "--verbose", str(data / "dup.ris"))
    assert merged.exit_code == 0, merged.output
    assert "tris" in merged.output
    csl_marks = payloads("c")
    csl = [
        {
            "id": "dupcsl",
            "type": "book",
            "title": TARGETS[1][2],
            "DOI": TARGETS[1][1],
            "author": [{"family": "Smith", "given": "Ann"}],
            "issued": {"date-parts": [[2015]]},
            "publisher": csl_marks[0],
            "publisher-place": csl_marks[7],
            "note": csl_marks[12],
            "abstract": csl_marks[1],
            "volume": csl_marks[11],
            "collection-title": csl_marks[2],
            "URL": f"http://a/{csl_marks[3]}",
        }
    ]
    (data / "dup.json").write_text(json.dumps(csl))
    merged = invoke("import", "--verbose", str(data / "dup.json"))
    assert merged.exit_code == 0, merged.output
    assert "tcsl" in merged.output
    # resolve --from a RIS file.
    (data / "from.ris").write_text(_ris(TARGETS[2][1], TARGETS[2][2], payloads("f")))
    resolved = invoke("resolve", "key:tfrom", "--from", str(data / "from.ris"))
    assert resolved.exit_code == 0, resolved.output
    assert "filled" in resolved.output
    # resolve --online: Crossref's answer replayed in-process.
    monkeypatch.setenv("READINGLIST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("READINGLIST_CONTACT", "tester@example.org")
    with respx.mock(assert_all_called=False) as mock:
        mock.get("https://api.crossref.org/works/10.1038/nature14539").mock(
            return_value=httpx.Response(200, text=_crossref_answer(payloads("o")))
        )
        online = invoke("resolve", "key:tonline", "--online", "--service", "crossref")
    assert online.exit_code == 0, online.output
    assert "filled" in online.output
    # merge BIBKEY RISKEY: a RIS paper of its own, merged by the user.
    (data / "other.ris").write_text(
        _ris("10.1000/other.1", "A Different Paper Entirely", payloads("m"), "Other, Olga")
    )
    assert invoke("import", str(data / "other.ris")).exit_code == 0
    done = invoke("merge", "tmerge", _key_of(invoke, "Different Paper"))
    assert done.exit_code == 0, done.output
    # A pasted abstract (a list of abstracts), merged into a BibTeX paper.
    intro = (
        "We study hostile abstracts that carry commands. Our method learns robust "
        "representations of documents under adversarial perturbations, and we show that "
        "the approach improves accuracy on three benchmarks while remaining efficient."
    )
    pasted = "Workshop Papers\n\n" + " ".join([intro, *payloads("p")])
    (data / "pasted.txt").write_text(pasted + "\n")
    assert invoke("import", "-f", "abstracts", str(data / "pasted.txt")).exit_code == 0
    done = invoke("merge", "tpaste", _key_of(invoke, "Workshop Papers"))
    assert done.exit_code == 0, done.output
    # A pasted Markdown list whose titles and abstracts carry math: the math is kept only
    # when inert (the allow-list), so each payload as a formula is text; $\ell_1$ stays math.
    by = "\n\n**Authors:** Ann Smith\n\n"
    blocks = [f"### Sparse $\\ell_1$-based Coding of Hostile Math{by}We study $\\ell_1$ norms.\n"]
    for n, payload in enumerate(payloads("t")):
        blocks.append(
            f"### Hostile Formula Number {n} ${payload}$ in a Title{by}"
            f"An abstract with the formula ${payload}$ and $x_{n}$ in it.\n"
        )
    (data / "math.md").write_text("\n".join(blocks))
    assert invoke("import", "-f", "abstracts", str(data / "math.md")).exit_code == 0


def test_hostile_values_by_every_path_are_inert_under_shell_escape(
    invoke: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill_library(invoke, tmp_path, monkeypatch)
    # A RIS value merged into a BibTeX paper is kept as LaTeX that reads back to the text.
    shown = json.loads(invoke("show", "tris", "--json").stdout)
    assert decode_text(shown["fields"]["publisher"]) == payloads("r")[0]
    assert shown["fields"]["publisher"].startswith("\\textbackslash{}immediate")
    exports: dict[str, str] = {}
    for dialect in ("bibtex", "biblatex"):
        out = tmp_path / f"{dialect}.bib"
        result = invoke("export", dialect, "-o", str(out))
        assert result.exit_code == 0, result.output
        assert "@preamble left out" in result.stderr
        exports[dialect] = out.read_text(encoding="utf-8")
        # Read back, every value of the export is inert markup.
        for record in bibtex.read(exports[dialect]).records:
            values = {**record.fields, "abstract": record.abstract or ""}
            assert {k: offending(v) for k, v in values.items() if offending(v)} == {}
    for text in exports.values():  # the pasted list's harmless math kept as math
        assert "Sparse $\\ell_1$-based {Coding}" in text
        assert "We study $\\ell_1$ norms." in text
    entries = exports["bibtex"].count("\n@")
    for style in ("plain", "plainnat", "allfields"):
        folder = tmp_path / style
        assert compile_bibtex(folder, exports["bibtex"], style) >= entries
        assert effects(folder) == INERT, style
    folder = tmp_path / "biber"
    assert compile_biber(folder, exports["biblatex"]) >= entries
    assert effects(folder) == INERT


# --- the payloads extended by a strategy over TeX control sequences ----------------------

#: Names that read, write, run or redefine: what the strategy mixes with any other word.
PRIMITIVES = [
    *("write", "immediate", "input", "include", "openin", "openout", "read", "catcode"),
    *("csname", "endcsname", "UseName", "directlua", "special", "pdfcatalog", "pdfobj"),
    *("pdfmdfivesum", "def", "let", "expandafter", "scantokens", "everyeof", "ShellEscape"),
    *("InputIfFileExists", "lstinputlisting", "verbatiminput", "includegraphics", "pdfximage"),
    *("newwrite", "jobname", "uppercase", "lowercase", "string", "meaning", "@@input"),
    *("setbox", "shipout", "afterassignment", "aftergroup", "errmessage", "closeout"),
    *("font", "outer", "global", "long", "batchmode", "dump", "mark", "closein", "readline"),
    *("pdfliteral", "pdfannot", "pdfstartlink", "pdfinfo", "pdfnames", "pdftrailer"),
]


def test_no_allowed_name_is_a_primitive_whatever_its_case() -> None:
    """BibTeX's ``change.case$`` changes the case of command names outside braces
    (``\\Box`` in a title becomes ``\\box``): no allowed name, in any case, is a
    primitive that reads, writes, runs or defines."""
    from readinglist.formats.bibtex.inert import encoder_commands

    allowed = INERT_COMMANDS | encoder_commands()
    variants = {form for name in allowed for form in (name, name.lower(), name.upper())}
    assert variants & set(PRIMITIVES) == set()


_NAMES = st.one_of(
    st.sampled_from(PRIMITIVES),
    st.sampled_from(sorted(INERT_COMMANDS)),
    st.from_regex(r"[A-Za-z@]{1,12}", fullmatch=True),
)
_CONTROL = st.one_of(
    _NAMES.map(lambda n: "\\" + n),
    _NAMES.map(lambda n: "\\begin{" + n + "}"),
    _NAMES.map(lambda n: "\\csname " + n + "\\endcsname"),
    _NAMES.map(lambda n: "\\UseName{" + n + "}"),
    st.sampled_from(["^^5c", "^^5C", "^^\\", "\\^^5c", "^^M", "~", "\\\\", "\\ "]),
    st.sampled_from(["\\'", '\\"', "\\`", "\\^", "\\~", "\\=", "\\.", "\\&", "\\%"]),
)
_TEXT = st.sampled_from(
    ["18{touch pwnh}", "{canary.tex}", " ", "x", "{", "}", "$", "#", "nput", "rite18"]
)
TEX = st.lists(st.one_of(_CONTROL, _TEXT), min_size=1, max_size=8).map("".join)


def _control_words(value: str) -> set[str]:
    return set(re.findall(r"\\([^\W\d_]+)", value))


@settings(max_examples=400, deadline=None)
@given(TEX)
def test_the_allow_list_admits_only_inert_markup(value: str) -> None:
    """Static check of the predicate: an inert value holds no ``^^``, only control words
    of the allow-list (or pylatexenc's character table), ``\\begin`` only of an allowed
    environment; a value naming a primitive is never inert; and whatever the writer
    makes of any value, as LaTeX or as text, is inert."""
    from readinglist.formats.bibtex.inert import INERT_ENVIRONMENTS, encoder_commands

    allowed = INERT_COMMANDS | encoder_commands() | {"begin", "end"}
    if is_inert(value):
        assert "^^" not in value
        words = _control_words(value.replace("\\\\", ""))
        assert words <= allowed, words - allowed
        for env in re.findall(r"\\(?:begin|end)\s*\{([^}]*)\}", value):
            assert env in INERT_ENVIRONMENTS
    names = _control_words(value.replace("\\\\", ""))
    if names & set(PRIMITIVES) - allowed:
        assert not is_inert(value)
    for latex in (True, False):
        record = PaperRecord(
            citekey="h",
            entry_type="misc",
            title="T",
            authors=(Person(family="Doe"),),
            year=2020,
            abstract=value,
            fields={"note": value, "howpublished": value, "doi": value},
            latex_fields=latex,
        )
        for dialect in ("bibtex", "biblatex"):
            out = bibtex.write([record], dialect=dialect)
            for back in bibtex.read(out).records:
                for name, written in [*back.fields.items(), ("abstract", back.abstract or "")]:
                    assert is_inert(written), (name, written)


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(TEX, min_size=8, max_size=8))
def test_generated_payloads_compile_inert(values: list[str], tmp_path: Path) -> None:
    """A few drawn payloads, in a LaTeX record and a text record, compiled with the
    style printing every field: nothing runs, nothing is read."""
    records = [
        PaperRecord(
            citekey=f"g{n}",
            entry_type="misc",
            title=f"G {n}",
            authors=(Person(family="Doe"),),
            year=2020,
            abstract=value,
            fields={"note": value, "howpublished": value + " \\input{canary.tex}"},
            latex_fields=n % 2 == 0,
        )
        for n, value in enumerate(values)
    ]
    folder = tmp_path / f"gen{abs(hash(tuple(values)))}"
    assert compile_bibtex(folder, bibtex.write(records), "allfields") == len(records)
    assert effects(folder) == INERT


def test_a_compile_of_the_same_files_is_replayed_with_what_it_made(tmp_path: Path) -> None:
    """The harness (helpers.compile_once): a folder holding the same bytes as one compiled
    before gets the files that compile made or changed, markers included, and its result;
    one byte different, or another recipe, compiles again."""
    calls: list[Path] = []

    def fake_compile(folder: Path) -> str:
        calls.append(folder)
        (folder / "pwnmark").write_text("ran")
        (folder / "doc.tex").write_text("changed by the run")
        return f"result {len(calls)}"

    def folder_with(name: str, text: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "doc.tex").write_text(text)
        return folder

    first, again, other = folder_with("a", "x"), folder_with("b", "x"), folder_with("c", "y")
    assert compile_once(first, "recipe", lambda: fake_compile(first)) == "result 1"
    assert compile_once(again, "recipe", lambda: fake_compile(again)) == "result 1"
    assert calls == [first]
    assert sorted(p.name for p in again.iterdir()) == ["doc.tex", "pwnmark"]
    assert (again / "doc.tex").read_text() == "changed by the run"
    assert compile_once(other, "recipe", lambda: fake_compile(other)) == "result 2"
    assert compile_once(folder_with("d", "x"), "other", lambda: "result 3") == "result 3"
    assert calls == [first, other]
