"""Math in a pasted list survives to the bibliography.

A conference list's titles and abstracts carry TeX math (``$\\ell_1$-based``,
``$q^\\pi$-Realizable``, ``$(\\varepsilon,\\delta)$-DP``). The reader keeps a title's
math as the title's raw LaTeX (``fields["title"]``, as the BibTeX reader keeps a raw
title) while the title column stays the Unicode people read (``ℓ_1``); the BibTeX and
biblatex exports write the math as written, a formula with a capital in braces (BibTeX's
``change.case$``), and keep an abstract's inert formulas too. Checked by value, by a
real pdflatex+bibtex and pdflatex+biber compile of the NeurIPS list's math titles, by
re-importing the list (nothing changes) and against a BibTeX library imported as before.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from click.testing import Result
from helpers import compile_once, require_tools, run_steps, shared_data

from readinglist.formats import abstracts, bibtex
from readinglist.formats.bibtex.encode import math_title

Invoke = Callable[..., Result]

#: A pasted Markdown list as the NeurIPS one is laid out, titles with math.
LIST = """\
### Global Identifiability of  $\\ell_1$-based Dictionary Learning via Matrix Volume Optimization

**Authors:** Jingzhou Hu, Kejun Huang

We propose a formulation whose rows have unit $\\ell_1$ norm.

### On the Convergence of Deep Q-Networks with $\\epsilon$-Greedy Exploration

**Authors:** Shuai Zhang, Hongkang Li

We study $\\epsilon$-greedy exploration.

### [Oral] Online RL in Linearly $q^\\pi$-Realizable MDPs Is as Easy as in Linear MDPs

**Authors:** Gellert Weisz, Andras Gyorgy

We consider $q^\\pi$-realizable MDPs.

### Path following algorithms for $\\ell_2$-regularized $M$-estimation

**Authors:** Yunzhang Zhu, Renxiong Liu

A path for $M$-estimation.

### Streaming $(\\varepsilon,\\delta)$-DP with Bins of Size $[U,2U]$

**Authors:** Ann Smith

Bins of size $[U,2U]$, where $U$ is calibrated by $(\\varepsilon,\\delta)$.
"""

#: The title each paper of :data:`LIST` shows (column) and writes (BibTeX/biblatex).
TITLES = [
    (
        "Global Identifiability of ℓ_1-based Dictionary Learning via Matrix Volume Optimization",
        "Global {Identifiability} of $\\ell_1$-based {Dictionary} {Learning} via {Matrix} "
        "{Volume} {Optimization}",
    ),
    (
        "On the Convergence of Deep Q-Networks with ϵ-Greedy Exploration",
        "On the {Convergence} of {Deep} {Q}-{Networks} with $\\epsilon$-{Greedy} {Exploration}",
    ),
    (
        "Online RL in Linearly q^π-Realizable MDPs Is as Easy as in Linear MDPs",
        "Online {RL} in {Linearly} $q^\\pi$-{Realizable} {MDPs} {Is} as {Easy} as in "
        "{Linear} {MDPs}",
    ),
    (
        "Path following algorithms for ℓ_2-regularized M-estimation",
        "Path following algorithms for $\\ell_2$-regularized {$M$}-estimation",
    ),
    (
        "Streaming (ε,δ)-DP with Bins of Size [U,2U]",
        "Streaming $(\\varepsilon,\\delta)$-{DP} with {Bins} of {Size} {$[U,2U]$}",
    ),
]


@pytest.mark.parametrize(
    ("source", "latex"),
    [
        ("Sparse $\\ell_1$ Coding", "Sparse $\\ell_1$ {Coding}"),
        ("$M$-estimation: a $\\Sigma$ Review", "{$M$}-estimation: a {$\\Sigma$} {Review}"),
        # No formula: an odd $ is a price, none is plain text; hostile math is not kept.
        ("Costs $5 and More", None),
        ("Costs $5 and $10 per Hour", None),  # pandoc's rule: prices, no formula
        ("No Math Here", None),
        ("Evil $\\input{/etc/passwd}$ Title", None),
        ("Evil $\\immediate\\write18{touch x}$ Title", None),
        ("Evil $\\catcode`\\Q=0 Qinput{x}$ Title", None),
        ("Evil $^^5cinput{x}$ Title", None),
        ("Broken $50% of x$ Title", None),
        # Not kernel math, or not whole: LaTeX would stop, or the formula would cite.
        ("Lonely $\\item$ Learning", None),
        ("Evil $\\cite{*}$ Citations", None),
        ("Bare $\\frac$ Fractions", None),
        ("Half $\\frac{a}$ Fractions", None),
        ("Open $\\left(x$ Brackets", None),
        ("Unknown $\\argmax$ Operators", None),
        ("Private $x\\@input{a}$ Names", None),
        ("Empty $x^$ Scripts", None),
        ("Kept $\\frac{a}{b}$ and $\\mathbb{R}^d$", "Kept $\\frac{a}{b}$ and {$\\mathbb{R}^d$}"),
    ],
)
def test_math_title_keeps_inert_math_and_protects_capitals(source: str, latex: str | None) -> None:
    assert math_title(source) == latex


def test_reader_keeps_the_title_math_as_its_raw_latex() -> None:
    records = abstracts.read(LIST, "list.md").records
    assert [(r.title, r.fields.get("title")) for r in records] == TITLES
    assert records[2].fields["list_presentation"] == "Oral"


def test_hostile_math_in_a_title_is_not_kept() -> None:
    text = "### Evil $\\input{secret}$ Title\n\n**Authors:** Ann Smith\n\nAn abstract.\n"
    (record,) = abstracts.read(text, "evil.md").records
    assert "title" not in record.fields


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_exports_write_the_math_as_written(invoke: Invoke, tmp_path: Path, dialect: str) -> None:
    source = tmp_path / "list.md"
    source.write_text(LIST, encoding="utf-8")
    assert invoke("import", "-f", "abstracts", str(source)).exit_code == 0
    result = invoke("export", dialect)
    assert result.exit_code == 0, result.stderr
    titles = re.findall(r"^  title = \{(.*)\},$", result.stdout, re.M)
    assert sorted(titles) == sorted(latex for _, latex in TITLES)
    assert "ensuremath" not in result.stdout
    assert "textasciicircum" not in result.stdout
    assert "Bins of size $[U,2U]$, where $U$ is calibrated by $(\\varepsilon,\\delta)$." in (
        result.stdout
    )
    # What people read stays Unicode: the terminal and the Markdown list.
    listed = json.loads(invoke("list", "--json").stdout)
    assert sorted(p["title"] for p in listed) == sorted(title for title, _ in TITLES)
    # The BibTeX export read back shows the same titles.
    assert sorted(r.title or "" for r in bibtex.read(result.stdout).records) == sorted(
        title for title, _ in TITLES
    )


#: A pasted list whose title and abstract have prices (pandoc's rule: ``$5 and $`` is no
#: formula, a space before its closing ``$``) beside a formula.
PRICES = """\
### Why Training costs $5 and $10 per Hour

**Authors:** Ann Smith

Training costs $5 and $10 per hour, and $x$ is the size.
"""


def test_prices_in_a_pasted_title_stay_prices_in_every_output(
    invoke: Invoke, tmp_path: Path
) -> None:
    """``costs $5 and $10`` is text in the title column (``list``, ``show``, JSON, RIS,
    CSL-JSON), escaped in BibTeX and Markdown (``\\$5``: a dollar sign there), and the
    abstract keeps its formula ``$x$`` beside the prices. It read ``costs 5 and10``:
    ``$5 and $`` was decoded as math."""
    source = tmp_path / "prices.md"
    source.write_text(PRICES, encoding="utf-8")
    assert invoke("import", "-f", "abstracts", str(source)).exit_code == 0
    title = "Why Training costs $5 and $10 per Hour"
    listed = invoke("list")
    assert listed.stdout.splitlines()[1].endswith(f"Smith    {title}")
    (paper,) = json.loads(invoke("list", "--json").stdout)
    assert paper["title"] == title
    assert paper["abstract"] == "Training costs $5 and $10 per hour, and $x$ is the size."
    shown = invoke("show", paper["key"]).stdout.splitlines()
    assert shown[0] == title
    assert "  Training costs $5 and $10 per hour, and x is the size." in shown
    markdown = invoke("export", "markdown", "--abstracts").stdout
    assert "- [ ] **Why Training costs \\$5 and \\$10 per Hour**  \n" in markdown
    assert "  > Training costs \\$5 and \\$10 per hour, and $x$ is the size.\n" in markdown
    for dialect in ("bibtex", "biblatex"):
        written = invoke("export", dialect).stdout
        assert "  title = {Why {Training} costs \\$5 and \\$10 per {Hour}},\n" in written
        assert "  abstract = {Training costs \\$5 and \\$10 per hour, and $x$ is the size.}" in (
            written
        )
    ris = invoke("export", "ris").stdout
    assert f"TI  - {title}\n" in ris
    (item,) = json.loads(invoke("export", "csl-json").stdout)
    assert item["title"] == title


def test_inline_formulas_are_where_pandoc_puts_them() -> None:
    """:func:`readinglist.text.inline_formulas` against pandoc's own Markdown reader
    (``tex_math_dollars``) on 1,500 paragraphs drawn from ``a b 5 space $ \\``: the same
    formulas, in the same places (pandoc's JSON collapses spaces inside math, so they are
    compared with runs of spaces as one)."""
    import random

    from readinglist.text import inline_formulas

    require_tools("pandoc")
    draw = random.Random(15)
    paragraphs = []
    while len(paragraphs) < 1500:
        body = "".join(draw.choice("ab5 $$\\") for _ in range(draw.randint(1, 14))).strip()
        if body and "$$" not in body and not body.endswith("\\"):
            paragraphs.append(f"x {body} y")  # no paragraph starts or ends with markup
    document = subprocess.run(
        ["pandoc", "-f", "markdown", "-t", "json"],
        input="\n\n".join(paragraphs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    blocks = json.loads(document)["blocks"]
    assert len(blocks) == len(paragraphs)

    def formulas(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [f"${node['c'][1]}$"] if node.get("t") == "Math" else []
            return found + [f for value in node.values() for f in formulas(value)]
        if isinstance(node, list):
            return [f for value in node for f in formulas(value)]
        return []

    spaces = re.compile(r"\s+")
    for paragraph, block in zip(paragraphs, blocks, strict=True):
        ours = [spaces.sub(" ", paragraph[a:b]) for a, b in inline_formulas(paragraph)]
        assert ours == [spaces.sub(" ", f) for f in formulas(block)], paragraph


def test_reimporting_the_list_changes_nothing(invoke: Invoke, tmp_path: Path) -> None:
    source = tmp_path / "list.md"
    source.write_text(LIST, encoding="utf-8")
    assert invoke("import", "-f", "abstracts", str(source)).exit_code == 0
    before = {d: invoke("export", d).stdout for d in ("bibtex", "biblatex", "csl-json")}
    again = invoke("import", "-f", "abstracts", str(source))
    assert again.exit_code == 0, again.stderr
    assert "0 added, 0 merged, 5 already present, 0 rejected" in again.stderr
    assert {d: invoke("export", d).stdout for d in before} == before


def test_a_bibtex_library_with_math_titles_exports_as_before(
    invoke: Invoke, tmp_path: Path
) -> None:
    """A .bib file's own math titles are copied byte for byte (its entries unchanged), and
    generated as their raw value when its text is regenerated (a tag added)."""
    source = tmp_path / "lib.bib"
    text = (
        "@inproceedings{hu2023,\n"
        "  author = {Hu, Jingzhou},\n"
        "  title = {Global Identifiability of $\\ell_1$-based {Dictionary} Learning},\n"
        "  booktitle = {NeurIPS},\n"
        "  year = 2023\n"
        "}\n"
    )
    source.write_text(text, encoding="utf-8")
    assert invoke("import", str(source)).exit_code == 0
    assert invoke("export", "bibtex").stdout == text


def _math_papers(invoke: Invoke) -> list[str]:
    """Import the NeurIPS list; the keys of its papers whose title has math."""
    path = shared_data("neurips2023-poster-session1-abstracts.md")
    imported = invoke("import", str(path))
    assert imported.exit_code == 0, imported.stderr
    text = path.read_text(encoding="utf-8")
    assert sum("$" in line for line in text.splitlines() if line.startswith("### ")) == 4
    records = abstracts.read(text, str(path)).records
    titles = {r.title for r in records if "$" in r.fields.get("title", "")}
    listed = json.loads(invoke("list", "--json").stdout)
    return sorted(p["key"] for p in listed if p["title"] in titles)


LATEX = ("pdflatex", "-interaction=nonstopmode", "doc.tex")


@pytest.mark.slow
def test_the_neurips_math_titles_compile_with_bibtex_and_biber(
    invoke: Invoke, tmp_path: Path
) -> None:
    """The NeurIPS list's four math titles, exported and typeset by pdflatex with bibtex
    (``plain``, which lowers title case: the protected formulas keep theirs) and with
    biber (biblatex): no error, and the bibliography holds the math as written."""
    require_tools("pdflatex", "bibtex", "biber")
    keys = _math_papers(invoke)
    assert len(keys) == 4
    query = " OR ".join(f"key:{key}" for key in keys).split(" ")
    for dialect, tool in (("bibtex", "bibtex"), ("biblatex", "biber")):
        folder = tmp_path / dialect
        folder.mkdir()
        assert invoke("export", dialect, *query, "-o", str(folder / "refs.bib")).exit_code == 0
        head = (
            "\\usepackage[backend=biber]{biblatex}\\addbibresource{refs.bib}"
            if tool == "biber"
            else ""
        )
        tail = (
            "\\printbibliography"
            if tool == "biber"
            else "\\bibliographystyle{plain}\\bibliography{refs}"
        )
        (folder / "doc.tex").write_text(
            f"\\documentclass{{article}}\\usepackage[T1]{{fontenc}}{head}"
            f"\\begin{{document}}\\nocite{{*}}{tail}\\end{{document}}\n"
        )
        steps = (LATEX, (tool, "doc"), LATEX, LATEX)
        # Identical files on the other database are not compiled again (helpers.compile_once).
        done = compile_once(folder, repr(steps), partial(run_steps, folder, steps))
        assert done[1].returncode == 0, done[1].stdout
        log = (folder / "doc.log").read_text(errors="replace")
        assert done[3].returncode == 0, log[-2000:]
        assert "Undefined control sequence" not in log
        assert "Missing $ inserted" not in log
        bbl = (folder / "doc.bbl").read_text(encoding="utf-8")
        for formula in ("$\\ell_1$-based", "$\\epsilon$-", "$q^\\pi$-", "{$M$}-estimation"):
            assert formula in bbl, (dialect, formula)
        assert "textasciicircum" not in bbl
        assert "ensuremath" not in bbl


def test_a_merge_into_a_bibtex_paper_keeps_the_raw_title_latex() -> None:
    """A pasted record made LaTeX for a merge into a BibTeX paper keeps its raw title
    (LaTeX already), while its other fields are escaped as text."""
    from readinglist.library.merging import as_latex

    (record,) = abstracts.read(LIST.split("\n### ")[0], "list.md").records
    latex = as_latex(record)
    assert latex.fields["title"] == record.fields["title"] == TITLES[0][1]


def test_the_page_shows_the_title_math_for_katex_and_edits_the_plain_title() -> None:
    """The browser page renders a title's formulas with KaTeX as it renders an
    abstract's: it gets them as written; the title key edits the stored title."""
    from readinglist.web.present import paper_view

    records = abstracts.read(LIST, "list.md").records
    views = [paper_view(record, n) for n, record in enumerate(records)]
    assert views[0]["title"] == (
        "Global Identifiability of $\\ell_1$-based Dictionary Learning via Matrix Volume "
        "Optimization"
    )
    assert views[3]["title"] == "Path following algorithms for $\\ell_2$-regularized $M$-estimation"
    assert [view["plain_title"] for view in views] == [column for column, _ in TITLES]
