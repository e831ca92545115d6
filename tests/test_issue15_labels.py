"""Issue 15, "Display and exchange": what a pasted list's reader makes up or cannot place.

* Contribution names the reader mines from an abstract ("we introduce IFPO") are its
  guesses, not the authors' keywords: they never become ``keywords`` (so no export
  presents them as the authors'); only a list's own ``Keywords:`` label does.
* A list's labels that no BibTeX field holds (``**Oral Presentation:**``, a
  "[Spotlight]" tag, an arXiv mail's ``Date:``/``Categories:``/``Comments:``) are kept
  as ``list_`` fields: ``show`` prints them; BibTeX and biblatex exports leave them out,
  so ``biber --validate-datamodel`` has nothing to warn about (before, ``presentation``
  and ``date = {Mon, 1 Jan 2024 ...}`` were written as fields).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import require_tools, run_biber

HERE = Path(__file__).parent

LABELLED = """\
## [12] Adaptive Safe Context Learning [Spotlight]

**Authors:** *Ana Lima, Bo Chen*

**Conference:** *aaai 2023*

**Keywords:** safety; alignment

**Oral Presentation:** Tu, Dec 12, 08:30 -- Oral 1D

**Abstract:** We propose the Adaptive Safe Context Learning (ASCL) framework. Furthermore,
we introduce Inverse Frequency Policy Optimization (IFPO) to rebalance advantage estimates.
"""


def _import(invoke: Any, tmp_path: Path) -> None:
    listed = tmp_path / "labelled.md"
    listed.write_text(LABELLED, encoding="utf-8")
    mail = HERE / "data" / "abstracts" / "arxiv-digest.txt"
    for source in (listed, mail):
        result = invoke("import", str(source), "--format", "abstracts")
        assert result.exit_code == 0, result.output


def test_mined_names_are_not_keywords_and_labels_stay_in_the_library(
    invoke: Any, tmp_path: Path
) -> None:
    _import(invoke, tmp_path)
    shown = invoke("show", "--json", "lima2023adaptive")
    assert shown.exit_code == 0, shown.output
    import json

    paper = json.loads(shown.output)
    assert paper["keywords"] == ["safety", "alignment"]  # not "IFPO"
    assert paper["short_name"] == "ASCL"
    assert (paper["venue"], paper["year"]) == ("AAAI", 2023)
    assert paper["fields"] == {
        "list_oral_presentation": "Tu, Dec 12, 08:30 -- Oral 1D",
        "list_presentation": "Spotlight",
    }
    text = invoke("show", "lima2023adaptive").output
    # The list's labels as it wrote them, each with a space before its value (a long
    # label was glued to the value: "oral_presentation:Tu, ...").
    assert "\noral presentation: Tu, Dec 12, 08:30 -- Oral 1D\n" in text
    assert "\npresentation: Spotlight\n" in text


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_bibtex_exports_leave_labels_and_mined_names_out(
    invoke: Any, tmp_path: Path, dialect: str
) -> None:
    _import(invoke, tmp_path)
    out = tmp_path / f"out-{dialect}.bib"
    result = invoke("export", dialect, "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    names = set(re.findall(r"^  ([a-z_-]+) = ", text, re.MULTILINE))
    assert not {n for n in names if n.startswith("list_")}
    assert not names & {"presentation", "oral_presentation", "categories", "comments", "tldr"}
    assert "Mon, 1 Jan" not in text  # an arXiv mail's Date: is no biblatex date
    assert "IFPO" not in re.findall(r"keywords = \{([^}]*)\}", text)[0]
    assert re.findall(r"keywords = \{([^}]*)\}", text) == ["safety, alignment"]
    require_tools("biber")
    run = run_biber(
        ["--tool", "--validate-datamodel", f"--output-file={out}.out", str(out)], tmp_path
    )
    invalid = [line for line in run.stdout.splitlines() if "invalid" in line.lower()]
    assert invalid == []
    assert "ERROR" not in run.stdout


def test_ris_and_csl_exports_do_not_present_mined_names_as_keywords(
    invoke: Any, tmp_path: Path
) -> None:
    _import(invoke, tmp_path)
    ris = tmp_path / "out.ris"
    assert invoke("export", "ris", "-o", str(ris)).exit_code == 0
    keywords = re.findall(r"^KW  - (.*)$", ris.read_text(encoding="utf-8"), re.MULTILINE)
    assert keywords == ["safety", "alignment"]
    csl = tmp_path / "out.json"
    assert invoke("export", "csl-json", "-o", str(csl)).exit_code == 0
    import json

    items = json.loads(csl.read_text(encoding="utf-8"))
    assert [item.get("keyword") for item in items] == ["safety, alignment", None, None]
