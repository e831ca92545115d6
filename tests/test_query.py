"""The query language (issue 6): parser units, a table of queries over a fixture library run
on SQLite and PostgreSQL with identical results, sort orders, and fuzzing of the parser.

The fixture library is built once per database with library.import_records, add_tags,
set_status, rekey and Note rows, then queried read-only by every row of the table.
"""

from __future__ import annotations

import contextlib
import random
import string
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import make_database
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite

from readinglist import library, query
from readinglist.errors import InvalidQuery, UsageError
from readinglist.models import Paper
from readinglist.query import (
    And,
    Arxiv,
    DateRange,
    DateSpec,
    Doi,
    Everything,
    Has,
    Is,
    Key,
    Not,
    Or,
    Priority,
    Status,
    Substring,
    TagTerm,
    Text,
    Year,
)
from readinglist.query import compiler as query_compiler
from readinglist.records import PaperRecord, Person
from readinglist.text import search_document, search_tokens

#: "Now" for relative dates in the table (a Monday, midday UTC).
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def at(text_value: str) -> datetime:
    """Parse ``YYYY-MM-DD HH:MM`` as UTC."""
    return datetime.strptime(text_value, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


# key -> (record, added, status, read at, priority, tags, notes)
PAPERS: list[tuple[PaperRecord, str, str, str | None, str | None, list[str], list[str]]] = [
    (
        PaperRecord(
            citekey="vaswani2017",
            entry_type="inproceedings",
            title="Attention Is All You Need",
            authors=(
                Person(family="Vaswani", given="Ashish"),
                Person(family="Shazeer", given="Noam"),
            ),
            year=2017,
            venue="NeurIPS",
            abstract="The dominant sequence transduction models are based on complex "
            "recurrent or convolutional neural networks. We propose the Transformer.",
            arxiv="1706.03762",
            url="https://arxiv.org/abs/1706.03762",
        ),
        "2025-01-10 09:00",
        "read",
        "2026-05-20 10:00",
        "high",
        ["nlp", "nlp/transformers"],
        ["Classic. Re-read section 3 on multi-head attention."],
    ),
    (
        PaperRecord(
            citekey="ho2020",
            entry_type="inproceedings",
            title="Denoising Diffusion Probabilistic Models",
            authors=(
                Person(family="Ho", given="Jonathan"),
                Person(family="Jain", given="Ajay"),
                Person(family="Abbeel", given="Pieter"),
            ),
            year=2020,
            venue="NeurIPS",
            abstract="We present high quality image synthesis results using diffusion "
            "probabilistic models, a class of latent variable models inspired by "
            "nonequilibrium thermodynamics. Diffusion models train on a weighted "
            "variational bound; diffusion sampling is progressive decoding.",
            arxiv="2006.11239",
            code_url="https://github.com/hojonathanho/diffusion",
        ),
        "2026-05-01 08:00",
        "to-read",
        None,
        "medium",
        ["diffusion", "vision"],
        [],
    ),
    (
        PaperRecord(
            citekey="schrodinger1926",
            entry_type="article",
            title="An Undulatory Theory of the Mechanics of Atoms and Molecules",
            authors=(Person(family="Schrödinger", given="Erwin"),),
            year=1926,
            venue="Physical Review",
            doi="10.1103/PhysRev.28.1049",
        ),
        "2026-05-31 23:59",
        "new",
        None,
        None,
        ["physics"],
        [],
    ),
    (
        PaperRecord(
            citekey="muller2024",
            entry_type="inproceedings",
            title="Self\u2011Correction for Gaussian Splatting in 3DGS Pipelines",
            authors=(
                Person(family="Müller", given="Jürgen"),
                Person(family="Ødegaard", given="Lars"),
            ),
            year=2024,
            venue="CVPR",
            abstract="We add \u201cself-correction\u201d passes to splatting; results are robust.",
            doi="10.1109/CVPR.2024.00123",
        ),
        "2026-06-01 00:00",
        "reading",
        None,
        "low",
        ["vision/3d"],
        ['Compare with Schr{\\"o}dinger bridge models.'],
    ),
    (
        PaperRecord(
            citekey="provisional2026",
            entry_type="misc",
            title="Learning to rank with diffusion",
            title_provisional=True,
            year=2026,
            venue="ICML 2026",
            abstract="We study ranking as denoising.",
        ),
        "2026-06-10 12:00",
        "new",
        None,
        None,
        [],
        [],
    ),
    (
        PaperRecord(
            citekey="vanderberg2023",
            entry_type="inproceedings",
            title="On the Convergence of Adam and Beyond Again",
            short_name="AdamConv",
            authors=(Person(family="Berg", given="Anna", von="van der"),),
            year=2023,
            venue="ICLR",
        ),
        "2026-06-14 12:00",
        "skipped",
        None,
        None,
        ["optimization"],
        [],
    ),
    (
        PaperRecord(
            citekey="smith2019",
            entry_type="article",
            title="Robust Optimization under Uncertainty",
            authors=(Person(family="Smith", given="John"),),
            year=2019,
            venue="Journal of Machine Learning Research",
            doi="10.5555/jmlr.2019.001",
            abstract="Distributionally robust optimization with 50% fewer constraints.",
        ),
        "2026-06-15 11:00",
        "to-read",
        None,
        "high",
        ["optimization/robust"],
        [],
    ),
    (
        PaperRecord(
            citekey="goldsmith2021",
            entry_type="article",
            title="Stochastic Diffusion Processes in Finance",
            authors=(Person(family="Goldsmith", given="Jane"),),
            year=2021,
            venue="Annals of Applied Probability",
        ),
        "2024-06-15 08:00",
        "read",
        "2026-06-02 08:00",
        None,
        ["finance_old"],
        [],
    ),
    (
        PaperRecord(
            citekey="esa2020",
            entry_type="techreport",
            title="Untitled Draft on Preference Optimization",
            authors=(Person(literal="European Space Agency"),),
        ),
        "2026-03-15 12:00",
        "new",
        None,
        None,
        [],
        [],
    ),
    (
        PaperRecord(
            citekey="sci2022",
            entry_type="inproceedings",
            title="Scaling to 1e10 Parameters with 4e6b Adapters",
            authors=(Person(family="Lee", given="Min"),),
            year=2022,
            venue="École Normale Supérieure Workshop",
        ),
        "2026-04-15 12:00",
        "new",
        None,
        None,
        ["old"],
        [],
    ),
    (
        PaperRecord(
            citekey="gates2018",
            entry_type="inproceedings",
            title="To Be or Not to Be: OR-gates and AND-gates",
            authors=(Person(family="Smith", given="Alice"), Person(family="Ng", given="Bo")),
            year=2018,
            venue="DAC",
        ),
        "2026-06-09 12:00",
        "new",
        None,
        None,
        ["Hardware"],
        [],
    ),
]

KEYS = [p[0].citekey for p in PAPERS]


def build_library(session: Any) -> None:
    """Import PAPERS and set their user state; rekey ho2020 -> ho2020ddpm (alias ho2020)."""
    records = [p[0] for p in PAPERS]
    report = library.import_records(session, records, source="fixture", fmt="bibtex")
    assert report.added == KEYS
    papers = {p.citekey: p for p in library.all_papers(session)}
    for record, added, status, read_at, priority, tags, notes in PAPERS:
        paper = papers[record.citekey or ""]
        if status != "new":
            library.set_status(session, [paper], status, at=at(read_at) if read_at else None)
        if tags:
            library.add_tags(session, [paper], tags)
        for body in notes:
            library.add_note(session, paper, body)
        session.flush()
        session.expire(paper, ["notes"])  # refresh_search_text reads paper.notes
        paper.added_at = at(added)
        if priority:
            library.set_priority(session, [paper], priority)
    session.flush()
    library.refresh_search_text(session, [p.id for p in papers.values()])
    library.rekey(session, papers["ho2020"], "ho2020ddpm")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def library_engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """An engine on a database (SQLite, then PostgreSQL) holding the fixture library."""
    from readinglist import db

    urls = make_database(request.param, request, tmp_path_factory.mktemp("querylib"))
    url = next(urls)
    engine = db.make_engine(url)
    with db.session_scope(engine) as session:
        build_library(session)
    yield engine
    engine.dispose()
    next(urls, None)


@pytest.fixture
def lib(library_engine: Any) -> Iterator[Any]:
    """A read-only session on the fixture library."""
    from readinglist import db

    with db.session_scope(library_engine, write=False) as session:
        yield session


def keys_of(session: Any, query_text: str, **options: Any) -> list[str]:
    options.setdefault("now", NOW)
    return query.paper_keys(session, query_text, **options)


# query -> expected keys (as a set: ranking may differ between the databases)
TABLE: list[tuple[str, set[str]]] = [
    ("", set(KEYS) - {"ho2020"} | {"ho2020ddpm"}),
    # free text: title, abstract, authors, venue, tags, notes, short name
    ("attention", {"vaswani2017"}),
    ("ATTENTION", {"vaswani2017"}),
    ("diffusion", {"ho2020ddpm", "provisional2026", "goldsmith2021"}),
    ("diffus*", {"ho2020ddpm", "provisional2026", "goldsmith2021"}),
    ("transform*", {"vaswani2017"}),
    ("neurips", {"vaswani2017", "ho2020ddpm"}),
    ("shazeer", {"vaswani2017"}),
    ("adamconv", {"vanderberg2023"}),
    ("multi-head", {"vaswani2017"}),
    ('"multi head attention"', {"vaswani2017"}),
    ('"attention multi"', set()),
    ('"self correction"', {"muller2024"}),
    ("self-correction", {"muller2024"}),
    ("self\u2011correction", {"muller2024"}),
    ('"self corr"*', {"muller2024"}),
    # folding: accents, LaTeX, typographic quotes; notes are indexed
    ("schrodinger", {"schrodinger1926", "muller2024"}),
    ("Schrödinger", {"schrodinger1926", "muller2024"}),
    ('Schr{\\"o}dinger', {"schrodinger1926", "muller2024"}),
    ("muller odegaard", {"muller2024"}),
    ("ecole superieure", {"sci2022"}),
    ("\u201cself correction\u201d", {"muller2024"}),
    # words PostgreSQL's parser would split differently (scientific notation)
    ("4e6b", {"sci2022"}),
    ("1e10", {"sci2022"}),
    ("4e6", {"sci2022"}),
    # lower-case or/not/and are words; "OR" quoted is a word
    ("gates or", {"gates2018"}),
    ('"OR" gates', {"gates2018"}),
    ("50", {"smith2019"}),
    # field terms
    ("title:attention", {"vaswani2017"}),
    ("title:diffusion", {"ho2020ddpm", "provisional2026", "goldsmith2021"}),
    ('title:"diffusion models"', set()),
    ('title:"diffusion probabilistic"', {"ho2020ddpm"}),
    ("title:self-correction", {"muller2024"}),
    ("title:optim", {"smith2019", "esa2020"}),
    ("author:smith", {"smith2019", "goldsmith2021", "gates2018"}),
    ('author:"Smith, J"', {"smith2019"}),
    ('author:"Smith, Alice"', {"gates2018"}),
    ("author:müller", {"muller2024"}),
    ("author:odegaard", {"muller2024"}),
    ('author:"van der berg"', {"vanderberg2023"}),
    ('author:"van der Berg, A"', {"vanderberg2023"}),
    ('author:"european space"', {"esa2020"}),
    ('author:Schr{\\"o}dinger', {"schrodinger1926"}),
    ("venue:neurips", {"vaswani2017", "ho2020ddpm"}),
    ("venue:icml", {"provisional2026"}),
    ('venue:"machine learning"', {"smith2019"}),
    ("venue:ecole", {"sci2022"}),
    ("venue:probab", {"goldsmith2021"}),
    ("tag:nlp", {"vaswani2017"}),
    ("tag:NLP/Transformers", {"vaswani2017"}),
    ("tag:vision", {"ho2020ddpm", "muller2024"}),
    ("tag:vision/3d", {"muller2024"}),
    ("tag:optimization", {"vanderberg2023", "smith2019"}),
    ("tag:opt", set()),
    ("tag:opt*", {"vanderberg2023", "smith2019"}),
    ("tag:finance_old", {"goldsmith2021"}),
    ("tag:finance%", set()),
    ("tag:hardware", {"gates2018"}),
    ("status:to-read", {"ho2020ddpm", "smith2019"}),
    ("status:READ", {"vaswani2017", "goldsmith2021"}),
    ("status:reading", {"muller2024"}),
    ("priority:high", {"vaswani2017", "smith2019"}),
    ("priority:low", {"muller2024"}),
    (
        "priority:none",
        {"schrodinger1926", "provisional2026", "vanderberg2023", "goldsmith2021", "esa2020"}
        | {"sci2022", "gates2018"},
    ),
    ("year:2020", {"ho2020ddpm"}),
    ("year:2020..2022", {"ho2020ddpm", "goldsmith2021", "sci2022"}),
    ("year:..1999", {"schrodinger1926"}),
    ("year:2024..", {"muller2024", "provisional2026"}),
    ("-year:2000..", {"schrodinger1926", "esa2020"}),
    ("added:2026-05", {"ho2020ddpm", "schrodinger1926"}),
    ("added:2026-06-01", {"muller2024"}),
    (
        "added:2026-05-01..2026-06-01",
        {"ho2020ddpm", "schrodinger1926", "muller2024"},
    ),
    ("added:2024", {"goldsmith2021"}),
    ("added:-7d..", {"provisional2026", "vanderberg2023", "smith2019", "gates2018"}),
    ("added:-7d", {"provisional2026", "vanderberg2023", "smith2019", "gates2018"}),
    ("added:-1w", {"provisional2026", "vanderberg2023", "smith2019", "gates2018"}),
    ("added:today", {"smith2019"}),
    ("added:yesterday", {"vanderberg2023"}),
    ("added:..-1y", {"vaswani2017", "goldsmith2021"}),
    ("added:-2m..-1m", {"sci2022", "ho2020ddpm"}),
    ("read:2026-05", {"vaswani2017"}),
    ("read:2026-06", {"goldsmith2021"}),
    ("key:smith2019", {"smith2019"}),
    ("key:SMITH2019", {"smith2019"}),
    ("key:ho2020", {"ho2020ddpm"}),
    ("key:ho2020ddpm", {"ho2020ddpm"}),
    ("key:s*", {"schrodinger1926", "smith2019", "sci2022"}),
    ("key:smith", set()),
    ("doi:10.1103/physrev.28.1049", {"schrodinger1926"}),
    ("doi:https://doi.org/10.1103/PhysRev.28.1049", {"schrodinger1926"}),
    ("doi:10.1109/*", {"muller2024"}),
    ("arxiv:1706.03762v5", {"vaswani2017"}),
    ("arxiv:https://arxiv.org/abs/2006.11239", {"ho2020ddpm"}),
    ("arxiv:2006.*", {"ho2020ddpm"}),
    ("has:notes", {"vaswani2017", "muller2024"}),
    ("has:doi", {"schrodinger1926", "muller2024", "smith2019"}),
    ("has:abstract", {"vaswani2017", "ho2020ddpm", "muller2024", "provisional2026", "smith2019"}),
    ("has:code", {"ho2020ddpm"}),
    ("has:arxiv -has:code", {"vaswani2017"}),
    ("-has:year", {"esa2020"}),
    ("-has:authors", {"provisional2026"}),
    ("-has:tags", {"provisional2026", "esa2020"}),
    ("has:priority", {"vaswani2017", "ho2020ddpm", "muller2024", "smith2019"}),
    ("is:provisional", {"provisional2026"}),
    # negation, AND, OR, parentheses
    ("diffusion -tag:vision", {"provisional2026", "goldsmith2021"}),
    ("-diffusion year:2020..", {"sci2022", "vanderberg2023", "muller2024"}),
    ("-priority:high status:to-read", {"ho2020ddpm"}),
    ("tag:nlp OR tag:physics", {"vaswani2017", "schrodinger1926"}),
    (
        "year:2020..2024 tag:vision OR tag:optimization",
        {"ho2020ddpm", "muller2024"} | {"vanderberg2023"},
    ),
    ("(year:2020 OR year:2019) AND status:to-read", {"ho2020ddpm", "smith2019"}),
    ("diffusion OR attention -status:read", {"ho2020ddpm", "provisional2026"}),
    (
        "-(tag:vision OR tag:optimization) has:tags",
        {"vaswani2017", "schrodinger1926"} | {"goldsmith2021", "sci2022", "gates2018"},
    ),
    ("NOT status:new NOT status:read", {"ho2020ddpm", "muller2024", "vanderberg2023", "smith2019"}),
    ('-"denoising diffusion" diffusion', {"provisional2026", "goldsmith2021"}),
    ("--tag:nlp", {"vaswani2017"}),
    ("robust OR self-correction", {"smith2019", "muller2024"}),
    ("'; DROP TABLE papers;", set()),
    # words without letters or digits are left out, as the index has none
    ("attention \u2014 all you", {"vaswani2017"}),
    ("-!!! attention &", {"vaswani2017"}),
]


def test_table_has_at_least_40_rows() -> None:
    assert len(TABLE) >= 40
    assert len({q for q, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("query_text", "expected"), TABLE, ids=[q or "<empty>" for q, _ in TABLE])
def test_query_table(lib: Any, query_text: str, expected: set[str]) -> None:
    found = keys_of(lib, query_text)
    assert sorted(found) == sorted(expected)
    assert len(found) == len(set(found))


def test_filter_clause_agrees_with_paper_ids(lib: Any) -> None:
    clause = query.filter_clause(lib, "tag:vision OR venue:icml -status:reading", now=NOW)
    keys = set(lib.scalars(select(Paper.citekey).where(clause)))
    assert keys == {"ho2020ddpm", "provisional2026"}


@pytest.mark.parametrize(
    "query_text",
    [
        "author:smith",
        'author:"Smith, J"',
        "author:a",
        "author:nobody -author:smith",
        "author:zz",
        "tag:vision OR tag:nlp",
        "-tag:optimization",
        "tag:none",
        "title:diffusion",
        "title:o -title:optim",
    ],
)
def test_looked_up_and_plain_terms_select_the_same(
    lib: Any, query_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids bound as values (few), the conditions checked per paper (many), and the plain
    SQL of to_clause without a session give the same papers."""
    dialect = lib.get_bind().dialect.name
    tree = query.parse(query_text)
    plain = set(lib.scalars(select(Paper.citekey).where(query.to_clause(tree, dialect))))
    looked_up = set(keys_of(lib, query_text))
    monkeypatch.setattr(query_compiler, "PEOPLE_INLINE", 1)
    monkeypatch.setattr(query_compiler, "INLINE_IDS", 1)
    assert plain == looked_up == set(keys_of(lib, query_text))
    monkeypatch.setattr(query_compiler, "INLINE_BUDGET", 0)
    assert set(keys_of(lib, query_text)) == plain


# --- sort orders --------------------------------------------------------------------------


ADDED_ORDER = [
    "goldsmith2021",
    "vaswani2017",
    "esa2020",
    "sci2022",
    "ho2020ddpm",
    "schrodinger1926",
    "muller2024",
    "gates2018",
    "provisional2026",
    "vanderberg2023",
    "smith2019",
]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, ADDED_ORDER),
        ({"sort": "added"}, ADDED_ORDER),
        ({"reverse": True}, ADDED_ORDER[::-1]),
        ({"limit": 3}, ADDED_ORDER[:3]),
        ({"limit": 2, "reverse": True}, ["smith2019", "vanderberg2023"]),
        (
            {"sort": "year"},
            [
                "schrodinger1926",
                "vaswani2017",
                "gates2018",
                "smith2019",
                "ho2020ddpm",
                "goldsmith2021",
                "sci2022",
                "vanderberg2023",
                "muller2024",
                "provisional2026",
                "esa2020",
            ],
        ),
        (
            {"sort": "year", "reverse": True},
            [
                "provisional2026",
                "muller2024",
                "vanderberg2023",
                "sci2022",
                "goldsmith2021",
                "ho2020ddpm",
                "smith2019",
                "gates2018",
                "vaswani2017",
                "schrodinger1926",
                "esa2020",
            ],
        ),
        (
            {"sort": "title"},
            [
                "schrodinger1926",
                "vaswani2017",
                "ho2020ddpm",
                "provisional2026",
                "vanderberg2023",
                "smith2019",
                "sci2022",
                "muller2024",
                "goldsmith2021",
                "gates2018",
                "esa2020",
            ],
        ),
        (
            {"sort": "key"},
            [
                "esa2020",
                "gates2018",
                "goldsmith2021",
                "ho2020ddpm",
                "muller2024",
                "provisional2026",
                "schrodinger1926",
                "sci2022",
                "smith2019",
                "vanderberg2023",
                "vaswani2017",
            ],
        ),
        (
            {"sort": "priority"},
            ["vaswani2017", "smith2019", "ho2020ddpm", "muller2024"]
            + [
                k
                for k in ADDED_ORDER
                if k not in ("vaswani2017", "smith2019", "ho2020ddpm", "muller2024")
            ],
        ),
        (
            {"sort": "status"},
            [
                *("muller2024",),  # reading
                *("ho2020ddpm", "smith2019"),  # to-read, by addition
                *("esa2020", "sci2022", "schrodinger1926", "gates2018", "provisional2026"),
                *("goldsmith2021", "vaswani2017"),  # read
                "vanderberg2023",  # skipped
            ],
        ),
        ({"sort": "relevance"}, ADDED_ORDER),
    ],
    ids=lambda v: str(v) if isinstance(v, dict) else "",
)
def test_sort_orders(lib: Any, options: dict[str, Any], expected: list[str]) -> None:
    assert keys_of(lib, "", **options) == expected


def test_sort_status_reverse_is_the_exact_reverse(lib: Any) -> None:
    forward = keys_of(lib, "", sort="status")
    assert keys_of(lib, "", sort="status", reverse=True) == forward[::-1]


def test_relevance_is_the_default_with_free_text(lib: Any) -> None:
    # ho2020 says "diffusion" five times; the two others once each.
    found = keys_of(lib, "diffusion")
    assert found[0] == "ho2020ddpm"
    assert sorted(found) == ["goldsmith2021", "ho2020ddpm", "provisional2026"]
    assert keys_of(lib, "diffusion", sort="added") == [
        "goldsmith2021",
        "ho2020ddpm",
        "provisional2026",
    ]
    assert keys_of(lib, "diffusion", reverse=True)[-1] == "ho2020ddpm"


def test_relevance_puts_papers_without_a_text_match_last(lib: Any) -> None:
    found = keys_of(lib, "attention OR tag:physics")
    assert found == ["vaswani2017", "schrodinger1926"]
    assert keys_of(lib, "attention OR tag:physics", reverse=True) == [
        "vaswani2017",
        "schrodinger1926",
    ]


def test_negated_free_text_alone_sorts_by_addition(lib: Any) -> None:
    assert keys_of(lib, "-diffusion") == [
        k for k in ADDED_ORDER if k not in ("goldsmith2021", "ho2020ddpm", "provisional2026")
    ]


def test_paper_ids_match_keys(lib: Any) -> None:
    ids = query.paper_ids(lib, "tag:optimization", sort="key", now=NOW)
    keys = [lib.get(Paper, i).citekey for i in ids]
    assert keys == ["smith2019", "vanderberg2023"]


def test_unknown_sort_is_a_usage_error(lib: Any) -> None:
    with pytest.raises(UsageError, match="unknown sort order 'size'"):
        keys_of(lib, "", sort="size")


def test_invalid_query_raises_before_any_sql(lib: Any) -> None:
    with pytest.raises(InvalidQuery, match="unknown status 'done'"):
        keys_of(lib, "status:done")


def test_prefixes_at_the_edge_of_unicode(lib: Any) -> None:
    for edge in ("key:\ud7ff*", "key:\U0010ffff*", "tag:\ud7ff*", "doi:10.1/\uffff*"):
        assert keys_of(lib, edge) == []


def test_database_is_intact_after_hostile_queries(lib: Any) -> None:
    for hostile in ("'; DROP TABLE papers;", 'title:"x\'); DROP TABLE tags;--"', "tag:%'--"):
        assert keys_of(lib, hostile) == []
    assert lib.scalar(text("SELECT count(*) FROM papers")) == len(KEYS)


# --- parser units ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query_text", "tree"),
    [
        ("", Everything()),
        ("   ", Everything()),
        ("diffusion", Text(("diffusion",))),
        ("diffus*", Text(("diffus",), prefix=True)),
        ('"self correction"', Text(("self", "correction"))),
        ("self-correction", Text(("self", "correction"))),
        ('"self corr"*', Text(("self", "corr"), prefix=True)),
        ('Schr{\\"o}dinger', Text(("schrodinger",))),
        ('"Schr{\\"o}dinger equation"', Text(("schrodinger", "equation"))),
        ("\u201cquoted phrase\u201d", Text(("quoted", "phrase"))),
        ("f(x)", Text(("f", "x"))),
        ("(f(x))", Text(("f", "x"))),
        ("4e6b", Text(("4e6", "b"))),
        ("tag:RL", TagTerm("rl")),
        ("tag:rl*", TagTerm("rl", prefix=True)),
        ("Title:Foo-Bar", Substring("title", "foo bar")),
        ('author:"Smith, J."', Substring("author", "smith", "j.")),
        ("author:Müller", Substring("author", "muller")),
        ("status:To-Read", Status("to-read")),
        ("priority:none", Priority(None)),
        ("priority:high", Priority(1)),
        ("year:2024", Year(2024, 2024)),
        ("year:..2019", Year(None, 2019)),
        ("year:2020..", Year(2020, None)),
        ("added:-7d..", DateRange("added", DateSpec("ago", amount=7, unit="d"), None)),
        ("added:-2w", DateRange("added", DateSpec("ago", amount=2, unit="w"), None)),
        (
            "added:2026-05",
            DateRange(
                "added", DateSpec("date", year=2026, month=5), DateSpec("date", year=2026, month=5)
            ),
        ),
        ("read:today", DateRange("read", DateSpec("day"), DateSpec("day"))),
        ("key:Smith*", Key("smith", prefix=True)),
        ("doi:DOI:10.1000/ABC.", Doi("10.1000/abc")),
        ("doi:10.1145/*", Doi("10.1145/", prefix=True)),
        ("arxiv:arXiv:2401.01234v3", Arxiv("2401.01234")),
        ("arxiv:hep-th/9901001", Arxiv("hep-th/9901001")),
        ("has:Notes", Has("notes")),
        ("is:provisional", Is("provisional")),
        ("-tag:old", Not(TagTerm("old"))),
        ("--tag:old", TagTerm("old")),
        ("NOT -a", Text(("a",))),
        ("a b", And((Text(("a",)), Text(("b",))))),
        ("a AND b", And((Text(("a",)), Text(("b",))))),
        ("a OR b c", And((Or((Text(("a",)), Text(("b",)))), Text(("c",))))),
        ("a (b OR c)", And((Text(("a",)), Or((Text(("b",)), Text(("c",))))))),
        ("-(a OR b)", Not(Or((Text(("a",)), Text(("b",)))))),
        ("or and not", And((Text(("or",)), Text(("and",)), Text(("not",))))),
        ('"OR"', Text(("or",))),
    ],
)
def test_parse(query_text: str, tree: query.Query) -> None:
    assert query.parse(query_text) == tree


@pytest.mark.parametrize(
    ("query_text", "message"),
    [
        ("status:done", "unknown status 'done'; use one of new, to-read, reading, read, skipped"),
        ("priority:urgent", "unknown priority 'urgent'; use one of high, medium, low, none"),
        ("foo:bar", "unknown field 'foo'"),
        ("has:pdf", "unknown has:pdf"),
        ("is:read", "unknown is:read"),
        ("year:20x", "year:20x is not a year"),
        ("year:2024..2020", "year:2024..2020 starts after it ends"),
        ("year:..", "year:.. needs at least one end"),
        ("added:2026-13-01", "'2026-13-01' is not a date"),
        ("added:lastweek", "'lastweek' is not a date"),
        ("added:2026-06..2026-05", "starts after it ends"),
        ("doi:nothing", "doi:nothing is not a DOI"),
        ("arxiv:1234", "arxiv:1234 is not an arXiv id"),
        ("title:", "title: needs a value"),
        ("title:!!", "has no letters or digits"),
        ("tag:*", "names no tag"),
        ('"open', "a quote '\"' is not closed"),
        ("(a", "'(' without a matching ')'"),
        ("a)", "')' without a matching '('"),
        ("()", "empty parentheses"),
        ("a OR", "OR needs a term on both sides"),
        ("OR a", "OR needs a term on both sides"),
        ("a OR OR b", "OR needs a term on both sides"),
        ("a AND", "AND needs a term on both sides"),
        ("-", "'-' must be followed directly by the term it excludes"),
        ("a - b", "'-' must be followed directly"),
        ("NOT", "NOT needs a term after it"),
        ("!!!", "'!!!' has no letters or digits to search for"),
        ("*", "has no letters or digits"),
        ("(" * 40 + "a" + ")" * 40, "nested deeper than 32"),
        ("-" * 40 + "a", "nested deeper than 32"),
        (" ".join(["a"] * 201), "more than 200 terms"),
        ("key:caf\udce9", "bytes that are not UTF-8"),
    ],
)
def test_invalid_queries(query_text: str, message: str) -> None:
    with pytest.raises(InvalidQuery) as caught:
        query.parse(query_text)
    assert message in caught.value.reason
    message = str(caught.value)
    if len(query_text) < 100:
        assert message == f"invalid query {query_text!r}: {caught.value.reason}"
    assert message.startswith("invalid query '")
    assert message.endswith(f": {caught.value.reason}")
    assert caught.value.query == query_text
    assert "\n" not in message


def test_field_names_of_help_and_parser_agree() -> None:
    from readinglist.cli._query import QUERY_HELP
    from readinglist.cli.list_ import SORT_FIELDS

    for name in query.FIELDS:
        assert f"{name}:" in QUERY_HELP
    assert SORT_FIELDS == query.SORT_KEYS


@pytest.mark.parametrize(
    ("words", "joined"),
    [
        (["-tag:old", "year:2024"], "-tag:old year:2024"),
        (["self correction"], '"self correction"'),
        (["title:self correction"], 'title:"self correction"'),
        (["-author:van der Berg"], '-author:"van der Berg"'),
        (["Re: Zero two"], '"Re: Zero two"'),
        (['say "hi" there'], '"say  hi  there"'),
        (['Schr{\\"o}dinger equation'], '"Schr{\\"o}dinger equation"'),
        (['"already a phrase"'], '"already a phrase"'),
        (["ends in \\"], '"ends in \\ "'),
    ],
)
def test_join_words(words: list[str], joined: str) -> None:
    assert query.join_words(words) == joined


# --- the same words on both databases -------------------------------------------------------


def test_postgresql_indexes_exactly_our_words(engine: Any) -> None:
    """to_tsvector('simple', search_text) yields the words search_tokens wrote, for
    random words built to hit PostgreSQL's number parsing (1e5, 7e0l, 0x1f, 1st)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's text-search parser only")
    rng = random.Random(6)
    pools = [string.ascii_lowercase + string.digits, string.digits, "e0123456789", "abcxe0"]
    docs = []
    for _ in range(400):
        words = [
            "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 9)))
            for _ in range(8)
        ]
        docs.append(search_document(" ".join(words)))
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT d, array(SELECT unnest(tsvector_to_array(to_tsvector('simple', d)))) "
                "FROM unnest(CAST(:docs AS text[])) AS d"
            ),
            {"docs": docs},
        ).all()
    for doc, lexemes in rows:
        assert sorted(lexemes) == sorted(set(doc.split())), doc
        assert search_tokens(doc) == doc.split()


# --- fuzzing --------------------------------------------------------------------------------

QUERY_ALPHABET = st.sampled_from(
    [
        *"abcxyz019 -\"*():.,\\/{}'_%\n\u00f6\u00e9\u201c",
        *("OR", "AND", "NOT", "..", "-7d", "tag:", "year:", "added:", "status:", "key:"),
        *("doi:", "arxiv:", "has:", "is:", "author:", "title:", "venue:", "priority:"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(QUERY_ALPHABET, max_size=30).map("".join) | st.text(max_size=60))
@example("'sim")
def test_parser_raises_only_invalid_query(query_text: str) -> None:
    try:
        tree = query.parse(query_text)
    except InvalidQuery as err:
        error: InvalidQuery | None = err
    else:
        error = None
    if error is not None:
        assert error.query == query_text
        assert "\n" not in error.reason
        return
    for dialect_name, dialect in (
        ("sqlite", sqlite.dialect()),
        ("postgresql", postgresql.dialect()),
    ):
        clause = query.to_clause(tree, dialect_name, now=NOW, venues=["NeurIPS", "ICML 2026"])
        compiled = str(select(Paper.id).where(clause).compile(dialect=dialect))
        # Our own SQL's fixed literal (the text-search configuration) is not user text:
        # hypothesis found "'sim" in to_tsquery('simple', ...).
        compiled = compiled.replace("'simple'", "")
        for word in query_text.split():
            if len(word) > 3 and not word.isalnum() and word not in ("AND", "NOT"):
                assert word not in compiled, "user text must only reach SQL as a parameter"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=6))
def test_join_words_gives_the_parser_phrases(words: list[str]) -> None:
    with contextlib.suppress(InvalidQuery):
        query.parse(query.join_words(words))
    for word in words:
        if any(ch.isspace() for ch in word) and search_tokens(word):
            body = word.lstrip("-") if word.startswith("-") and not word[1:2].isspace() else word
            tree = query.parse(query.join_words([word]))
            inner = tree.child if isinstance(tree, Not) else tree
            if isinstance(inner, Text):
                assert inner.words == tuple(search_tokens(body))


def test_pathological_input_is_quick() -> None:
    for hostile in ("(" * 10_000, "-" * 10_000 + "a", "a " * 10_000, '"' * 9_999):
        with pytest.raises(InvalidQuery):
            query.parse(hostile)
