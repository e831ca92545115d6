"""Faults a fresh user found in session 6, each with the value it must have.

* ``$\\texttt{Spotter}$`` in a pasted abstract was shown and exported as "we introduce ,
  a ..." (pylatexenc drops the argument of ``\\texttt``, ``\\textsf``, ``\\mbox`` ...).
* ``import --keywords-as-tags`` of a RIS file whose keywords differ only in case ("Mast
  cell", "mast cell": one tag) wrote search text with the words twice, so the next
  ``db check`` reported a fault (exit 6) right after a documented import.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

ABSTRACT = (
    "1. Spotter: Forget Without Relearning\n"
    "To counter both blind spots, we introduce $\\texttt{Spotter}$, a plug-and-play "
    "objective, and \\textsf{Relearn}, an \\mbox{attack}.\n"
)


def test_font_commands_keep_their_text_in_show_and_exports(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "list.txt").write_text(ABSTRACT, encoding="utf-8")
    assert invoke("import", str(tmp_path / "list.txt")).exit_code == 0
    (key,) = invoke("list", "-k").stdout.split()
    wanted = "we introduce Spotter, a plug-and-play objective, and Relearn, an attack."
    assert wanted in " ".join(invoke("show", key).stdout.split())
    csl = json.loads(invoke("export", "csl-json").stdout)
    assert wanted in csl[0]["abstract"]
    # Markdown keeps a formula as written, for renderers with math (KaTeX, pandoc)
    in_markdown = wanted.replace("Spotter", "$\\texttt{Spotter}$")
    assert in_markdown in " ".join(invoke("export", "markdown", "--abstracts").stdout.split())
    assert invoke("list", "-k", "relearn").stdout.split() == [key]


def test_keywords_that_are_one_tag_give_search_text_db_check_accepts(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "m.ris").write_text(
        "TY  - JOUR\nAU  - Uno, Yoshiro\nTI  - Hypothesis of a mechanism\nT2  - J\n"
        "PY  - 2019\nKW  - Mast cell\nKW  - mast cell\nKW  - FODMAP\nKW  - Mast cell \n"
        "ER  - \n",
        encoding="utf-8",
    )
    result = invoke("import", "--keywords-as-tags", str(tmp_path / "m.ris"))
    assert result.exit_code == 0, result.output
    check = invoke("db", "check")
    assert check.exit_code == 0, check.output
    (key,) = invoke("list", "-k").stdout.split()
    shown = json.loads(invoke("show", "--json", key).stdout)
    assert sorted(shown["tags"]) == ["FODMAP", "Mast cell"]


def test_an_import_names_the_papers_it_added_without_a_year(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """Fresh user: the NeurIPS poster list (no year anywhere) gave 602 undated papers and
    citations printing "Even et al. ()" without a word at import."""
    (tmp_path / "list.md").write_text(
        "## Deep Nets Learn\n\n**Authors:** *Ana Lima*\n\n**Abstract:** We study nets.\n\n"
        "## Shallow Nets Forget\n\n**Authors:** *Bo Chen*\n\n**Abstract:** We study them.\n",
        encoding="utf-8",
    )
    first = invoke("import", "-f", "abstracts", str(tmp_path / "list.md"))
    assert first.exit_code == 0, first.output
    assert "2 added papers without a year (e.g. " in first.stderr
    assert "import the file again with --year" in first.stderr
    again = invoke("import", "-f", "abstracts", "--year", "2023", str(tmp_path / "list.md"))
    assert again.exit_code == 0, again.output
    assert "without a year" not in again.stderr
    assert "0 added, 2 merged" in again.stderr


def test_messages_point_to_the_right_reader_and_to_key_terms(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """Fresh user: `-f markdown` on a Markdown list of abstracts said only "no papers
    found"; `resolve KEY` said "0 of 0 incomplete papers" (a bare key is free text)."""
    (tmp_path / "list.md").write_text(
        "## Deep Nets Learn\n\n**Authors:** *Ana Lima*\n\n**Abstract:** We study nets.\n",
        encoding="utf-8",
    )
    wrong = invoke("import", "-f", "markdown", str(tmp_path / "list.md"))
    assert wrong.exit_code != 0
    assert "a list of titles and abstracts is read with -f abstracts" in wrong.stderr
    assert invoke("import", "-f", "abstracts", str(tmp_path / "list.md")).exit_code == 0
    (key,) = invoke("list", "-k").stdout.split()
    (tmp_path / "p.bib").write_text("@misc{other, title = {Other}}\n", encoding="utf-8")
    result = invoke("resolve", key, "--from", str(tmp_path / "p.bib"))
    assert result.exit_code == 0, result.output
    assert f"free text does not search citation keys: write key:{key}" in result.stderr


def test_ris_and_csl_decode_only_the_fields_they_write(monkeypatch: Any) -> None:
    """Merging: decoding every field of a BibTeX paper for RIS/CSL-JSON (twenty a Beebe
    paper, most never written) made the RIS export of 100,000 papers take 285 s."""
    from readinglist.formats import rules
    from readinglist.records import PaperRecord

    decoded: list[str] = []
    real = rules.readable

    def counting(value: str | None) -> str:
        decoded.append(value or "")
        return real(value)

    monkeypatch.setattr(rules, "readable", counting)
    record = PaperRecord(
        citekey="k",
        title="T",
        fields={"publisher": "Barnes {\\&} Noble", "bibsource": "{\\em x}", "ris_m3": "a{b}"},
        latex_fields=True,
    )
    fields = rules.plain_fields(record)
    assert fields["publisher"] == "Barnes & Noble"
    assert fields["publisher"] == "Barnes & Noble"
    assert fields["ris_m3"] == "a{b}"
    assert decoded == ["Barnes {\\&} Noble"]
    assert sorted(fields) == ["bibsource", "publisher", "ris_m3"]
