"""An abstract prepared once for all naming rules: plain text, emphasis, sentences, verbs.

:meth:`Scan.of` builds (and caches) the :class:`Scan` of an abstract; the rules in
:mod:`readinglist.naming.names` and :mod:`readinglist.naming.titles` only read it.
The verb forms of :data:`PROPOSE_FORMS` and :data:`STUDY_FORMS` come from the verb
lists of :mod:`readinglist.naming.words`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from readinglist.naming.markup import (
    EM0,
    EM1,
    HTML_TAG,
    URL_COMMAND,
    apply_markup_rules,
    decode,
    unwrap_markers,
)
from readinglist.naming.shapes import ContributionName, acceptable_name
from readinglist.naming.words import ABBREVIATIONS, FIELD_TERMS, PROPOSE_VERBS, STUDY_VERBS

_SENTENCE_BREAK = re.compile(
    r"[.!?][\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[$\\]?[A-Z0-9])"
    r"|(?<=[a-z]{3})\.(?=[A-Z][a-z]{2})"  # "energies.Extensive": a space lost in copying
)

_BOLD_INITIAL_WORD = rf"{EM0}[A-Za-z0-9]{{1,3}}{EM1}[a-z][\w\-\u2010\u2011]*"

_BOLD_RUN = re.compile(
    rf"{_BOLD_INITIAL_WORD}(?:(?:[\s\-\u2010\u2011]+[\w\-\u2010\u2011]+){{0,2}}[\s\-\u2010\u2011]+"
    rf"{_BOLD_INITIAL_WORD}|[\-\u2010\u2011]?{_BOLD_INITIAL_WORD})+"
)

_SPACES = re.compile("[~\u00a0\u2009\u202f\n\t\r]")

_MARKER = re.compile(f"[{EM0}{EM1}]")

_BOLD_PART = re.compile(rf"{EM0}([A-Za-z0-9]{{1,3}}){EM1}")


@dataclass
class Scan:
    """An abstract prepared for phrase matching.

    ``text`` is the abstract with Markdown/LaTeX emphasis removed, ``\\url{}``
    unwrapped, ``~`` and line breaks as spaces (other LaTeX kept, decoded only
    in the strings a record gets). ``emphasis`` maps the start offset of each
    emphasised span to its end; ``bold_names`` are acronyms spelled by bolded
    initials; ``sentences`` are ``(start, end)`` offsets.
    """

    text: str
    emphasis: dict[int, int]
    bold_names: list[ContributionName]
    sentences: list[tuple[int, int]]
    verbs: list[tuple[int, int, str]]  # (start, end, lower-case form) of the verbs we look for
    naming_hints: bool  # does the text hold a naming word ("called", "dubbed" ...) at all?

    @staticmethod
    def of(abstract: str) -> Scan:
        """Return the scan of ``abstract`` (any text; cached by value). Raises nothing."""
        return _scan(abstract)


_SCAN_CACHE: dict[str, Scan] = {}


def _scan(abstract: str) -> Scan:
    """Build the :class:`Scan` of ``abstract``, or return the cached one."""
    cached = _SCAN_CACHE.get(abstract)
    if cached is not None:
        return cached
    marked = (
        html.unescape(HTML_TAG.sub(_html_emphasis, abstract))
        if "<" in abstract or "&" in abstract
        else abstract
    )
    marked = apply_markup_rules(marked)
    marked = URL_COMMAND.sub(r"\1", marked) if "\\" in marked else marked
    marked = _SPACES.sub(" ", marked).replace("\\ ", "  ")
    bold = _bold_acronyms(marked)
    text, emphasis, mapping = _remove_markers(marked)
    bold_names = [
        ContributionName(name, expansion, None, mapping(pos)) for name, expansion, pos in bold
    ]
    lowered = text.lower()
    result = Scan(
        text,
        emphasis,
        bold_names,
        list(_sentences(text)),
        _find_verbs(text),
        any(w in lowered for w in NAMING_HINTS),
    )
    if len(_SCAN_CACHE) > 4096:
        _SCAN_CACHE.clear()
    _SCAN_CACHE[abstract] = result
    return result


def _html_emphasis(match: re.Match[str]) -> str:
    """An HTML tag in an abstract: emphasis tags kept, ``<br>``/``<p>`` as spaces, others dropped."""
    tag = match.group(0).lower()
    name = re.match(r"</?\s*([a-z0-9]+)", tag)
    if name and name.group(1) in ("b", "strong", "em", "i", "code", "tt", "u"):
        return match.group(0)  # kept for the emphasis rules
    return " " * len(match.group(0)) if name and name.group(1) in ("br", "p") else ""


def _remove_markers(marked: str) -> tuple[str, dict[int, int], _PositionMap]:
    """Drop emphasis markers; return the text, emphasised spans (start -> end) and an offset map."""
    if EM0 not in marked and EM1 not in marked:
        return marked, {}, _PositionMap([])
    emphasis: dict[int, int] = {}
    stack: list[int] = []
    marker_positions: list[int] = []
    for match in _MARKER.finditer(marked):
        index = match.start()
        length = index - len(marker_positions)  # offset in the text without markers
        marker_positions.append(index)
        if match.group(0) == EM0:
            stack.append(length)
        elif stack:
            start = stack.pop()
            if length > start:
                emphasis[start] = max(emphasis.get(start, 0), length)
    return unwrap_markers(marked), emphasis, _PositionMap(marker_positions)


@dataclass(frozen=True)
class _PositionMap:
    """Maps an offset in marked text to the offset once markers are removed."""

    markers: list[int]

    def __call__(self, position: int) -> int:
        """Return ``position`` (in marked text) as an offset in the text without markers."""
        return position - sum(1 for m in self.markers if m < position)


def _bold_acronyms(marked: str) -> list[tuple[str, str, int]]:
    """Acronyms spelled by bolded initials: ``**P**atched ... **I**nitialization`` -> PIDI."""
    found: list[tuple[str, str, int]] = []
    if EM0 not in marked:
        return found
    for match in _BOLD_RUN.finditer(marked):
        letters = "".join(_BOLD_PART.findall(match.group(0)))
        if len(letters) < 2 or not any(c.isupper() for c in letters):
            continue
        expansion = unwrap_markers(match.group(0))
        after = unwrap_markers(marked[match.end() : match.end() + 80])
        tail = re.match(r"((?:[\s\-][A-Z][\w\-]*){0,2})\s*\(([^()]{1,25})\)", after)
        if tail and tail.group(2).strip() != letters:
            continue  # the bold letters are not the name: "(\\chi SPN)" after "**Ch**aracteristic"
        if tail:
            expansion += tail.group(1)
        name = decode(letters)
        if acceptable_name(name) and name.lower() not in FIELD_TERMS:
            found.append((name, decode(expansion), match.start()))
    return found


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each sentence; a period after an abbreviation or initial does not end one."""
    start = 0
    for match in _SENTENCE_BREAK.finditer(text):
        stop = match.start()
        if text[stop] == ".":
            word_start = max(text.rfind(" ", start, stop), text.rfind("(", start, stop)) + 1
            word = text[word_start:stop]
            if word.lower() in ABBREVIATIONS or (len(word) == 1 and word.isupper()):
                continue
        yield start, stop + 1
        start = match.end()
    if start < len(text):
        yield start, len(text)


def _verb_forms(lemmas: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Map each inflected form to ``(lemma, kind)`` with kind base/s/ed/ing."""
    forms: dict[str, tuple[str, str]] = {}
    irregular_past = {"build": "built"}
    for lemma in lemmas:
        stem = lemma[:-1] if lemma.endswith("e") else lemma
        third = lemma + ("es" if lemma.endswith(("s", "sh", "ch", "x")) else "s")
        past = irregular_past.get(lemma, lemma + "d" if lemma.endswith("e") else lemma + "ed")
        forms[lemma] = (lemma, "base")
        forms[third] = (lemma, "s")
        forms[past] = (lemma, "ed")
        forms[stem + "ing"] = (lemma, "ing")
    return forms


PROPOSE_FORMS = _verb_forms(PROPOSE_VERBS)

STUDY_FORMS = _verb_forms(STUDY_VERBS)

_ALL_FORMS = {**STUDY_FORMS, **PROPOSE_FORMS}

_VERB_STEMS = tuple(sorted({form[:4] for form in _ALL_FORMS}))


def _find_verbs(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, form)`` of every verb form of ``_ALL_FORMS`` in ``text``, in order.

    Uses ``str.find`` per four-letter stem: much faster than one big regex alternation.
    """
    lowered = text.lower()
    found = []
    for stem in _VERB_STEMS:
        index = lowered.find(stem)
        while index >= 0:
            if index == 0 or not lowered[index - 1].isalnum():
                end = index + len(stem)
                while end < len(lowered) and lowered[end].isalpha():
                    end += 1
                form = lowered[index:end]
                if form in _ALL_FORMS:
                    found.append((index, end, form))
            index = lowered.find(stem, index + 1)
    found.sort()
    return found


#: Substrings without which the naming phrases of :mod:`readinglist.naming.names` cannot
#: match ("called", "dubbed", ...): a cheap pre-test.
NAMING_HINTS = ("call", "dub", "name", "term", "coined", "referred")
