"""Faults found in session 7, each with the value it must have."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def test_show_listing_and_exports_order_a_papers_tags_alike(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """``show`` orders a paper's tags by folded name (the ORM relationship); the Core
    readers of listings and exports ordered them by raw name, upper case first, so
    ``ML``, ``Zeta`` came before ``deep``."""
    (tmp_path / "one.bib").write_text(
        "@article{a1, title={One}, author={Doe, Jane}, year=2020, journal={J}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(tmp_path / "one.bib")).exit_code == 0
    for tag in ("Zeta", "deep", "ML"):
        assert invoke("tag", "add", tag, "a1").exit_code == 0
    folded = ["deep", "ML", "Zeta"]
    assert json.loads(invoke("show", "--json", "a1").stdout)["tags"] == folded
    (listed,) = json.loads(invoke("list", "--json").stdout)
    assert listed["tags"] == folded
    (csl,) = json.loads(invoke("export", "csl-json").stdout)
    assert csl["keyword"] == ", ".join(folded)


def test_every_field_the_bibtex_fingerprint_covers_clears_the_intact_mark() -> None:
    """``rows.BIBLIOGRAPHIC_ATTRIBUTES`` (a flush changing one clears
    ``papers.source_intact``) must name every field that
    ``bibliographic_fingerprint`` covers: a field it missed would let an export copy a
    stale entry text. Derived by changing each PaperRecord field and watching the
    fingerprint, so a field added to the fingerprint fails here until it is added there."""
    import dataclasses

    from readinglist.formats.bibtex import bibliographic_fingerprint
    from readinglist.library.rows import BIBLIOGRAPHIC_ATTRIBUTES
    from readinglist.models import Paper
    from readinglist.records import PaperRecord, Person

    base = PaperRecord(citekey="a1", title="T", year=2020, fields={"pages": "1"})
    changed = {
        "citekey": "b2",
        "entry_type": "article",
        "title": "U",
        "authors": (Person(family="Doe"),),
        "editors": (Person(family="Roe"),),
        "year": 2021,
        "month": 3,
        "venue": "V",
        "abstract": "A",
        "doi": "10.1/x",
        "arxiv": "2401.01234",
        "url": "https://x.org",
        "keywords": ("k",),
        "fields": {"pages": "2"},
        "title_provisional": True,
        "short_name": "S",
        "code_url": "https://github.com/x/y",
    }
    covered = set()
    for name, value in changed.items():
        other = dataclasses.replace(base, **{name: value})
        if bibliographic_fingerprint(other) != bibliographic_fingerprint(base):
            covered.add("people" if name in ("authors", "editors") else name)
    record_fields = {f.name for f in dataclasses.fields(PaperRecord)}
    assert covered >= {"citekey", "title", "people", "year", "doi", "fields"}
    assert covered <= set(BIBLIOGRAPHIC_ATTRIBUTES), covered - set(BIBLIOGRAPHIC_ATTRIBUTES)
    assert all(hasattr(Paper, name) for name in BIBLIOGRAPHIC_ATTRIBUTES)
    untested = (
        record_fields
        - set(changed)
        - {
            # user state, provenance and the source itself: not bibliographic data
            "status",
            "priority",
            "tags",
            "notes",
            "added",
            "read_at",
            "aliases",
            "source_text",
            "source_check",
            "fingerprint",
            "line",
            "strings_read",
            "citekey_provisional",
            "latex_fields",
        }
    )
    assert not untested, f"decide whether the fingerprint covers {untested}"


def test_a_crossref_follows_its_parent_when_an_import_gives_it_a_real_key(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """A pasted list's paper (provisional key ``learning2020``) is named in ``crossref``
    by a child; the proceedings' BibTeX later gives it its real key: the child follows,
    so the export's crossref names an exported entry."""
    (tmp_path / "list.txt").write_text(
        "1. Learning Things From Many Other Things\n"
        "We study things and how many other things relate to them in detail.\n",
        encoding="utf-8",
    )
    assert (
        invoke(
            "import", str(tmp_path / "list.txt"), "--venue", "Proc X", "--year", "2020"
        ).exit_code
        == 0
    )
    (key,) = invoke("list", "-k").stdout.split()
    (tmp_path / "child.bib").write_text(
        "@inproceedings{child1, title={A Child Paper}, author={Doe, Jane}, year=2020, "
        f"crossref={{{key}}}}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(tmp_path / "child.bib")).exit_code == 0
    (tmp_path / "parent.bib").write_text(
        "@proceedings{proc2020real, title={Learning Things From Many Other Things}, "
        "editor={Roe, Rick}, year=2020, booktitle={Proc X}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(tmp_path / "parent.bib")).exit_code == 0
    out = invoke("export", "bibtex").stdout
    assert "crossref={proc2020real}" in out  # patched in place, in the entry's own layout
    assert "@proceedings{proc2020real," in out
