"""Shared fixtures: real databases (an SQLite file and the PostgreSQL server), the CLI runner.

Every test that takes ``db_url`` (or ``engine``, ``session``, ``invoke``) runs twice:
on a fresh SQLite file and on a fresh PostgreSQL database at 127.0.0.1:5432 (unless
marked ``helpers.SQLITE_ONLY``: a usage error refused before the library is read, or
``helpers.SQLITE_SUFFICES``: a claim downstream of reads that tests/test_databases_agree.py
shows to be the same on both). Both
are cloned from a template migrated once per test session with the real Alembic
migrations (SQLite: online backup copy; PostgreSQL: ``CREATE DATABASE ... TEMPLATE``,
recycled in the background between tests, see :class:`pg_pool.PgDatabases`; commits do not
wait for the disk, see :data:`FAST_COMMITS`). PostgreSQL tests skip, with the reason,
only where no server answers.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from helpers import EXAMPLES, require_tools, shared_data, wait_for_tools
from hypothesis import settings
from pg_pool import PgDatabases
from tool_setup import install_running, uses_tools

#: Property tests draw the same examples on every run of the suite (``derandomize``: each
#: test's seed is a hash of the test), so a red run reproduces and a green one stays green
#: until the code changes. ``HYPOTHESIS_PROFILE=fuzz`` explores new random examples, many
#: more per test where a test sets no count: run it when working on a parser or writer,
#: and keep what it finds as a plain test.
settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("fuzz", max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: Every folder and PostgreSQL database the test run makes is named ``rltest<sep><pid>...``
#: after the pytest process that made it (each xdist worker its own), a prefix nothing else
#: uses. At the start of a run :func:`sweep_leftovers` removes those of processes that no
#: longer run (an interrupted or killed run); at its end each process removes its own.
RUN_PREFIX = "rltest"
RUN_PID = os.getpid()
#: This process's temporary folder: the caches of the run (online answers, ranking
#: matrices) and, through TMPDIR, the temporary files of the programs tests run (biber's
#: ``biber_tmp_*`` folders). Removed at the end of the run.
#: (xdist workers inherit the TMPDIR set below: the system temp folder is kept aside first.)
SYSTEM_TMP = Path(os.environ.setdefault("RLTEST_SYSTEM_TMP", tempfile.gettempdir()))
RUN_TMP = SYSTEM_TMP / f"{RUN_PREFIX}-{RUN_PID}-tmp"
RUN_TMP.mkdir(exist_ok=True)
os.environ.setdefault("READINGLIST_CACHE", str(RUN_TMP / "cache"))
# No reader from the environment or a configuration file of the account running the tests.
os.environ.pop("READINGLIST_READER", None)
os.environ["READINGLIST_CONFIG"] = str(RUN_TMP / "no-config.toml")
os.environ["TMPDIR"] = str(RUN_TMP)
# tempfile caches the folder it found first: forget it, so that pytest's own tmp_path
# folders (pytest-of-<user>/pytest-<n>, kept three runs by default) go into RUN_TMP too.
tempfile.tempdir = None
#: The run keeps bytecode even where PYTHONDONTWRITEBYTECODE is set (some containers set
#: it): else every xdist worker compiles readinglist and rewrites every test module from
#: source again (``pytest --collect-only``: 9 s of CPU instead of 3.4 s), and so does
#: every Python program a test runs (about 0.15 s of CPU each). Bytecode goes where
#: Python puts it by default, into the git-ignored ``__pycache__`` folders; the workers
#: and the programs tests run inherit the environment.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

#: Ctrl-C reaches the programs tests run as it reaches a user's: a run started from a
#: shell script in the background inherits SIGINT ignored (POSIX: ``&`` in a
#: non-interactive shell), and an ignored signal stays ignored across ``exec``, so the
#: Ctrl-C tests' programs would never see it (they waited out their deadlines instead).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

PG_ADMIN_URL = os.environ.get(
    "READINGLIST_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
HERE = Path(__file__).resolve().parent
#: Test databases on PostgreSQL commit without waiting for the WAL to reach the disk
#: (``synchronous_commit = off``): a commit is still atomic and at once visible to every
#: other session, and locks behave the same; only a crash of the *server* could lose the
#: last commits, which no test does. It makes a commit 2-3 times faster on this machine.
FAST_COMMITS = 'ALTER DATABASE "{name}" SET synchronous_commit = off'

__all__ = [
    "FAST_COMMITS",
    "PG_ADMIN_URL",
    "blank_pg_database",
    "make_database",
    "run_name",
    "shared_data",
]


def run_name(kind: str) -> str:
    """A new PostgreSQL database name of this test process: ``rltest_<pid>_<kind>_<hex>``."""
    return f"{RUN_PREFIX}_{RUN_PID}_{kind}_{uuid.uuid4().hex[:10]}"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _leftover(name: str, separator: str) -> bool:
    """True for a name of :data:`RUN_PREFIX` made by a process that no longer runs."""
    head, _, rest = name.partition(separator)
    pid = rest.partition(separator)[0]
    return head == RUN_PREFIX and pid.isdigit() and not _process_alive(int(pid))


def sweep_leftovers() -> list[str]:
    """Remove the temporary folders and PostgreSQL databases of earlier test processes that
    ended without cleaning up (interrupted, killed); return their names. Touches only names
    of :data:`RUN_PREFIX` whose process is gone, so concurrent test runs keep theirs."""
    import shutil

    removed = []
    for folder in SYSTEM_TMP.glob(f"{RUN_PREFIX}-*"):
        if _leftover(folder.name, "-"):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    try:
        admin = _pg_admin()
        with admin.connect() as conn:
            names = (
                conn.exec_driver_sql(
                    "SELECT datname FROM pg_database WHERE datname LIKE %(p)s",
                    {"p": f"{RUN_PREFIX}\\_%"},
                )
                .scalars()
                .all()
            )
            for name in names:
                if _leftover(name, "_"):
                    conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                    removed.append(name)
        admin.dispose()
    except Exception:  # no server: nothing of ours can be on it
        pass
    return removed


def pytest_sessionstart(session: pytest.Session) -> None:
    """Sweep the leftovers of interrupted earlier runs (see :func:`sweep_leftovers`)."""
    sweep_leftovers()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's temporary folder (:data:`RUN_TMP`) at the end of the run:
    at exit, after multiprocessing has removed its own ``pymp-*`` folder in it (its
    finalizer has exit priority -100; a lower one runs later), so neither fails."""
    import shutil
    from multiprocessing import util

    util.Finalize(
        None, shutil.rmtree, args=(str(RUN_TMP),), kwargs={"ignore_errors": True}, exitpriority=-200
    )


#: Parts of test ids known to take longest (measured with ``--durations``: real LaTeX runs
#: after each step, concurrent processes, fuzzed ranking caches, biber on the largest
#: files): run first.
LONGEST = (
    "test_exporting_many_papers_streams_in_bounded_memory",
    "test_listing_many_papers_streams_in_bounded_memory",
    "keep_an_index_plan_after_20000_rows",
    "test_real_document_compiles_after_each_step",
    "test_out_of_range_indices_never_reach_scipy",
    "test_fuzzed_cache_arrays_never_crash_a_ranking_command",
    "test_beebe_slice_with_macros_and_preambles_round_trips",
    "test_generated_library_round_trips_through_the_database",
    "cdl-bibliography",
    "acl-anthology",
    "beebe-fisheries",
    "acl-2020",
)


#: Whether setup-tools.sh's background installation was running when the run started
#: (:mod:`tool_setup`): decided once, by the first process (xdist's workers inherit the
#: answer), as every worker must collect the tests in the same order.
TOOLS_LAST = os.environ.setdefault("RLTEST_TOOLS_LAST", "1" if install_running() else "0") == "1"


def _weight(item: pytest.Item) -> int:
    """How early ``item`` should start: the longest known first, then ``slow``, then the
    tests that run real programs (``tools``), then the rest."""
    if any(part in item.nodeid for part in LONGEST):
        return 0
    if item.get_closest_marker("slow") is not None:
        return 1
    return 2 if item.get_closest_marker("tools") is not None else 3


#: Test modules whose real-program runs or parses are cached per test process, keyed by
#: the bytes they read (``helpers.compile_once``, ``functools.cache``): the SQLite and the
#: PostgreSQL run of one of their tests read the same bytes, so both go to one worker.
SHARED_BY_DATABASES = (
    "test_latex_allowlist_compile.py",
    "test_latex_injection.py",
    "test_pasted_math.py",
    "test_s11_fidelity.py",
    "test_bibtex_library_round_trip.py",
    "test_export_profiles_latex.py",
)


def _database_pair(item: pytest.Item) -> str | None:
    """The name shared by the two database runs of ``item`` (its id without the database
    parameter) when its module caches by input bytes, else None."""
    if item.path.name not in SHARED_BY_DATABASES or "[" not in item.nodeid:
        return None
    head, _, params = item.nodeid.partition("[")
    parts = [p for p in params.rstrip("]").split("-") if p not in ("sqlite", "postgresql")]
    # no "]" in a group's name: loadgroup takes the text after the last "@" for the group
    # only where that "@" comes after the last "]" of the id (pytest-xdist, loadgroup.py)
    return f"{head}({'-'.join(parts)})" if len(parts) < params.count("-") + 1 else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the longest tests first (a stable sort, the same in every xdist worker): they
    are spread over the workers at once instead of one of them ending the run alone on a
    test that started last. The two database runs of a test whose module caches by input
    bytes (:data:`SHARED_BY_DATABASES`) form one ``xdist_group`` (``--dist loadgroup``,
    collection order kept by ``--no-loadscope-reorder``): one worker runs both, so the
    second finds the first's programs' results. While setup-tools.sh still installs the
    test tools (:data:`TOOLS_LAST`), the tests that may run one come after all others."""
    if TOOLS_LAST:
        items.sort(key=lambda item: (uses_tools(item), _weight(item)))
    else:
        items.sort(key=_weight)
    for item in items:
        pair = _database_pair(item)
        if pair is not None:
            item.add_marker(pytest.mark.xdist_group(pair))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that may run a real program waits for setup-tools.sh's background
    installation, when one runs (:mod:`tool_setup`); one marked ``tools(NAME...)`` fails
    with one line when a program it runs is missing."""
    if uses_tools(item):
        wait_for_tools()
    for mark in item.iter_markers("tools"):
        require_tools(*mark.args)


def _pg_admin() -> Any:
    from sqlalchemy import create_engine

    return create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")


def _pg_url(name: str) -> str:
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture(autouse=True)
def _own_data_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has a data directory of its own (``XDG_DATA_HOME``, not yet made, in the
    run's folder; programs it runs inherit it): the exports it keeps are listed in a
    registry there (:mod:`readinglist.pipelines.kept_here`), never in the account's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(RUN_TMP / "data" / uuid.uuid4().hex))


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """Create a PostgreSQL database migrated at head to clone from; drop it at the end."""
    from sqlalchemy.exc import OperationalError

    from readinglist import db

    name = run_name("tpl")
    admin = _pg_admin()
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_ADMIN_URL} does not answer: {exc.orig}")
    engine = db.make_engine(_pg_url(name))
    db.ensure_schema(engine)
    engine.dispose()
    with admin.connect() as conn:
        conn.exec_driver_sql(FAST_COMMITS.format(name=name))
    yield name
    with admin.connect() as conn:  # dropped with the pool's databases; kept when none was
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Create an SQLite file migrated at head to copy from."""
    from readinglist import db

    path = tmp_path_factory.mktemp("template") / "template.db"
    engine = db.make_engine(f"sqlite:///{path}")
    db.ensure_schema(engine)
    engine.dispose()
    # closed: its last connection folded the write-ahead log into the file (SQLite's
    # checkpoint on close), so the file alone is the database and a copy of it is whole
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(scope="session")
def pg_databases(pg_template: str) -> Iterator[PgDatabases]:
    """The session's supply of fresh PostgreSQL databases (see :class:`pg_pool.PgDatabases`)."""
    supply = PgDatabases(_pg_admin(), pg_template, _pg_url, run_name, FAST_COMMITS)
    try:
        yield supply
    finally:
        supply.close(pg_template)


def _pg_database(request: pytest.FixtureRequest, blank: bool) -> Iterator[str]:
    """Yield the URL of a database of the pool (:class:`pg_pool.PgDatabases`): at head
    with no rows, or ``blank`` (no table); given back (recycled) afterwards."""
    supply: PgDatabases = request.getfixturevalue("pg_databases")
    name = supply.take_blank() if blank else supply.take()
    try:
        yield _pg_url(name)
    finally:
        supply.give_back(name)


def blank_pg_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """Yield the URL of a PostgreSQL database with no table at all, as a new database of
    the server (skip, with the reason, where no server answers); recycled afterwards."""
    yield from _pg_database(request, blank=True)


def _sqlite_folder(request: pytest.FixtureRequest) -> Path:
    """The folder of the next SQLite library of the test of ``request``: the k-th library a
    test asks for is ``RUN_TMP/library-k/library.db`` in every test of this process
    (removed after the test; a library of a module or session fixture stays in the
    fixture's own folder). The same path from test to test means the same URL, so the
    process's kept engine (:func:`readinglist.db_engine.make_engine`) serves the next test
    with its compiled SQL and first-connect answers (creating an engine and compiling
    the statements of the first commands cost ~10% of the suite's CPU)."""
    taken = request.node.stash.setdefault(_SQLITE_COUNT, [0])
    taken[0] += 1
    return RUN_TMP / f"library-{taken[0]}"


_SQLITE_COUNT = pytest.StashKey[list[int]]()


def make_database(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of a fresh database of ``kind`` ("sqlite" or "postgresql") at head."""
    if kind == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        reused = request.scope == "function"
        folder = _sqlite_folder(request) if reused else tmp_path
        path = folder / "library.db"
        # a plain copy of the closed template (no connection, no write-ahead log): 0.1 ms,
        # where the backup API's commit waits for the disk (~10 ms a test here)
        folder.mkdir(parents=True, exist_ok=not reused)
        if reused:  # at the test's end (also where a test takes only the first URL)
            request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    yield from _pg_database(request, blank=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the newest revision, once on SQLite and once on PostgreSQL."""
    yield from make_database(request.param, request, tmp_path)


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh SQLite database only (for SQLite-specific behaviour)."""
    yield from make_database("sqlite", request, tmp_path)


@pytest.fixture
def engine(db_url: str) -> Iterator[Any]:
    """An engine on the fresh database of ``db_url``."""
    from readinglist import db

    eng = db.make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Any) -> Iterator[Any]:
    """A Session in one transaction, committed at the end of the test."""
    from readinglist import db

    with db.session_scope(engine) as sess:
        yield sess


@pytest.fixture
def runner() -> CliRunner:
    """Click's CliRunner (stdout and stderr kept apart, Click 8.2+)."""
    return CliRunner()


@pytest.fixture
def invoke(runner: CliRunner, db_url: str) -> Callable[..., Result]:
    """Run ``readinglist --db <db_url> ARGS...`` in-process; returns Click's Result."""
    from readinglist.cli import cli

    def run(
        *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None
    ) -> Result:
        return runner.invoke(cli, ["--db", db_url, *args], input=input, env=env)

    return run


@pytest.fixture
def example_abstracts() -> Path:
    """The user's example list, as shipped in examples/ (a copy of icml2026-abstracts.txt)."""
    return EXAMPLES / "icml2026-abstracts.txt"
