"""Helpers shared by several test files (import them: ``from helpers import seed``).

Data files: :func:`shared_data` finds a file of ``../shared/data``, or the copy shipped in
``examples/``, and skips the test only when neither exists. Golden files:
:func:`assert_golden` compares a text with ``tests/golden/<name>`` byte for byte
(``READINGLIST_UPDATE_GOLDEN=1`` rewrites it). Databases: :func:`seed` imports records,
:func:`sql_value` / :func:`sql_values` read raw SQL, :func:`search_text` reads a paper's
stored search text, :func:`show` runs ``show KEY --json``. Programs: :func:`require_tools`
fails a test (one line) when a program or LaTeX package it runs is missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tool_setup import wait_for_install

from readinglist.records import PaperRecord

HERE = Path(__file__).resolve().parent
#: Runs a test that takes ``db_url`` (or ``invoke``) on SQLite only, for checks that never
#: reach the library's rules: a usage error refused before anything is read or written, a
#: file that cannot be read. A test that checks storage, SQL, locking or concurrency runs
#: on both databases (tests/conftest.py).
SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
#: Runs a test that takes ``db_url`` (or ``invoke``, ``engine``, ``session``) on SQLite
#: only, for a claim downstream of the library's reads: a cache file's trust checks, a
#: fitted model's numbers, a compile of an exported text, a page's keys, an online
#: source's answers. That the same inputs read and export the same on PostgreSQL (every
#: export format, list and show, the ranking's inputs and order) is the claim of
#: tests/test_databases_agree.py; what the library stores, reads, locks, orders, counts,
#: merges or undoes stays tested on both.
SQLITE_SUFFICES = SQLITE_ONLY
ROOT = HERE.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared" / "data"
GOLDEN = HERE / "golden"


def shared_data(name: str) -> Path:
    """Return the path of data file ``name``: ../shared/data/``name``, else examples/``name``.

    Skips the calling test when neither exists (examples/ holds only the user's example
    list, icml2026-abstracts.txt, so the other shared files still skip without ../shared).
    """
    for folder in (SHARED, EXAMPLES):
        path = folder / name
        if path.exists():
            return path
    pytest.skip(f"{SHARED / name} is not available")


#: What each tool name of :func:`require_tools` needs: programs on PATH, and the LaTeX
#: packages biber's tests load (biblatex needs etoolbox; without it biber says "Cannot find
#: 'doc.bcf'"). tests/setup-tools.sh installs them all.
TOOL_NEEDS: dict[str, tuple[str, ...]] = {
    "bibtex": ("bibtex",),
    "biber": ("biber", "pdflatex", "biblatex.sty", "etoolbox.sty"),
    "pdflatex": ("pdflatex",),
    "pandoc": ("pandoc",),
}


def _present(need: str) -> bool:
    if not need.endswith(".sty"):
        return shutil.which(need) is not None
    if shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", need], capture_output=True, text=True, check=False)
    return bool(found.stdout.strip())


_PRESENT: dict[str, bool] = {}


def missing_tools(*tools: str) -> list[str]:
    """The programs and LaTeX packages of ``tools`` (names of :data:`TOOL_NEEDS`) not installed."""
    needs = [need for tool in tools for need in TOOL_NEEDS.get(tool, (tool,))]
    for need in needs:
        if need not in _PRESENT:
            _PRESENT[need] = _present(need)
    return [need for need in dict.fromkeys(needs) if not _PRESENT[need]]


def wait_for_tools() -> None:
    """Wait for setup-tools.sh's background installation when one runs
    (:mod:`tool_setup`); after it, what :func:`missing_tools` found is looked up again."""
    if wait_for_install():
        _PRESENT.clear()


def require_tools(*tools: str) -> None:
    """Fail the calling test with one line naming what is missing of ``tools``: a test that
    needs a real program never skips silently (run ``sh tests/setup-tools.sh``). Waits first
    for setup-tools.sh's background installation when one runs (:func:`wait_for_tools`)."""
    wait_for_tools()
    absent = missing_tools(*tools)
    if absent:
        pytest.fail(
            f"needs {', '.join(absent)}, not installed (run: sh tests/setup-tools.sh)",
            pytrace=False,
        )


#: The modules of tests/ that make the suite's set-up (fixtures, databases, tools).
SUITE_SUPPORT = ("conftest.py", "helpers.py", "pg_pool.py", "tool_setup.py")


def run_nested_suite(
    folder: Path, env: dict[str, str], *options: str
) -> subprocess.CompletedProcess[str]:
    """Run pytest (``-n 0``, ``options``) in a process of its own on ``folder``, which gets
    a copy of :data:`SUITE_SUPPORT`, with ``env`` less ``RLTEST_TOOLS_LAST`` (the nested
    run decides it for itself); at most 120 s. Returns the finished process (text)."""
    for name in SUITE_SUPPORT:
        shutil.copy(HERE / name, folder / name)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider"),
            *("-p", "no:randomly", *options, "--rootdir", str(folder)),
            *("-c", str(ROOT / "pyproject.toml"), str(folder)),
        ],
        capture_output=True,
        text=True,
        cwd=folder,
        env={k: v for k, v in env.items() if k != "RLTEST_TOOLS_LAST"},
        check=False,
        timeout=120,
    )


def shared_text(name: str) -> str:
    """The UTF-8 text of :func:`shared_data` ``(name)``."""
    return shared_data(name).read_text(encoding="utf-8")


def assert_golden(name: str, text: str) -> None:
    """Compare ``text`` with tests/golden/``name`` exactly; READINGLIST_UPDATE_GOLDEN=1 rewrites it.

    Fails (``pytest.fail``) when the golden file is missing and no update was asked for.
    """
    path = GOLDEN / name
    if os.environ.get("READINGLIST_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; run with READINGLIST_UPDATE_GOLDEN=1")
    assert text == path.read_bytes().decode("utf-8")


def without_line(record: PaperRecord) -> PaperRecord:
    """``record`` with its source line number cleared (to compare records read from elsewhere)."""
    return replace(record, line=None)


def seed(db_url: str, *records: PaperRecord, fmt: str = "test") -> None:
    """Import ``records`` (citation keys kept) into the database at ``db_url``."""
    from readinglist import db, library

    with helper_engine(db_url) as engine, db.session_scope(engine) as session:
        library.import_records(session, records, source="seed", fmt=fmt)


@contextlib.contextmanager
def helper_engine(db_url: str) -> Any:
    """Yield the engine ``db.make_engine`` keeps for ``db_url``, handed back at the end of
    the block (``db.release``): on PostgreSQL the helpers' queries and the commands run
    in-process share its idle connection (a new server process costs ~7 ms of its CPU)."""
    from readinglist import db

    engine = db.make_engine(db_url)
    try:
        yield engine
    finally:
        db.release(engine)


def sql_values(db_url: str, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
    """The first column of every row ``sql`` returns on the database at ``db_url``."""
    from sqlalchemy import text

    with helper_engine(db_url) as engine, engine.connect() as conn:
        return list(conn.execute(text(sql), params or {}).scalars())


def sql_value(db_url: str, sql: str, params: dict[str, Any] | None = None) -> Any:
    """The one value ``sql`` returns (exactly one row, else SQLAlchemy raises)."""
    from sqlalchemy import text

    with helper_engine(db_url) as engine, engine.connect() as conn:
        return conn.execute(text(sql), params or {}).scalar_one()


def run_sql(db_url: str, sql: str, params: dict[str, Any] | None = None) -> None:
    """Run one writing statement on the library at ``db_url`` and commit, as another of
    its writers (or a hand edit of the database) would."""
    from sqlalchemy import text

    with helper_engine(db_url) as engine, engine.begin() as conn:
        conn.execute(text(sql), params or {})


def import_text(invoke: Any, tmp_path: Path, name: str, text: str) -> str:
    """Write ``text`` to ``tmp_path / name``, import it (exit 0 asserted) and return the
    import's last line on stderr: its summary (``... 2 added, 0 merged, ...``)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = invoke("import", str(path))
    assert result.exit_code == 0, result.output
    return str(result.stderr.splitlines()[-1])


def search_text(db_url: str, key: str) -> str:
    """The stored ``search_text`` of the paper with citation key ``key``."""
    return str(sql_value(db_url, "SELECT search_text FROM papers WHERE citekey = :k", {"k": key}))


def show(invoke: Any, key: str) -> dict[str, Any]:
    """Run ``show KEY --json`` through the ``invoke`` fixture; assert it succeeded; the JSON."""
    result = invoke("show", key, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def statuses(url: str, reader: str | None = None) -> dict[int, str]:
    """Every paper's status for ``reader`` (None: the implicit one), read by the library."""
    from readinglist.library import readers

    with helper_engine(url) as engine, engine.connect() as conn:
        ids = [int(i) for i in conn.exec_driver_sql("SELECT id FROM papers").scalars()]
        return readers.status_of(conn, ids, reader)


#: What each compile of :func:`compile_once` left in its folder, by the digest of its
#: recipe and inputs: the files it made or changed, and what it returned.
_COMPILES: dict[str, tuple[dict[str, bytes], Any]] = {}


def compile_once(folder: Path, recipe: str, compile_: Callable[[], Any]) -> Any:
    """Run ``compile_()`` (real programs working in ``folder``, their effects confined to
    it) unless this test process already ran the same ``recipe`` on a folder holding the
    same files byte for byte: then write the files that run made or changed into
    ``folder`` and return what it returned. The same programs on the same bytes do the
    same thing, so a document compiled on SQLite is not compiled again for PostgreSQL.

    Inputs: ``folder`` with the document's files; ``recipe``, a name of what
    ``compile_`` runs (the programs and options). Output: ``compile_``'s result. Errors:
    what ``compile_`` raises (a compile that raises is not remembered)."""
    before = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    digest = hashlib.sha256(recipe.encode())
    for name, data in before.items():
        digest.update(b"\0%s\0%d\0" % (name.encode(), len(data)) + data)
    key = digest.hexdigest()
    if key in _COMPILES:
        made, result = _COMPILES[key]
        for name, data in made.items():
            (folder / name).write_bytes(data)
        return result
    result = compile_()
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    _COMPILES[key] = ({n: d for n, d in after.items() if before.get(n) != d}, result)
    return result


def run_steps(
    folder: Path, steps: tuple[tuple[str, ...], ...], timeout: float = 120
) -> list[subprocess.CompletedProcess[bytes]]:
    """Run each program of ``steps`` (a compile: pdflatex, bibtex or biber, pdflatex...) in
    ``folder`` (biber by :func:`run_biber_bytes`), output captured, whatever each exits
    with (``timeout`` seconds each, else :class:`subprocess.TimeoutExpired`): their
    completed processes, in order."""
    return [
        run_biber_bytes(list(step[1:]), folder, timeout)
        if step[0] == "biber"
        else subprocess.run(step, cwd=folder, capture_output=True, timeout=timeout, check=False)
        for step in steps
    ]


#: The program :func:`run_forked` talks to: it runs ``argv[1]`` once (the imports the
#: commands share), then, for each job line on standard input (JSON: ``argv``, ``env``,
#: ``cwd``, ``out``, ``err``, ``body``), forks a child that takes the environment
#: ``env``, enters ``cwd``, reads the null device and writes its standard output and
#: error to the files ``out`` and ``err``, and runs the Python ``body`` with ``sys.argv``
#: set to ``readinglist ARGV``. The child runs that code at the top level of the
#: program, so it ends as ``python -c`` would: an uncaught exception prints its traceback
#: and exits 1, ``SystemExit`` gives its code, a signal kills it. The server answers
#: ``pid N`` at the fork and ``status S`` (the wait status) when the child ends; it ends
#: at the end of its standard input.
_FORK_SERVER = """
import json, os, sys
exec(sys.argv[1])
while line := sys.stdin.buffer.readline():
    job = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.environ.clear()
        os.environ.update(job["env"])
        os.chdir(job["cwd"])
        for fd, name in ((0, os.devnull), (1, job["out"]), (2, job["err"])):
            flags = os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            target = os.open(name, flags, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdin = open(0, encoding=sys.stdin.encoding, errors=sys.stdin.errors, closefd=False)
        sys.argv = ["readinglist", *job["argv"]]
        exec(job["body"])
        sys.exit(0)
    print("pid", pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print("status", status, flush=True)
"""

#: The child code of :func:`run_forked` that runs the command as ``python -m readinglist``.
RUN_MAIN = "import runpy\nrunpy.run_module('readinglist', run_name='__main__')\n"

#: What a Python process reads from its environment once, at its start (the encoding
#: of its standard streams, its flags): a kept server serves only jobs that agree.
_START_VARIABLES = ("PYTHON", "LC_", "LANG")

#: The kept servers of :func:`start_forked` of this test process, by their prelude and
#: start variables; those running a command are in :data:`_BUSY`.
_FORK_SERVERS: dict[tuple[str, str], list[subprocess.Popen[str]]] = {}
_BUSY: set[int] = set()


def _fork_server(prelude: str, env: dict[str, str], kept: bool) -> subprocess.Popen[str]:
    """A :data:`_FORK_SERVER` that ran ``prelude``, started in ``env``: when ``kept``, an
    idle one this process started before for the same prelude and start variables (else
    a new one, kept for later calls and ended at exit); else a new one, for one call."""
    import atexit
    import sys

    start = json.dumps(sorted((k, v) for k, v in env.items() if k.startswith(_START_VARIABLES)))
    servers = _FORK_SERVERS.setdefault((prelude, start), []) if kept else []
    for server in servers:
        if server.pid not in _BUSY and server.poll() is None:
            return server
    server = subprocess.Popen(
        [sys.executable, "-c", _FORK_SERVER, prelude],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    if kept:
        servers.append(server)
        atexit.register(_end_server, server)
    return server


def _end_server(server: subprocess.Popen[str]) -> None:
    """Close ``server``'s standard input (it ends at its end) and wait for it, so the CPU
    of its runs is counted in this process's children, as the runs' own would be."""
    if server.stdin is not None:
        server.stdin.close()
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _answer(server: subprocess.Popen[str], word: str) -> int:
    """The number of the next line ``word N`` of ``server``; fails (``AssertionError``,
    what it said) when it says something else or ended (its prelude failed)."""
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith(word + " "), f"the fork server ended: {line!r}"
    return int(line.split()[1])


class Forked:
    """A program a fork server (:data:`_FORK_SERVER`, :data:`_BIBER_SERVER`) forked for a
    job: what :class:`subprocess.Popen` offers of it (``args``, ``pid``, ``returncode``,
    :meth:`poll`, :meth:`wait`, :meth:`send_signal`, :meth:`kill`). A thread reads the
    server's ``status S`` line when the program ends; the server is busy until then."""

    def __init__(self, server: subprocess.Popen[str], job: dict[str, Any], args: list[str]):
        """Send ``job`` (a JSON object) to ``server``; ``args``: the command line it runs."""
        assert server.stdin is not None
        server.stdin.write(json.dumps(job) + "\n")
        server.stdin.flush()
        _BUSY.add(server.pid)
        self.args, self.pid = args, _answer(server, "pid")
        self.returncode: int | None = None
        self._server, self._ended = server, threading.Event()
        self._failure: BaseException | None = None
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        try:
            self.returncode = os.waitstatus_to_exitcode(_answer(self._server, "status"))
        except BaseException as failure:  # handed to wait()
            self._failure = failure
        finally:
            _BUSY.discard(self._server.pid)
            self._ended.set()

    def poll(self) -> int | None:
        """The exit code (negative: the signal that killed it), or None while it runs."""
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end, at most ``timeout`` seconds (else ``subprocess.TimeoutExpired``,
        the program left running); its exit code. Errors: the server's failure."""
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        if self._failure is not None:
            raise self._failure
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, number: int) -> None:
        """Send signal ``number`` to the program, unless it has ended."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, number)

    def kill(self) -> None:
        """Kill the program (SIGKILL), unless it has ended."""
        self.send_signal(signal.SIGKILL)


def start_forked(
    argv: list[str],
    out: Path | str,
    err: Path | str,
    *,
    prelude: str = "import readinglist.cli",
    body: str = RUN_MAIN,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    server: subprocess.Popen[str] | None = None,
) -> Forked:
    """Start ``readinglist ARGV`` as :func:`run_forked` runs each of its commands, forked
    from a kept server that ran ``prelude`` (an idle one of this test process, else a new
    one) or from ``server``, in ``env`` (default: this process's environment) and ``cwd``
    (default: this process's folder), its standard output and error written to the files
    ``out`` and ``err`` (``os.devnull`` for none), without waiting: a Popen-like
    :class:`Forked`, for a test that signals, kills or races the running command."""
    env = dict(os.environ if env is None else env)
    if server is None:
        server = _fork_server(prelude, env, kept=True)
    job = {"argv": argv, "env": env, "cwd": os.path.abspath(cwd or os.getcwd()), "body": body}
    return Forked(server, job | {"out": str(out), "err": str(err)}, ["readinglist", *argv])


def run_forked(
    commands: list[list[str]],
    folder: Path,
    *,
    prelude: str = "import readinglist.cli",
    body: str = RUN_MAIN,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    kept: bool = False,
) -> list[subprocess.CompletedProcess[str]]:
    """Run each command line of ``commands`` (``readinglist`` ARGS) in a process of its
    own, as ``python -m readinglist ARGS`` would, but forked from one process that ran
    ``prelude`` once (the imports every command makes: ~1.3 s of CPU a process saved).
    Each child starts from that process's state after its imports: no connection, no
    cache, no thread is open before the fork; it takes ``env`` (default: this process's
    environment) and this process's working folder, and reads the null device. ``body``
    is the Python each child runs (:data:`RUN_MAIN`: the command). Output files go to
    ``folder`` (made if missing). ``kept``: fork from a process this test process
    started for the same ``prelude`` before (:data:`_FORK_SERVERS`, ended at exit), so
    that tests calling one at a time share its imports too.

    Returns one ``CompletedProcess`` per command, its ``returncode`` as ``subprocess``
    gives it (negative: killed by that signal). Fails (``AssertionError``) when the
    forking process itself fails; raises ``subprocess.TimeoutExpired`` (the running
    command killed) past ``timeout`` seconds for all commands together."""
    import time

    deadline = time.monotonic() + timeout
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ if env is None else env)
    server = _fork_server(prelude, env, kept)
    done = []
    try:
        for number, argv in enumerate(commands):
            out, err = folder / f"{number}.out", folder / f"{number}.err"
            run = start_forked(argv, out, err, body=body, env=env, server=server)
            code = _wait_or_kill(run, deadline - time.monotonic(), timeout)
            stdout, stderr = out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8")
            done.append(subprocess.CompletedProcess(run.args, code, stdout, stderr))
    finally:
        if not kept:
            _end_server(server)
    return done


def _wait_or_kill(run: Forked, seconds: float, timeout: float) -> int:
    """``run``'s exit code within ``seconds``; else kill it and raise
    ``subprocess.TimeoutExpired`` (saying ``timeout``, the limit the caller set)."""
    try:
        return run.wait(max(seconds, 0))
    except subprocess.TimeoutExpired:
        run.kill()
        run.wait()
        raise subprocess.TimeoutExpired(run.args, timeout) from None


@contextlib.contextmanager
def statements_to(db_url: str, hook: Callable[[str], None] | None = None) -> Any:
    """Yield the list of SQL statements sent to the database of ``db_url`` (by any
    engine of this process) while the block runs, each also passed to ``hook``, which
    may raise (a fault injected after a statement reached the database: the hook runs
    at SQLAlchemy's ``after_cursor_execute``). Statements to other databases are not
    seen: the listener is on every engine, and the PostgreSQL test databases' recycling
    thread (``tests/pg_pool.py``) sends its own while a test runs."""
    from sqlalchemy import event, make_url
    from sqlalchemy.engine import Engine

    database = make_url(db_url).database
    sent: list[str] = []

    def seen(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.engine.url.database == database:
            sent.append(statement)
            if hook is not None:
                hook(statement)

    event.listen(Engine, "after_cursor_execute", seen)
    try:
        yield sent
    finally:
        event.remove(Engine, "after_cursor_execute", seen)


def sql_rows(db_url: str, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """Every row ``sql`` returns on the database at ``db_url``, as tuples (for a check of
    a few columns of many papers, without loading each paper and its relations)."""
    from sqlalchemy import text

    with helper_engine(db_url) as engine, engine.connect() as conn:
        return [tuple(row) for row in conn.execute(text(sql), params or {})]


#: Perl that defines ``Data::Uniqid::base62`` anew, as the same function by native
#: integers. biber gives each name it reads an id, ``suniqid``: the time in microseconds,
#: seconds and the process id as a decimal string of at most 18 digits (6 + 5 + 7, so below
#: 2**63), in base 62, which Data::Uniqid 0.12 computes with Math::BigInt, building the 20
#: powers of 62 anew for each id: measured, half of the CPU of a biber run on a file of
#: 100 entries (about 8 names each). The ids stay what they were (the same digits; any
#: other argument goes to the original function; ``tests/test_real_tools.py`` compares
#: the two), and so does all else biber does. Nothing changes where Data::Uniqid is not
#: loaded (a biber that does not use it).
BIBER_IDS = r"""
if (defined &Data::Uniqid::base62) {
  my $bigint = \&Data::Uniqid::base62;
  my @digit = ('0'..'9', 'a'..'z', 'A'..'Z');
  no warnings qw(redefine prototype);
  *Data::Uniqid::base62 = sub () {
    my ($s) = @_;
    return $bigint->(@_) unless defined $s && $s =~ /\A[0-9]{1,18}\z/;
    use integer;
    my ($v, $u) = (0 + $s, '');
    do { $u = $digit[$v % 62] . $u; $v /= 62 } while $v;
    $u =~ s/^0+//;
    return $u;
  };
}
"""

#: The Perl program :func:`run_biber` talks to: it compiles the ``biber`` script
#: ``argv[1]`` once, as perl would at its start (every module its ``use`` lines load:
#: ~0.5 s of the ~0.6 s of CPU a biber start costs), without running it; then, for
#: each job line on standard input (JSON: ``cwd``, ``out``, ``err``, ``argv``, ``env``),
#: it forks a child that takes the environment ``env``, enters ``cwd``, sends its standard output and error to ``out``
#: and ``err`` and runs the compiled script with ``@ARGV`` set, as ``biber ARGV`` would
#: run it from there; it answers ``pid N`` at the fork and ``status S`` (the wait
#: status) when the child ends. The modules biber loads later (its input and output
#: packages, which read the data model at load) load in the child as in a fresh biber.
#: Before its first fork it defines ``Data::Uniqid::base62`` anew (:data:`BIBER_IDS`, put
#: in place of ``__BIBER_IDS__``).
_BIBER_SERVER = r"""
BEGIN { $^W = 1 }  # the script's "#!/usr/bin/perl -w"
use JSON::PP ();
my $script = shift @ARGV;
my $source = do { local $/; open my $fh, '<', $script or die "$script: $!"; <$fh> };
$source =~ s/\n__END__\n.*\z/\n/s;
my $run = eval "sub {\n#line 1 \"$script\"\n$source\n}" or die $@;
# Modules a run loads later whose loading reads no option (not the input packages, which
# read the data model at load), and Unicode data tables loaded at first use.
for my $module (qw(Biber::Output::bibtex Biber::Output::bbl Text::BibTeX Text::BibTeX::Name
    Text::BibTeX::NameFormat File::Slurper Text::Wrap URI URI::Escape ExtUtils::MakeMaker
    I18N::Langinfo)) {
  eval "require $module; 1";
}
Unicode::UCD::num('1');
__BIBER_IDS__
$| = 1;
while (my $line = <STDIN>) {
  my $job = JSON::PP->new->utf8->decode($line);
  my @argv = map { my $a = $_; utf8::encode($a); $a } @{$job->{argv}};
  my $pid = fork // die "fork: $!";
  if ($pid == 0) {
    %ENV = map { my ($k, $v) = ($_, $job->{env}{$_}); utf8::encode($k); utf8::encode($v); ($k, $v) }
      keys %{$job->{env}};
    chdir $job->{cwd} or die "$job->{cwd}: $!";
    open STDOUT, '>', $job->{out} or die "$job->{out}: $!";
    open STDERR, '>', $job->{err} or die "$job->{err}: $!";
    $0 = $script;
    @ARGV = @argv;
    $run->();
    exit 0;
  }
  print "pid $pid\n";
  waitpid $pid, 0;
  print "status $?\n";
}
"""


_BIBER: list[subprocess.Popen[str]] = []


def _biber_server() -> subprocess.Popen[str] | None:
    """This test process's :data:`_BIBER_SERVER`, started at its first use (its standard
    input closed, so it ends, when the process exits); None when the ``biber`` on PATH is
    not a Perl script (a packed binary: :func:`run_biber` then starts it each time)."""
    import atexit

    if _BIBER and _BIBER[0].poll() is None:
        return _BIBER[0]
    script = shutil.which("biber")
    if script is None or shutil.which("perl") is None:
        return None
    with open(script, "rb") as handle:
        if b"perl" not in handle.readline():
            return None
    server = subprocess.Popen(
        ["perl", "-e", _BIBER_SERVER.replace("__BIBER_IDS__", BIBER_IDS), os.path.realpath(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    _BIBER[:] = [server]
    atexit.register(_end_server, server)
    return server


def run_biber_bytes(
    args: list[str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """Run ``biber ARGS`` in ``cwd`` as ``subprocess.run(["biber", *args], cwd=cwd,
    capture_output=True)`` would, whatever it exits with, but forked from a Perl process
    that compiled biber once (:data:`_BIBER_SERVER`): each run starts as a fresh biber
    would after its compile, in this process's environment, so it reads, warns and
    writes the same, and costs ~0.35 s of CPU less, and about half less again per name
    read (:data:`BIBER_IDS`: the same ids, by native integers). Raises
    :class:`subprocess.TimeoutExpired` (the run killed) past ``timeout`` seconds."""
    import tempfile

    server = _biber_server()
    if server is None or server.stdin is None or server.stdout is None:
        return subprocess.run(
            ["biber", *args], cwd=cwd, capture_output=True, timeout=timeout, check=False
        )
    with tempfile.TemporaryDirectory(prefix="biber-") as folder:
        out, err = Path(folder, "out"), Path(folder, "err")
        job: dict[str, Any] = {"cwd": os.path.abspath(cwd), "out": str(out), "err": str(err)}
        job |= {"argv": list(args), "env": dict(os.environ)}
        code = _wait_or_kill(Forked(server, job, ["biber", *args]), timeout, timeout)
        return subprocess.CompletedProcess(
            ["biber", *args], code, out.read_bytes(), err.read_bytes()
        )


def run_biber(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """:func:`run_biber_bytes`, its output decoded as ``subprocess.run(..., text=True,
    errors="replace")`` would (UTF-8)."""
    done = run_biber_bytes(args, cwd, timeout)
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )
