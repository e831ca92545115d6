"""The tf-idf matrix of the library, cached beside it and rebuilt when stale.

Two matrices, in fact: the committed index (:func:`.features.vectorizer_params`) and
the second (:func:`.features.second_params`, :attr:`Index.second`), built together
(:func:`index_of`), kept in the same file and checked the same way: the ranker's
per-reader selection (:mod:`.select`) fits its classifier on both.

Cache choice: a file, not a table. The matrix is derived data (rebuilt from the papers
at any time), large (megabytes at 100,000 papers) and read whole; a file keeps it out of
backups, migrations and the schema, and loading an ``.npz`` is a few milliseconds.
For an SQLite library it lies beside the database (``library.db.rank.npz``); for
PostgreSQL in the user cache directory, named by a digest of the URL. The cache holds
a *change counter* of the library (papers: count and highest id; tag links: count and
sum of tag ids), the last ``updated_at`` of its papers and a digest of every paper's
feature text. When the counter differs the matrix is rebuilt. When only papers were
updated since, their feature texts are read again and compared with the digests: a
decision (``mark``, ``priority``, a note) changes ``updated_at`` but not the text, and
no longer costs a rebuild (a minute and 1.3 GB at 100,000 papers; issue 17). So the
cache is never a source of truth. A cache that cannot be read or written is ignored.
The counter, the cache paths and the atomic write live in :mod:`.fitted`, with the
fitted scores that are read without this module (no scipy, no ORM).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, partial
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from scipy import sparse
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from readinglist.library._sql import CHUNK
from readinglist.models import Paper, PaperPerson, PaperTag, Person, Tag
from readinglist.ranking import features, stored, trust
from readinglist.ranking.fitted import (
    UNREADABLE,
    VERSION,
    Counter,
    build_notice,
    cache_path,
    change_counter,
    open_regular,
    save_atomically,
)

__all__ = ["VERSION", "Counter", "Index", "cache_path", "change_counter", "load"]

#: Dimensions of the dense (LSA) rows: a truncated SVD of the tf-idf matrix.
LSA_DIMS = 256


@dataclass
class Index:
    """The tf-idf rows of every paper: ``ids[i]`` is the paper of row ``i``.

    ``terms`` is the vocabulary in column order, or a function that reads it: a cached
    index reads its terms (about 65 MB at 100,000 papers) only when :attr:`vocabulary`
    is first asked for (``--like``, ``show --why``, topics), never to score (issue 17).
    A cached index loaded ``streamed`` (:func:`load`) reads its tf-idf and LSA rows from
    the file when they are used (:mod:`.stored`), for scoring a whole library.
    """

    ids: np.ndarray
    matrix: sparse.csr_matrix | stored.StoredCSR
    terms: list[str] | Callable[[], list[str]]
    idf: np.ndarray
    dense: np.ndarray | stored.StoredDense | None = None
    #: :func:`text_digest` of each row's feature text (empty when not known).
    digests: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    #: The papers' last ``updated_at`` when the cache was written (:attr:`Counter.updated`).
    updated: str = ""
    #: The same papers' rows in the second index (:func:`.features.second_params`, its
    #: own terms and LSA rows; ``ids`` as these): the second candidate of the ranker's
    #: per-reader selection (:mod:`.select`). None: the ranker keeps its one classifier.
    second: Index | None = None

    def __post_init__(self) -> None:
        self._sorter = np.argsort(self.ids, kind="stable")
        self._sorted = self.ids[self._sorter]

    @property
    def sorted_ids(self) -> np.ndarray:
        """The paper ids in ascending order."""
        return self._sorted

    @cached_property
    def row(self) -> dict[int, int]:
        """``{paper id: row}``, built on first use (about 10 MB at 100,000 papers; scoring
        a listing uses :meth:`rows_of` instead)."""
        return {int(pid): i for i, pid in enumerate(self.ids)}

    @property
    def vocabulary(self) -> list[str]:
        """The terms of the columns, in order (read on first use; see the class docstring)."""
        if callable(self.terms):
            self.terms = self.terms()
        return self.terms

    def rows_of(self, pids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Return the row of each paper id (-1 for a paper not in the index), vectorised."""
        at = positions(self._sorted, pids)
        return np.where(at >= 0, self._sorter[at], -1)


def positions(sorted_ids: np.ndarray, pids: Sequence[int] | np.ndarray) -> np.ndarray:
    """Return where each of ``pids`` is in ``sorted_ids`` (ascending), -1 where absent:
    the look-up of :meth:`Index.rows_of` and of the ranker's ``Interest``."""
    wanted = np.asarray(pids, dtype=np.int64)
    if not len(sorted_ids) or not len(wanted):
        return np.full(len(wanted), -1, dtype=np.int64)
    at = np.minimum(np.searchsorted(sorted_ids, wanted), len(sorted_ids) - 1)
    return np.where(sorted_ids[at] == wanted, at, -1)


def lsa(matrix: sparse.csr_matrix, dims: int = LSA_DIMS) -> np.ndarray | None:
    """Return the rows of ``matrix`` reduced by LSA (truncated SVD, fixed seed) to at most
    ``dims`` dimensions and normalised (float32), or None for a matrix too small for it.

    A positive then also raises papers that share no term with it but the same latent
    topic (measured in benchmarks/TRIAGE_RANK.md).
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize

    dims = min(dims, matrix.shape[0] - 1, matrix.shape[1] - 1)
    if dims < 2:
        return None
    reduced = TruncatedSVD(n_components=dims, random_state=14).fit_transform(matrix)
    return np.ascontiguousarray(normalize(reduced), dtype=np.float32)


def text_digest(text: str) -> int:
    """Return a 64-bit digest of one paper's feature text (BLAKE2b, 8 bytes)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def digests(texts: Sequence[str]) -> np.ndarray:
    """Return :func:`text_digest` of each text, as unsigned 64-bit integers."""
    return np.fromiter((text_digest(t) for t in texts), dtype=np.uint64, count=len(texts))


def documents(session: Session, only: Sequence[int] | None = None) -> tuple[list[int], list[str]]:
    """Return the ids (in order of addition) and feature texts of every paper, or of the
    papers ``only`` names (``library._sql.CHUNK`` ids per query)."""
    if only is None:
        return _documents(session, None)
    ids: list[int] = []
    texts: list[str] = []
    for start in range(0, len(only), CHUNK):
        chunk_ids, chunk_texts = _documents(session, only[start : start + CHUNK])
        ids += chunk_ids
        texts += chunk_texts
    return ids, texts


def _documents(session: Session, only: Sequence[int] | None) -> tuple[list[int], list[str]]:
    people = select(PaperPerson.paper_id, Person.family, Person.given, Person.literal)
    links = select(PaperTag.paper_id, Tag.name)
    papers = select(Paper.id, Paper.title, Paper.abstract, Paper.venue)
    if only is not None:
        people = people.where(PaperPerson.paper_id.in_(only))
        links = links.where(PaperTag.paper_id.in_(only))
        papers = papers.where(Paper.id.in_(only))
    authors: dict[int, list[str]] = defaultdict(list)
    for pid, family, given, literal in session.execute(
        people.join(Person, Person.id == PaperPerson.person_id)
        .where(PaperPerson.role == "author")
        .order_by(PaperPerson.paper_id, PaperPerson.position)
    ):
        authors[pid].append(literal or f"{family} {given[:1]}")
    tags: dict[int, list[str]] = defaultdict(list)
    # by name: the text (and its digest) must not follow a table's scan order, which
    # differs between databases and between a whole read and one of some papers
    for pid, name in session.execute(
        links.join(Tag, Tag.id == PaperTag.tag_id).order_by(PaperTag.paper_id, Tag.name)
    ):
        tags[pid].append(name)
    ids: list[int] = []
    texts: list[str] = []
    for pid, title, abstract, venue in session.execute(papers.order_by(Paper.added_at, Paper.id)):
        ids.append(pid)
        texts.append(features.document(title, abstract, authors[pid], venue, tags[pid]))
    return ids, texts


def build(session: Session) -> Index:
    """Compute the index of the library from its papers (no cache), the numerical
    libraries on one thread each (:func:`one_thread`)."""
    ids, texts = documents(session)
    with one_thread():
        return index_of(texts, ids)


def index_of(texts: Sequence[str], ids: Sequence[int] | None = None) -> Index:
    """The index of the feature texts ``texts`` (:func:`.features.document`) of the papers
    ``ids`` (default 0, 1, ...): the tf-idf rows (:func:`.features.fit`) and their LSA
    rows (:func:`lsa`), and the same of the second index (:func:`.features.second_params`)
    as :attr:`Index.second`. The one rule of what an index holds: :func:`build` and the
    benchmarks (which have no database) call it."""
    rows = np.asarray(range(len(texts)) if ids is None else ids, dtype=np.int64)
    matrix, vocabulary, idf = features.fit(texts)
    second_matrix, second_vocabulary, second_idf = features.fit(
        texts, features.second_params(len(texts))
    )
    second = Index(rows, second_matrix, second_vocabulary, second_idf, lsa(second_matrix))
    return Index(rows, matrix, vocabulary, idf, lsa(matrix), digests(texts), second=second)


def one_thread() -> AbstractContextManager[Any]:
    """Return a context in which the numerical libraries' thread pools (OpenBLAS, OpenMP)
    run one thread each (``threadpoolctl``, which limits only the libraries loaded: those
    of the index and the fits are loaded first; scipy.linalg has an OpenBLAS of its own).

    Their default, one thread a core, made the index's truncated SVD (:func:`lsa`, a
    266 x 9,139 matrix at 6,500 papers) take 8.5 s instead of 0.9 s on a busy 2-core
    machine (the threads wait for each other), and its build took both cores from a
    triage terminal: a key waited 4-6 s for its screen. Measured: ``list --sort
    interest`` building the index of 6,500 papers, 11.5 s before and 5.2 s after.
    """
    import scipy.linalg  # noqa: F401
    import sklearn.decomposition  # noqa: F401
    from threadpoolctl import threadpool_limits

    limited: AbstractContextManager[Any] = threadpool_limits(limits=1)  # untyped
    return limited


def load(
    session: Session,
    url: str,
    *,
    streamed: bool = False,
    on_build: Callable[[str], None] | None = None,
) -> Index:
    """Return the index of the library: from the cache when current, else rebuilt
    (and the cache rewritten, atomically; failures to write are ignored).
    ``on_build`` is told, before a rebuild, what is being built (a message for people:
    a first index of 61,000 papers takes about a minute, which was a blank screen).

    ``streamed``: a cached index keeps its rows in the file and reads them a block at a
    time when used (:mod:`.stored`): for one pass of scores over a large library
    (``list --json``), not for the repeated re-ranks of ``triage``.
    """
    counter = change_counter(session)
    path = cache_path(url)
    cached = _read(path, counter, streamed)
    if cached is not None and texts_unchanged(session, cached, counter):
        return cached
    if on_build is not None:
        count = session.scalar(select(func.count()).select_from(Paper)) or 0
        on_build(build_notice(count))
    index = build(session)
    index.updated = counter.updated  # as read back from the file: texts_unchanged works
    _write(path, counter, index)
    if streamed:  # the rows back in the file, the built matrix freed (a long triage run)
        return _read(path, counter, streamed=True) or index
    return index


def texts_unchanged(session: Session, cached: Index, counter: Counter) -> bool:
    """True when no paper updated since the cache was written has a new feature text
    (its digest is the cached one): see the module docstring. A library whose last
    ``updated_at`` is older than the cache's is an earlier state put back (a backup):
    the papers that changed since are not known, so False (rebuilt)."""
    if counter.updated == cached.updated:
        return True
    if not cached.updated or not counter.updated or not len(cached.digests):
        return False
    since = datetime.fromisoformat(cached.updated)
    if datetime.fromisoformat(counter.updated) < since:
        return False
    changed = list(session.scalars(select(Paper.id).where(Paper.updated_at > since)))
    ids, texts = documents(session, changed)
    rows = cached.rows_of(ids)
    return bool((rows >= 0).all() and (cached.digests[rows] == digests(texts)).all())


#: What reading a damaged, cut short or foreign cache file raises (np.load raises
#: EOFError for an empty file, which click would take for Ctrl-D, and BadZipFile for a
#: cut one; an array where a scalar was stored raises IndexError): such a file is ignored.
_UNREADABLE = UNREADABLE


def _read(path: Path, counter: Counter, streamed: bool = False) -> Index | None:
    """The cached index at ``path`` when it was written for ``counter`` and passes
    :func:`.trust.check_layout` and :func:`.trust.check_values` (its second index too);
    else None (rebuilt)."""
    handle = open_regular(path)
    if handle is None:
        return None
    try:
        layout = stored.members(handle)
        trust.check_layout(layout, counter.shape)
        handle.seek(0)
        data = np.load(handle, allow_pickle=False)
    except _UNREADABLE:
        handle.close()
        return None
    try:
        if str(data["counter"]) != counter.shape:
            data.close()
            handle.close()
            return None
        terms = _Vocabularies(data, None if streamed else handle)
        second = _rows(handle, data, layout, trust.SECOND, streamed, terms)
        index = _rows(handle, data, layout, "", streamed, terms)
        index.digests, index.updated, index.second = data["digests"], str(data["updated"]), second
        trust.check_values(index, counter.shape)
        trust.check_values(second, counter.shape)
        # The file stays open until the terms are read (and, streamed, while the rows
        # are: the stored rows hold it): a rebuild that replaces it meanwhile
        # (os.replace) leaves this open file as it was, terms and matrix alike.
        return index
    except _UNREADABLE:
        data.close()
        handle.close()
        return None


def _rows(
    handle: BinaryIO,
    data: Any,
    layout: dict[str, stored.Member],
    prefix: str,
    streamed: bool,
    terms: _Vocabularies,
) -> Index:
    """The index whose members are named ``prefix`` + their name in the open cache file
    ``data`` (``handle``, of ``layout``): its rows in memory, or ``streamed`` from the
    file; its terms read on first use (``terms``). Raises what :data:`_UNREADABLE` names."""
    shape = (int(data[prefix + "shape"][0]), int(data[prefix + "shape"][1]))
    trust.check_shape(shape, layout, prefix)
    matrix: sparse.csr_matrix | stored.StoredCSR
    dense: np.ndarray | stored.StoredDense | None
    if streamed:
        matrix = stored.StoredCSR(
            handle,
            layout[prefix + "data"],
            layout[prefix + "indices"],
            data[prefix + "indptr"],
            shape,
        )
        matrix.verify()
        has_dense = layout[prefix + "dense"].shape[0] > 0
        dense = stored.StoredDense(handle, layout[prefix + "dense"]) if has_dense else None
        if dense is not None:
            dense.verify(shape[0])
    else:
        matrix = trust.checked_csr(
            data[prefix + "data"], data[prefix + "indices"], data[prefix + "indptr"], shape
        )
        dense = data[prefix + "dense"] if data[prefix + "dense"].size else None
    vocabulary = prefix + "vocabulary"
    return Index(data["ids"], matrix, partial(terms.read, vocabulary), data[prefix + "idf"], dense)


class _Vocabularies:
    """The two vocabularies of the open cache file ``data`` (an ``NpzFile``), each read on
    first use (:attr:`Index.vocabulary`); once both are read, ``data`` is closed, and
    ``handle`` (the file it reads) with it when given."""

    def __init__(self, data: Any, handle: BinaryIO | None) -> None:
        self.data, self.handle = data, handle
        self.left = {"vocabulary", trust.SECOND + "vocabulary"}

    def read(self, name: str) -> list[str]:
        """The terms of the member ``name``."""
        try:
            return [str(t) for t in self.data[name]]
        finally:
            self.left.discard(name)
            if not self.left:
                self.data.close()
                if self.handle is not None:
                    self.handle.close()


def _write(path: Path, counter: Counter, index: Index) -> None:
    second = index.second
    if second is None or not all(_built(i) for i in (index, second)):
        return  # only a built index is written, never one read from the file
    arrays = {
        "counter": np.array(counter.shape),
        "updated": np.array(counter.updated),
        "digests": index.digests,
        "ids": index.ids,
    }
    arrays.update(_arrays(index, ""))
    arrays.update(_arrays(second, trust.SECOND))
    save_atomically(path, arrays)


def _built(index: Index) -> bool:
    """True for an index built in memory (not one read from the file)."""
    return isinstance(index.matrix, sparse.csr_matrix) and not isinstance(
        index.dense, stored.StoredDense
    )


def _arrays(index: Index, prefix: str) -> dict[str, np.ndarray]:
    """The members of the cache file that hold ``index``'s rows and terms, named with
    ``prefix`` (:func:`_rows` reads them back)."""
    matrix = index.matrix
    assert isinstance(matrix, sparse.csr_matrix)
    dense = index.dense if isinstance(index.dense, np.ndarray) else np.zeros((0, 0), np.float32)
    return {
        prefix + "data": matrix.data,
        prefix + "indices": matrix.indices,
        prefix + "indptr": matrix.indptr,
        prefix + "shape": np.array(matrix.shape),
        prefix + "vocabulary": np.array(index.vocabulary, dtype=str),
        prefix + "idf": index.idf,
        prefix + "dense": dense,
    }
