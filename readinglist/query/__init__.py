"""The query language: text -> a typed query tree -> one SQLAlchemy WHERE clause.

The package, in floors that import only downwards (top first)::

    statements.py   query text -> sorted, limited SELECT (paper_ids, paper_keys, filter_clause)
    compiler.py     query tree -> WHERE clause; few ids looked up first (Builder.resolved)
    fulltext.py     free-text terms and ranking per dialect (SQLite FTS5, PostgreSQL tsvector)
    parser.py       tokens -> query tree (the grammar); command-line words -> query text
    lexer.py        text -> tokens
    values.py       the value of each field:value term -> its node
    tree.py         the node dataclasses, walks, date ranges
    vocabulary.py   field names and values, size limits

Worked examples (``parse(text)`` on the left):

* ``diffusion`` -> ``Text(("diffusion",))``: the word in the full-text index (title,
  short name, abstract, authors, editors, venue, keywords, tags, notes).
* ``diffus*`` -> ``Text(("diffus",), prefix=True)``: words that begin with ``diffus``.
* ``"self correction"`` and ``self-correction`` -> ``Text(("self", "correction"))``:
  a phrase (the words next to each other, in order). A bare word that folds into
  several words is a phrase too. ``"self corr"*``: the last word is a prefix.
* ``Schrödinger``, ``Schr{\\"o}dinger``, ``schrodinger`` -> ``Text(("schrodinger",))``:
  words are folded like the index (:func:`readinglist.text.search_tokens`: LaTeX
  decoded, accents dropped, typographic hyphens and quotes made ASCII, lower case).
* ``attention — all`` -> ``And((Text(("attention",)), Text(("all",))))``: a word
  without letters or digits (``—``, ``&``) is left out, as the index has no such
  words; a query of nothing else is an error.
* ``tag:rl`` -> ``TagTerm("rl")``: the tag ``rl`` or any ``rl/...`` below it.
* ``-tag:old`` -> ``Not(TagTerm("old"))``; ``year:2024 tag:a OR tag:b`` ->
  ``And((Year(2024, 2024), Or((TagTerm("a"), TagTerm("b")))))``; parentheses group.
  ``OR``, ``AND`` and ``NOT`` are operators only in capitals (``or`` is a word).
* ``status:foo`` -> InvalidQuery ``unknown status 'foo'; use one of new, to-read, ...``;
  ``foo:bar`` -> InvalidQuery ``unknown field 'foo'`` (quote text with a colon).

Fields (case-insensitive names; values are folded as described per field):

=============== ==================================================================
``title:``      folded substring of the title's words (``papers.title_key``)
``author:``     folded substring of an author's full name; ``author:"Family, Given"``
                matches the family name exactly and the given name as a prefix
``venue:``      folded substring of the venue's words
``tag:``        the tag or its sub-tags (``tag:a`` matches ``a`` and ``a/b``); ``tag:a*``
``status:``     one of ``records.STATUSES``
``priority:``   ``high``, ``medium``, ``low`` or ``none``
``year:``       ``2024``, ``2020..2024``, ``..2019``, ``2020..``
``added:``      a date (``2026-05-01``, ``2026-05``, ``2026``), ``today``, ``yesterday``,
                a time before now (``-7d``, ``-2w``, ``-1m``, ``-1y``; alone it means
                "since then"), or a range of them (``2026-05-01..2026-06-01``,
                ``-7d..``); ends are inclusive at their precision; all UTC
``read:``       as ``added:``, on the time the paper was marked read
``key:``        the citation key or an alias (exact; ``key:smith*`` for a prefix)
``doi:``        a DOI in any usual form (normalized; ``doi:10.1145/*`` for a prefix)
``arxiv:``      an arXiv id or URL (normalized, version dropped; ``arxiv:2401.*``)
``has:``        ``abstract``, ``arxiv``, ``authors``, ``code``, ``doi``, ``notes``,
                ``priority``, ``tags``, ``url``, ``venue``, ``year``
``is:``         ``provisional`` (the title is still one an importer made up),
                ``preprint`` (``versions.is_preprint``: no published version yet)
=============== ==================================================================

SQL: see :mod:`readinglist.query.compiler` (terms, two-valued logic, bound values) and
:mod:`readinglist.query.fulltext` (free text on both databases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from readinglist._lazy import lazy_exports

if TYPE_CHECKING:
    from readinglist.query.compiler import distinct_venues, to_clause
    from readinglist.query.fulltext import fts5_expression, tsquery_expression
    from readinglist.query.parser import join_words, parse
    from readinglist.query.statements import (
        SORT_KEYS,
        STATUS_ORDER,
        filter_clause,
        paper_ids,
        paper_keys,
        statement,
    )
    from readinglist.query.tree import (
        And,
        Arxiv,
        DateRange,
        DateSpec,
        Doi,
        Everything,
        Has,
        Is,
        Key,
        Not,
        Or,
        Priority,
        Query,
        Status,
        Substring,
        TagTerm,
        Text,
        Year,
        has_free_text,
        ranked_terms,
        walk,
    )
    from readinglist.query.vocabulary import (
        FIELDS,
        HAS_VALUES,
        IS_VALUES,
        MAX_DEPTH,
        MAX_TERMS,
        PRIORITY_VALUES,
    )

#: Where each public name lives; imported on first use (:mod:`readinglist._lazy`), so
#: shell completion reads :mod:`.vocabulary` without the compiler and SQLAlchemy.
_HOMES: dict[str, str] = {
    "And": "readinglist.query.tree",
    "Arxiv": "readinglist.query.tree",
    "DateRange": "readinglist.query.tree",
    "DateSpec": "readinglist.query.tree",
    "Doi": "readinglist.query.tree",
    "Everything": "readinglist.query.tree",
    "FIELDS": "readinglist.query.vocabulary",
    "HAS_VALUES": "readinglist.query.vocabulary",
    "Has": "readinglist.query.tree",
    "IS_VALUES": "readinglist.query.vocabulary",
    "Is": "readinglist.query.tree",
    "Key": "readinglist.query.tree",
    "MAX_DEPTH": "readinglist.query.vocabulary",
    "MAX_TERMS": "readinglist.query.vocabulary",
    "Not": "readinglist.query.tree",
    "Or": "readinglist.query.tree",
    "PRIORITY_VALUES": "readinglist.query.vocabulary",
    "Priority": "readinglist.query.tree",
    "Query": "readinglist.query.tree",
    "SORT_KEYS": "readinglist.query.statements",
    "STATUS_ORDER": "readinglist.query.statements",
    "Status": "readinglist.query.tree",
    "Substring": "readinglist.query.tree",
    "TagTerm": "readinglist.query.tree",
    "Text": "readinglist.query.tree",
    "Year": "readinglist.query.tree",
    "distinct_venues": "readinglist.query.compiler",
    "filter_clause": "readinglist.query.statements",
    "fts5_expression": "readinglist.query.fulltext",
    "has_free_text": "readinglist.query.tree",
    "join_words": "readinglist.query.parser",
    "paper_ids": "readinglist.query.statements",
    "paper_keys": "readinglist.query.statements",
    "parse": "readinglist.query.parser",
    "ranked_terms": "readinglist.query.tree",
    "statement": "readinglist.query.statements",
    "to_clause": "readinglist.query.compiler",
    "tsquery_expression": "readinglist.query.fulltext",
    "walk": "readinglist.query.tree",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())

__all__ = [
    "FIELDS",
    "HAS_VALUES",
    "IS_VALUES",
    "MAX_DEPTH",
    "MAX_TERMS",
    "PRIORITY_VALUES",
    "SORT_KEYS",
    "STATUS_ORDER",
    "And",
    "Arxiv",
    "DateRange",
    "DateSpec",
    "Doi",
    "Everything",
    "Has",
    "Is",
    "Key",
    "Not",
    "Or",
    "Priority",
    "Query",
    "Status",
    "Substring",
    "TagTerm",
    "Text",
    "Year",
    "distinct_venues",
    "filter_clause",
    "fts5_expression",
    "has_free_text",
    "join_words",
    "paper_ids",
    "paper_keys",
    "parse",
    "ranked_terms",
    "statement",
    "to_clause",
    "tsquery_expression",
    "walk",
]
