"""Issue 17: commands a person types stay light, whole-library reads stream, and the
PostgreSQL import's look-ups keep an index plan.

* completion of keys and tags runs without importing SQLAlchemy (``sys.modules`` of a
  completing process), on SQLite (stdlib ``sqlite3``, read-only) and PostgreSQL (psycopg);
* a run imports only the module of its command (lazy registration).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_database
from helpers import run_forked

#: A process that completes ``COMP_WORDS`` the way bash asks Click to, then prints the
#: candidates and the modules it imported as one JSON line on stderr.
COMPLETE = """
import json, os, sys
sys.argv = ["readinglist"]
from readinglist.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def complete(db_url: str, words: str, cword: int) -> tuple[list[str], set[str]]:
    """Return the candidates of completing ``words`` at word ``cword`` and the modules
    the completing process imported."""
    env = {
        **os.environ,
        "_READINGLIST_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
        "READINGLIST_DB": db_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", COMPLETE], env=env, capture_output=True, text=True, check=True
    )
    values = [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]
    return values, set(json.loads(done.stderr.strip().splitlines()[-1]))


def library(invoke: Callable[..., Any], tmp_path: Path) -> None:
    """Three papers, one with an alias, two tags."""
    bib = tmp_path / "three.bib"
    bib.write_text(
        "".join(
            f"@misc{{{key}, title = {{{title}}}, year = {{{year}}}}}\n"
            for key, title, year in (
                ("Vaswani2017", "Attention", 2017),
                ("vapnik1995", "Support vectors", 1995),
                ("ho2020", "Denoising diffusion", 2020),
            )
        )
    )
    assert invoke("import", str(bib)).exit_code == 0
    assert invoke("rekey", "ho2020", "ho2020denoising").exit_code == 0
    assert invoke("tag", "add", "ML/theory", "vapnik1995").exit_code == 0
    assert invoke("tag", "add", "vision", "ho2020denoising").exit_code == 0


def test_completion_of_keys_and_tags_does_not_import_sqlalchemy(
    invoke: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    library(invoke, tmp_path)
    keys, modules = complete(db_url, "readinglist show VA", 2)
    assert keys == ["vapnik1995", "Vaswani2017"]
    # A REF or TAG argument is answered before Click is imported (cli/_fast.py).
    fast = ("sqlalchemy", "click", "readinglist.cli._root", "readinglist.cli.list_")
    assert not {m for m in modules if m.startswith(fast)}
    aliases, _ = complete(db_url, "readinglist mark read ho", 3)
    assert aliases == ["ho2020", "ho2020denoising"]
    tags, modules = complete(db_url, "readinglist tag add ml", 3)
    assert tags == ["ML/theory"]
    assert not {m for m in modules if m.startswith((*fast, "readinglist.cli.tag"))}
    # A prefix with LIKE's wildcards is text, not a pattern.
    assert complete(db_url, "readinglist show v_", 2)[0] == []
    # A query word: field names, then tag names; the query vocabulary alone is imported
    # (the query package imported its compiler and SQLAlchemy: 0.43 s CPU a TAB).
    fields, modules = complete(db_url, "readinglist list sta", 2)
    assert fields == ["status:"]
    tags, modules_tag = complete(db_url, "readinglist list tag:vi", 2)
    assert tags == ["tag:vision"]
    for loaded in (modules, modules_tag):
        assert not {m for m in loaded if m.split(".")[0] == "sqlalchemy"}
        assert "readinglist.query.compiler" not in loaded
        # Click answers these, with the module of the command completed alone.
        assert "readinglist.cli.list_" in loaded
        assert "readinglist.cli.export" not in loaded


def test_completion_of_a_missing_sqlite_file_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "none.db"
    assert complete(str(path), "readinglist show a", 2)[0] == []
    assert not path.exists()


#: The imports of ``list`` and ``export`` (with the database's driver), made once before
#: the commands are forked (:func:`helpers.run_forked`): code is not the command's memory,
#: and importing it under tracemalloc took a third of a small run's time. SQLAlchemy's
#: dialect imports its driver at the first connection: ``psycopg`` (4.5 MB traced, 0.5 s
#: of CPU a command under tracemalloc) is imported here, and so are the modules the
#: commands import on first use (every command, whole or small, imported them alike).
TRACED_IMPORTS = """
import sys
from readinglist.cli import main
import sqlalchemy.orm, readinglist.library  # start-up imports are not the command's memory
import readinglist.cli.list_, readinglist.cli.export, readinglist.pipelines.exporting
import readinglist.formats.markdown, readinglist.formats.csljson, readinglist.formats.ris
import readinglist.library.listing, readinglist.library.hooks, readinglist.query.compiler
import readinglist.ranking.fitted, readinglist.cli._rank, readinglist.ranking.model
import readinglist.ranking.stored, readinglist.ranking.trust, readinglist.render, scipy.sparse
import readinglist.db, readinglist.cli._root, readinglist.opening, readinglist.library.readers
import readinglist.library.refs, readinglist.query.parser, readinglist.query.statements
import sqlalchemy.dialects.postgresql.psycopg, sqlalchemy.dialects.sqlite.pysqlite
import readinglist.schema_objects, readinglist.jsontext, readinglist.library.marks
import readinglist.formats.csljson_write, readinglist.formats.bibtex.fields
import readinglist.formats.bibtex.encode, psycopg, zoneinfo  # PostgreSQL's driver: 4.5 MB
"""

#: Runs ``readinglist ARGS`` (``sys.argv``) with stdout to the null device under
#: tracemalloc and prints the peak of Python allocations made by the command (after
#: start-up: :data:`TRACED_IMPORTS`) in bytes, on stderr.
TRACED = """
import os, tracemalloc
sys.stdout = open(os.devnull, "w")
tracemalloc.start()
try:
    main()
except SystemExit:
    pass
print(tracemalloc.get_traced_memory()[1], file=sys.stderr)
"""


def traced_peaks(db_url: str, folder: Path, *commands: tuple[str, ...]) -> list[int]:
    """Return the peak bytes allocated while each ``readinglist --db db_url ARGS`` of
    ``commands`` ran, each in a process of its own (forked after the imports)."""
    done = run_forked(
        [["--db", db_url, *args] for args in commands],
        folder,
        prelude=TRACED_IMPORTS,
        body=TRACED,
    )
    for run in done:
        assert run.returncode == 0, (run.args, run.stderr)
    return [int(run.stderr.strip().splitlines()[-1]) for run in done]


def title(number: int) -> str:
    """Six made-up words, different for every ``number`` (so that no two papers merge)."""
    digest = hashlib.sha256(str(number).encode()).hexdigest()
    return " ".join("w" + digest[i : i + 6] for i in range(0, 36, 6))


def generated_entry(i: int) -> str:
    """Paper ``i`` of the generated libraries as a BibTeX entry: a title of
    :func:`title` and "salmon", a DOI, two authors, a journal, a year, an abstract."""
    return (
        f"@article{{p{i}, title = {{{title(i)} salmon}}, doi = {{10.5555/p{i}}}, "
        f"author = {{Family{i}, Given and Other, Person}}, journal = {{J. Fish}}, "
        f"year = {{{1950 + i % 70}}}, abstract = {{{(title(i) + ' ') * 8}}}}}"
    )


#: The papers of the memory tests' library: 2.5 chunks of ``library.RECORD_CHUNK``
#: (1,000), so a command that holds one chunk at a time is told apart from one holding
#: every paper (see the bounds of the two tests: measured on both databases).
PAPERS = 2500


def many_papers(url: str, count: int = PAPERS) -> None:
    """Add ``count`` generated papers (:func:`generated_entry`, its text kept as the
    entry's source text), all tagged ``fish``, to the library at ``url`` in one import
    batch: ``library.import_records`` of the records, the rows an import of their file
    (``import --tag fish``) writes, but for the reader's copy check of each entry's
    text (``source_check``: a BibTeX export's question, not one of these tests),
    without the BibTeX reading (3.2 s of CPU of the 5.3 s of the ``import`` command
    on SQLite). Lists and exports of the two libraries are the same text."""
    from readinglist import db, library
    from readinglist.records import PaperRecord, Person

    records = [
        PaperRecord(
            citekey=f"p{i}",
            entry_type="article",
            title=f"{title(i)} salmon",
            doi=f"10.5555/p{i}",
            authors=(
                Person(family=f"Family{i}", given="Given"),
                Person(family="Other", given="Person"),
            ),
            venue="J. Fish",
            year=1950 + i % 70,
            abstract=(title(i) + " ") * 8,
            fields={"journal": "J. Fish"},
            source_text=generated_entry(i),
        )
        for i in range(count)
    ]
    engine = db.make_engine(url)
    try:
        with db.session_scope(engine) as session:
            report = library.import_records(
                session, records, source="many.bib", fmt="bibtex", tags=["fish"]
            )
            assert len(report.added) == count
    finally:
        engine.dispose()


#: The commands whose peaks the memory tests compare: each whole-library command, then
#: the same command on a few papers (``--limit 10``; ``year:1950``: 36 papers).
LIST_COMMANDS = (("list", "--json"), ("list",), ("list", "--json", "--limit", "10"))
EXPORT_FORMATS = ("markdown", "csl-json", "ris")
EXPORT_COMMANDS = tuple(
    command
    for fmt in EXPORT_FORMATS
    for extra in [("--abstracts",) if fmt == "markdown" else ()]
    for command in (("export", fmt, *extra), ("export", fmt, *extra, "year:1950"))
)


#: The tests of :func:`traced_library` on one database run on one xdist worker (``--dist
#: loadgroup``): each database's library is built and traced once, not once per worker;
#: the two databases' go to two workers at once (one group for both ran them one after
#: the other, the longest stretch of a run).
TRACED_PARAMS = [
    pytest.param(kind, marks=pytest.mark.xdist_group(f"test_scale-traced_library-{kind}"))
    for kind in ("sqlite", "postgresql")
]


@pytest.fixture(scope="module", params=TRACED_PARAMS)
def traced_library(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[tuple[str, ...], int]]:
    """The peak bytes (:func:`traced_peaks`) of every command of :data:`LIST_COMMANDS`
    and :data:`EXPORT_COMMANDS` on a library of :data:`PAPERS` generated papers
    (:func:`many_papers`), on SQLite, then on PostgreSQL: built and traced once (per
    xdist worker, the commands forked from one process) for the two tests that read the
    figures."""
    folder = tmp_path_factory.mktemp("scale")
    urls = make_database(request.param, request, folder)
    url = next(urls)
    many_papers(url)
    commands = LIST_COMMANDS + EXPORT_COMMANDS
    yield dict(zip(commands, traced_peaks(url, folder / "runs", *commands), strict=True))
    next(urls, None)


def test_listing_many_papers_streams_in_bounded_memory(
    traced_library: dict[tuple[str, ...], int],
) -> None:
    """list --json and the table of 2,500 papers allocate a bounded amount: the ids and
    one chunk of records, not every paper (the ORM listing of main took 86 MB more than
    10 papers at 5,000 papers; this takes ~0)."""
    as_json, table, small = (traced_library[command] for command in LIST_COMMANDS)
    # Beyond what listing 10 papers takes (caches, compiled SQL, the query machinery):
    # the 2,500 ids and one chunk of 1,000 records, a few MB; not 2,500 papers. Measured
    # (SQLite / PostgreSQL): --json 4.0 / 4.3 MB, the table 1.6 / 1.9 MB; with every
    # paper in one chunk (RECORD_CHUNK past the library) 6.4 / 7.2 MB and 3.1 / 3.9 MB.
    assert as_json - small < 5_200_000, (as_json, small)
    assert table - small < 2_500_000, (table, small)


def test_exporting_many_papers_streams_in_bounded_memory(
    traced_library: dict[tuple[str, ...], int],
) -> None:
    """export markdown, csl-json and ris of 2,500 papers hold one chunk of records at a
    time (and, for Markdown, a light outline of every paper to group and order them),
    not every record and the whole text (issue 17)."""
    peaks = [traced_library[command] for command in EXPORT_COMMANDS]
    # each format's whole export less its export of 36 papers
    growth = {fmt: peaks[2 * i] - peaks[2 * i + 1] for i, fmt in enumerate(EXPORT_FORMATS)}
    # Beyond one chunk: library.rows' PersonRecord cache (one record per distinct name,
    # shared by the papers naming it; emptied past PERSON_CACHE names) for the 5,000
    # names of these papers. Measured (SQLite / PostgreSQL): csl-json 5.2 / 5.5 MB, ris
    # 5.0 / 5.3 MB, markdown 4.9 / 4.7 MB; with every paper in one chunk (RECORD_CHUNK
    # past the library) 7.7 / 7.9, 7.8 / 8.0 and 7.3 / 7.3 MB. Session 6 main (every
    # record and the whole text) took 40.8, 33.9 and 23.6 MB at 5,000 papers.
    assert growth["csl-json"] < 6_600_000, growth
    assert growth["ris"] < 6_600_000, growth
    assert growth["markdown"] < 6_200_000, growth


def test_streamed_writers_give_the_text_of_one_call() -> None:
    """The pieces of ``write_chunks`` joined are the text of ``write``, across chunk
    boundaries (RIS chunks of 2 here) and for no records."""
    from readinglist.formats import csljson, markdown, ris
    from readinglist.records import PaperRecord

    records = [
        PaperRecord(citekey=f"k{i}", title=f"T{i}\nline", year=2000 + i, status="read")
        for i in range(5)
    ]
    assert "".join(ris.write_chunks(records, chunk=2)) == ris.write(records)
    assert ris.write(records).count("ER  - \n\nTY  - ") == 4
    assert "".join(csljson.write_chunks([])) == "[]\n"
    pieces = list(csljson.write_chunks(records, chunk=2))  # items 2 at a time (issue 17)
    assert len(pieces) == 3
    assert "".join(pieces) == csljson.write(records)
    assert json.loads(csljson.write(records))[4]["id"] == "k4"
    light = [PaperRecord(citekey=r.citekey, status=r.status, year=r.year) for r in records]
    full = {r.citekey: r for r in records}
    streamed = markdown.write_chunks(
        light, complete=lambda members: [full[m.citekey or ""] for m in members], abstracts=True
    )
    assert "".join(streamed) == markdown.write(records, abstracts=True)


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh PostgreSQL database (the import plan is PostgreSQL's question)."""
    yield from make_database("postgresql", request, tmp_path)


#: The one look-up of an import that reads ``papers`` whole: once per import, before
#: its first chunk (``matching.load_pool``), over the papers an incoming bibliography
#: may complete; ``citekey_provisional`` has no index (a migration's work). Not per
#: chunk, so it does not make an import grow faster than linearly.
ONCE_PER_IMPORT = "WHERE papers.title_provisional = true OR papers.citekey_provisional = true"


#: Papers ``start`` to ``stop - 1`` of :func:`generated_library` (``:akeys``: their
#: ``abstract_key``, or NULLs for papers without an abstract): the columns and values an
#: import of ``PaperRecord(citekey=p<i>, entry_type="article", title=f"{title(i)}
#: salmon", doi=10.5555/p<i>, year=1950 + i % 70)`` stores, with ``arxiv=2401.<i:05d>,
#: abstract=(title(i) + " ") * 4`` (``:abstracts``) or with the authors ``Family<i>,
#: Given`` and ``Other`` and the tag ``fish`` (search text only here; their rows:
#: :data:`GENERATED_LINKS`). Its words are already folded: the title is its own
#: ``title_key``. ``title`` is computed by PostgreSQL (``sha256``); ``abstract_key``
#: (SHA-1, which PostgreSQL has not without pgcrypto) is given.
GENERATED_PAPERS = """
INSERT INTO papers (citekey, citekey_folded, entry_type, title, title_provisional,
    title_key, year, abstract, abstract_key, doi, arxiv, fields, search_text, added_at,
    updated_at, batch_id, citekey_provisional)
SELECT 'p' || i, 'p' || i, 'article', words || ' salmon', false, words || ' salmon',
    1950 + i % 70, CASE WHEN :abstracts THEN repeat(words || ' ', 4) END, akey,
    '10.5555/p' || i, CASE WHEN :abstracts THEN '2401.' || lpad(i::text, 5, '0') END, '{}',
    words || ' salmon ' || CASE WHEN :abstracts THEN rtrim(repeat(words || ' ', 4))
                                ELSE 'family' || i || ' given other fish' END,
    now(), now(), :batch, false
FROM (
    SELECT i, akey, (SELECT string_agg('w' || substr(h, k, 6), ' ' ORDER BY k)
                     FROM generate_series(1, 31, 6) AS k) AS words
    FROM (SELECT i, encode(sha256(convert_to(i::text, 'UTF8')), 'hex') AS h, akey
          FROM unnest(CAST(:akeys AS text[])) WITH ORDINALITY AS a(akey, n),
               LATERAL (SELECT (:start + n - 1)::int AS i) AS numbered) AS hashed
) AS generated
"""

#: The authors and tag rows of papers ``:start`` to ``:stop - 1`` of
#: :data:`GENERATED_PAPERS` without abstracts, as an import writes them.
GENERATED_LINKS = (
    """INSERT INTO people (name_key, family, given, von, jr, literal, family_folded,
        name_folded)
    SELECT 'Family' || i || '|Given|||', 'Family' || i, 'Given', '', '', '', 'family' || i,
        'given family' || i FROM generate_series(:start, :stop - 1) AS i
    UNION ALL SELECT 'Other||||', 'Other', '', '', '', '', 'other', 'other'
    ON CONFLICT (name_key) DO NOTHING""",
    """INSERT INTO paper_people (paper_id, role, position, person_id)
    SELECT papers.id, 'author', 0, people.id FROM generate_series(:start, :stop - 1) AS i
    JOIN papers ON papers.citekey_folded = 'p' || i
    JOIN people ON people.name_key = 'Family' || i || '|Given|||'
    UNION ALL
    SELECT papers.id, 'author', 1, people.id FROM generate_series(:start, :stop - 1) AS i
    JOIN papers ON papers.citekey_folded = 'p' || i
    JOIN people ON people.name_key = 'Other||||'""",
    """INSERT INTO tags (name, name_folded) VALUES ('fish', 'fish')
    ON CONFLICT (name_folded) DO NOTHING""",
    """INSERT INTO paper_tags (paper_id, tag_id)
    SELECT papers.id, tags.id FROM generate_series(:start, :stop - 1) AS i
    JOIN papers ON papers.citekey_folded = 'p' || i JOIN tags ON tags.name_folded = 'fish'""",
)


def generated_library(session: Any, count: int, *, abstracts: bool) -> None:
    """Write, in ``session``'s transaction on PostgreSQL, what one import of ``count``
    generated papers (:data:`GENERATED_PAPERS`; with ``abstracts``, else with authors
    and a tag: :data:`GENERATED_LINKS`) writes: its batch, its rows, and its
    statistics (``Statistics``: analysed after 1k, 2k ... papers, so last after the
    largest power-of-two thousand below ``count``), without the import's Python work
    (reading, folding, ``COPY``): a few seconds of CPU a test. Checks that a sample
    paper's keys are those the import computes (``title_key``, ``abstract_key``)."""
    from sqlalchemy import text

    from readinglist import dedupe
    from readinglist.library._sql import Statistics
    from readinglist.text import title_key

    batch = session.scalar(
        text(
            "INSERT INTO import_batches (source, format, started_at, added, merged, rejected)"
            " VALUES ('gen.bib', 'bibtex', now(), :count, 0, 0) RETURNING id"
        ),
        {"count": count},
    )
    statistics = Statistics(session)
    last = statistics.next
    while 2 * last <= count:
        last *= 2
    for start, stop in ((0, last), (last, count)):
        akeys = [
            dedupe.abstract_key_of_words(title(i).split() * 4) if abstracts else None
            for i in range(start, stop)
        ]
        values = {"akeys": akeys, "start": start, "stop": stop, "batch": batch}
        session.execute(text(GENERATED_PAPERS), {**values, "abstracts": abstracts})
        if not abstracts:
            for statement in GENERATED_LINKS:
                session.execute(text(statement), values)
        if start == 0:
            statistics.grew(last)  # one ANALYZE: the import's last
    sample = session.execute(
        text("SELECT title, title_key, abstract, abstract_key FROM papers WHERE citekey = 'p7'")
    ).one()
    assert sample.title_key == title_key(sample.title)
    assert sample.abstract_key == dedupe.abstract_key(sample.abstract)


def test_postgresql_dedupe_look_ups_keep_an_index_plan_after_20000_rows(pg_url: str) -> None:
    """Issue 17: 20,000 papers imported in one transaction (never analysed but by the
    import itself, as in a long import: the rows and the ANALYZE it writes, inserted
    by :func:`generated_library` without the import's Python work), then a second import in that transaction whose
    records take existing keys (so their suffixed forms are looked up), DOIs, arXiv
    ids, titles and abstracts: EXPLAIN of every SELECT it issued (the statement and
    parameters it sent) finds no Seq Scan on ``papers`` but :data:`ONCE_PER_IMPORT`.
    main looked up the suffixed forms of a taken key with ``LIKE 'key%'``, a Seq Scan."""
    from sqlalchemy import event

    from readinglist import db, library
    from readinglist.records import PaperRecord

    count = 20_000

    def record(i: int, key: str, doi: str, arxiv: str, words: int) -> PaperRecord:
        return PaperRecord(
            citekey=key,
            entry_type="article",
            title=f"{title(words)} salmon",
            doi=doi,
            arxiv=arxiv,
            abstract=(title(words) + " ") * 4,
            year=1950 + words % 70,
        )

    second = [
        # an existing key (p0..p299 taken: p0a.. looked up), new everything else
        *(
            record(i, f"p{i - count}", f"10.1/n{i}", f"2402.{i:05d}", i)
            for i in range(count, count + 300)
        ),
        # an existing DOI, arXiv id, title: merges
        *(record(i, f"d{i}", f"10.5555/p{i}", f"2401.{i:05d}", i) for i in range(300, 400)),
        *(
            record(i, f"a{i}", f"10.2/a{i}", f"2401.{i:05d}", 10 * count + i)
            for i in range(400, 500)
        ),
        *(record(i, f"t{i}", f"10.3/t{i}", f"2403.{i:05d}", i) for i in range(500, 600)),
    ]
    engine = db.make_engine(pg_url)
    issued: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "papers" in statement:
            issued.append((statement, parameters))

    try:
        with db.session_scope(engine) as session:
            generated_library(session, count, abstracts=True)
            event.listen(engine, "before_cursor_execute", capture)
            report = library.import_records(session, second, source="two.bib", fmt="bibtex")
            event.remove(engine, "before_cursor_execute", capture)
            assert (len(report.added), len(report.present)) == (500, 100)  # DOI: present
            raw = session.connection().connection.dbapi_connection
            assert raw is not None
            seq, seen = [], set()
            for statement, parameters in issued:
                if statement in seen:
                    continue
                seen.add(statement)
                cursor = raw.cursor()
                cursor.execute(f"EXPLAIN {statement}", parameters)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                if "Seq Scan on papers" in plan and ONCE_PER_IMPORT not in statement:
                    seq.append(f"{statement[:200]}\n{plan}")
            assert len(seen) >= 8, sorted(seen)  # keys, DOI, arXiv, title, abstract, rows...
            assert not seq, "\n\n".join(seq)
            # the suffixed forms of taken keys were looked up (p0 taken: p0a is free)
            assert any("p0a" in str(parameters) for _, parameters in issued)
    finally:
        engine.dispose()


def test_postgresql_statistics_are_refreshed_when_an_import_has_doubled(pg_url: str) -> None:
    """A 100,000-paper import fed 1,000 at a time analyses ``papers`` 7 times (after
    1k, 2k, 4k, 8k, 16k, 32k and 64k papers), not once per chunk; SQLite never."""
    from readinglist import db
    from readinglist.library._sql import Statistics

    engine = db.make_engine(pg_url)
    try:
        with db.session_scope(engine) as session:
            statistics = Statistics(session)
            for _ in range(100):
                statistics.grew(1000)
            assert statistics.runs == 7
            assert statistics.next == 128_000
    finally:
        engine.dispose()
    lite = db.make_engine("sqlite://")
    try:
        with db.session_scope(lite) as session:
            statistics = Statistics(session)
            statistics.grew(50_000)
            assert statistics.runs == 0
    finally:
        lite.dispose()


#: The tables an import reads the people and tags of its duplicate candidates from
#: (``rows.load_papers``), which grow with the library.
LINK_TABLES = ("paper_people", "people", "paper_tags")


def test_postgresql_candidates_people_and_tags_keep_an_index_plan_after_20000_rows(
    pg_url: str,
) -> None:
    """Issue 17 (session 8): 20,000 papers with two authors and a tag imported in one
    transaction (the rows and the ANALYZE the import writes: :func:`generated_library`),
    then a second import in it whose ten records are duplicates (same
    DOI) of ten of them: the queries loading those candidates' people and tags
    (``paper_people JOIN people``, ``paper_tags JOIN tags``) scan no table of
    :data:`LINK_TABLES`. ``paper_people`` was never analysed during an import: ten ids
    were taken to match 0.5% of its rows each, and PostgreSQL hashed all of ``people``
    for every chunk that found a duplicate (111 ms at 300,000 papers)."""
    from sqlalchemy import event

    from readinglist import db, library
    from readinglist.records import PaperRecord, Person

    count = 20_000

    def record(i: int) -> PaperRecord:
        return PaperRecord(
            citekey=f"p{i}",
            entry_type="article",
            title=f"{title(i)} salmon",
            doi=f"10.5555/p{i}",
            year=1950 + i % 70,
            authors=(Person(family=f"Family{i}", given="Given"), Person(family="Other")),
        )

    engine = db.make_engine(pg_url)
    issued: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and any(
            table in statement for table in ("paper_people", "paper_tags")
        ):
            issued.append((statement, parameters))

    try:
        with db.session_scope(engine) as session:
            generated_library(session, count, abstracts=False)
            event.listen(engine, "before_cursor_execute", capture)
            again = [record(i) for i in range(0, count, count // 10)]
            report = library.import_records(
                session, again, source="two.bib", fmt="bibtex", tags=["fish"]
            )
            event.remove(engine, "before_cursor_execute", capture)
            assert len(report.present) == 10
            raw = session.connection().connection.dbapi_connection
            assert raw is not None
            scans = []
            for statement, parameters in issued:
                cursor = raw.cursor()
                cursor.execute(f"EXPLAIN {statement}", parameters)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                if any(f"Seq Scan on {table} " in plan for table in LINK_TABLES):
                    scans.append(f"{statement[:300]}\n{plan}")
            joined = " ".join(statement for statement, _ in issued)
            assert "JOIN people" in joined, joined
            assert "paper_tags" in joined, joined
            assert not scans, "\n\n".join(scans)
    finally:
        engine.dispose()


#: The entries of the WAL test's import: their log is several times the 4 MiB SQLite keeps.
WAL_ENTRIES = 5_000


@pytest.mark.slow  # 5,000 entries: a WAL (~13 MB) well past the 4 MiB kept
def test_a_5000_entry_import_leaves_a_small_sqlite_wal(sqlite_url: str, tmp_path: Path) -> None:
    """Issue 17: the write-ahead log a long import filled (~13 MB for 5,000 entries,
    55 MB for 20,000, 2 GB for 500,000) is checkpointed and truncated after the commit, even while
    another connection keeps the library open (which keeps SQLite from deleting it
    at close); main left it at its full size."""
    import sqlite3

    from click.testing import CliRunner

    from readinglist.cli import cli

    bib = tmp_path / "many.bib"
    bib.write_text(
        "".join(
            f"@article{{p{i}, title = {{{title(i)} salmon}}, doi = {{10.5555/p{i}}}, "
            f"author = {{Family{i}, Given}}, year = {{{1950 + i % 70}}}, "
            f"abstract = {{{(title(i) + ' ') * 8}}}}}\n"
            for i in range(WAL_ENTRIES)
        )
    )
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    reader = sqlite3.connect(path)  # another process's open connection, idle
    try:
        assert reader.execute("SELECT count(*) FROM papers").fetchone() == (0,)
        result = CliRunner().invoke(cli, ["--db", sqlite_url, "import", str(bib)])
        assert result.exit_code == 0, result.output
        assert reader.execute("SELECT count(*) FROM papers").fetchone() == (WAL_ENTRIES,)
        wal = Path(f"{path}-wal")
        assert wal.stat().st_size == 0, wal.stat().st_size  # main: 55 MB
    finally:
        reader.close()
