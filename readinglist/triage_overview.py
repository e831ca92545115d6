"""The overview of triage (``v``): the next titles with their interest, a page at a time,
and single keys to go to one, as everywhere else in triage (no Enter needed).

Keys: a number goes to that paper as soon as no longer number could be meant (``3`` of
nine papers at once; ``1`` of twelve waits for a second digit, or for Enter, a space or
any other key to take ``1``); ``+`` or ``n`` the next page (the first again after the
last); ``q``, Escape, Enter or Backspace (with no digit typed) back to the card.
The screen itself is drawn by :func:`readinglist.triage_view.overview`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from readinglist.triage_view import overview

#: The last line of the overview: what its keys do.
OVERVIEW_KEYS = "number: go to it · + next page · q or Enter: back"
#: Keys that leave the overview.
BACK = ("q", "Q", "\x1b", "\r", "\n")
#: Keys that show the next page.
MORE = ("+", "n")
#: Keys that take back the last digit typed.
ERASE = ("\x7f", "\b")


class Screen(Protocol):
    """What the overview needs of the triage terminal (``readinglist.triage.Terminal``)."""

    def width(self) -> int: ...

    def height(self) -> int: ...

    def show(self, text: str) -> None: ...

    def getkey(self) -> str: ...


def choose(
    terminal: Screen,
    rest: Sequence[int],
    page_rows: Callable[[Sequence[int]], list[tuple[str, float | None]]],
    progress: str,
) -> tuple[int | None, str]:
    """Show the overview of ``rest`` (the queue from the current paper on) and read keys
    until one is chosen or the user goes back.

    ``page_rows`` gives (title, interest) of a page's papers; ``progress`` is the
    progress line. Returns (the chosen paper id or None, a message for the card: ""
    or why nothing was chosen).
    """
    height = terminal.height() - 1  # the card's rule: the cursor line scrolls nothing
    size = max(height - 4, 1)
    first, typed = 0, ""
    rows = page_rows(rest[:size])
    while True:
        text = overview(
            rows,
            first=first,
            progress=progress,
            width=terminal.width(),
            height=height - 1,
            ranked=any(score is not None for _, score in rows),
        )
        terminal.show(f"{text}\n{f'go to {typed}_' if typed else OVERVIEW_KEYS}")
        key = terminal.getkey()
        if key.isdigit() and len(key) == 1:
            typed += key
            if int(typed) * 10 > len(rest):  # no longer number is in the list: go now
                return _chosen(typed, rest)
            continue
        if key in ERASE and typed:
            typed = typed[:-1]
            continue
        if typed:  # Enter, space or any other key ends the number
            return _chosen(typed, rest)
        if key in BACK:
            return None, ""
        if key in MORE:
            first = first + size if first + size < len(rest) else 0
            rows = page_rows(rest[first : first + size])
            continue
        return None, f"no paper numbered {key!r} in the list"


def _chosen(typed: str, rest: Sequence[int]) -> tuple[int | None, str]:
    """The paper numbered ``typed`` (from 1 at the current paper), or why there is none."""
    number = int(typed)
    if 1 <= number <= len(rest):
        return rest[number - 1], ""
    return None, f"no paper numbered {typed!r} in the list"
