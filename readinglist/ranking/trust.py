"""What a ranking cache file must be before any of it is used: derived data is never trusted.

The cache (:mod:`.store`) is a file anyone who can write beside the library can
replace. numpy and scipy check little of what they are given: a column index past the
columns made the products die of SIGSEGV, a forged ``.npy`` header made ``np.load`` ask
for gigabytes, a row count other than the papers' raised IndexError mid-command. So
the file is held to the shape :func:`.store._write` gives it, bounded by the library
it claims to describe (the paper count of the change counter):

* :func:`check_layout`, before any array is read: exactly the members written, each of
  the kind and number of dimensions written, one row per paper, at most
  :data:`MAX_COLUMNS` columns (the vectorizer's ``max_features``), at most
  :data:`~.store.LSA_DIMS` LSA dimensions;
* :func:`checked_csr` and :func:`check_values`, on the arrays: a well-formed CSR matrix
  (row pointers from 0, never decreasing, ending at the count of values; every column
  index in range: scipy's own ``check_format(full_check=True)`` rules), finite numbers,
  paper ids positive, unique and at most the library's highest id.

The second index (``store.Index.second``: members prefixed :data:`SECOND`) is held to
the same rules, beside the first. Each raises ValueError, which :func:`.store.load`
takes as "rebuild the cache". The ranker's selection record (:mod:`.select`) is held to
its shape too (:func:`check_history_layout`, :func:`check_history_counts`,
:func:`check_history`) and taken as "start again"; only its ids past the highest
(papers removed since) are dropped instead, as is a round with more ids than that.
The fitted scores' file (:mod:`.fitted`) is held to its shape the same way
(:func:`check_fitted_layout`, :func:`check_fitted`), and taken as "fit again". scipy
is imported only to check a matrix: reading the fitted scores needs numpy alone, and
numpy is imported by the functions that check arrays, so that :func:`check_ranked`
(the interest order's file, read with the standard library) needs none.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from scipy import sparse

    from readinglist.ranking.store import Index
    from readinglist.ranking.stored import Member

#: The most columns a cache may have: the vectorizer's ``max_features``
#: (:func:`readinglist.ranking.features.vectorizer_params`).
MAX_COLUMNS = 2**18
#: The most LSA dimensions (:data:`readinglist.ranking.store.LSA_DIMS`).
MAX_DIMS = 256
#: The longest text of the scalar members (the change counter, the ISO time).
MAX_SCALAR_TEXT = 200

#: The prefix of the members holding the second index (``store.Index.second``).
SECOND = "second_"

#: name: (dtype kinds allowed, number of dimensions) of the members of one index's rows
#: and terms: the committed index's by these names, the second's prefixed :data:`SECOND`.
_ROWS: dict[str, tuple[str, int]] = {
    "data": ("f", 1),
    "indices": ("i", 1),
    "indptr": ("i", 1),
    "shape": ("i", 1),
    "vocabulary": ("U", 1),
    "idf": ("f", 1),
    "dense": ("f", 2),
}

#: name: (dtype kinds allowed, number of dimensions) of each member ``_write`` stores.
_MEMBERS: dict[str, tuple[str, int]] = {
    "counter": ("U", 0),
    "updated": ("U", 0),
    "digests": ("u", 1),
    "ids": ("i", 1),
    **_ROWS,
    **{SECOND + name: kind for name, kind in _ROWS.items()},
}


def papers_counted(counter: str) -> tuple[int, int]:
    """The papers' count and highest id in a change counter (``v3|count|max|...``,
    :func:`.store.change_counter`); raises ValueError for another text."""
    parts = counter.split("|")
    if len(parts) != 5:
        raise ValueError("not a change counter")
    return int(parts[1]), int(parts[2]) if parts[2] != "None" else 0


def _check_members(
    layout: dict[str, Member],
    members: dict[str, tuple[str, int]],
    file: str,
    owner: str | None = None,
) -> None:
    """Raise ValueError unless ``layout`` (:func:`.stored.members`) holds exactly
    ``members`` (name: dtype kinds allowed, number of dimensions), each of its kind and
    dimensions, numbers of 4 or 8 bytes, a single text at most :data:`MAX_SCALAR_TEXT`
    characters. ``file`` names the file in the message ("the ranking cache"), ``owner``
    its members' owner (default ``file`` + "'s")."""
    whose = owner if owner is not None else file + "'s"
    if set(layout) != set(members):
        raise ValueError(f"{file} does not hold the arrays it should")
    for name, (kinds, ndim) in members.items():
        member = layout[name]
        numeric = kinds != "U"
        if (
            member.dtype.kind not in kinds
            or len(member.shape) != ndim
            or (numeric and member.dtype.itemsize not in (4, 8))
        ):
            raise ValueError(f"{whose} {name} is not what it should be")
        if not numeric and ndim == 0 and member.dtype.itemsize > 4 * MAX_SCALAR_TEXT:
            raise ValueError(f"{whose} {name} is too long")


def check_layout(layout: dict[str, Member], counter: str) -> None:
    """Raise ValueError unless ``layout`` (:func:`.stored.members`) has the members of a
    cache of the library whose change counter is ``counter``, sized by it (see the
    module docstring). Nothing of the file's arrays is read."""
    _check_members(layout, _MEMBERS, "the ranking cache")
    rows, _ = papers_counted(counter)
    if layout["ids"].shape != (rows,) or layout["digests"].shape != (rows,):
        raise ValueError("the ranking cache's arrays do not fit the library")
    for prefix in ("", SECOND):
        columns = layout[prefix + "idf"].shape[0]
        dense = layout[prefix + "dense"].shape
        if (
            layout[prefix + "indptr"].shape != (rows + 1,)
            or layout[prefix + "shape"].shape != (2,)
            or columns > MAX_COLUMNS
            or layout[prefix + "vocabulary"].shape != (columns,)
            or layout[prefix + "indices"].shape != layout[prefix + "data"].shape
            or not (dense == (0, 0) or (dense[0] == rows and 1 <= dense[1] <= MAX_DIMS))
        ):
            raise ValueError("the ranking cache's arrays do not fit the library")


def check_shape(shape: tuple[int, int], layout: dict[str, Member], prefix: str = "") -> None:
    """Raise ValueError unless the stored matrix ``shape`` (of the index whose members are
    named ``prefix`` + their name) is one row per paper id and one column per idf value
    of ``layout`` (checked by :func:`check_layout`)."""
    if shape != (layout["ids"].shape[0], layout[prefix + "idf"].shape[0]):
        raise ValueError("the ranking cache's matrix shape does not fit its arrays")


#: The largest magnitude a cached value may have: tf-idf rows are unit vectors and idf
#: a logarithm, so anything near it is forged, and float32 squares of larger values
#: overflow to inf in the SVD of ``topics`` (3e38 passed a finiteness check).
VALUE_BOUND = 1e6


def _bounded(values: np.ndarray) -> bool:
    """True when every value is finite and at most :data:`VALUE_BOUND` in magnitude."""
    import numpy as np

    return bool(np.isfinite(values).all() and (np.abs(values) <= VALUE_BOUND).all())


def checked_csr(
    data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: tuple[int, int]
) -> sparse.csr_matrix:
    """The CSR matrix of ``shape`` from its arrays, after checking them (scipy's
    ``check_format(full_check=True)``: pointers, index ranges) and that the values are
    finite; raises ValueError otherwise."""

    from scipy import sparse

    if not _bounded(data):
        raise ValueError("the ranking cache's values are not all finite and bounded")
    matrix = sparse.csr_matrix((data, indices, indptr), shape=shape)
    matrix.check_format(full_check=True)
    return matrix


def check_values(index: Index, counter: str) -> None:
    """Raise ValueError unless the arrays of the cached ``index`` fit the library of
    ``counter`` (see the module docstring): its matrix shape is one row per paper and
    one column per term, its paper ids positive, unique and at most the highest id,
    its time an ISO time with a zone (or empty), its idf and (in memory) LSA rows
    finite."""
    import numpy as np

    rows, highest = papers_counted(counter)
    if index.matrix.shape != (rows, len(index.idf)):
        raise ValueError("the ranking cache's matrix does not fit the library")
    ids = index.sorted_ids
    if rows and (ids[0] < 1 or ids[-1] > highest or (np.diff(ids) <= 0).any()):
        raise ValueError("the ranking cache's paper ids are not the library's")
    if index.updated:
        moment = datetime.fromisoformat(index.updated)  # ValueError for another text
        if moment.tzinfo is None:
            raise ValueError("the ranking cache's time has no time zone")
    if not _bounded(index.idf):
        raise ValueError("the ranking cache's idf is not all finite and bounded")
    if isinstance(index.dense, np.ndarray) and not _bounded(index.dense):
        raise ValueError("the ranking cache's LSA rows are not all finite and bounded")


#: name: (dtype kinds allowed, number of dimensions) of each member of the fitted
#: scores' file (:func:`.fitted.write`).
_FITTED: dict[str, tuple[str, int]] = {
    "key": ("U", 0),
    "ids": ("i", 1),
    "scores": ("f", 1),
    "learnt": ("U", 0),
}


def check_fitted_layout(layout: dict[str, Member], counter: str) -> None:
    """Raise ValueError unless ``layout`` (:func:`.stored.members`) is that of a fitted
    scores' file of a library whose change counter is ``counter``: exactly its members,
    each of its kind, short texts, one score per id and at most one per paper id up to
    the highest (nothing is read but the headers)."""
    _check_members(layout, _FITTED, "the fitted scores' file", "the fitted scores'")
    _, highest = papers_counted(counter)
    if layout["ids"].shape != layout["scores"].shape or layout["ids"].shape[0] > highest:
        raise ValueError("the fitted scores do not fit the library")


def check_fitted(ids: np.ndarray, scores: np.ndarray, counter: str) -> None:
    """Raise ValueError unless the fitted ``ids`` are positive, ascending, unique and at
    most the highest paper id of ``counter``, and the ``scores`` finite and bounded."""
    import numpy as np

    _, highest = papers_counted(counter)
    if len(ids) and (ids[0] < 1 or ids[-1] > highest or (np.diff(ids) <= 0).any()):
        raise ValueError("the fitted scores' paper ids are not the library's")
    if not _bounded(scores):
        raise ValueError("the fitted scores are not all finite and bounded")


def check_ranked(ids: Sequence[int], scores: Sequence[float], counter: str) -> None:
    """Raise ValueError unless the paper ids read from the interest order's file
    (:func:`.fitted.read_first`) are positive, unique and at most the highest paper id of
    ``counter``, and their scores finite, bounded (:data:`VALUE_BOUND`, as
    :func:`check_fitted`) and falling, as the file is written (rows read in its order);
    the standard library alone (no numpy)."""
    _, highest = papers_counted(counter)
    if len(ids) != len(scores) or len(set(ids)) != len(ids):
        raise ValueError("the interest order's paper ids are not the library's")
    if any(not 1 <= pid <= highest for pid in ids):
        raise ValueError("the interest order's paper ids are not the library's")
    if any(not math.isfinite(v) or abs(v) > VALUE_BOUND for v in scores):
        raise ValueError("the interest order's scores are not all finite and bounded")
    if any(later > earlier for earlier, later in itertools.pairwise(scores)):
        raise ValueError("the interest order's scores do not fall")


#: name: (dtype kinds allowed, number of dimensions) of each member of the ranker's
#: selection record (:func:`.select.write_history`).
_HISTORY: dict[str, tuple[str, int]] = {
    "ids": ("i", 1),
    "scores": ("f", 2),
    "digests": ("u", 1),
    "good": ("f", 1),
    "wins": ("f", 1),
    "pairs": ("f", 0),
}


def check_history_layout(layout: dict[str, Member], counter: str) -> bool:
    """Raise ValueError unless ``layout`` (:func:`.stored.members`) is that of a selection
    record: exactly its members, each of its kind, two scores and a digest (or none at
    all) per paper id, two pair
    counts per candidate (nothing is read but the headers). Returns whether its round
    (ids and scores) can be the library's whose change counter is ``counter``: at most
    one id per paper id up to the highest. A round that cannot (papers removed since,
    the last import undone) is dropped by the caller; its counts are kept."""
    _check_members(layout, _HISTORY, "the selection record")
    count = layout["ids"].shape[0]
    if (
        layout["scores"].shape != (2, count)
        or layout["digests"].shape not in ((count,), (0,))
        or layout["good"].shape != (2,)
        or layout["wins"].shape != (2,)
    ):
        raise ValueError("the selection record's arrays do not fit together")
    _, highest = papers_counted(counter)
    return count <= highest


def check_history_counts(counts: Sequence[np.ndarray]) -> None:
    """Raise ValueError unless the selection record's ``counts`` (pairs ordered right per
    candidate, rounds won, pairs) are finite and not negative, none of the pairs ordered
    right above the pairs."""
    import numpy as np

    good, wins, pairs = (np.asarray(c, dtype=np.float64) for c in counts)
    if not all(np.isfinite(c).all() and (c >= 0).all() for c in (good, wins, pairs)):
        raise ValueError("the selection record's counts are not all finite and positive")
    if (good > pairs * (1 + 1e-9)).any():
        raise ValueError("the selection record orders more pairs than it counted")


def check_history(ids: np.ndarray, scores: np.ndarray, counter: str) -> np.ndarray:
    """Raise ValueError unless the selection record's round's ``ids`` are positive,
    ascending and unique and its ``scores`` finite and bounded. Returns the mask of the
    ids at most the highest paper id of ``counter`` (the others' papers were removed
    since: :func:`.select.read_history` drops them)."""
    import numpy as np

    _, highest = papers_counted(counter)
    if len(ids) and (ids[0] < 1 or (np.diff(ids) <= 0).any()):
        raise ValueError("the selection record's paper ids are not ascending paper ids")
    if not _bounded(scores):
        raise ValueError("the selection record's scores are not all finite and bounded")
    kept: np.ndarray = ids <= highest
    return kept
