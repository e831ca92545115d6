"""Bounded, well-formed values: the one rule for tag names, entry types, DOIs and the
other bounded columns, applied by every writer, the same on SQLite and PostgreSQL.

PostgreSQL enforces the lengths of ``VARCHAR`` columns and SQLite does not: a value
longer than its column ended a PostgreSQL command with a traceback (``tag add``,
``add --tag``, ``tag rename``, ``add --doi``, ``topics --tag``) and was stored whole
on SQLite. The lengths are defined here and :mod:`readinglist.tables` declares its
columns with them; the characters are those the exports can write back and read again:

* a tag name has no comma, white space, control character, brace, double quote,
  backslash or ``%`` (BibTeX ``keywords`` are comma-separated and its values brace-
  or quote-delimited, LaTeX reads ``\\`` and ``%``; ``tag:x`` query terms and
  Markdown ``#tag`` marks end at white space), and ``/`` only between words;
* an entry type is a BibTeX entry type name: a letter, then letters, digits, ``-``
  or ``_`` (what BibTeX's scanner reads after ``@``, ``bibtex.web`` ``legal_id_char``
  less the characters a biblatex data model never uses), lower case;
* a DOI (:func:`readinglist.identifiers.normalize_doi`, the one DOI rule) has no
  white space by construction; its length is bounded here.

Citation keys have their characters' rule in :func:`readinglist.citekeys.is_valid_key`.
This module imports nothing of SQLAlchemy: the file formats (which may not) use it too.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from readinglist.errors import UsageError

if TYPE_CHECKING:
    from readinglist.records import PaperRecord

#: The longest citation key (``papers.citekey``).
MAX_CITEKEY = 255
#: The longest reader name (``readers.name``).
MAX_READER = 64
#: The longest entry type (``papers.entry_type``).
MAX_TYPE = 64
#: The longest DOI (``papers.doi``).
MAX_DOI = 255
#: The longest arXiv id (``papers.arxiv``).
MAX_ARXIV = 64
#: The longest short name (``papers.short_name``).
MAX_SHORT_NAME = 255
#: The longest tag name (``tags.name``).
MAX_TAG = 255
#: The longest field name (``merge_conflicts.field``: a merge keeps the other value of
#: a field under its name).
MAX_FIELD_NAME = 64

#: (record attribute, what a message calls it, longest value) of the bounded columns.
LIMITS: tuple[tuple[str, str, int], ...] = (
    ("citekey", "citation key", MAX_CITEKEY),
    ("entry_type", "entry type", MAX_TYPE),
    ("doi", "DOI", MAX_DOI),
    ("arxiv", "arXiv id", MAX_ARXIV),
    ("short_name", "short name", MAX_SHORT_NAME),
)

_TAG_CHARS = re.compile(r'[,\s{}"\\%\x00-\x1f\x7f]')
_TAG_SLASHES = re.compile(r"(^/|/$|//)")
_ENTRY_TYPE = re.compile(r"[a-z][a-z0-9_-]*")


def too_long(label: str, length: int, limit: int) -> str:
    """The message for a ``label`` value of ``length`` characters past ``limit``."""
    return f"{label} of {length} characters; the longest readinglist stores is {limit}"


def tag_problem(name: str) -> str | None:
    """What is wrong with the (stripped) tag ``name``, or None when it is usable."""
    if not name:
        return "a tag name cannot be empty"
    if len(name) > MAX_TAG:
        return too_long("tag", len(name), MAX_TAG)
    if _TAG_CHARS.search(name) or _TAG_SLASHES.search(name):
        return (
            f"tag {name!r} is not usable: no commas, spaces, control characters, braces, "
            "quotes, backslashes or %, and / only between words; use - or / instead"
        )
    return None


def check_tag(name: str) -> str:
    """Return the tag ``name`` stripped; raise UsageError (exit 2) with
    :func:`tag_problem`'s message when it is not usable."""
    clean = name.strip()
    problem = tag_problem(clean)
    if problem is not None:
        raise UsageError(problem)
    return clean


def is_entry_type_name(value: str) -> bool:
    """True when ``value`` is a usable entry type (see the module docstring)."""
    return len(value) <= MAX_TYPE and bool(_ENTRY_TYPE.fullmatch(value))


def entry_type_problem(value: str) -> str | None:
    """What is wrong with the (lower-case) entry type ``value``, or None."""
    if len(value) > MAX_TYPE:
        return too_long("entry type", len(value), MAX_TYPE)
    if not _ENTRY_TYPE.fullmatch(value):
        return (
            f"entry type {value[:40]!r} is not a BibTeX entry type name: a letter, then "
            "letters, digits, - or _"
        )
    return None


def check_entry_type(value: str) -> str:
    """Return the entry type ``value`` stripped and lower-cased (``misc`` when empty);
    raise UsageError with :func:`entry_type_problem`'s message otherwise."""
    clean = value.strip().lower() or "misc"
    problem = entry_type_problem(clean)
    if problem is not None:
        raise UsageError(problem)
    return clean


def doi_problem(doi: str) -> str | None:
    """What is wrong with the normalized ``doi``, or None (see the module docstring)."""
    return too_long("DOI", len(doi), MAX_DOI) if len(doi) > MAX_DOI else None


def record_problem(record: PaperRecord) -> str | None:
    """What makes ``record`` (an imported entry, a record of ``resolve --from``, an online
    answer) unfit to store: a bounded value past :data:`LIMITS`, a tag longer than
    :data:`MAX_TAG`, a field name longer than :data:`MAX_FIELD_NAME`, an entry type that
    is not a type name; None when it is fit."""
    for name, label, limit in LIMITS:
        value = getattr(record, name)
        if value is not None and len(value) > limit:
            return too_long(label, len(value), limit)
    for tag in record.tags:
        if len(tag) > MAX_TAG:
            return too_long("tag", len(tag), MAX_TAG)
    for name in record.fields:
        if len(name) > MAX_FIELD_NAME:
            return too_long(f"field name {name[:20]!r}...", len(name), MAX_FIELD_NAME)
    return entry_type_problem(record.entry_type)


#: A reader name: a letter or digit, then letters, digits, ``.``, ``_`` or ``-`` (what a
#: ``status:to-read@NAME`` query term can end with: no space, ``@``, ``:`` or quote).
_READER_NAME = re.compile(r"\w[\w.-]*")


def fold_reader_name(name: str) -> str:
    """The folded form of a reader name (``readers.name_folded``): Unicode's
    NFKC_Casefold (UAX #15 and the Unicode standard, section 3.13: NFKC, case folding,
    NFKC again), so ``Ana``, ``ana`` and a full-width ``ＡＮＡ`` are one reader."""
    once = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", once)


def check_reader_name(value: str) -> str:
    """Return the reader name ``value`` stripped and in Unicode normalization form NFKC
    (UAX #15: a full-width ``Ａｎａ`` or a ligature ``ﬁ`` is written as ``Ana``, ``fi``, so
    a name is one reader whatever keyboard typed it); raise UsageError (exit 2) when it
    is empty, longer than :data:`MAX_READER` (or its folded form is) or has other characters than
    :data:`_READER_NAME` allows."""
    clean = unicodedata.normalize("NFKC", value).strip()
    # The folded form is stored too (readers.name_folded) and may be longer: "ß" -> "ss".
    longest = max(len(clean), len(fold_reader_name(clean)))
    if longest > MAX_READER:
        raise UsageError(too_long("reader name", longest, MAX_READER))
    if not _READER_NAME.fullmatch(clean):
        raise UsageError(
            f"reader name {clean[:40]!r} is not usable: a letter or digit, then letters, "
            "digits, '.', '_' or '-'"
        )
    return clean
