"""The ``readinglist`` command (alias ``rl``): ``main``, and the root group ``cli``.

This package imports nothing heavy: ``main`` first hands a bash TAB completion of a
citation key or tag to :mod:`readinglist.cli._fast`, which answers it with the
standard library before Click is imported (issue 17: ~40 ms less on every TAB), and
runs everything else through Click (:func:`readinglist.cli._root.run`). ``cli`` (the
Click group), :data:`~readinglist.cli._root.COMMANDS` and the group's classes live in
:mod:`readinglist.cli._root` and are imported on first use (PEP 562).
"""

from __future__ import annotations

import os
import sys

from readinglist._lazy import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (and re): see _fast
if TYPE_CHECKING:
    from readinglist.cli._root import COMMANDS, LazyCommands, ReadingListGroup, cli

_HOMES = {
    "COMMANDS": "readinglist.cli._root",
    "LazyCommands": "readinglist.cli._root",
    "ReadingListGroup": "readinglist.cli._root",
    "cli": "readinglist.cli._root",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())

__all__ = ["COMMANDS", "LazyCommands", "ReadingListGroup", "cli", "main"]


def main() -> None:
    """Entry point of the ``readinglist`` and ``rl`` console scripts.

    The program name follows the name the command was started as, so Click's shell
    completion works for both: ``_READINGLIST_COMPLETE=bash_source readinglist`` and
    ``_RL_COMPLETE=bash_source rl`` each print a script for their own name. A
    ``bash_complete`` request for a REF or TAG argument is answered without Click
    (:func:`readinglist.cli._fast.answer_bash`); anything else runs through Click.
    Exits with the command's code.
    """
    started_as = os.path.basename(sys.argv[0]) if sys.argv else ""
    prog_name = "rl" if started_as == "rl" else "readinglist"
    if os.environ.get(f"_{prog_name.upper()}_COMPLETE") == "bash_complete":
        from readinglist.cli._fast import answer_bash

        try:
            answer = answer_bash(os.environ)
        except Exception:  # a request it did not foresee: Click answers (quietly)
            answer = None
        if answer is not None:
            print(answer)
            return
    try:
        from readinglist import interrupts
        from readinglist.cli._root import run

        interrupts.install()
        run(prog_name)
    except KeyboardInterrupt:  # Ctrl-C while starting (importing) or ending: no traceback
        sys.stderr.write("Interrupted: nothing was changed; the library is unchanged\n")
        sys.exit(130)
