"""``readinglist triage``: decide, one paper at a time, what to read."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._query import (
    QUERY_HELP,
    QueryCommand,
    inbox_options,
    join_query,
    query_argument,
)

if TYPE_CHECKING:
    from readinglist.triage_rank import LiveRanker
    from readinglist.triage_run import Summary


class ClickTerminal:
    """The terminal of ``readinglist.triage.Terminal``: Click for drawing, prompts and links.

    Keys: ``click.getchar`` puts the terminal in raw mode for each key and back in
    cooked mode after it, through ``tty.setraw``, whose ``TCSAFLUSH`` discards input
    not yet read. A key typed while the previous decision is being saved would be
    lost (and echoed onto the screen meanwhile). So on POSIX :meth:`keys_mode` keeps
    the terminal in cbreak mode without echo (``tty.setcbreak``, ``TCSANOW``: nothing
    flushed) for the whole loop and :meth:`getkey` reads the keys itself, with
    Click's meaning of Ctrl-C and Ctrl-D; elsewhere ``click.getchar`` is used.
    """

    def __init__(self) -> None:
        self.pending: list[str] = []
        self.fd: int | None = None
        self.cooked: list[Any] | None = None

    @contextmanager
    def keys_mode(self) -> Iterator[None]:
        """Keep the terminal in cbreak mode without echo inside the block (POSIX only).

        Keys typed while the command was still starting are discarded (``TCSAFLUSH``,
        POSIX ``tcsetattr``): a key acts on a paper the screen shows, never on one the
        reader has not seen yet."""
        try:
            import termios
            import tty

            fd = sys.stdin.fileno()
            cooked = termios.tcgetattr(fd)
        except Exception:  # no termios (Windows) or not a terminal: click.getchar then
            yield
            return
        self.fd, self.cooked = fd, cooked
        try:
            tty.setcbreak(fd, termios.TCSAFLUSH)
            yield
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, cooked)
            self.fd, self.cooked = None, None

    def width(self) -> int:
        """Return the terminal's columns ($COLUMNS first, as shutil does)."""
        return shutil.get_terminal_size((80, 24)).columns

    def height(self) -> int:
        """Return the terminal's rows ($LINES first, as shutil does)."""
        return shutil.get_terminal_size((80, 24)).lines

    def show(self, text: str) -> None:
        """Clear the screen (not on a dumb terminal, which cannot) and draw ``text``."""
        if os.environ.get("TERM") == "dumb":
            click.echo()
        else:
            click.clear()
        click.echo(text)

    def getkey(self) -> str:
        """Read one key; Ctrl-C raises KeyboardInterrupt and Ctrl-D EOFError (as in Click).

        Everything that arrived at once (up to 32 bytes, so that an arrow key's escape
        sequence comes whole) is split into keys handed out one at a time; an escape
        sequence stays one key.
        """
        if not self.pending:
            if self.fd is None:
                chunk: str = click.getchar()
            else:
                data = os.read(self.fd, 32)
                if not data or b"\x04" in data:
                    raise EOFError
                if b"\x03" in data:
                    raise KeyboardInterrupt
                chunk = data.decode(sys.stdin.encoding or "utf-8", "replace")
            self.pending = [chunk] if chunk.startswith("\x1b") else list(chunk)
        return self.pending.pop(0)

    def prompt(self, label: str, default: str = "", complete: Sequence[str] = ()) -> str | None:
        """Ask for a line (in cooked mode, with echo); None when empty or cancelled.

        Keys typed ahead of the prompt start the answer; otherwise ``default`` is
        prefilled, editable (readline), e.g. the current title for ``e``. Tab completes
        the word being typed from ``complete`` (readline), e.g. the tags for ``a``.
        """
        ahead = "".join(self.pending)
        self.pending = []
        for end in ("\r", "\n"):
            if end in ahead:
                line, rest = ahead.split(end, 1)
                self.pending = list(rest.lstrip("\r\n"))
                return line.strip() or None
        with self._cooked(), _prefilled("" if ahead else default), _completing(complete):
            try:
                answer: str = click.prompt(
                    f"{label}: {ahead}", default="", show_default=False, prompt_suffix=""
                )
            except (click.Abort, EOFError):
                return None
        return (ahead + answer).strip() or None

    @contextmanager
    def _cooked(self) -> Iterator[None]:
        if self.fd is None or self.cooked is None:
            yield
            return
        import termios
        import tty

        termios.tcsetattr(self.fd, termios.TCSANOW, self.cooked)
        try:
            yield
        finally:
            tty.setcbreak(self.fd, termios.TCSANOW)

    def launch(self, url: str) -> bool:
        """Open ``url`` in the browser; False when no browser could be started.

        ``webbrowser`` (not ``click.launch``, which reports success when it fell back
        to a browser that did not start) returns False when none ran.
        """
        import webbrowser

        try:
            return bool(webbrowser.open(url))
        except webbrowser.Error:
            return False


class BuildNotice:
    """The ``on_build`` of the terminal's triage (``triage_rank.start``): writes the
    notice that the interest index is being built (``ranking.fitted.build_notice``: 10-20 s
    for a few thousand papers, a blank screen without a word) to stderr while the command
    starts, and nothing once the full-screen terminal took over (:meth:`close`; its model
    line says it there). Told from the fit's thread: the lock keeps a notice out of a
    screen being drawn."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = True

    def __call__(self, notice: str) -> None:
        """Write ``notice`` to stderr unless :meth:`close` was called."""
        from readinglist import render

        with self._lock:
            if self._open:
                render.info(notice)

    def close(self) -> None:
        """Write nothing more: the screen is the terminal's from now on."""
        with self._lock:
            self._open = False


@contextmanager
def _prefilled(text: str) -> Iterator[None]:
    """Prefill the next ``input()`` line with ``text`` (when readline is available)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline on this platform
        yield
        return
    readline.set_startup_hook((lambda: readline.insert_text(text)) if text else None)
    try:
        yield
    finally:
        readline.set_startup_hook(None)


def complete_word(word: str, names: Sequence[str]) -> list[str]:
    """Return the ``names`` that start with ``word`` (case-insensitive), in their order
    (the tags most used first), for Tab in the ``a`` prompt."""
    folded = word.casefold()
    return [name for name in names if name.casefold().startswith(folded)]


@contextmanager
def _completing(names: Sequence[str]) -> Iterator[None]:
    """Let Tab complete a word (separated by spaces or commas) from ``names`` in the next
    ``input()`` line (when readline is available); the previous completer comes back."""
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline on this platform
        yield
        return
    if not names:
        yield
        return
    found: list[str] = []

    def completer(text: str, state: int) -> str | None:
        if state == 0:
            found[:] = complete_word(text, names)
        return found[state] if state < len(found) else None

    old, delims = readline.get_completer(), readline.get_completer_delims()
    readline.set_completer(completer)
    readline.set_completer_delims(" ,\t\n")
    binding = "bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete"
    readline.parse_and_bind(binding)
    try:
        yield
    finally:
        readline.set_completer(old)
        readline.set_completer_delims(delims)


@click.command("triage", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@inbox_options
@click.option(
    "--like",
    metavar="TEXT",
    help='Rank by a description of what you want, e.g. "offline reinforcement learning":'
    " before the first decision it is the order; after, the papers like it stay near the"
    " top beside those your decisions favour.",
)
@click.option(
    "--stop-after",
    type=click.IntRange(1),
    metavar="N",
    help="End the session, with a summary, once N papers are skipped since the last "
    "wanted one (the stopping aid screeners use; the header shows the count).",
)
@click.option(
    "--blind",
    is_flag=True,
    help="In a shared library, hide the other readers' decisions on a paper until you "
    "have decided it (blind screening). Default: the header says how many want it.",
)
@pass_app
def triage_command(
    app: AppContext,
    query: tuple[str, ...],
    include_all: bool,
    order: str,
    like: str | None,
    stop_after: int | None,
    blind: bool,
) -> None:
    """Decide what to read, one paper at a time.

    Shows each new paper, oldest import first (with a QUERY, the new papers it
    selects; with --all or a status: term, every paper it selects), with its
    abstract, and takes single keys: t to-read, s skip, r reading, d read, h/m/l
    priority, a tag (Tab completes), n note, e title, o open the link, u undo
    (also decisions made before you quit), space next, b back, v overview of the
    next titles, / search the inbox, w why this score, x the whole abstract, q quit,
    ? help. Every decision is saved at once: quit at any time and run it again to
    go on where you stopped. Once you have decided on some papers, the most
    interesting come first (learned from your decisions, on this machine) and the
    rest is re-ranked after each decision; --order added keeps the order of addition,
    --like TEXT ranks by a description too (before any decision, it alone). The line
    under the progress shows the paper's interest, what the order learnt from and the
    papers skipped since the last wanted one (in a shared library, how many other
    readers want it; --blind hides that until you decide); --stop-after N ends the
    session there. Needs a terminal (exit 2 otherwise; use `mark` in scripts).

    \b
    Examples:
        readinglist triage
        readinglist triage tag:icml
        readinglist triage --all tag:icml
        readinglist triage --like "offline reinforcement learning"
        readinglist triage --order added
        readinglist triage --stop-after 100
        readinglist --reader ana triage --blind
    """
    from readinglist import render, triage_inbox, triage_readers
    from readinglist.errors import UsageError

    if not sys.stdin.isatty():
        raise UsageError(
            "triage is interactive and needs a terminal (standard input is not one); "
            "use `readinglist mark` in scripts"
        )
    with app.session(write=False) as session:
        inbox = triage_inbox.open_inbox(
            session,
            app.settings.database_url,
            join_query(query),
            include_all=include_all,
            order="added",  # the interest order is fitted in the background below
        )
    ids, earlier, only_new = inbox.ids, inbox.earlier, inbox.only_new
    ranker, notice = None, BuildNotice()
    if ids and order == "interest":  # the first screen at once; fits in the background
        ranker = _live_ranker(app, like, notice)
        ids = ranker.order(ids)
    if not ids and not earlier:
        render.info("nothing to triage" + (": no paper has status new" if only_new else ""))
        return
    terminal = ClickTerminal()
    run = triage_readers.ReadersTriage(
        app.session,
        ids,
        terminal,
        read_factory=lambda: app.session(write=False),
        ranker=ranker,
        earlier=earlier,
        scope=inbox.scope,
        stop_after=stop_after,
        blind=blind,
        statuses=inbox.statuses,
    )
    notice.close()
    with terminal.keys_mode():
        summary = run.run()
    summary.again = _again(app, query, include_all, order, like, stop_after, blind)
    _report(summary)


def _live_ranker(app: AppContext, like: str | None, notice: BuildNotice) -> LiveRanker:
    """The run's interest order, fitted in the background (``triage_rank.start``), which
    tells ``notice`` when the library's interest index is being built."""
    from readinglist.triage_rank import start

    return start(lambda: app.session(write=False), app.settings.database_url, like, on_build=notice)


def _again(
    app: AppContext,
    query: tuple[str, ...],
    include_all: bool,
    order: str,
    like: str | None,
    stop_after: int | None,
    blind: bool,
) -> str:
    """The command line that goes on with this run: its ``--reader`` when given as an
    option (the environment and configuration file still hold theirs), its options and
    its query, quoted for a POSIX shell (:func:`shlex.join`)."""
    import shlex

    words = ["readinglist"]
    if app.settings.reader:
        words += ["--reader", app.settings.reader]
    words.append("triage")
    words += ["--all"] if include_all else []
    words += ["--order", order] if order != "interest" else []
    words += ["--like", like] if like else []
    words += ["--stop-after", str(stop_after)] if stop_after is not None else []
    words += ["--blind"] if blind else []
    return shlex.join([*words, *query])


def _report(summary: Summary) -> None:
    """Say how the session went (a ``triage`` summary); after Ctrl-C in one line, with
    the exit code of an interrupted command."""
    from readinglist import render

    click.echo()
    if summary.interrupted:
        from readinglist.cli._root import EXIT_INTERRUPTED, interrupted_text

        render.info(f"Interrupted: {interrupted_text('triage')}; {summary.describe()}")
        click.get_current_context().exit(EXIT_INTERRUPTED)
    render.info(summary.describe())
