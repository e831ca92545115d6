"""A progress bar on stderr for long imports and exports, on a terminal only (issue 9).

:func:`progress_bar` yields an ``update(done)`` callback. The bar (rich's
``Progress``, transient) appears only once the work has run for
:data:`DELAY_SECONDS` and only when stderr is a terminal, so short commands,
pipes and tests print nothing, and rich is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

#: Work that ends sooner than this (seconds) never shows a bar.
DELAY_SECONDS = 1.0


@contextmanager
def progress_bar(label: str, total: int | None, unit: str = "") -> Iterator[Callable[[int], None]]:
    """Yield ``update(done)``: report ``done`` units of ``total`` (None: unknown) finished.

    Args:
        label: what is being done, e.g. ``"importing refs.bib"``.
        total: units of the whole work (bytes, papers), or None when unknown.
        unit: a word shown after the counts (``"papers"``), or ``""``.

    The bar is drawn on stderr from the first update after :data:`DELAY_SECONDS`,
    and removed when the block ends. Never raises for a closed or odd stderr.
    """
    if not _is_terminal():
        yield _ignore
        return
    started = time.monotonic()
    state: dict[str, Any] = {}
    with ExitStack() as stack:

        def update(done: int) -> None:
            if "bar" not in state:
                if time.monotonic() - started < DELAY_SECONDS:
                    return
                state["bar"] = stack.enter_context(_rich_progress(unit))
                state["task"] = state["bar"].add_task(label, total=total)
            state["bar"].update(state["task"], completed=done)

        yield update


def _rich_progress(unit: str) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns: list[Any] = [TextColumn("{task.description}"), BarColumn()]
    if unit:
        columns += [MofNCompleteColumn(), TextColumn(unit)]
    else:
        columns.append(TextColumn("{task.percentage:>3.0f}%"))
    columns.append(TimeElapsedColumn())
    return Progress(*columns, console=Console(stderr=True), transient=True)


def _is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _ignore(done: int) -> None:
    """The update callback when no bar is drawn."""
