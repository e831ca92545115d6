"""Which positional argument of which command completes citation keys or tags.

Generated from the Click commands by ``python -m readinglist.cli._complete``
(:func:`readinglist.cli._complete.positional_completions`); do not edit by hand:
tests/test_completion.py fails when it differs from the commands. Read by
:mod:`readinglist.cli._fast` to answer TAB before Click is imported.
"""

#: Command path -> its positional arguments in order: (nargs, what they complete).
POSITIONALS: dict[str, tuple[tuple[int, str | None], ...]] = {
    "edit": ((1, "keys"),),
    "mark": ((1, None), (-1, "keys")),
    "merge": ((1, "keys"), (-1, "keys")),
    "not-duplicate": ((1, "keys"), (1, "keys")),
    "note add": ((1, "keys"),),
    "note list": ((1, "keys"),),
    "priority": ((1, None), (-1, "keys")),
    "rekey": ((1, "keys"), (1, None)),
    "rm": ((-1, "keys"),),
    "show": ((1, "keys"),),
    "similar": ((1, "keys"),),
    "tag add": ((1, "tags"), (-1, "keys")),
    "tag merge": ((-1, "tags"),),
    "tag remove": ((1, "tags"), (-1, "keys")),
    "tag rename": ((1, "tags"), (1, None)),
    "title": ((1, "keys"), (1, None)),
}
