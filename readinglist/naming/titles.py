"""Short names and provisional titles, from a title or an abstract.

A short name is the contribution a paper is known by ("FlowSketch", "Llama 2"); a
provisional title is built for an abstract pasted without one, from its first named
contribution (:func:`readinglist.naming.names.contribution_names`) or else from the
phrase of its main claim.
"""

from __future__ import annotations

import re

from readinglist.naming.markup import clean_inline, decode
from readinglist.naming.names import contribution_names, triggers
from readinglist.naming.phrases import cut_at_boundary, trim_phrase
from readinglist.naming.scan import PROPOSE_FORMS, STUDY_FORMS, Scan
from readinglist.naming.shapes import ContributionName, acceptable_name, is_acronym, name_shape
from readinglist.naming.words import FIELD_TERMS, FUNCTION_WORDS, TITLE_PREFIX_STOP

#: A bracketed tag in front of a title ("[Spotlight] ..."), not followed by a link.
BRACKET_TAG = re.compile(r"^\s*\[([^\[\]]{1,40})\]\s*(?!\()")


def short_name_from_title(title: str) -> str | None:
    """Return the name a title leads with, or None.

    ``"FlowSketch: Sketch-Guided Optical Flow"`` -> ``"FlowSketch"``;
    ``"Llama 2: Open Foundation ..."`` -> ``"Llama 2"``; ``"A Tracking Benchmark
    (MGIT): ..."`` -> ``"MGIT"``. The part before the first ``:`` (or a spaced
    dash) is a name when it is one token that is not an ordinary title word
    ("Position", "Towards"), or two to four capitalised tokens of which one is
    written like a name (inner capital, digit, ``+``) or is a version number.
    """
    title = BRACKET_TAG.sub("", clean_inline(title))
    match = re.match(r"^(.{1,80}?)\s*(?::(?:\s|(?=[A-Z]))|\s[-\u2013\u2014]\s)", title)
    if not match:
        return None
    prefix = match.group(1).strip()
    acronym = re.search(r"\(([^()\s]{2,20})\)$", prefix)
    if acronym:
        return acronym.group(1) if is_acronym(acronym.group(1)) else None
    tokens = prefix.split()
    if not tokens or len(tokens) > 4:
        return None
    if len(tokens) == 1:
        token = tokens[0]
        if token.lower() in TITLE_PREFIX_STOP or not name_shape(token):
            return None
        if token.lower() in FIELD_TERMS and re.fullmatch(r"[A-Z0-9]+s?", token):
            return None  # "RL: ...", "LLMs: ..."
        return token if acceptable_name(token, all_caps_ok=True) else None
    versions = [t for t in tokens[1:] if re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]?", t)]
    words = [t for t in tokens if t not in versions]
    if any(t.lower() in FUNCTION_WORDS or not name_shape(t) for t in words):
        return None
    strong = [t for t in words if name_shape(t) == "strong" and t.lower() not in FIELD_TERMS]
    if not (strong or versions):
        return None
    return prefix if acceptable_name(prefix) else None


def provisional_title(abstract: str, names: list[ContributionName] | None = None) -> str:
    """Build a title for an untitled abstract.

    With a contribution name: ``"NAME: expansion"`` or ``"NAME: description"``
    ("SPAR: Support-Preserving Action Rectification"; "GSFixer: a framework
    designed to improve ..."), or the name alone. Without one: a short phrase
    from the abstract's main claim ("we propose a shared-score ... mechanism
    that ..." -> "A shared-score quaternion self-attention mechanism"), else the
    first sentence's subject, else its first words. Never empty for a non-blank
    abstract ("Untitled" for a blank one).
    """
    if names is None:
        names = contribution_names(abstract)
    if names:
        main = names[0]
        tail = main.expansion or main.description
        return f"{main.name}: {tail}" if tail else main.name
    scan = Scan.of(abstract)
    phrase = _claim_phrase(scan) or _subject_phrase(scan) or _first_words(scan)
    return phrase[:1].upper() + phrase[1:] if phrase else "Untitled"


def _claim_phrase(scan: Scan) -> str | None:
    """The object of the first "we propose/introduce ..." (else "we study ...") as a title phrase."""
    for forms in (PROPOSE_FORMS, STUDY_FORMS):
        for start, end in scan.sentences:
            for obj, _lemma in triggers(scan, start, end, forms):
                rest = scan.text[obj:end]
                rest = re.sub(r"^\s*(?:here\s+|also\s+|further\s+)?", "", rest)
                if re.match(
                    r"\s*(?:that|how|whether|to|on|in|with|for|about|if|why|when|what)\b",
                    rest,
                    re.I,
                ):
                    continue
                phrase = trim_phrase(rest.strip())
                if len(phrase.split()) >= 2:
                    return phrase
    return None


def _first_words(scan: Scan) -> str:
    """The first sentence's first clause, at most twelve words (the last resort)."""
    if not scan.sentences:
        return ""
    start, end = scan.sentences[0]
    words = cut_at_boundary(scan.text[start:end]).split()[:12]
    while len(words) > 1 and words[-1].lower() in FUNCTION_WORDS:
        words.pop()
    return decode(" ".join(words)).rstrip(".!?,;: ")


def _subject_phrase(scan: Scan) -> str | None:
    """The subject of the abstract's first sentence, when it is short."""
    if not scan.sentences:
        return None
    start, end = scan.sentences[0]
    sentence = scan.text[start:end]
    verb = re.search(
        r"\s(?:is|are|was|were|has|have|can|remains?|plays?|aims?|offers?|provides?)\s", sentence
    )
    if verb and 2 <= len(sentence[: verb.start()].split()) <= 12:
        return trim_phrase(sentence[: verb.start()])
    return None
