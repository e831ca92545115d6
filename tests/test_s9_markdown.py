"""Issue 17 item 1, ``export markdown`` at 500,000 papers within 250 MB (session 9).

What a Markdown export holds for the whole library while it streams the records:

* the selection is an array of ids (``Selection.ids``); keys only where BibTeX orders by them;
* the outline carries each paper's id (no key -> id map) and shares equal years;
* a group is ordered without a sort key per member (buckets of priority and year,
  each sorted by key), in the order one sort by the whole key gives.
"""

from __future__ import annotations

import io
import random
import tracemalloc
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from readinglist.formats import markdown
from readinglist.records import OutlineRecord


def one_sort(records: list[OutlineRecord]) -> list[OutlineRecord]:
    """The list order as one sort of the whole key (the rule ``_ordered`` keeps)."""
    return sorted(records, key=lambda r: (*markdown._rank(r), *markdown._key_order(r)))


def test_a_group_is_ordered_as_one_sort_by_priority_year_and_key() -> None:
    """Keys equal but for case (``ß`` folds to ``ss``) come exactly ordered after their
    folded order; papers without a year or with an unknown priority go last in theirs;
    a key twice keeps its input order (the records differ by id)."""
    rng = random.Random(17)
    keys = ["Straße", "STRASSE", "strasse", "b", "B", "a", "Zeta", "zeta", "ä", "a"]
    records = [
        OutlineRecord(
            number,
            rng.choice(keys),
            "new",
            rng.choice(["high", "medium", "low", None, "urgent"]),
            rng.choice([None, 1999, 2020, 2024, -5]),
            None,
        )
        for number in range(400)
    ]
    ordered = markdown._ordered(records)
    assert ordered == one_sort(records)
    assert [r.paper_id for r in ordered] == [r.paper_id for r in one_sort(records)]
    firsts = [r.citekey for r in ordered if r.priority == "high" and r.year == 2024]
    assert firsts == sorted(firsts, key=lambda k: (k.casefold(), k))
    assert "STRASSE" in firsts
    assert firsts.index("STRASSE") < firsts.index("Straße")


def test_ordering_a_group_holds_no_sort_key_per_member() -> None:
    """50,000 members across 70 years: the buckets' lists and one bucket's folded keys,
    under 2 MB; one (priority, year, folded key, key) sort key per member took ~10 MB
    (about 70 MB for the 359,085 new papers of the 500k library)."""
    records = [
        OutlineRecord(i, f"Author{i:06d}:19xx:ABC", "new", None, 1950 + i % 70, None)
        for i in range(50_000)
    ]
    tracemalloc.start()
    try:
        ordered = markdown._ordered(records)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    assert ordered[0].year == 2019
    assert ordered[-1].year == 1950
    assert ordered == one_sort(records)


def test_the_outline_carries_ids_and_shares_years(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    """``export_outline`` gives each paper's id (the export reads whole records by it)
    and one int per distinct year, on SQLite and PostgreSQL."""
    from readinglist import db, library
    from readinglist.library.listing import export_outline

    bib = tmp_path / "three.bib"
    bib.write_text(
        "@article{one, title = {Salmon runs}, author = {Ada Lovelace}, year = {2020}}\n"
        "@article{two, title = {Trout pools}, author = {Alan Turing}, year = {2020}}\n"
        "@article{three, title = {Pike lakes}, author = {Grace Hopper}}\n"
    )
    assert invoke("import", str(bib)).exit_code == 0
    engine = db.make_engine(db_url)
    try:
        with db.session_scope(engine, write=False) as session:
            selected = library.select_ids_and_keys(session, "")
            outline = export_outline(session, [pid for pid, _ in selected])
    finally:
        engine.dispose()
    assert [(r.paper_id, r.citekey) for r in outline] == selected
    one, two, three = outline
    assert one.year == 2020
    assert one.year is two.year
    assert three.year is None


def test_the_selection_holds_keys_only_for_bibtex(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    """``select_papers`` gives an id array, and the keys only ``with_keys`` (BibTeX and
    biblatex: ``needs_keys``); a Markdown export writes a selection without keys, a
    BibTeX export refuses one; ``\\nocite{*}`` selects every paper, without keys too."""
    from readinglist import db, library
    from readinglist.pipelines import exporting

    bib = tmp_path / "two.bib"
    bib.write_text(
        "@article{one, title = {Salmon runs}, author = {Ada Lovelace}, year = {2020}}\n"
        "@article{two, title = {Trout pools}, author = {Alan Turing}, year = {2021}}\n"
    )
    assert invoke("import", str(bib)).exit_code == 0
    aux = tmp_path / "paper.aux"
    aux.write_text("\\citation{*}\n")
    assert [exporting.needs_keys(f) for f in ("bibtex", "biblatex", "markdown", "ris")] == [
        True,
        True,
        False,
        False,
    ]
    engine = db.make_engine(db_url)
    try:
        with db.session_scope(engine, write=False) as session:
            expected = library.select_ids_and_keys(session, "")
            lean = exporting.select_papers(session, "")
            keyed = exporting.select_papers(session, "", with_keys=True)
            cited = exporting.select_papers(session, "", str(aux))
            options = exporting.writer_options("markdown")
            out = io.StringIO()
            exporting.write_papers(session, out, "markdown", lean, options)
            with pytest.raises(ValueError, match="keys"):
                exporting.write_papers(
                    session, io.StringIO(), "bibtex", lean, exporting.writer_options("bibtex")
                )
    finally:
        engine.dispose()
    ids = array("q", [pid for pid, _ in expected])
    assert lean.ids == ids
    assert lean.keys is None
    assert keyed.ids == ids
    assert keyed.keys == [key for _, key in expected]
    assert cited.ids == ids
    assert cited.keys is None
    assert "`one`" in out.getvalue()
    assert "`two`" in out.getvalue()
