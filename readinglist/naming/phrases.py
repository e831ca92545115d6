"""Description phrases: the words a title gets after a name, or instead of one.

:func:`with_details` builds a :class:`~readinglist.naming.shapes.ContributionName`
with its expansion and the appositive that follows it ("X, a framework that ...");
:func:`trim_phrase` and :func:`cut_at_boundary` cut a phrase to title length at
clause boundaries and drop hype words ("novel"). Pure functions; they raise nothing.
"""

from __future__ import annotations

import re

from readinglist.naming.markup import WHITESPACE, decode
from readinglist.naming.scan import Scan
from readinglist.naming.shapes import ContributionName, acceptable_name
from readinglist.naming.words import (
    CONNECTORS,
    CUT_PREPOSITIONS,
    FUNCTION_WORDS,
    HYPE,
    RELATIVE_WORDS,
)
from readinglist.text import fold

_LIST_COMMA_ITEM = re.compile(r"\s*(?:and\s+|or\s+)?[\w\-]+(?:\s+[\w\-]+)?\s*(?:,|\band\b|\bor\b)")


def with_details(
    scan: Scan, name: str, expansion: str | None, q: int, after: int, position: int | None = None
) -> ContributionName | None:
    """Build the ContributionName ``name`` found at ``q``, or None when it is no acceptable name.

    ``expansion`` (the spelled-out form, or None) and ``name`` are LaTeX/HTML-decoded; an
    expansion equal to the name is dropped, a lower-case one title-cased. ``after`` is the
    offset in ``scan.text`` where the appositive describing the name may start;
    ``position`` (default ``q``) orders the names.
    """
    name = decode(name).strip(" ,.;:")
    if not acceptable_name(name):
        return None
    if expansion is not None:
        expansion = decode(expansion).strip(" ,.;:'\"`\u201c\u201d\u2018\u2019")
        if fold(expansion) == fold(name) or not expansion:
            expansion = None
        elif expansion.islower():
            expansion = _title_case(expansion)
    description = _appositive(scan.text, after)
    return ContributionName(name, expansion, description, q if position is None else position)


def _appositive(text: str, after: int) -> str | None:
    """The description after a name: ", a framework that ..." or ", which combines ..."."""
    match = re.match(
        r"\s*(?:\([^()]{0,60}\)\s*)?(?:,|:|\s[\u2014\u2013]|\u2014|--)\s*", text[after : after + 80]
    )
    if not match:
        return None
    start = after + match.end()
    rest = text[start : start + 400]
    lead = re.match(r"(?:(a|an|the)\s|(which|that)\s+(\w+))", rest, re.I)
    if not lead:
        return None
    end_sentence = _SENTENCE_END_IN.search(rest)
    rest = rest[: end_sentence.start()] if end_sentence else rest
    if lead.group(2):
        verb = lead.group(3)
        gerund = _gerund(verb)
        if not gerund:
            return None
        rest = gerund + rest[lead.end() :]
    phrase = trim_phrase(rest)
    return phrase or None


_SENTENCE_END_IN = re.compile(r"[.!?](?=\s|$)|(?<=[a-z]{3})\.(?=[A-Z][a-z]{2})")


def _gerund(verb: str) -> str | None:
    """``combines`` -> ``combining``; None for a word that is not a third-person verb."""
    lowered = verb.lower()
    if lowered in ("is", "are", "was", "were", "has", "have", "can", "may", "will", "we"):
        return None
    if not lowered.endswith("s") or lowered.endswith("ss"):
        return None
    if lowered.endswith("ies"):
        return lowered[:-3] + "ying"
    base = (
        lowered[:-2] if lowered.endswith(("ches", "shes", "sses", "xes", "zes")) else lowered[:-1]
    )
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        base = base[:-1]
    elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", base):
        base += base[-1]  # put -> putting, run -> running
    return base + "ing"


def trim_phrase(phrase: str) -> str:
    """Cut a description phrase to title length at clause boundaries; drop hype words; decode.

    A relative clause ("that ...") is dropped when the phrase is long and its
    head says enough ("an autoregressive planner with self-correction"); after
    a bare head ("a model that ...") it is kept but cut before a preposition.
    """
    words = _drop_hype(cut_at_boundary(phrase).split())
    relative = next(
        (i for i, w in enumerate(words) if i >= 2 and w.lower() in RELATIVE_WORDS), None
    )
    if relative is not None:
        head = [w for w in words[:relative] if w.lower() not in HYPE | {"a", "an", "the"}]
        if len(head) >= 2 and (len(words) > 12 or len(words) - relative < 3):
            words = words[:relative]
        elif len(head) < 2 and len(words) > 12:
            cuts = [i for i in range(relative + 3, 13) if words[i].lower() in CUT_PREPOSITIONS]
            words = words[: cuts[-1] if cuts else 12]
    if len(words) > 14:  # keep as much as fits, up to a preposition
        cuts = [i for i in range(6, 13) if words[i].lower() in CUT_PREPOSITIONS]
        words = words[: cuts[-1] if cuts else 12]
    while words and (
        words[-1].lower().strip(",;:") in FUNCTION_WORDS or words[-1] in "-\u2013\u2014"
    ):
        words.pop()
    text = " ".join(words).strip(" ,;:")
    text = WHITESPACE.sub(" ", decode(text)).strip(" ,;:")
    return text[:-1] if text.endswith(".") and not text.endswith("al.") else text


def cut_at_boundary(phrase: str) -> str:
    """Cut at the first clause boundary outside brackets; commas inside a short list do not count."""
    depth = 0
    index = 0
    in_list = False
    while index < len(phrase):
        char = phrase[index]
        if char in "([{":
            if re.match(r"\((?:i|1|a)\)", phrase[index : index + 3]):
                return phrase[:index]
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            if char in ";:" or phrase.startswith((" \u2014", " \u2013 ", " -- ", "\u2014"), index):
                return phrase[:index]
            if char == ",":
                if _LIST_COMMA_ITEM.match(phrase, index + 1):
                    in_list = True
                elif not (in_list and re.match(r"\s+(?:and|or)\s", phrase[index + 1 :])):
                    return phrase[:index]
            if phrase.startswith((" i.e.", " e.g.", " such as "), index):
                return phrase[:index]
        index += 1
    return phrase


def _drop_hype(words: list[str]) -> list[str]:
    """``words`` without hype words ("novel"); a leading "a"/"an" is fixed for the new next word."""
    out: list[str] = []
    for word in words:
        if word.lower() in HYPE:
            continue
        out.append(word)
    if len(out) >= 2 and out[0].lower() in ("a", "an") and len(out) < len(words):
        article = _indefinite_article(out[1])
        out[0] = article if out[0].islower() else article.capitalize()
    return out


def _indefinite_article(word: str) -> str:
    """ "a" or "an" by the sound of ``word``: vowel letters, or acronyms read letter by letter."""
    if re.match(r"[A-Z]{2,}|[A-Z][\d\-]", word):
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    if re.match(r"(?i)(?:uni|use|usu|uti|one|eu)", word):
        return "a"
    return "an" if word[:1].lower() in "aeiou" else "a"


def _title_case(text: str) -> str:
    """Capitalise each word (and each hyphenated part) except connectors after the first."""
    words = text.split()
    return " ".join(
        w
        if (i and w.lower() in CONNECTORS)
        else "-".join(p[:1].upper() + p[1:] for p in w.split("-"))
        for i, w in enumerate(words)
    )
