"""The tf-idf matrix of the library, cached beside it and rebuilt when stale.

Cache choice: a file, not a table. The matrix is derived data (rebuilt from the papers
at any time), large (megabytes at 100,000 papers) and read whole; a file keeps it out of
backups, migrations and the schema, and loading an ``.npz`` is a few milliseconds.
For an SQLite library it lies beside the database (``library.db.rank.npz``); for
PostgreSQL in the user cache directory, named by a digest of the URL. The cache holds
a *change counter* of the library (papers: count, highest id, last update; tag links:
count and sum of tag ids); when the counter differs the matrix is rebuilt, so the cache
is never a source of truth. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from readinglist.config import cache_directory
from readinglist.models import Paper, PaperPerson, PaperTag, Person, Tag
from readinglist.ranking import features

#: Bumped when the features change, so that old caches are rebuilt.
VERSION = 2
#: Dimensions of the dense (LSA) rows: a truncated SVD of the tf-idf matrix.
LSA_DIMS = 256


@dataclass
class Index:
    """The tf-idf rows of every paper: ``ids[i]`` is the paper of row ``i``.

    ``terms`` is the vocabulary in column order, or a function that reads it: a cached
    index reads its terms (about 65 MB at 100,000 papers) only when :attr:`vocabulary`
    is first asked for (``--like``, ``show --why``, topics), never to score (issue 17).
    """

    ids: np.ndarray
    matrix: sparse.csr_matrix
    terms: list[str] | Callable[[], list[str]]
    idf: np.ndarray
    dense: np.ndarray | None = None

    def __post_init__(self) -> None:
        self._sorter = np.argsort(self.ids, kind="stable")
        self._sorted = self.ids[self._sorter]

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

    def rows_of(self, pids: Sequence[int]) -> np.ndarray:
        """Return the row of each paper id (-1 for a paper not in the index), vectorised."""
        wanted = np.asarray(pids, dtype=np.int64)
        if not len(self.ids) or not len(wanted):
            return np.full(len(wanted), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._sorted, wanted), len(self.ids) - 1)
        return np.where(self._sorted[at] == wanted, self._sorter[at], -1)


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


def change_counter(session: Session) -> str:
    """Return the library's change counter for the text the features read."""
    papers = session.execute(
        select(func.count(Paper.id), func.max(Paper.id), func.max(Paper.updated_at))
    ).one()
    links = session.execute(
        select(func.count(PaperTag.tag_id), func.coalesce(func.sum(PaperTag.tag_id), 0))
    ).one()
    return f"v{VERSION}|{papers[0]}|{papers[1]}|{papers[2]}|{links[0]}|{links[1]}"


def cache_path(url: str) -> Path:
    """Return the cache file of the library at ``url`` (see the module docstring): beside
    an SQLite file, else in :func:`readinglist.config.cache_directory` ``("rank")``
    (``READINGLIST_CACHE`` moves it; tests point it at a temporary folder)."""
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return Path(url[len("sqlite:///") :] + ".rank.npz")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:20]
    return cache_directory("rank") / f"rank-{digest}.npz"


def documents(session: Session) -> tuple[list[int], list[str]]:
    """Return the ids (in order of addition) and feature texts of every paper."""
    authors: dict[int, list[str]] = defaultdict(list)
    for pid, family, given, literal in session.execute(
        select(PaperPerson.paper_id, Person.family, Person.given, Person.literal)
        .join(Person, Person.id == PaperPerson.person_id)
        .where(PaperPerson.role == "author")
        .order_by(PaperPerson.paper_id, PaperPerson.position)
    ):
        authors[pid].append(literal or f"{family} {given[:1]}")
    tags: dict[int, list[str]] = defaultdict(list)
    for pid, name in session.execute(
        select(PaperTag.paper_id, Tag.name).join(Tag, Tag.id == PaperTag.tag_id)
    ):
        tags[pid].append(name)
    ids: list[int] = []
    texts: list[str] = []
    for pid, title, abstract, venue in session.execute(
        select(Paper.id, Paper.title, Paper.abstract, Paper.venue).order_by(
            Paper.added_at, Paper.id
        )
    ):
        ids.append(pid)
        texts.append(features.document(title, abstract, authors[pid], venue, tags[pid]))
    return ids, texts


def build(session: Session) -> Index:
    """Compute the index of the library from its papers (no cache)."""
    ids, texts = documents(session)
    matrix, vocabulary, idf = features.fit(texts)
    return Index(np.asarray(ids, dtype=np.int64), matrix, vocabulary, idf, lsa(matrix))


def load(session: Session, url: str) -> Index:
    """Return the index of the library: from the cache when current, else rebuilt
    (and the cache rewritten, atomically; failures to write are ignored)."""
    counter = change_counter(session)
    path = cache_path(url)
    cached = _read(path, counter)
    if cached is not None:
        return cached
    index = build(session)
    _write(path, counter, index)
    return index


def _read(path: Path, counter: str) -> Index | None:
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    try:
        if str(data["counter"]) != counter:
            data.close()
            return None
        matrix = sparse.csr_matrix(
            (data["data"], data["indices"], data["indptr"]), shape=tuple(data["shape"])
        )
        dense = data["dense"] if data["dense"].size else None
        # The file stays open until the terms are read: a rebuild that replaces it
        # meanwhile (os.replace) leaves this open file as it was, terms and matrix alike.
        return Index(data["ids"], matrix, partial(_terms, data), data["idf"], dense)
    except (OSError, KeyError, ValueError):
        data.close()
        return None


def _terms(data: Any) -> list[str]:
    """The vocabulary of the open cache file ``data`` (an ``NpzFile``, then closed), read
    by :attr:`Index.vocabulary` on first use."""
    try:
        return [str(t) for t in data["vocabulary"]]
    finally:
        data.close()


def _write(path: Path, counter: str, index: Index) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as out:
            np.savez(
                out,
                counter=np.array(counter),
                ids=index.ids,
                data=index.matrix.data,
                indices=index.matrix.indices,
                indptr=index.matrix.indptr,
                shape=np.array(index.matrix.shape),
                vocabulary=np.array(index.vocabulary, dtype=str),
                idf=index.idf,
                dense=index.dense if index.dense is not None else np.zeros((0, 0), np.float32),
            )
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
