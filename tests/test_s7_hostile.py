"""Faults found by the session-7 hostile tester (s7-hostile), each with the value it
must have."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from readinglist.cli import cli

CROSSREF_BIB = """\
@proceedings{proc2020,
  title = {Proceedings of Things 2020},
  editor = {Ed, Ward},
  year = 2020,
  publisher = {Pub},
}

@inproceedings{child2020,
  title = {Child Paper},
  author = {Kid, Kim},
  crossref = {proc2020},
  pages = {5--9},
}
"""


def _keys_and_crossrefs(text: str) -> tuple[set[str], set[str]]:
    keys = set(re.findall(r"^@\w+\{([^,]+),", text, flags=re.M))
    crossrefs = set(re.findall(r"crossref\s*=\s*[{\"]([^}\"]+)[}\"]", text))
    return keys, crossrefs


def test_export_keeps_crossref_link_after_parent_rekey(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """README: "The crossref field is kept, so exports keep the link". After
    ``rekey proc2020 things2020`` the export writes the parent as ``things2020`` but
    the child still says ``crossref = {proc2020}``: BibTeX finds no such entry."""
    bib = tmp_path / "xr.bib"
    bib.write_text(CROSSREF_BIB, encoding="utf-8")
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("rekey", "proc2020", "things2020").exit_code == 0
    for fmt in ("bibtex", "biblatex"):
        out = invoke("export", fmt).stdout
        keys, crossrefs = _keys_and_crossrefs(out)
        assert crossrefs <= keys, (fmt, out)


def test_export_keeps_crossref_link_after_parent_merged_away(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """Same as above when the parent is merged into another paper (``merge KEEP OTHER``):
    the child's crossref names the removed key, which the export no longer writes."""
    bib = tmp_path / "xr.bib"
    bib.write_text(CROSSREF_BIB, encoding="utf-8")
    assert invoke("import", str(bib)).exit_code == 0
    added = invoke(
        "add",
        "--title",
        "Proceedings of Things 2020 (volume)",
        "--year",
        "2020",
        "--author",
        "Ed, Ward",
    )
    assert added.exit_code == 0
    keep = added.stdout.strip().splitlines()[-1]
    assert invoke("merge", "--force", keep, "proc2020").exit_code == 0
    out = invoke("export", "bibtex").stdout
    keys, crossrefs = _keys_and_crossrefs(out)
    assert crossrefs <= keys, out


def test_a_db_path_with_a_question_mark_is_refused_not_cut(tmp_path: Path) -> None:
    """``--db 'lib?x=1'`` was put into ``sqlite:///PATH`` unescaped, so SQLAlchemy read
    ``?x=1`` as URL options and silently created and used ``lib`` instead. SQLAlchemy
    does not unquote ``%3F`` in a database path, so such a path is refused, clearly."""
    wanted = tmp_path / "lib?x=1"
    bib = tmp_path / "a.bib"
    bib.write_text("@article{a1, title={One}, author={Doe, Jane}, year=2020}\n", encoding="utf-8")
    done = CliRunner().invoke(cli, ["--db", str(wanted), "import", str(bib)])
    assert done.exit_code == 2, done.output
    assert done.output == (
        f"Error: {wanted}: a library path cannot contain '?' (a database URL reads what "
        "follows it as options); rename the file or its folder\n"
    )
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bib"]


def test_bibtex_export_shows_import_venue_and_year_options(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """``import refs.bib --venue NeurIPS --year 2021`` stores venue NeurIPS and year 2021
    (``show`` says so, RIS exports them) but marks the rows ``source_intact``, so the
    BibTeX and biblatex exports copy the entry's text as read: no venue, no year
    (novenue) or the file's journal and year (kw2020). With ``source_intact`` NULL (the
    digest check, as before migration 0005) the export writes NeurIPS and 2021."""
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@misc{novenue,\n  title = {A Paper Without Venue},\n  author = {Lee, Kim},\n}\n\n"
        "@article{kw2020,\n  title = {Keyworded Paper},\n  author = {Key, Word},\n"
        "  journal = {J},\n  year = 2020,\n}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib), "--venue", "NeurIPS", "--year", "2021").exit_code == 0
    assert "Venue:       NeurIPS" in invoke("show", "novenue").stdout
    for fmt in ("bibtex", "biblatex"):
        out = invoke("export", fmt).stdout
        entries = {m.group(1): m.group(0) for m in re.finditer(r"@\w+\{(\w+),.*?\n\}", out, re.S)}
        for key in ("novenue", "kw2020"):
            assert "NeurIPS" in entries[key], (fmt, out)
            assert "2021" in entries[key], (fmt, out)


def test_bibtex_export_of_an_author_list_cut_at_import(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """An entry with more than MAX_PEOPLE (5,000) authors is stored as the first 5,000
    and ``others`` (pipelines/limits.py, with a warning), yet the row is marked
    ``source_intact``, so the export copies the text's 5,003 names instead of the data
    the library holds (before migration 0005 the digest check re-rendered it: 5,000
    names and ``and others``)."""
    names = " and ".join(f"Auth{i}, A." for i in range(5003))
    bib = tmp_path / "many.bib"
    bib.write_text(
        f"@article{{many2020, title={{Many Authors}}, author={{{names}}}, journal={{J}}, year=2020}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    out = invoke("export", "bibtex").stdout
    assert "Auth5002" not in out
    assert "and others" in out


def test_ris_export_of_a_carriage_return_is_no_record_boundary(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """A note (or a CSL-JSON abstract) holding a bare carriage return is written to RIS
    as is (ris_syntax.value_lines splits at "\\n" only); the RIS reader, like any reader
    opening text with universal newlines, reads "\\r" as a line end, so ``ER  - `` and
    ``TY  - `` in the value end the record and start new ones: 2 papers exported, 3
    imported back."""
    bib = tmp_path / "a.bib"
    bib.write_text(
        "@article{jones2019, title={Other Paper}, author={Jones, Alice}, year=2019, journal={J}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    note = "my note\rER  - \rTY  - BOOK\rTI  - From A Note"
    assert invoke("note", "add", "jones2019", "-m", note).exit_code == 0
    ris = tmp_path / "out.ris"
    assert invoke("export", "ris", "-o", str(ris)).exit_code == 0
    text = ris.read_text(encoding="utf-8")  # universal newlines, as every reader
    starts = [line for line in text.splitlines() if line.startswith(("TY  -", "ER  -"))]
    assert starts == ["TY  - JOUR", "ER  - "], repr(ris.read_bytes())
    again = tmp_path / "again.db"
    done = invoke("--db", f"sqlite:///{again}", "import", str(ris))
    assert done.exit_code == 0, done.output
    assert invoke("--db", f"sqlite:///{again}", "list", "-k").stdout.split() == ["jones2019"]
    shown = invoke("--db", f"sqlite:///{again}", "show", "--json", "jones2019").stdout
    assert json.loads(shown)["fields"]["ris_n1"] == "my note\nER  -\nTY  - BOOK\nTI  - From A Note"
