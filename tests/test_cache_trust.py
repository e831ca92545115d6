"""The ranking cache is derived data and never trusted: a forged, fuzzed, oversized or
special file in its place never crashes, hangs or misleads a ranking command; it is
rebuilt (``readinglist.ranking.trust``). On SQLite only (``helpers.SQLITE_SUFFICES``): the
checks read a file, and the outputs they are compared with come from the library's
papers and decisions, which test_databases_agree.py shows to be read the same on
PostgreSQL (its ranking outputs, index and inputs); where a PostgreSQL library's cache
goes is test_ranking.py's ``test_the_cache_goes_to_readinglist_cache``, on both."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import RUN_MAIN, SQLITE_SUFFICES, run_forked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.test_ranking import cache_dir_fixture, filled_fixture  # noqa: F401 (fixtures)

pytestmark = SQLITE_SUFFICES

#: The ranking commands a forged cache is tried on (triage ranks through the same
#: ``Ranker.open`` and needs a terminal).
COMMANDS = (
    ("show", "bio2", "--why", "--json"),
    ("similar", "rl1"),
    ("topics",),
    ("list", "-k", "--sort", "interest"),
)


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: np.array(data[name]) for name in data.files}


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    out = io.BytesIO()
    np.savez(out, **arrays)
    path.write_bytes(out.getvalue())


def _decided(filled: Callable[..., Any], db_url: str) -> tuple[Path, dict[str, Any]]:
    """Decide on some papers, write the cache; return its path and each command's output."""
    from readinglist.ranking import store

    assert filled("mark", "to-read", "bio0", "bio1", "rl2").exit_code == 0
    outputs = {}
    for command in COMMANDS:
        result = filled(*command)
        assert result.exit_code == 0, result.stderr
        outputs[" ".join(command)] = result.stdout
    path = store.cache_path(db_url)
    assert path.is_file()
    return path, outputs


#: What the ranking commands import, imported once before they are forked (:func:`run_forked`).
RANKING_IMPORTS = """
import numpy, scipy.sparse, sqlalchemy.orm
import readinglist.cli, readinglist.cli._root, readinglist.cli._rank, readinglist.cli.list_
import readinglist.cli.similar, readinglist.cli.topics, readinglist.ranking.store
import readinglist.ranking.ranker, readinglist.ranking.topics, readinglist.library
import sqlalchemy.dialects.postgresql.psycopg, sqlalchemy.dialects.sqlite.pysqlite
"""


def _run(
    folder: Path,
    commands: list[tuple[str, ...]],
    db_url: str,
    body: str = RUN_MAIN,
    timeout: float = 120,
) -> list[subprocess.CompletedProcess[str]]:
    """Run ``readinglist --db DB_URL COMMAND`` for each of ``commands``, each a process of
    its own forked after :data:`RANKING_IMPORTS` (the forking process kept for the next
    test), running ``body``; ``timeout`` seconds a command, output files in ``folder``."""
    return run_forked(
        [["--db", db_url, *command] for command in commands],
        folder,
        prelude=RANKING_IMPORTS,
        body=body,
        env={**os.environ, "COLUMNS": "160"},
        timeout=timeout * len(commands),
        kept=True,
    )


def test_out_of_range_indices_never_reach_scipy(
    filled: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    """Column indices past the columns (the counter left as it was) made ``show --why``,
    ``similar``, ``topics`` and ``triage`` die of SIGSEGV (exit 139): scipy checks no
    index of a CSR matrix on a product. Each command now exits 0 with the output of the
    library without the file (real processes: a crash is an exit code, not a lost run)."""
    path, outputs = _decided(filled, db_url)
    arrays = _arrays(path)
    forged = dict(arrays, indices=np.full_like(arrays["indices"], 2**31 - 1))
    # Each command in a process of its own, forked after the imports they share; the
    # file is forged again before each (a command that rebuilds the cache rewrites it).
    save = f"import shutil\nshutil.copyfile({str(tmp_path / 'forged.npz')!r}, {str(path)!r})\n"
    _save(tmp_path / "forged.npz", forged)
    done = _run(tmp_path / "runs", list(COMMANDS), db_url, body=save + RUN_MAIN)
    for command, result in zip(COMMANDS, done, strict=True):
        assert result.returncode == 0, (command, result.returncode, result.stderr)
        assert result.stdout == outputs[" ".join(command)]
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "forge",
    [
        "ids shorter",
        "digests shorter",
        "dense wrong rows",
        "shape bigger",
        "indptr decreasing",
        "nan values",
        "huge values",
        "duplicate ids",
        "member missing",
        "compressed",
        "updated not a time",
        "updated without a zone",
        "second indices out of range",
        "second dense wrong rows",
        "second nan values",
        "second member missing",
    ],
)
def test_bad_shapes_are_rebuilt_not_a_traceback(
    filled: Callable[..., Any], db_url: str, forge: str
) -> None:
    """Arrays of the wrong shape or values (same counter) gave tracebacks on every run
    until the file was deleted. They are ignored; the outputs are those of a fresh index."""
    path, outputs = _decided(filled, db_url)
    a = _arrays(path)
    if forge == "ids shorter":
        a["ids"] = a["ids"][:-1]
    elif forge == "digests shorter":
        a["digests"] = a["digests"][:2]
    elif forge == "dense wrong rows":
        a["dense"] = a["dense"][:3]
    elif forge == "shape bigger":
        a["shape"] = np.array([a["shape"][0] + 5, a["shape"][1] * 1000])
    elif forge == "indptr decreasing":
        a["indptr"] = a["indptr"][::-1].copy()
    elif forge == "nan values":
        a["data"] = np.full_like(a["data"], np.nan)
    elif forge == "huge values":  # finite float32, but its squares overflow in the SVD
        a["data"] = np.full_like(a["data"], 3e38)
    elif forge == "duplicate ids":
        a["ids"] = np.full_like(a["ids"], a["ids"][0])
    elif forge == "member missing":
        del a["idf"]
    elif forge == "updated not a time":
        a["updated"] = np.array("yesterday")
    elif forge == "updated without a zone":
        a["updated"] = np.array("2001-01-01T00:00:00")
    elif forge == "second indices out of range":  # the second index (ranking.select)
        a["second_indices"] = np.full_like(a["second_indices"], 2**31 - 1)
    elif forge == "second dense wrong rows":
        a["second_dense"] = a["second_dense"][:3]
    elif forge == "second nan values":
        a["second_data"] = np.full_like(a["second_data"], np.nan)
    elif forge == "second member missing":
        del a["second_vocabulary"]
    if forge == "compressed":
        out = io.BytesIO()
        np.savez_compressed(out, **a)
        path.write_bytes(out.getvalue())
    else:
        _save(path, a)
    for command in COMMANDS:
        result = filled(*command)
        assert result.exit_code == 0, (command, result.stderr, result.exception)
        assert result.stdout == outputs[" ".join(command)], command


def test_a_header_asking_for_gigabytes_is_refused_before_reading(
    filled: Callable[..., Any], db_url: str
) -> None:
    """An 8 MB cache whose ``.npy`` header said billions of rows made ``np.load`` ask for
    7.45 GiB. Its layout is refused before any array is read (no allocation), and the
    cache rebuilt."""
    from readinglist.ranking import stored

    path, outputs = _decided(filled, db_url)
    blob = path.read_bytes()
    with path.open("rb") as handle:
        offset = stored.members(handle)["data"].offset
    rows = len(_arrays(path)["data"])
    where = blob.rindex(f"'shape': ({rows},)".encode(), 0, offset)
    header_end = blob.index(b"\n", where)
    old = blob[where:header_end]  # the shape, the dict's end, then padding spaces
    new = old.replace(f"({rows},)".encode(), b"(2000000000,)", 1)[: len(old)]
    assert new.rstrip().endswith(b"}")  # only padding was cut: the header keeps its length
    forged = blob[:where] + new + blob[header_end:]
    path.write_bytes(forged)
    with path.open("rb") as handle, pytest.raises(ValueError, match="shorter"):
        stored.members(handle)
    result = filled(*COMMANDS[0])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == outputs[" ".join(COMMANDS[0])]


def test_a_fifo_in_place_of_the_cache_does_not_hang(
    filled: Callable[..., Any], db_url: str, tmp_path: Path
) -> None:
    """A FIFO at the cache's path blocked the ranking commands in ``open`` for ever
    (until a writer came). The cache is opened only as a regular file: the command
    ends (a real process, with a time limit that only a hang reaches) with the right
    output, and the FIFO is replaced by a cache file. The same of the fitted scores'
    file beside it (read first by ``list --sort interest``)."""
    from readinglist.ranking.fitted import fitted_path

    path, outputs = _decided(filled, db_url)
    for cache in (path, fitted_path(db_url)):
        cache.unlink()
        os.mkfifo(cache)
    (result,) = _run(tmp_path / "runs", [("list", "-k", "--sort", "interest")], db_url, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout == outputs["list -k --sort interest"]
    assert path.is_file()
    assert fitted_path(db_url).is_file()


_DTYPES = st.sampled_from(["<i4", "<i8", "<u8", "<f4", "<f8", "<f2", "|i1", "<U3", "|b1", "<c8"])


@st.composite
def _forged(draw: st.DrawFn, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The cache's arrays with one to three of them replaced: by any array (dtype,
    shape, values), by the same array with other values, or left out."""
    forged = dict(arrays)
    for name in draw(st.lists(st.sampled_from(sorted(arrays)), min_size=1, max_size=3)):
        how = draw(st.sampled_from(["any", "values", "drop"]))
        if how == "drop":
            forged.pop(name, None)
            continue
        original = arrays[name]
        if how == "values" and original.dtype.kind in "iuf" and original.size:
            dtype, shape = original.dtype, original.shape
        else:
            dtype = np.dtype(draw(_DTYPES))
            shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=14))
        forged[name] = draw(hnp.arrays(dtype, shape))
    return forged


@pytest.mark.parametrize("streamed", [False, True])
def test_fuzzed_cache_arrays_never_crash_a_ranking_command(
    filled: Callable[..., Any], db_url: str, streamed: bool
) -> None:
    """Hypothesis forges the cache (the counter kept unless drawn): every ranking command
    and both ways of loading (in memory, streamed) end without an exception, and the
    loaded index is well formed."""
    from readinglist import db
    from readinglist.ranking import store

    path, _ = _decided(filled, db_url)
    arrays = _arrays(path)
    engine = db.make_engine(db_url)

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(forged=_forged(arrays))
    def check(forged: dict[str, np.ndarray]) -> None:
        _save(path, forged)
        with db.session_scope(engine, write=False) as session:
            index = store.load(session, db_url, streamed=streamed)
            assert index.matrix.shape == (len(index.ids), len(index.idf))
        _save(path, forged)
        command = COMMANDS[len(forged) % len(COMMANDS)]
        result = filled(*command)
        assert result.exit_code == 0, (command, result.stderr, result.exception)

    try:
        check()
    finally:
        engine.dispose()


def test_triage_with_a_forged_cache_ranks_and_quits(
    filled: Callable[..., Any], db_url: str
) -> None:
    """``triage`` (interest order, in a pseudo-terminal) on a cache with out-of-range
    column indices died of SIGSEGV before its first card; it shows the inbox and quits
    with exit 0."""
    import pexpect

    path, _ = _decided(filled, db_url)
    arrays = _arrays(path)
    _save(path, dict(arrays, indices=np.full_like(arrays["indices"], 2**31 - 1)))
    env = dict(os.environ, TERM="xterm", COLUMNS="100", LINES="50", PYTHONIOENCODING="utf-8")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "readinglist", "--db", db_url, "triage"],
        env=env,
        dimensions=(50, 100),
        encoding="utf-8",
        timeout=120,
    )
    child.expect("q:quit")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
