"""The fitted interest of every paper, cached beside the index: what lets
``list --sort interest --limit N`` and the first triage screen cost what they show.

A fit (:meth:`.ranker.Ranker.scores`) reads every row of the index, once per feature
space and step (a few seconds of CPU at 61,000 papers, plus loading the index). Its
result is one number per paper, kept in a small file beside the index
(``library.db.interest.npz``: 16 bytes a paper) under the :func:`key` of the library
state it was fitted on. The key is the library's change counter (:class:`Counter`):
a decision changes it (``mark`` and ``priority`` set the paper's ``updated_at``, a tag
changes the tag links' count and sum), so a command whose key matches reads the
scores (milliseconds, numpy alone: no scipy, no ORM) and one whose key differs refits
and rewrites the file (temp+rename). Like the index, the file is derived data: one
that fails :func:`.trust.check_fitted` is ignored. Fits with a ``--like`` text are not
cached (the key would need the text).

Beside it, under the same key, the whole library in the interest order
(``library.db.interest.order``, :func:`write_order`): a line of JSON (the key, what
the model learnt from, the paper count) and then the paper ids, highest interest
first, and their scores, as 8-byte little-endian integers and floats. The first (or
last) ``N`` of them are read with the standard library alone (:func:`read_first`):
``list --sort interest --limit N`` imports no numpy (about 100 ms at every start-up)
and sorts nothing. numpy is imported here only by what handles whole arrays.

Also here, because reading the scores needs them and nothing heavy: the change counter
(:func:`change_counter`), where the cache files live (:func:`cache_path`), opening a
cache file safely (:func:`open_regular`) and writing one atomically
(:func:`save_atomically`); :mod:`.store` uses the same.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import stat
import sys
import threading
import zipfile
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from sqlalchemy import func, select

from readinglist import decided
from readinglist.config import cache_directory
from readinglist.tables import DECISIONS, PAPER_TAGS, PAPERS, Executor

if TYPE_CHECKING:
    import numpy as np

#: Bumped when the features or the index cache's contents change (old caches rebuilt).
VERSION = 5
#: Bumped when the fitted scores' file changes (old files refitted).
FITTED_VERSION = 1


@dataclass(frozen=True)
class Counter:
    """What the caches are checked against (see :mod:`.store`'s docstring).

    ``shape``: the feature version, the papers' count and highest id, the tag links'
    count and sum of tag ids. ``updated``: the papers' last ``updated_at`` (ISO text),
    or "" for a library without papers.
    """

    shape: str
    updated: str
    #: The current reader's decisions: reader, count and last ``updated_at`` (a fit
    #: depends on them; the index of texts does not).
    decisions: str = ""


def change_counter(session: Executor) -> Counter:
    """Return the library's :class:`Counter`: one statement on the Core tables.

    Each aggregate is a scalar subquery of its own: alone, SQLite answers ``count(*)``
    without reading the rows and a ``max`` by one look-up of its index (migration 0009:
    ``ix_papers_updated_at``, ``ix_decisions_reader_updated``); side by side in one
    ``SELECT``, it scanned the whole papers table (83 ms at 61,000 papers).
    """
    mine = DECISIONS.c.reader_id == decided.CURRENT_ID
    aggregates = (
        select(func.count()).select_from(PAPERS),
        select(func.max(PAPERS.c.id)),
        select(func.max(PAPERS.c.updated_at)),
        select(func.count()).select_from(PAPER_TAGS),
        select(func.coalesce(func.sum(PAPER_TAGS.c.tag_id), 0)),
        select(func.count()).select_from(DECISIONS).where(mine),
        select(func.max(DECISIONS.c.updated_at)).where(mine),
    )
    row = session.execute(select(*(a.scalar_subquery() for a in aggregates))).one()
    count, highest, last_paper, links, link_sum, decided_count, last_decision = row
    updated = last_paper.isoformat() if last_paper is not None else ""
    last = last_decision.isoformat() if last_decision is not None else ""
    decisions = f"{decided.fold(decided.current())}|{decided_count}|{last}"
    return Counter(f"v{VERSION}|{count}|{highest}|{links}|{link_sum}", updated, decisions)


def key(counter: Counter) -> str:
    """The key of the scores fitted on the library state ``counter``: the one place that
    says what a fit depends on (the current reader's decisions, the papers and their tags)."""
    return f"f{FITTED_VERSION}|{counter.shape}|{counter.updated}|{counter.decisions}"


def cache_path(url: str) -> Path:
    """Return the index cache file of the library at ``url``: beside an SQLite file
    (``library.db.rank.npz``), else in :func:`readinglist.config.cache_directory`
    ``("rank")`` named by a digest of the URL (``READINGLIST_CACHE`` moves it; tests
    point it at a temporary folder)."""
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return Path(url[len("sqlite:///") :] + ".rank.npz")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:20]
    return cache_directory("rank") / f"rank-{digest}.npz"


def build_notice(count: int) -> str:
    """Return what is said, before the index of a library of ``count`` papers is built
    afresh (:func:`.store.load`), to the person waiting: a first index of 61,000 papers
    takes about a minute, of a few thousand 10-20 s, which was a blank screen. The
    index holds each paper's title, abstract, authors, venue and tags, so an import, an
    edit of those or a tag change builds it again (the message said "once")."""
    return (
        f"building the interest index of {count:,} papers"
        " (kept for later runs until papers are added or a text or tag changes)..."
    )


#: The longest reader part of a fitted scores' file name written as the name itself.
NAME_BYTES = 100


def fitted_path(url: str) -> Path:
    """Return the current reader's fitted scores' file of the library at ``url``, beside
    its index cache (``library.db.interest.npz``; ``rank-<digest>.interest.npz`` for a
    server); another reader than the implicit one has their own
    (``library.db.interest-ana.npz``: the folded reader name, letters, digits, ``.``,
    ``_``, ``-``), so one reader's last fit is never shown to another while theirs runs.
    A name over :data:`NAME_BYTES` bytes in UTF-8 (64 characters outside the Basic
    Multilingual Plane are 256) is named by a digest of it instead, so the file name
    stays within the 255 bytes POSIX file systems allow."""
    return reader_path(url, "interest")


def reader_path(url: str, kind: str) -> Path:
    """Return the current reader's file ``kind`` of the library at ``url``, beside its
    index cache, named as :func:`fitted_path` says (``library.db.KIND.npz``,
    ``library.db.KIND-ana.npz``): ``interest`` the fitted scores, ``history`` the
    ranker's selection record (:mod:`.select`)."""
    index = cache_path(url)
    stem = index.name.removesuffix(".npz").removesuffix(".rank")
    reader = decided.fold(decided.current())
    mine = "" if reader == decided.DEFAULT_READER else f"-{reader}"
    if len(mine.encode("utf-8")) > NAME_BYTES:
        mine = "-" + hashlib.sha256(reader.encode("utf-8")).hexdigest()[:20]
    return index.with_name(f"{stem}.{kind}{mine}.npz")


def open_regular(path: Path) -> BinaryIO | None:
    """Open ``path`` for reading only when it is a regular file, else None: opened
    without blocking and checked with ``fstat`` (a FIFO put in a cache's place would
    otherwise block the open until a writer comes, hanging every ranking command)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        return None


def save_atomically(path: Path, arrays: dict[str, Any]) -> bool:
    """Write ``arrays`` as an uncompressed ``.npz`` at ``path`` (:func:`replace_atomically`)."""
    import numpy as np

    return replace_atomically(path, lambda out: np.savez(out, **arrays))


def replace_atomically(path: Path, write: Callable[[BinaryIO], None]) -> bool:
    """Write a file at ``path`` with ``write(binary file)`` through a temporary file of
    this process and thread renamed over it (``os.replace``), so that a reader, or a
    write that fails or is killed, never leaves a half-written cache in its place (nor
    does another thread's write of the same file: a triage run's background fit and its
    ``w`` key both keep the selection record). Returns False when it could not be
    written (a cache is optional: the caller goes on)."""
    tmp = path.with_name(path.name + f".{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphans(path)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # whatever is there (a FIFO would block the open)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(tmp, flags, 0o644), "wb") as out:
            write(out)
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False


def _remove_orphans(path: Path) -> None:
    """Remove the temporary files of ``path`` left by processes that no longer run (one
    killed while it wrote: ``kill -9``, or a triage run that quit while its background
    thread wrote): named ``<name>.<pid>.<thread>.tmp`` (or ``<name>.<pid>.tmp``, as
    written before), removed when that pid is gone."""
    for tmp in path.parent.glob(path.name + ".*.tmp"):
        pid = tmp.name[len(path.name) + 1 : -len(".tmp")].split(".")[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        except OSError:  # another user's process, alive: its file stays
            continue


#: What reading a damaged, cut short or foreign cache file raises (np.load raises
#: EOFError for an empty file and BadZipFile for a cut one; json.loads RecursionError
#: for a header of thousands of nested brackets): such a file is ignored.
UNREADABLE = (OSError, ValueError, EOFError, LookupError, RecursionError, zipfile.BadZipFile)

#: What :func:`load_checked` returns.
_T = TypeVar("_T")


@dataclass(frozen=True)
class Fitted:
    """The interest of every indexed paper under one library state.

    ``ids`` ascending, ``scores[i]`` the interest of paper ``ids[i]`` as
    :meth:`.ranker.Ranker.scores` gave it; ``learnt`` what the model learnt from
    (:meth:`.ranker.Ranker.learnt_from`); ``key`` the :func:`key` it was fitted on.
    """

    key: str
    ids: np.ndarray
    scores: np.ndarray
    learnt: str

    @classmethod
    def of(cls, key: str, ids: np.ndarray, scores: np.ndarray, learnt: str) -> Fitted:
        """The scores of the papers ``ids`` (any order), kept sorted by id."""
        import numpy as np

        order = np.argsort(ids, kind="stable")
        return cls(
            key,
            np.asarray(ids, dtype=np.int64)[order],
            np.asarray(scores, dtype=np.float64)[order],
            learnt,
        )

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first; papers without a score last, ties in
        the given order (as :meth:`.ranker.Ranker.order`)."""
        import numpy as np

        if not len(pids) or not len(self.ids):  # no scores (nothing learnt): as given
            return list(pids)
        at = _positions(self.ids, pids)
        values = np.where(at >= 0, self.scores[np.maximum(at, 0)], -np.inf)
        ordered: list[int] = np.asarray(pids, dtype=np.int64)[
            np.argsort(-values, kind="stable")
        ].tolist()
        return ordered

    def get(self, pid: int) -> float | None:
        """Return the interest of paper ``pid`` as it is printed, or None (no score): one
        look-up (a whole-library listing asks per paper)."""
        import numpy as np

        at = int(np.searchsorted(self.ids, pid))
        if at >= len(self.ids) or self.ids[at] != pid:
            return None
        return round(float(self.scores[at]), 4)

    def of_ids(self, pids: Sequence[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest rounded to 4 digits}`` (None: no score), as
        :meth:`.ranker.Interest.of` prints it."""
        import numpy as np

        at = _positions(self.ids, pids)
        values = self.scores[np.maximum(at, 0)].tolist() if len(self.ids) else [0.0] * len(at)
        return {
            pid: None if where < 0 else round(value, 4)
            for pid, where, value in zip(pids, at.tolist(), values, strict=True)
        }


def first_papers(
    connection: Executor, scores: Fitted, limit: int, *, reverse: bool = False
) -> list[int] | None:
    """Return the first ``limit`` papers of the whole library in the interest order
    (``scores.order`` of every paper in the order of addition, reversed with
    ``reverse``), reading only the papers that can be among them; None when that cannot
    be told without every paper (the caller orders them all then).

    The ``limit``-th best score is found by ``numpy.partition``; the papers scoring at
    least that well (ties included) are read in the order of addition (``ORDER BY
    added_at, id``, the library's ``list`` order: the order ``scores.order`` keeps for
    ties) and sorted by score with a stable sort: the same papers in the same order as
    the first ``limit`` of every paper ordered. None when some paper has no score (the
    fit's paper count, in its :func:`key`, is not the number of scores: those papers
    come last, or first reversed), when ``limit`` is not below the number of scores,
    when more than ``library._sql.CHUNK`` (500) papers score at least as well as the
    ``limit``-th (ties), or when a scored paper is gone.
    """
    import numpy as np

    from readinglist.library._sql import CHUNK

    count = len(scores.ids)
    if not 0 < limit < count or count != papers_of(scores.key):
        return None
    if reverse:  # the lowest first, ties in the reverse order of addition
        kth = np.partition(scores.scores, limit - 1)[limit - 1]
        wanted = scores.ids[scores.scores <= kth]
        order = [PAPERS.c.added_at.desc(), PAPERS.c.id.desc()]
    else:
        kth = np.partition(scores.scores, count - limit)[count - limit]
        wanted = scores.ids[scores.scores >= kth]
        order = [PAPERS.c.added_at.asc(), PAPERS.c.id.asc()]
    if len(wanted) > CHUNK:
        return None
    stmt = select(PAPERS.c.id).where(PAPERS.c.id.in_(wanted.tolist())).order_by(*order)
    found = list(connection.execute(stmt).scalars().all())
    if len(found) != len(wanted):
        return None
    at = _positions(scores.ids, found)
    values = scores.scores[at] if reverse else -scores.scores[at]
    ordered: list[int] = np.asarray(found, dtype=np.int64)[
        np.argsort(values, kind="stable")[:limit]
    ].tolist()
    return ordered


def papers_of(fitted_key: str) -> int:
    """The number of papers of the library a fit with :func:`key` ``fitted_key`` was made
    on (its change counter's count; -1 for a key of another form)."""
    parts = fitted_key.split("|")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1


def _positions(sorted_ids: np.ndarray, pids: Sequence[int]) -> np.ndarray:
    """Where each of ``pids`` is in ``sorted_ids`` (ascending), -1 where absent."""
    import numpy as np

    wanted = np.asarray(pids, dtype=np.int64)
    if not len(sorted_ids) or not len(wanted):
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_ids, wanted), len(sorted_ids) - 1)
    return np.where(sorted_ids[at] == wanted, at, -1)


def load_checked(
    path: Path, check_layout: Callable[[dict[str, Any]], None], read: Callable[[Any], _T]
) -> _T | None:
    """What ``read`` makes of the ``.npz`` file at ``path`` (an open ``NpzFile``, no
    pickles) once ``check_layout`` passed on its members' headers
    (:func:`.stored.members`, nothing decompressed yet); None when the file is missing or
    not a regular file (:func:`open_regular`), or when reading or a check raised what
    :data:`UNREADABLE` names (a damaged, forged or foreign file is never an error)."""
    import numpy as np

    from readinglist.ranking import stored

    handle = open_regular(path)
    if handle is None:
        return None
    with handle:
        try:
            check_layout(stored.members(handle))
            handle.seek(0)
            with np.load(handle, allow_pickle=False) as data:
                return read(data)
        except UNREADABLE:
            return None


def read(url: str, counter: Counter, *, stale: bool = False) -> Fitted | None:
    """Return the fitted scores of the library at ``url`` when their key is
    ``key(counter)`` (with ``stale``: whatever key, the last fit, for an order to show
    while a new one is fitted), and the file passes :func:`.trust.check_fitted`; else
    None (:func:`load_checked`)."""
    from readinglist.ranking import trust

    def found(data: Any) -> Fitted | None:
        got = Fitted(str(data["key"]), data["ids"], data["scores"], str(data["learnt"]))
        if not stale and got.key != key(counter):
            return None
        trust.check_fitted(got.ids, got.scores, counter.shape)
        return got

    return load_checked(
        fitted_path(url), lambda layout: trust.check_fitted_layout(layout, counter.shape), found
    )


def write(url: str, fitted: Fitted) -> bool:
    """Write ``fitted`` as the library's fitted scores (:func:`save_atomically`), then
    its interest order (:func:`write_order`); True when both were written."""
    import numpy as np

    saved = save_atomically(
        fitted_path(url),
        {
            "key": np.array(fitted.key),
            "ids": fitted.ids,
            "scores": fitted.scores,
            "learnt": np.array(fitted.learnt),
        },
    )
    return saved and write_order(url, fitted)


def order_path(url: str) -> Path:
    """Return the interest order's file of the library at ``url``, beside the fitted
    scores' file (:func:`fitted_path`: ``library.db.interest.order``)."""
    scores = fitted_path(url)
    return scores.with_name(scores.name.removesuffix(".npz") + ".order")


#: The longest first line of the interest order's file read (its JSON header).
MAX_ORDER_HEADER = 4096


def write_order(url: str, fitted: Fitted) -> bool:
    """Write the interest order of ``fitted`` (:func:`replace_atomically`; the layout in
    the module docstring): its papers highest score first, ties in the order of
    ``fitted.ids`` (the index's rows: the order of addition), as
    :meth:`Fitted.order` of every paper orders them."""
    import numpy as np

    ranked = np.argsort(-fitted.scores, kind="stable")
    header = {"key": fitted.key, "learnt": fitted.learnt, "count": len(ranked)}
    line = json.dumps(header, ensure_ascii=True).encode("ascii") + b"\n"
    if len(line) > MAX_ORDER_HEADER:
        return False

    def write(out: BinaryIO) -> None:
        out.write(line)
        out.write(np.asarray(fitted.ids, dtype="<i8")[ranked].tobytes())
        out.write(np.asarray(fitted.scores, dtype="<f8")[ranked].tobytes())

    return replace_atomically(order_path(url), write)


@dataclass(frozen=True)
class Ranked:
    """Papers of the library in the interest order, read from the interest order's file
    (:func:`read_first`: the first ones; :func:`read_order`: all of them) with the
    standard library alone: ``ids`` highest interest first, ``scores`` theirs,
    ``learnt`` what the model learnt from, ``key`` the :func:`key` it was fitted on.
    Answers what :class:`Fitted` answers a triage run (:meth:`order`, :meth:`of_ids`)."""

    key: str
    ids: list[int]
    scores: list[float]
    learnt: str

    @cached_property
    def _score(self) -> dict[int, float]:
        return dict(zip(self.ids, self.scores, strict=True))

    def order(self, pids: Sequence[int]) -> list[int]:
        """Return ``pids`` highest interest first; papers without a score last, ties in
        the given order (as :meth:`Fitted.order`).

        The ids are in the interest order already: ``pids`` is taken from them in one
        pass, and only papers of equal score are sorted, by their place in ``pids`` (a
        queue of 61,000 papers: a sort of all of them by score took 50 ms)."""
        place = {pid: at for at, pid in enumerate(pids)}
        if len(place) != len(pids):  # an id repeated: sorted by score, as numpy would
            score, lowest = self._score, -math.inf
            return sorted(pids, key=lambda pid: -score.get(pid, lowest))
        ranked: list[int] = []
        start, previous = 0, math.nan
        for pid, value in zip(self.ids, self.scores, strict=True):
            if pid not in place:
                continue
            if value != previous:
                _sort_tail(ranked, start, place)
                start, previous = len(ranked), value
            ranked.append(pid)
        _sort_tail(ranked, start, place)
        if len(ranked) < len(pids):  # papers without a score: last, in the given order
            scored = set(ranked)
            ranked += [pid for pid in pids if pid not in scored]
        return ranked

    def of_ids(self, pids: Sequence[int]) -> dict[int, float | None]:
        """Return ``{paper id: interest rounded to 4 digits}`` (None: no score), as
        :meth:`Fitted.of_ids` gives it."""
        score = self._score
        return {pid: None if pid not in score else round(score[pid], 4) for pid in pids}


def _sort_tail(ids: list[int], start: int, place: dict[int, int]) -> None:
    """Sort ``ids[start:]`` (papers of one score) by their ``place`` (:meth:`Ranked.order`)."""
    if len(ids) - start > 1:
        ids[start:] = sorted(ids[start:], key=place.__getitem__)


def _order_header(handle: BinaryIO) -> tuple[str, str, int, int]:
    """The key, learnt text and paper count of the interest order's file open in
    ``handle``, and where its ids start; raises ValueError, TypeError or LookupError
    for a file not of its layout (its size checked against the count)."""
    line = handle.readline(MAX_ORDER_HEADER)
    header = json.loads(line)
    fitted_key, learnt, count = header["key"], header["learnt"], header["count"]
    if not isinstance(fitted_key, str) or not isinstance(learnt, str):
        raise TypeError("the interest order's header is not what it should be")
    if not isinstance(count, int) or count < 0:
        raise TypeError("the interest order's count is not what it should be")
    if os.fstat(handle.fileno()).st_size != len(line) + 16 * count:
        raise ValueError("the interest order's file is not as long as its count says")
    return fitted_key, learnt, count, len(line)


def _order_rows(
    handle: BinaryIO, start: int, count: int, first: int, stop: int
) -> tuple[array[int], array[float]]:
    """The ids and scores ``first:stop`` of the interest order's file open in ``handle``
    (ids from ``start``, ``count`` of them, then as many scores)."""
    fd = handle.fileno()
    ids, scores = array("q"), array("d")
    ids.frombytes(os.pread(fd, 8 * (stop - first), start + 8 * first))
    scores.frombytes(os.pread(fd, 8 * (stop - first), start + 8 * (count + first)))
    if sys.byteorder != "little":
        ids.byteswap()
        scores.byteswap()
    return ids, scores


def _read_rows(
    url: str, counter: Counter, span: Callable[[str, int], tuple[int, int] | None]
) -> tuple[str, str, array[int], array[float]] | None:
    """The key, learnt text, ids and scores of rows ``first:stop`` of the interest order's
    file, where ``span(key, count)`` of its header says (None: the file is not to be
    read); None too when the file is missing, not a regular file, not of its layout or
    its rows fail :func:`.trust.check_ranked`. The standard library alone."""
    from readinglist.ranking import trust

    handle = open_regular(order_path(url))
    if handle is None:
        return None
    with handle:
        try:
            fitted_key, learnt, count, start = _order_header(handle)
            rows = span(fitted_key, count)
            if rows is None:
                return None
            ids, scores = _order_rows(handle, start, count, *rows)
            trust.check_ranked(ids, scores, counter.shape)
        except (*UNREADABLE, TypeError):
            return None
    return fitted_key, learnt, ids, scores


def read_first(url: str, counter: Counter, limit: int, *, reverse: bool = False) -> Ranked | None:
    """Return the first ``limit`` papers of the whole library in the interest order (the
    last ones, lowest first, with ``reverse``: ties in the reverse order of addition,
    as the whole order reversed) from the interest order's file, when its key is
    ``key(counter)``; else None (the caller goes the longer way).

    None too when the file is missing, not a regular file, not of its layout, when
    ``limit`` is not below the number of papers in it, when that number is not the
    library's (some paper has no score: :func:`first_papers` says why) or when the ids
    and scores read fail :func:`.trust.check_ranked`. Reads the header and ``16 *
    limit`` bytes: the standard library alone.
    """

    def span(fitted_key: str, count: int) -> tuple[int, int] | None:
        if fitted_key != key(counter) or not 0 < limit < count:
            return None
        if count != papers_of(fitted_key):
            return None
        first = count - limit if reverse else 0
        return first, first + limit

    found = _read_rows(url, counter, span)
    if found is None:
        return None
    fitted_key, learnt, ids, scores = found
    shown, values = ids.tolist(), scores.tolist()
    if reverse:
        shown.reverse()
        values.reverse()
    return Ranked(fitted_key, shown, values, learnt)


def read_order(url: str, counter: Counter, *, stale: bool = False) -> Ranked | None:
    """Return every paper of the interest order's file when its key is ``key(counter)``
    (with ``stale``: whatever key, the last fit, as :func:`read` gives it) and the file
    passes :func:`.trust.check_ranked`; else None. The standard library alone: a triage
    run orders its first screen without numpy (16 bytes a paper read)."""
    from readinglist.ranking import trust

    def span(fitted_key: str, count: int) -> tuple[int, int] | None:
        if not stale and fitted_key != key(counter):
            return None
        if count > trust.papers_counted(counter.shape)[1]:
            return None  # more papers than ids up to the highest: not this library's
        return 0, count

    found = _read_rows(url, counter, span)
    if found is None:
        return None
    fitted_key, learnt, ids, scores = found
    return Ranked(fitted_key, ids.tolist(), scores.tolist(), learnt)
