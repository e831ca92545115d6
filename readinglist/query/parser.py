"""The grammar of the query language: tokens -> a query tree, and command-line words -> text.

Grammar (issue 6; shaped after beets' ``dbcore/queryparse.py`` and Gmail's search box)::

    query    := group* EOF                     (empty: every paper)
    group    := either ("AND"? either)*        terms side by side are ANDed
    either   := unary ("OR" unary)*            OR binds tighter than the implicit AND
    unary    := ("-" | "NOT") unary | "(" group ")" | term
    term     := word | "phrase" | field ":" value

The worked examples and the table of fields are in :mod:`readinglist.query`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from readinglist.errors import InvalidQuery
from readinglist.query.lexer import FIELD_PREFIX, QUOTES, Lexer, Token
from readinglist.query.tree import And, Everything, Not, Or, Query, Text
from readinglist.query.vocabulary import FIELDS, MAX_DEPTH, MAX_TERMS


class _Parser:
    """Recursive descent over the lexer's tokens (the grammar of the module docstring)."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.terms = 0

    def fail(self, reason: str) -> InvalidQuery:
        return InvalidQuery(self.text, reason)

    def peek(self) -> str | None:
        return self.tokens[self.index].kind if self.index < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def group(self, depth: int) -> Query:
        children: list[Query] = []
        while self.peek() not in (None, ")"):
            if self.peek() == "AND":
                self.take()
                if not children or self.peek() in (None, ")", "OR", "AND"):
                    raise self.fail("AND needs a term on both sides")
            children.append(self.either(depth))
        if not children:
            raise self.fail("empty parentheses '()'")
        return children[0] if len(children) == 1 else And(tuple(children))

    def either(self, depth: int) -> Query:
        if self.peek() == "OR":
            raise self.fail("OR needs a term on both sides")
        children = [self.unary(depth)]
        while self.peek() == "OR":
            self.take()
            if self.peek() in (None, ")", "OR", "AND"):
                raise self.fail("OR needs a term on both sides")
            children.append(self.unary(depth))
        return children[0] if len(children) == 1 else Or(tuple(children))

    def unary(self, depth: int) -> Query:
        if depth > MAX_DEPTH:
            raise self.fail(f"terms nested deeper than {MAX_DEPTH}")
        kind = self.peek()
        if kind in ("-", "NOT"):
            self.take()
            if self.peek() in (None, ")", "OR", "AND"):
                raise self.fail(f"{'NOT' if kind == 'NOT' else '-'} needs a term after it")
            child = self.unary(depth + 1)
            return child.child if isinstance(child, Not) else Not(child)
        if kind == "(":
            self.take()
            inner = self.group(depth + 1)
            self.take()  # ")": the lexer checked the balance
            return inner
        if kind == "term":
            self.terms += 1
            if self.terms > MAX_TERMS:
                raise self.fail(f"more than {MAX_TERMS} terms")
            node = self.take().node
            assert node is not None
            return node
        raise self.fail(f"{kind} needs a term on both sides")


def parse(text: str) -> Query:
    """Parse a query string into a query tree (see the module docstring for the grammar).

    Args:
        text: the query as typed (any string; typographic double quotes count as ``"``).

    Returns:
        :class:`Everything` for an empty or blank string, else the tree.

    Raises:
        InvalidQuery: for anything malformed, with one line naming the problem and
            quoting the query (unknown field or value, unbalanced quote or parenthesis,
            a dangling ``OR``/``-``, only words without letters or digits, more than
            :data:`MAX_TERMS` terms or deeper than :data:`MAX_DEPTH`). Never raises
            anything else.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # lone surrogates: bytes of the command line that were not UTF-8
        raise InvalidQuery(text, "the query holds bytes that are not UTF-8 text") from None
    tokens = Lexer(text).tokens()
    if not tokens:
        return Everything()
    parser = _Parser(text, tokens)
    tree = parser.group(0)
    if parser.index != len(tokens):  # pragma: no cover - the lexer balances parentheses
        raise parser.fail("')' without a matching '('")
    return tree


# --- command-line words -> query text -------------------------------------------------------

#: An operator of the query language between words (``a OR b``), or a group opening or
#: closing the argument: what no phrase of a title or abstract is written with.
_OPERATOR = re.compile(r"\s(?:OR|AND)\s|^-?\(|\)$|^NOT\s")
#: A ``field:`` prefix at the start of a term (``-`` for negation allowed).
_TERM_FIELD = re.compile(r"(?:^|\s)-?([A-Za-z][A-Za-z_-]*):(?=\S)")


def is_whole_query(word: str) -> bool:
    """True when one command-line argument with spaces is a whole query, not a phrase:
    it has an operator of the query language (`` OR ``, `` AND ``, a ``NOT`` or a
    parenthesis around it) or two or more ``field:`` terms of known fields
    (``tag:rl year:2024``). A shell hands a quoted query as one argument; ``-q`` reads
    it as a query, and so do the positional words then (a fresh user's
    ``export markdown 'status:to-read OR status:reading'`` was an error: the phrase
    ``status:"to-read OR status:reading"``). ``title:deep learning`` (one field and words)
    stays a phrase in that field."""
    if _OPERATOR.search(word):
        return True
    return sum(m.group(1).lower() in FIELDS for m in _TERM_FIELD.finditer(word)) >= 2


def join_words(words: Sequence[str]) -> str:
    """Join command-line arguments into one query string.

    Each argument is a query fragment, except that an argument containing white
    space is a phrase: ``foo bar`` -> ``"foo bar"``, ``title:foo bar`` ->
    ``title:"foo bar"`` (when ``title`` is a known field), ``-foo bar`` ->
    ``-"foo bar"``. Double quotes inside such a phrase are dropped (they are not
    letters or digits, so the phrase's words stay the same); ``\\"`` as in LaTeX
    ``{\\"o}`` is kept. An argument that is a whole query (:func:`is_whole_query`:
    ``tag:a OR tag:b``, ``(status:to-read OR status:reading) priority:high``) is kept
    as it is, as a query given in one argument to ``-q`` is.
    """
    parts: list[str] = []
    for word in words:
        if not any(ch.isspace() for ch in word):
            parts.append(word)
            continue
        stripped = word.strip()
        if is_whole_query(stripped):
            parts.append(stripped)
            continue
        if stripped.translate(QUOTES).startswith('"') and _is_one_phrase(stripped):
            parts.append(stripped)
            continue
        sign = ""
        body = word
        if body.startswith("-") and len(body) > 1 and not body[1].isspace():
            sign, body = "-", body[1:]
        match = FIELD_PREFIX.match(body)
        if match and match.group(1).lower() in FIELDS:
            parts.append(f"{sign}{match.group(0)}{_quote(body[match.end() :])}")
        else:
            parts.append(f"{sign}{_quote(body)}")
    return " ".join(parts).strip()


def _is_one_phrase(word: str) -> bool:
    try:
        tokens = Lexer(word).tokens()
    except InvalidQuery:
        return False
    return len(tokens) == 1 and isinstance(tokens[0].node, Text)


def _quote(content: str) -> str:
    """Return ``content`` as a ``"..."`` phrase that the lexer reads back unchanged."""
    out: list[str] = []
    index = 0
    content = content.translate(QUOTES)
    while index < len(content):
        char = content[index]
        if char == "\\":
            pair = content[index : index + 2]
            out.append(pair if len(pair) == 2 else "\\ ")
            index += 2
            continue
        out.append(" " if char == '"' else char)
        index += 1
    return '"' + "".join(out) + '"'
