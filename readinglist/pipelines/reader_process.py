"""Read a large input in a second process while the import writes the library (issue 9).

An import does two kinds of work per entry: reading (decoding bytes, bibtexparser's
splitter, names, LaTeX; then :func:`readinglist.prepare.prepare_record`: search
words, title key, abstract digest) and writing (duplicates, citation keys, inserts).
Neither needs the other's state, so on a machine with two cores the reading runs in
a child process and hands prepared records over in chunks, while this process
writes the previous chunk: the ACL Anthology (61,685 entries) imports in about the
time of the slower half instead of the sum.

The protocol is a bounded :class:`multiprocessing.Queue` of messages:
``("chunk", [Prepared, ...], [ParseProblem, ...], bytes_read)`` in source order,
then ``("done", meta)``; or ``("error", message)`` for an input error
(:class:`InvalidInput`, exit 5) and ``("crash", traceback)`` for a bug. At most
:data:`QUEUE_CHUNKS` chunks wait, so memory stays bounded when writing is the
slower side. The child uses the ``spawn`` start method (no copy of this process's
database connections or threads), exits when its parent is gone (it checks while
waiting on a full queue), and is terminated when the import fails.

Whether to use it: :func:`wanted` (inputs of at least :data:`MIN_BYTES` on a machine
with more than one CPU; ``READINGLIST_READER_PROCESS=0`` turns it off, ``=1`` forces
it, e.g. for tests).
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import signal
import traceback
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, BinaryIO

from readinglist.errors import InvalidInput, ReadingListError, input_error
from readinglist.records import ParseProblem

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from readinglist.prepare import Prepared

#: Inputs smaller than this (stored bytes) are read in this process. Measured on the
#: first 10,000 Beebe entries (10.5 MB): 5.2 s with a reader process against 5.4 s
#: without, for 174 MiB instead of 138 MiB; the ACL file (58 MB): 21 s against 31 s.
MIN_BYTES = 16 << 20
#: Chunks that may wait in the queue.
QUEUE_CHUNKS = 2
#: Environment variable: ``0`` never uses a reader process, ``1`` always does.
ENV = "READINGLIST_READER_PROCESS"

Message = tuple[Any, ...]


def wanted(size: int) -> bool:
    """True when an input of ``size`` stored bytes should be read in a child process.

    ``READINGLIST_READER_PROCESS`` decides when set (``0``/``1``); otherwise inputs of
    at least :data:`MIN_BYTES` on a machine with two or more CPUs available.
    """
    forced = os.environ.get(ENV, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpus = os.cpu_count() or 1
    return cpus > 1 and size >= MIN_BYTES


def read_prepared(
    path: str,
    encoding: str,
    source: str,
    fmt: str,
    chunk_size: int,
    advance: Callable[[int], None],
    meta: dict[str, str],
) -> Generator[tuple[list[Prepared], list[ParseProblem]], None, None]:
    """Yield ``(prepared records, problems)`` chunks of the file at ``path``, read by a
    child process, in source order.

    Close the generator (``contextlib.closing``) when the import stops early: that
    terminates the child.

    Args:
        path: the file (plain or gzip) to read; it was checked by the caller.
        encoding: the text encoding :func:`readinglist.formats.sniff` found.
        source: the name used in problems and messages.
        fmt: a format whose module has ``iter_read`` (``"bibtex"``).
        chunk_size: records per chunk.
        advance: called with the stored bytes read so far (progress bar).
        meta: filled with the reader's ``meta`` (``@string``/``@preamble`` text) once
            the last chunk has been yielded.

    Raises:
        InvalidInput: the child found an input error (its message, with the file
            name), or it died or crashed (the message says so).
    """
    context = multiprocessing.get_context("spawn")
    messages: Any = context.Queue(QUEUE_CHUNKS)
    process = context.Process(
        target=_work,
        args=(path, encoding, source, fmt, chunk_size, messages, os.getpid()),
        name="readinglist-reader",
        daemon=True,
    )
    _start_without_interrupts(process)
    try:
        while True:
            message = _get(messages, process, source)
            kind = message[0]
            if kind == "chunk":
                advance(message[3])
                yield message[1], message[2]
            elif kind == "done":
                meta.update(message[1])
                break
            elif kind == "error":
                raise InvalidInput(message[1])
            else:
                raise InvalidInput(f"reading failed in the reader process:\n{message[1]}", source)
        process.join(timeout=10)
    finally:
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
        messages.close()
        messages.join_thread()


def _start_without_interrupts(process: BaseProcess) -> None:
    """Start ``process`` with SIGINT blocked, so that the child inherits the block.

    The child ignores SIGINT (Ctrl-C is this process's to handle), but it can set that
    only once its interpreter has started; a SIGINT arriving before (a loaded machine
    takes over half a second to start one) would end it with a KeyboardInterrupt
    traceback. Blocked, the signal waits until :func:`_work` ignores it (which
    discards it); here it is blocked only while the child is started, and one that
    arrives meanwhile is delivered when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):  # not on POSIX
        process.start()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _get(messages: Any, process: BaseProcess, source: str) -> Message:
    """Wait for the next message; raise InvalidInput when the child died without one."""
    while True:
        try:
            message: Message = messages.get(timeout=0.5)
            return message
        except queue_module.Empty:
            if not process.is_alive():
                try:  # it may have put its last message just before exiting
                    late: Message = messages.get(timeout=0.5)
                    return late
                except queue_module.Empty:
                    pass
                raise InvalidInput(
                    f"the reader process stopped unexpectedly (exit code {process.exitcode})",
                    source,
                ) from None


def _work(
    path: str,
    encoding: str,
    source: str,
    fmt: str,
    chunk_size: int,
    messages: Any,
    parent: int,
) -> None:
    """The child: read, parse and prepare ``path``, putting chunks on ``messages``."""
    # Ctrl-C is the importing process's to handle: it stops this one (terminate).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Imported here, not at the top, so that the child ignores SIGINT as early as it
    # can: the spawned interpreter imports this module before it runs this function.
    from readinglist import formats
    from readinglist.collector import IMPORT_THRESHOLD, collector_paused
    from readinglist.pipelines import limits
    from readinglist.prepare import prepare_record

    position = [0]

    def advance(done: int) -> None:
        position[0] = done

    try:
        meta: dict[str, str] = {}
        prepared: list[Prepared] = []
        problems: list[ParseProblem] = []
        with _open(path, source) as raw, collector_paused(IMPORT_THRESHOLD):
            texts = formats.iter_decode(formats.iter_bytes(raw, source, advance), encoding, source)
            for entry in formats.module(fmt).iter_read(texts, source, meta=meta):
                if isinstance(entry, ParseProblem):
                    problems.append(entry)
                    continue
                checked, found = limits.check(entry, source)
                problems.extend(found)
                if checked is not None:
                    prepared.append(prepare_record(checked))
                if len(prepared) >= chunk_size:
                    _put(messages, ("chunk", prepared, problems, position[0]), parent)
                    prepared, problems = [], []
        _put(messages, ("chunk", prepared, problems, position[0]), parent)
        _put(messages, ("done", meta), parent)
    except ReadingListError as exc:
        _send_last(messages, ("error", str(exc)), parent)
    except _ParentGone:
        messages.cancel_join_thread()  # nobody will read what is still buffered
    except BaseException:
        _send_last(messages, ("crash", traceback.format_exc()), parent)
    # On return, multiprocessing waits for the queue's feeder thread to hand the
    # buffered messages to the parent (or to fail once the parent is gone).


def _send_last(messages: Any, message: Message, parent: int) -> None:
    try:
        _put(messages, message, parent)
    except _ParentGone:
        messages.cancel_join_thread()


def _open(path: str, source: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise input_error(exc, source) from None


class _ParentGone(Exception):
    """The importing process no longer exists: stop reading."""


def _put(messages: Any, message: Message, parent: int) -> None:
    """Put ``message``, waiting while the queue is full; stop when the parent is gone."""
    while True:
        try:
            messages.put(message, timeout=0.5)
            return
        except queue_module.Full:
            if os.getppid() != parent:
                raise _ParentGone from None
