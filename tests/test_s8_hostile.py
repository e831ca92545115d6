"""Hostile tests of session 8's changes (helper s8-hostile): inputs that made them give a
wrong answer or crash, each with the right value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.test_ranking import cache_dir_fixture, filled_fixture  # noqa: F401 (fixtures)


def _overwrite(path: Path, member: str, at: int, data: bytes) -> None:
    """Write ``data`` over the elements of ``member`` of the cache file from element ``at``."""
    from readinglist.ranking import stored

    with path.open("rb") as handle:
        found = stored.members(handle)[member]
    with path.open("r+b") as handle:
        handle.seek(found.offset + at * found.dtype.itemsize)
        handle.write(data)


def _grow_header(path: Path, member: str) -> None:
    """Make the ``.npy`` header of ``member`` say it has 9 times the rows it has (same length)."""
    blob = path.read_bytes()
    from readinglist.ranking import stored

    with path.open("rb") as handle:
        found = stored.members(handle)[member]
    rows = str(found.shape[0]).encode()
    start = blob.rindex(b"'shape': (" + rows, 0, found.offset) + len(b"'shape': (")
    path.write_bytes(blob[:start] + rows.replace(rows[:1], b"9", 1) + blob[start + len(rows) :])


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize("damage", ["indices", "dense rows"])
def test_a_damaged_cache_file_is_rebuilt_not_used(
    filled: Callable[..., Any], db_url: str, streamed: bool, damage: str
) -> None:
    """A cache file whose tf-idf column indices were overwritten (a bad disk block, a
    partial write by another tool) was used as it was: scipy does not check CSR indices,
    and `list --json` died of SIGSEGV (exit 139) on the product. A header that says more
    rows than the file holds made the streamed read raise OSError mid-listing. A cache
    that cannot be read is ignored (store's docstring): the index is rebuilt."""
    import numpy as np
    from scipy import sparse

    from readinglist import db
    from readinglist.ranking import store

    assert filled("mark", "to-read", "bio0", "bio1", "rl2").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # writes the cache
    path = store.cache_path(db_url)
    if damage == "indices":
        _overwrite(path, "indices", 3, np.full(4, 2**31 - 1, dtype=np.int32).tobytes())
    else:
        _grow_header(path, "dense")
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        index = store.load(session, db_url, streamed=streamed)
        fresh = store.build(session)
    engine.dispose()
    matrix = index.matrix
    if not isinstance(matrix, sparse.csr_matrix):
        matrix = matrix.block(0, matrix.shape[0])
    assert matrix.indices.max() < matrix.shape[1]
    assert (matrix != fresh.matrix).nnz == 0
    dense = index.dense
    assert dense is not None
    assert fresh.dense is not None
    ones = np.ones(fresh.dense.shape[1], dtype=np.float32)
    assert np.allclose(dense @ ones, fresh.dense @ ones)


@pytest.mark.parametrize("cut", ["empty", "30 bytes", "half", "an .npy"])
def test_a_truncated_or_foreign_cache_file_is_rebuilt(
    filled: Callable[..., Any], db_url: str, cut: str
) -> None:
    """A cache file cut short (empty, its first bytes, its first half: a copy or a
    disk that ran out) or replaced by a plain ``.npy`` made ``list --json`` fail
    (exit 1) with "Aborted!" (np.load's EOFError, which click takes for Ctrl-D), a
    BadZipFile or an IndexError traceback, on every later run too. It is ignored and
    rebuilt: the listing is that of a library without the file."""
    import io
    import json

    import numpy as np

    from readinglist.ranking import store

    assert filled("mark", "to-read", "bio0", "bio1", "rl2").exit_code == 0
    fresh = filled("list", "--json")
    assert fresh.exit_code == 0  # writes the cache
    path = store.cache_path(db_url)
    whole = path.read_bytes()
    if cut == "an .npy":
        plain = io.BytesIO()
        np.save(plain, np.arange(5))
        path.write_bytes(plain.getvalue())
    else:
        path.write_bytes(whole[: {"empty": 0, "30 bytes": 30, "half": len(whole) // 2}[cut]])
    result = filled("list", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(fresh.stdout)


def test_a_library_put_back_to_an_earlier_state_does_not_use_the_later_cache(
    filled: Callable[..., Any], db_url: str
) -> None:
    """A backup put back (``cp lib.db.<time>.bak lib.db``, a ``pg_restore``) after a
    title was changed: same papers, same tags, an older last ``updated_at`` than the
    cache's. Only papers updated *after* the cache were compared, there are none, so
    the cache of the later state (the changed title's words) was used: stale
    interest. Before session 8 the older ``updated_at`` alone rebuilt it; again now."""
    import json

    from sqlalchemy import select, update

    from readinglist import db
    from readinglist.models import Paper
    from readinglist.ranking import store

    assert filled("mark", "to-read", "bio0", "rl1", "rl2").exit_code == 0
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        title, updated = session.execute(
            select(Paper.title, Paper.updated_at).where(Paper.citekey == "bio3")
        ).one()
    assert filled("title", "bio3", "Reinforcement policy reward agent offline").exit_code == 0
    assert filled("list", "--json").exit_code == 0  # caches the library with the new title
    with db.session_scope(engine) as session:  # the backup of before the title, put back
        session.execute(
            update(Paper)
            .where(Paper.citekey == "bio3")
            .values(title=title, updated_at=updated)
            .execution_options(synchronize_session=False)
        )
    engine.dispose()
    listed = filled("list", "--json")
    assert listed.exit_code == 0
    store.cache_path(db_url).unlink()
    fresh = filled("list", "--json")
    assert json.loads(listed.stdout) == json.loads(fresh.stdout)
