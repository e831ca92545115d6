"""Rows of the cached index read from its file a range at a time (issue 17).

``list --json`` scores every paper of the library: with the tf-idf rows and the LSA rows
of a 500,000-paper library in memory at once it peaked at 903 MiB (the issue asks for
<= 250 MiB). The interest model (:mod:`.model`) needs of its feature matrices only their
``shape``, some rows (``rows[i]``, ``rows[array]``: the positives, the negatives, the
best-scored unlabelled papers) and products with a vector (``rows @ x``): the classes
here give exactly that, reading :data:`ROWS_PER_READ` rows at a time from the cache file
with ``os.pread``, so a product holds one block of rows and its result. scipy is imported
by the methods that make matrices: :func:`members` (which reads the fitted scores' file
too, :mod:`.fitted`) needs numpy alone.

The cache file is an ``.npz`` written by ``numpy.savez``: a ZIP archive whose members
are stored, not compressed, each an ``.npy`` file (``numpy.lib.format``), so a member's
elements lie at a fixed offset in the file (:func:`members`). The file descriptor is
kept open (the objects hold it): a rebuild that replaces the file (``os.replace``)
leaves this one readable.
"""

from __future__ import annotations

import os
import struct
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

#: Rows read per block by a product: about 10 MB of tf-idf or LSA rows.
ROWS_PER_READ = 8192

#: Column indices checked per read by :meth:`StoredCSR.verify` (4 MB of int32).
_INDICES_PER_CHECK = 1 << 20

#: The size of a ZIP local file header before its name and extra field (APPNOTE 4.3.7).
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")


@dataclass(frozen=True)
class Member:
    """Where the elements of one ``.npy`` member of the cache file lie."""

    offset: int
    dtype: np.dtype[Any]
    shape: tuple[int, ...]


def members(handle: BinaryIO) -> dict[str, Member]:
    """Return the layout of the ``.npy`` members of the ``.npz`` open in ``handle`` (a
    binary file), by array name.

    Every member must be stored (not compressed), C-ordered, of a plain dtype and lie
    whole inside the file, as ``numpy.savez`` writes them: so no member can make
    ``np.load`` allocate more than the file holds (a forged header asking for 7 GiB
    of a file of 8 MB). Raises ``zipfile.BadZipFile`` or ``ValueError`` for anything
    else (a damaged or foreign file).
    """
    found: dict[str, Member] = {}
    with zipfile.ZipFile(handle) as archive:
        infos = archive.infolist()
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
            raise ValueError(f"the ranking cache member {info.filename!r} is not a stored array")
        handle.seek(info.header_offset)
        fields = _LOCAL_HEADER.unpack(handle.read(_LOCAL_HEADER.size))
        if fields[0] != b"PK\x03\x04":
            raise ValueError(f"no local header for {info.filename}")
        handle.seek(info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1])
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
        if fortran or dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
            raise ValueError(f"the ranking cache member {info.filename!r} is not a plain array")
        member = Member(handle.tell(), dtype, tuple(shape))
        _check_size(handle, member, info)
        found[info.filename[: -len(".npy")]] = member
    return found


def read(handle: BinaryIO, member: Member, start: int, stop: int) -> np.ndarray:
    """Return the elements ``start:stop`` of the flattened ``member`` of the file open in
    ``handle`` (read with ``os.pread``: the handle's position is left alone)."""
    size = member.dtype.itemsize
    data = os.pread(handle.fileno(), (stop - start) * size, member.offset + start * size)
    if len(data) != (stop - start) * size:
        raise OSError("the ranking cache file is shorter than its index says")
    return np.frombuffer(data, dtype=member.dtype)


def _check_size(handle: BinaryIO, member: Member, info: zipfile.ZipInfo) -> None:
    """Raise ValueError when ``member``'s elements do not fit in its ZIP entry ``info``,
    or the file open in ``handle`` ends before them."""
    count = 1
    for extent in member.shape:
        count *= int(extent)  # Python integers: a forged shape cannot overflow
    size = count * member.dtype.itemsize
    if size > info.file_size or member.offset + size > os.fstat(handle.fileno()).st_size:
        raise ValueError("the ranking cache file is shorter than its index says")


def _runs(rows: np.ndarray) -> list[tuple[int, int]]:
    """Split sorted unique ``rows`` into runs of consecutive rows, as (first, past last)."""
    if not len(rows):
        return []
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [len(rows)]))
    return [(int(rows[s]), int(rows[e - 1]) + 1) for s, e in zip(starts, ends, strict=True)]


class StoredDense:
    """The LSA rows (a 2-D float array) of the cache file, read a block at a time."""

    def __init__(self, handle: BinaryIO, member: Member) -> None:
        self.handle = handle
        self.member = member
        self.shape: tuple[int, int] = (member.shape[0], member.shape[1])

    def verify(self, rows: int) -> None:
        """Raise ValueError unless these are ``rows`` rows (that the file holds them whole
        :func:`members` checked): a damaged or foreign cache file is rebuilt, not read
        past its end mid-listing."""
        if self.shape[0] != rows:
            raise ValueError("the ranking cache's LSA rows are not one per paper")

    def block(self, start: int, stop: int) -> np.ndarray:
        """Return rows ``start:stop`` as an array."""
        width = self.shape[1]
        return read(self.handle, self.member, start * width, stop * width).reshape(-1, width)

    def __getitem__(self, rows: Any) -> np.ndarray:
        """Rows by index (an int gives one row, a sequence an array in its order)."""
        if isinstance(rows, int | np.integer):
            one: np.ndarray = self.block(int(rows), int(rows) + 1)[0]
            return one
        wanted = np.asarray(rows, dtype=np.int64)
        unique, where = np.unique(wanted, return_inverse=True)
        parts = [self.block(a, b) for a, b in _runs(unique)]
        gathered = np.concatenate(parts) if parts else np.zeros((0, self.shape[1]), np.float32)
        rows_in_order: np.ndarray = gathered[where]
        return rows_in_order

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        """The product of every row with ``other``, a block of rows at a time."""
        return _products(self, other)


class StoredCSR:
    """The tf-idf rows (a CSR matrix) of the cache file, read a block at a time.

    The row pointers (``indptr``, one integer per paper) are read whole; the values and
    column indices of a block of rows are read when the block is needed.
    """

    def __init__(
        self,
        handle: BinaryIO,
        data: Member,
        indices: Member,
        indptr: np.ndarray,
        shape: tuple[int, int],
    ) -> None:
        self.handle = handle
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.shape = shape

    def verify(self) -> None:
        """Raise ValueError unless the rows are a well-formed CSR matrix of :attr:`shape`
        (that the file holds them whole :func:`members` checked): row pointers from 0, never decreasing, ending at the
        count of values and of column indices, and every column index in range (read a
        block at a time). scipy checks none of this on the products, and an index past
        the columns made ``list --json`` die of SIGSEGV on a damaged cache file."""
        indptr, count = self.indptr, self.data.shape[0] if self.data.shape else -1
        if (
            indptr.ndim != 1
            or len(indptr) != self.shape[0] + 1
            or indptr[0] != 0
            or indptr[-1] != count
            or self.indices.shape != (count,)
            or (np.diff(indptr) < 0).any()
        ):
            raise ValueError("the ranking cache's row pointers do not fit its rows")
        for start in range(0, count, _INDICES_PER_CHECK):
            block = read(self.handle, self.indices, start, min(start + _INDICES_PER_CHECK, count))
            if block.min() < 0 or block.max() >= self.shape[1]:
                raise ValueError("the ranking cache's column indices exceed its columns")

    def block(self, start: int, stop: int) -> sparse.csr_matrix:
        """Return rows ``start:stop`` as a CSR matrix."""
        from scipy import sparse

        first, last = int(self.indptr[start]), int(self.indptr[stop])
        return sparse.csr_matrix(
            (
                read(self.handle, self.data, first, last),
                read(self.handle, self.indices, first, last),
                self.indptr[start : stop + 1] - first,
            ),
            shape=(stop - start, self.shape[1]),
        )

    def __getitem__(self, rows: Any) -> sparse.csr_matrix:
        """Rows by index (an int gives a one-row matrix), in the order asked."""
        from scipy import sparse

        if isinstance(rows, int | np.integer):
            return self.block(int(rows), int(rows) + 1)
        wanted = np.asarray(rows, dtype=np.int64)
        unique, where = np.unique(wanted, return_inverse=True)
        runs = _runs(unique)
        if not runs:
            return sparse.csr_matrix((0, self.shape[1]), dtype=np.float32)
        # One matrix from the runs' values and indices (vstack of a matrix per run cost
        # seconds for the scattered rows of a library's negatives).
        spans = [(int(self.indptr[a]), int(self.indptr[b])) for a, b in runs]
        data = np.concatenate([read(self.handle, self.data, f, t) for f, t in spans])
        indices = np.concatenate([read(self.handle, self.indices, f, t) for f, t in spans])
        lengths = np.diff(self.indptr)[unique]
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        gathered = sparse.csr_matrix((data, indices, indptr), shape=(len(unique), self.shape[1]))
        rows_in_order: sparse.csr_matrix = gathered[where]
        return rows_in_order

    def __matmul__(self, other: Any) -> Any:
        """The product of every row with ``other`` (a vector or a matrix), a block at a
        time; a sparse ``other`` gives a sparse result."""
        from scipy import sparse

        if not sparse.issparse(other):
            return _products(self, other)
        parts = [
            self.block(s, min(s + ROWS_PER_READ, self.shape[0])) @ other
            for s in range(0, self.shape[0], ROWS_PER_READ)
        ]
        return sparse.vstack(parts, format="csr")


def _products(rows: StoredCSR | StoredDense, other: np.ndarray) -> np.ndarray:
    """``rows @ other`` (a vector or a matrix) written into one array a block at a time:
    no list of blocks joined at the end (it doubled the peak of the products of nine
    models with 500,000 rows)."""
    count = rows.shape[0]
    out: np.ndarray | None = None
    for start in range(0, count, ROWS_PER_READ):
        stop = min(start + ROWS_PER_READ, count)
        part = np.asarray(rows.block(start, stop) @ other)
        if out is None:
            out = np.empty((count, *part.shape[1:]), dtype=part.dtype)
        out[start:stop] = part
    return out if out is not None else np.zeros((0, *np.shape(other)[1:]), dtype=np.float32)
