"""Pipelines: the work of a command between parsing its arguments and rendering its result.

A pipeline joins the lower floors for one job, so that a command is "parse
arguments, call one function, render" (issue 16):

* :mod:`~readinglist.pipelines.importing`: open, decode, detect and read each input
  (whole, or in pieces when its format streams, in a reader process for a large
  file) and feed the records to :class:`readinglist.library.Importer` in chunks;
* :mod:`~readinglist.pipelines.reader_process`: the child process that reads a large
  input beside the import;
* :mod:`~readinglist.pipelines.exporting`: choose the papers (a query or a LaTeX
  ``.aux`` file) and write them in one format, BibTeX a chunk at a time;
* :mod:`~readinglist.pipelines.atomic`: the atomic file writer (temporary file, then
  ``os.replace``; leftovers of killed writes removed);
* :mod:`~readinglist.pipelines.limits`: the column lengths and the author bound every
  imported record is held to, the same on SQLite and PostgreSQL (issue 18).

Rules of this floor: a pipeline imports the library, formats and stdlib, never
``readinglist.cli`` or click; it receives a Session and never opens or commits one
(the command's ``app.session()`` is the one transaction); it never prints: it
returns what happened (reports, warnings) and takes callbacks for progress. Its
errors are :class:`readinglist.errors.ReadingListError` subclasses.

This ``__init__`` imports only the standard library: the reader process imports
:mod:`~readinglist.pipelines.reader_process` in a fresh interpreter and must not pay
for SQLAlchemy, and the CLI imports a pipeline only inside a command body.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

#: A progress-bar factory: ``progress(label, total, unit)`` (total None: unknown; unit
#: e.g. ``"papers"`` or ``""``) is a context manager yielding ``advance(done)``. The CLI
#: passes ``readinglist.cli._progress.progress_bar``; :func:`no_progress` draws nothing.
Progress = Callable[[str, int | None, str], AbstractContextManager[Callable[[int], None]]]


@contextmanager
def no_progress(label: str, total: int | None, unit: str = "") -> Iterator[Callable[[int], None]]:
    """The :data:`Progress` factory that shows nothing: yields a callback that ignores
    its argument."""
    yield _ignore


def _ignore(done: int) -> None:
    """Ignore a progress report."""
