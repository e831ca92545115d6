"""The words of the query language: field names, their fixed values, and the size limits.

Read by the parser (to check what was typed), by the help text and by shell completion
(``readinglist.cli._complete``). Statuses and priorities come from :mod:`readinglist.records`,
their one home.
"""

from __future__ import annotations

from readinglist.records import PRIORITY_LEVELS, STATUSES

#: Field names of ``field:value`` terms with a one-line description (help, completion).
FIELDS: dict[str, str] = {
    "title": "words in the title (folded substring)",
    "author": 'an author\'s name (folded substring; "Family, Given" also works)',
    "venue": "words in the venue (folded substring)",
    "tag": "a tag or its sub-tags (tag:a matches a and a/b)",
    "status": "your read status: " + ", ".join(STATUSES) + "; another reader's: status:read@ana",
    "priority": "high, medium, low or none (priority:high@ana: another reader's)",
    "wanted-by": "how many readers want it (to-read, reading or read): 2, 2.., ..1, 1..3",
    "year": "2024, 2020..2024, ..2019, 2020..",
    "added": "when added: 2026-05-01, 2026-05, today, -7d, -2w, -1m, -1y, ranges a..b",
    "read": "when marked read (same forms as added:)",
    "key": "citation key or alias (key:smith* for a prefix)",
    "doi": "DOI (any usual form; doi:10.1145/* for a prefix)",
    "arxiv": "arXiv id or URL (arxiv:2401.* for a prefix)",
    "has": "has:abstract|arxiv|authors|code|doi|notes|priority|tags|url|venue|year",
    "is": "is:provisional (title made up by an importer), is:preprint (no published version yet)",
}
#: Values of ``priority:`` (``records.PRIORITY_LEVELS``: the levels and ``none``).
PRIORITY_VALUES: tuple[str, ...] = PRIORITY_LEVELS
#: Values of ``has:`` and ``is:``.
HAS_VALUES: tuple[str, ...] = (
    "abstract",
    "arxiv",
    "authors",
    "code",
    "doi",
    "notes",
    "priority",
    "tags",
    "url",
    "venue",
    "year",
)
IS_VALUES: tuple[str, ...] = ("provisional", "preprint")
#: Upper limits that keep SQL expressions far below SQLite's expression depth (1000).
MAX_TERMS = 200
MAX_DEPTH = 32
