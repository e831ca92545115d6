"""Issue 13: every later source completes the paper (merging that fills, real keys,
tolerant and safe matching), on SQLite and PostgreSQL; real ``bibtex`` on the export of
the completed list on SQLite (``helpers.SQLITE_SUFFICES``: the merged papers are checked
on both by ``test_icml2015_bibliography_completes_the_abstracts_list``, and an export's
bytes are the same on both, test_databases_agree.py)."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import SQLITE_SUFFICES, require_tools

from readinglist import formats, library
from readinglist.models import Paper
from readinglist.records import PaperRecord, Person
from readinglist.text import latex_to_unicode
from tests.conftest import shared_data

ICML = "pmlr-v37-icml2015.bib"
_WORD = re.compile(r"\b[A-Za-z]{5,}\b")


@functools.cache
def _bib_records_read() -> tuple[PaperRecord, ...]:
    path = shared_data(ICML)
    return tuple(formats.read(path.read_text(encoding="utf-8"), "bibtex", str(path)).records)


def bib_records() -> list[PaperRecord]:
    """The 270 records of the ICML 2015 proceedings as our BibTeX reader reads them: read
    once per test process (0.4 s of CPU; about ten tests here and in
    tests/test_issue13_exports.py ask), each call given its own copies to change."""
    return copy.deepcopy(list(_bib_records_read()))


@functools.cache
def _plain(abstract: str) -> str:
    """``abstract`` decoded from LaTeX, its white space one space (kept per process: the
    three variants start from the same 270 texts)."""
    return " ".join(latex_to_unicode(abstract).split())


def noisy(abstract: str, variant: str, rng: random.Random) -> str:
    """The abstract as a conference site shows it, changed as ``variant`` says."""
    text = _plain(abstract)
    if variant == "word":
        words = list(_WORD.finditer(text))[1:]
        if words:
            hit = rng.choice(words)
            other = "granite" if hit.group(0).lower() != "granite" else "lantern"
            text = text[: hit.start()] + other + text[hit.end() :]
    elif variant == "drop":
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)
        text = " ".join(sentences[:-1]) if len(sentences) > 1 else text
    return text


def abstracts_list(records: list[PaperRecord], variant: str) -> str:
    rng = random.Random(13)
    paragraphs = ["ICML 2015 Papers", *(noisy(r.abstract or "", variant, rng) for r in records)]
    return "\n\n".join(paragraphs) + "\n"


def triage_ten(session) -> dict[str, tuple]:
    """Triage the first ten papers; return their state by (provisional) key."""
    papers = library.all_papers(session)[:10]
    library.set_status(session, papers[:5], "to-read")
    library.set_status(session, papers[5:], "read")
    library.set_priority(session, papers[:3], "high")
    library.add_tags(session, papers[::2], ["icml-pick"])
    for paper in papers[:4]:
        library.add_note(session, paper, f"note on {paper.citekey}")
    session.flush()
    session.expire_all()
    return {
        p.citekey: state(p)
        for p in library.papers_for_keys(session, [p.citekey for p in papers])[0]
    }


def state(paper) -> tuple:
    return (
        paper.status,
        paper.priority_name,
        tuple(t.name for t in paper.tags),
        tuple(n.body for n in paper.notes),
    )


@pytest.mark.parametrize("variant", ["exact", "word", "drop"])
def test_icml2015_bibliography_completes_the_abstracts_list(session, variant) -> None:
    records = bib_records()
    assert len(records) == 270
    listed = formats.read(abstracts_list(records, variant), "abstracts", "icml.txt").records
    library.import_records(session, listed, source="icml.txt", fmt="abstracts")
    old_keys = [p.citekey for p in library.all_papers(session)]
    assert all(p.title_provisional for p in library.all_papers(session))
    triaged = triage_ten(session)
    report = library.import_records(session, records, source=ICML, fmt="bibtex")
    session.expire_all()
    assert report.added == []
    assert len(report.merged) == 270
    papers = library.all_papers(session)
    assert len(papers) == 270
    by_key = {p.citekey: p for p in papers}
    correct = 0
    for old, record in zip(old_keys, records, strict=True):
        paper = library.resolve(session, old)  # the old key is an alias now
        assert paper.citekey == record.citekey
        got = library.to_record(paper)
        assert got.title == record.title
        assert not got.title_provisional
        assert got.authors == record.authors
        assert got.editors == record.editors
        assert got.venue == "Proceedings of the 32nd International Conference on Machine Learning"
        for name in ("pages", "volume", "publisher", "series"):
            assert got.fields.get(name) == record.fields[name], name
        assert not paper.citekey_provisional
        correct += 1
    assert correct == 270
    for old, before in triaged.items():
        assert state(library.resolve(session, old)) == before
    assert set(by_key) == {r.citekey for r in records}


def _import_statements(session, records: list[PaperRecord]) -> int:
    """The SQL statements ``import_records`` of ``records`` sends (an executemany counts
    once), counted with an SQLAlchemy event listener on the session's engine."""
    from sqlalchemy import event

    sent: list[str] = []

    def count(*_: object) -> None:
        sent.append("")

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        report = library.import_records(session, records, source=ICML, fmt="bibtex")
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(report.merged) == len(records)
    return len(sent)


def test_proceedings_merge_sends_no_statements_per_paper(session) -> None:
    """Merging 40 proceedings entries into a list's papers costs no more statements than
    merging 5 (the pool's LaTeX flags are read together, not one query per paper)."""
    records = bib_records()[:45]
    counts = []
    for part in (records[:5], records[5:]):  # the list of 5 papers, then of 40 more
        text = abstracts_list(part, "exact")
        listed = formats.read(text, "abstracts", "icml.txt").records
        library.import_records(session, listed, source="icml.txt", fmt="abstracts")
        counts.append(_import_statements(session, part))
    few, many = counts
    assert many <= few + 5, (few, many)


@SQLITE_SUFFICES
def test_icml2015_export_has_no_empty_author_for_bibtex(session, tmp_path: Path) -> None:
    require_tools("bibtex")
    records = bib_records()
    listed = formats.read(abstracts_list(records, "exact"), "abstracts", "icml.txt").records
    library.import_records(session, listed, source="icml.txt", fmt="abstracts")
    library.import_records(session, records, source=ICML, fmt="bibtex")
    session.expire_all()
    exported = [library.to_record(p) for p in library.all_papers(session)]
    (tmp_path / "refs.bib").write_text(formats.writer("bibtex")(exported), encoding="utf-8")
    (tmp_path / "doc.aux").write_text(
        "\\relax\n\\bibstyle{plain}\n\\bibdata{refs}\n"
        + "".join(f"\\citation{{{r.citekey}}}\n" for r in exported),
        encoding="utf-8",
    )
    done = subprocess.run(
        ["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    log = done.stdout + (tmp_path / "doc.blg").read_text(encoding="utf-8")
    assert log.count("empty author") == 0
    assert (tmp_path / "doc.bbl").read_text(encoding="utf-8").count("\\bibitem") == 270


EDITORIALS = [
    PaperRecord(
        citekey=f"ed{n}",
        entry_type="article",
        title="Editorial",
        authors=(Person(family="Smith", given="Ann"),),
        year=2019,
        venue="Journal of Tests",
        doi=f"10.1000/jt.2019.{n}",
        fields={"volume": "12", "number": str(n), "pages": f"{n}--{n + 2}"},
    )
    for n in (1, 2, 3)
]


def test_generic_titles_with_other_coordinates_never_merge(session) -> None:
    report = library.import_records(session, EDITORIALS, source="j.bib", fmt="bibtex")
    assert report.added == ["ed1", "ed2", "ed3"]
    # Without DOIs, the different issue and pages still keep them apart.
    bare = [replace(r, citekey=f"bare{i}", doi=None) for i, r in enumerate(EDITORIALS)]
    report = library.import_records(session, bare, source="k.bib", fmt="bibtex")
    # each one is the same as one of the first three (same number and pages): merged there
    assert report.added == []
    session.expire_all()
    for n in (1, 2, 3):
        record = library.to_record(library.resolve(session, f"ed{n}"))
        assert record.doi == f"10.1000/jt.2019.{n}"
        assert record.fields["pages"] == f"{n}--{n + 2}"
    other_pages = replace(EDITORIALS[0], citekey="ed9", doi=None, fields={"pages": "99--100"})
    report = library.import_records(session, [other_pages], source="l.bib", fmt="bibtex")
    assert report.added == ["ed9"]


def test_doi_duplicate_keeps_every_field_it_brought(session) -> None:
    library.import_records(
        session,
        [PaperRecord(title="Deep Nets", doi="10.1000/abc", year=2020)],
        source="a.bib",
        fmt="bibtex",
    )
    full = PaperRecord(
        citekey="lecun2020deep",
        entry_type="article",
        title="Deep Nets",
        doi="10.1000/ABC",
        year=2020,
        authors=(Person(family="LeCun", given="Yann"),),
        venue="Journal of Nets",
        fields={
            "number": "4",
            "publisher": "Net Press",
            "issn": "1234-5678",
            "note": "Special issue",
            "file": "deep.pdf",
        },
    )
    report = library.import_records(session, [full], source="b.bib", fmt="bibtex")
    assert report.added == []
    assert report.evidence["lecun2020deep"] == "same DOI"
    session.expire_all()
    got = library.to_record(library.resolve(session, "deep2020"))  # the old key: an alias
    assert got.citekey == "lecun2020deep"  # the key was generated without authors
    assert got.authors == full.authors
    assert got.venue == "Journal of Nets"
    assert got.entry_type == "article"
    assert dict(got.fields) == dict(full.fields)


def test_provisional_title_equal_up_to_case_is_replaced(session) -> None:
    title = "MuTual: A Dataset for Multi-Turn Dialogue Reasoning"
    library.import_records(
        session,
        [PaperRecord(title=title.lower(), title_provisional=True, abstract="We build MuTual.")],
        source="l.txt",
        fmt="abstracts",
    )
    report = library.import_records(
        session,
        [PaperRecord(citekey="cui2020mutual", title=title, abstract="We build MuTual.")],
        source="m.bib",
        fmt="bibtex",
    )
    assert report.merged
    assert "title" in report.merged[0][1]
    session.expire_all()
    paper = library.resolve(session, "cui2020mutual")
    assert paper.title == title
    assert paper.title_provisional is False


def test_option_like_key_is_renamed_with_a_warning(session) -> None:
    report = library.import_records(
        session,
        [PaperRecord(citekey="--yes", title="Yes Paper", year=2021, line=7)],
        source="opt.bib",
        fmt="bibtex",
    )
    assert report.added == ["yes2021"]
    assert str(report.problems[0]) == (
        "opt.bib:7: citation key '--yes' looks like a command-line option; imported as 'yes2021'"
    )


def test_titles_folding_to_nothing_never_merge(session) -> None:
    report = library.import_records(
        session,
        [PaperRecord(citekey="x", title="???", year=2020)],
        source="a.bib",
        fmt="bibtex",
    )
    report = library.import_records(
        session,
        [PaperRecord(citekey="x", title="!!!", year=2020)],
        source="b.bib",
        fmt="bibtex",
    )
    assert report.merged == []
    assert len(report.added) == 1


def test_generated_keys_skip_filler_words(session) -> None:
    report = library.import_records(
        session,
        [
            PaperRecord(title="This paper studies graphs", title_provisional=True, year=2015),
            PaperRecord(title="We propose sparse coding", title_provisional=True, year=2015),
        ],
        source="l.txt",
        fmt="abstracts",
    )
    assert report.added == ["graphs2015", "sparse2015"]


def test_match_records_and_complete_paper(session) -> None:
    records = bib_records()[:5]
    listed = formats.read(abstracts_list(records, "word"), "abstracts", "icml.txt").records
    library.import_records(session, listed, source="icml.txt", fmt="abstracts")
    matches = library.match_records(session, records)
    assert [m.kind for m in matches] == ["merge"] * 5
    assert all(m.evidence.startswith("same abstract, ") for m in matches)
    paper = session.get(Paper, matches[0].paper_id)
    filled = library.complete_paper(session, paper, records[0], source=ICML)
    assert {"title", "authors", "editors", "pages", "key"} <= set(filled)
    assert paper.citekey == records[0].citekey


def test_cli_duplicates_not_duplicate_take_and_dry_run(invoke, tmp_path: Path) -> None:
    records = bib_records()[:3]
    listed = tmp_path / "list.txt"
    listed.write_text(abstracts_list(records, "exact"), encoding="utf-8")
    assert invoke("import", str(listed)).exit_code == 0
    bib = tmp_path / "three.bib"
    text = shared_data(ICML).read_text(encoding="utf-8")
    bib.write_text("\n\n".join(text.split("\n\n")[:3]) + "\n", encoding="utf-8")
    dry = invoke("import", "--dry-run", str(bib))
    assert dry.exit_code == 0, dry.output
    assert "3 merged" in dry.stderr
    assert "dry run: nothing written" in dry.stderr
    assert all(r.citekey not in invoke("list", "-k").stdout for r in records)
    done = invoke("import", "--verbose", str(bib))
    assert "(same abstract, 100% similar)" in done.stderr
    assert invoke("list", "-k").stdout.split() == [r.citekey for r in records]
    # a second copy of the first paper with a changed title and other pages
    first = records[0]
    copy = tmp_path / "copy.bib"
    copy.write_text(
        "@inproceedings{copy15,\n  title = {" + (first.title or "") + " Revisited},\n"
        "  author = {Nobody, Ann},\n  year = {2015},\n  abstract = {"
        + (first.abstract or "")
        + "}\n}\n",
        encoding="utf-8",
    )
    invoke("import", "--no-merge", str(copy))
    pairs = json.loads(invoke("duplicates", "--json").stdout)
    assert pairs == []  # no-merge added nothing
    assert invoke("not-duplicate", first.citekey or "", records[1].citekey or "").exit_code == 0
    history = invoke("merge", "--history", first.citekey or "")
    assert history.exit_code == 0
    taken = invoke("merge", first.citekey or "", "--take", "pages")
    assert taken.exit_code == 3  # nothing of pages kept
