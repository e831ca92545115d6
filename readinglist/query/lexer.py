"""The tokenizer of the query language: text -> tokens, field values read as they come.

The token kinds are the parentheses, ``-``, the capitalized operators ``OR``, ``AND`` and
``NOT``, and terms. A term is either a finished node (a ``field:value`` read by
:mod:`readinglist.query.values`, or free text folded by :func:`readinglist.text.search_tokens`)
or, for a bare word, the word itself. :class:`Lexer` raises
:class:`~readinglist.errors.InvalidQuery` for unbalanced quotes or parentheses, unknown
fields, bad values and too many terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from readinglist.errors import InvalidQuery
from readinglist.query.tree import Query, Text
from readinglist.query.values import field_term
from readinglist.query.vocabulary import FIELDS, MAX_DEPTH, MAX_TERMS
from readinglist.text import MAX_WORD, fold, search_tokens

KEYWORDS = frozenset({"OR", "AND", "NOT"})
FIELD_PREFIX = re.compile(r"([A-Za-z][A-Za-z_-]*):")
#: Typographic double quotes accepted as query quotes (they fold to ASCII ``"``).
#: A run of letters and digits longer than any indexed word (:data:`~readinglist.text.MAX_WORD`).
LONG_WORD = re.compile(rf"[0-9a-z]{{{MAX_WORD + 1},}}")
QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"'})


@dataclass(frozen=True)
class Token:
    """One token: an operator or parenthesis (``kind``), or a term (``kind == "term"``).

    A term holds its ``node``, or for a bare word not yet folded (``node`` None) the
    ``word`` and whether a ``*`` followed it (``prefix``).
    """

    kind: Literal["(", ")", "-", "OR", "AND", "NOT", "term"]
    node: Query | None = None
    word: str = ""  # a bare word not yet folded (node None)
    prefix: bool = False


class Lexer:
    """Split a query string into tokens; field values are checked as they are read."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.text = text.translate(QUOTES)
        self.pos = 0
        self.depth = 0
        self.dropped: list[str] = []

    def fail(self, reason: str) -> InvalidQuery:
        """Return the error for ``reason``, quoting the query as typed."""
        return InvalidQuery(self.source, reason)

    def tokens(self) -> list[Token]:
        """Return the tokens of the whole text; raises InvalidQuery for malformed text."""
        out: list[Token] = []
        text, n = self.text, len(self.text)
        self.check_word_lengths()
        while self.pos < n:
            char = text[self.pos]
            if char.isspace():
                self.pos += 1
            elif char == "(":
                self.depth += 1
                if self.depth > MAX_DEPTH:
                    raise self.fail(f"parentheses nested deeper than {MAX_DEPTH}")
                out.append(Token("("))
                self.pos += 1
            elif char == ")":
                if self.depth == 0:
                    raise self.fail("')' without a matching '('")
                self.depth -= 1
                out.append(Token(")"))
                self.pos += 1
            elif char == "-":
                if self.pos + 1 >= n or text[self.pos + 1].isspace():
                    raise self.fail("'-' must be followed directly by the term it excludes")
                out.append(Token("-"))
                self.pos += 1
            elif char == '"':
                words, prefix = self.phrase()
                self.add_text(out, words, prefix, quoted=True)
            else:
                token = self.word_or_field()
                if token.kind == "term" and token.node is None:
                    self.add_text(out, token.word, token.prefix)
                else:
                    out.append(token)
            if len(out) > MAX_TERMS * 4:
                raise self.fail(f"more than {MAX_TERMS} terms")
        if self.depth:
            raise self.fail("'(' without a matching ')'")
        if not out and self.dropped:
            raise self.fail(f"{self.dropped[0]!r} has no letters or digits to search for")
        return out

    def check_word_lengths(self) -> None:
        """Refuse a word no paper can hold: the index keeps words of at most
        :data:`~readinglist.text.MAX_WORD` letters and digits (PostgreSQL's limit), so a
        longer one would match nothing; say so instead of a misleading reason."""
        if len(self.text) <= MAX_WORD:
            return
        match = LONG_WORD.search(fold(self.text))
        if match is not None:
            word = match.group()
            raise self.fail(
                f"a word of {len(word):,} letters and digits ({word[:16]}…); the longest word "
                f"readinglist searches for has {MAX_WORD:,}"
            )

    def add_text(self, out: list[Token], words: str, prefix: bool, *, quoted: bool = False) -> None:
        """Append a free-text term; one without letters or digits (``—``, ``&``) is left
        out, with a ``-``/``NOT`` right before it, as the index has no such words."""
        tokens = tuple(search_tokens(words))
        if tokens:
            out.append(Token("term", Text(tokens, prefix)))
            return
        self.dropped.append(f'"{words}"' if quoted else words + ("*" if prefix else ""))
        if out and out[-1].kind in ("-", "NOT"):
            out.pop()

    def phrase(self) -> tuple[str, bool]:
        """Read ``"..."`` (``\\x`` inside is kept as written); return (content, prefix)."""
        text, n = self.text, len(self.text)
        start = self.pos + 1
        index = start
        while index < n and text[index] != '"':
            index += 2 if text[index] == "\\" else 1
        if index >= n:
            raise self.fail("a quote '\"' is not closed")
        content = text[start:index]
        self.pos = index + 1
        prefix = self.pos < n and text[self.pos] == "*"
        if prefix:
            self.pos += 1
        return content, prefix

    def bare(self) -> str:
        """Read a bare word: up to white space, or a ')' that closes a group."""
        text, n = self.text, len(self.text)
        start = self.pos
        inner = 0
        while self.pos < n:
            char = text[self.pos]
            if char.isspace():
                break
            if char == "(":
                inner += 1
            elif char == ")":
                if inner:
                    inner -= 1
                elif self.depth:
                    break
                else:
                    raise self.fail("')' without a matching '('")
            self.pos += 1
        return text[start : self.pos]

    def word_or_field(self) -> Token:
        """Read a ``field:value`` term, an operator or a bare word at the current position."""
        match = FIELD_PREFIX.match(self.text, self.pos)
        if match:
            name = match.group(1).lower()
            if name not in FIELDS:
                raise self.fail(
                    f"unknown field {match.group(1)!r}; fields are {', '.join(FIELDS)} "
                    '(put text with a colon in quotes: "a:b")'
                )
            self.pos = match.end()
            if self.pos < len(self.text) and self.text[self.pos] == '"':
                value, prefix = self.phrase()
                value += "*" if prefix else ""
            else:
                value = self.bare()
            if not value.strip():
                raise self.fail(f"{name}: needs a value")
            return Token("term", field_term(name, value, self.fail))
        word = self.bare()
        if word in KEYWORDS:
            return Token(word)  # type: ignore[arg-type]
        prefix = word.endswith("*")
        return Token("term", word=word.rstrip("*") if prefix else word, prefix=prefix)
