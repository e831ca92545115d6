"""Naming the contribution an abstract introduces: :func:`contribution_names`.

The rules read the author-spoken sentences of a :class:`~readinglist.naming.scan.Scan`
("we propose X", "this paper presents X", "called X", "our method, X,") and take the
name that follows: an emphasised phrase, a quoted phrase, a capitalised phrase, or an
acronym whose initials spell the words before it (``_name_at``,
``_acronym_for_phrase``). What counts as a name is decided in
:mod:`readinglist.naming.shapes`; the description attached to it in
:mod:`readinglist.naming.phrases`. Heuristics on phrasing and capitalisation, driven by
the word lists of :mod:`readinglist.naming.words`, never by one input file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from readinglist.naming.phrases import with_details
from readinglist.naming.scan import NAMING_HINTS, PROPOSE_FORMS, Scan
from readinglist.naming.shapes import (
    ContributionName,
    initials_span,
    is_acronym,
    modifies_next_word,
    name_shape,
)
from readinglist.naming.words import (
    ADJECTIVE_SUFFIX,
    ADVERBS,
    ANNOUNCING,
    BOUNDARY_WORDS,
    CONNECTORS,
    FUNCTION_WORDS,
    HEAD_NOUNS,
)
from readinglist.text import fold

_TOKEN = re.compile(r"[^\W_][\w+\-./&@'\u2019\u2010\u2011]*")

_ACRONYM_IN_PARENS = re.compile(
    r"\s*\(\s*((?:\$\\[A-Za-z]+\$)?[A-Za-z0-9][\w+\-./&]{0,19}?)\s*\)"  # (SPAR), ($\\chi$SPN)
)


def contribution_names(abstract: str) -> list[ContributionName]:
    """Find the named contributions an abstract introduces, in order of appearance.

    Phrasings recognised (in sentences whose subject is "we", "this paper" ...):
    "we propose/introduce/present/develop ... X", "by presenting X", "called /
    dubbed / named / termed X", "our method, X, ...", "i.e., X" after such a
    verb, "Spelled Out Name (ACRO)" after such a verb, an emphasised name
    (``*X*``, ``\\texttt{X}``), and acronyms spelled by bolded initials
    (``\\textbf{S}upport-\\textbf{P}reserving ... (SPAR)``). Acronyms of a field's
    terms (:data:`FIELD_TERMS`, plural acronyms such as "LLMs") and ordinary
    words (:data:`STOP_NAMES`) are never names. Returns ``[]`` when nothing is
    named; never raises.
    """
    scan = Scan.of(abstract)
    found: list[ContributionName] = list(scan.bold_names)
    background: set[str] = set()
    for start, end in scan.sentences:
        names = _names_in_sentence(scan, start, end)
        if names:
            found.extend(n for n in names if n.expansion or n.name not in background)
        else:
            background.update(_defined_acronyms(scan.text, start, end))
    found.sort(key=lambda c: c.position)
    return _dedupe_names(found)


def _defined_acronyms(text: str, start: int, end: int) -> set[str]:
    """Acronyms a sentence defines ("knowledge distillation (KD)") without proposing anything.

    These are the field's terms for this abstract, so a later "a novel KD method"
    does not make KD a contribution name.
    """
    found: set[str] = set()
    if "(" not in text[start:end]:
        return found
    for paren in re.finditer(r"\(\s*([A-Za-z][\w+\-]{1,15})\s*\)", text[start:end]):
        acronym = paren.group(1)
        if sum(1 for c in acronym if c.isupper()) >= 2 and initials_span(
            text[start : start + paren.start()], acronym
        ):
            found.add(acronym)
            if acronym.endswith("s"):
                found.add(acronym[:-1])
    return found


_NAMING_RE = re.compile(
    r"(?<![\w-])(?:called|dubbed|named|termed|coined|nicknamed|"
    r"(?:we|which\s+we|that\s+we)\s+(?:call|name|term|dub)"
    r"(?:\s+(?:it|this|them|these|our\s+\w+|the\s+(?:resulting\s+|proposed\s+)?\w+))?|"
    r"referred\s+to\s+as)\s+(?:as\s+)?",
    re.I,
)

_OUR_METHOD_RE = re.compile(
    r"\b[Oo]ur\s+(?:proposed\s+|new\s+|novel\s+)?(?:method|approach|framework|model|algorithm|"
    r"system|benchmark|dataset|tool|toolkit|technique|architecture|library|agent|pipeline)"
    r"\s*,\s*"
)

_IE_RE = re.compile(r"\b(?:i\.e\.|namely|viz\.)\s*,?\s*")

_SUBJECT_WE = re.compile(r"\b(?:we|our|this\s+(?:paper|work|article|study|note|report))\b", re.I)

_PUNCT_BOUNDARY = re.compile(r"\s*(?:[,;:.!?)\]]|\s[\u2014\u2013]|--|\u2014|$)")

_WORD_BOUNDARY = re.compile(r"\s+(?:" + "|".join(sorted(BOUNDARY_WORDS)) + r")\b")


def _subject_ok(
    text: str, clause_start: int, verb_start: int, kind: str, lemma: str, we_in_sentence: bool
) -> bool:
    """Is the verb at ``verb_start`` said by the authors ("we propose", "this paper presents")?"""
    before = text[clause_start:verb_start]
    words = re.findall(r"[A-Za-z]+", before.lower())
    while words and (words[-1] in ADVERBS or (words[-1].endswith("ly") and len(words[-1]) > 4)):
        words.pop()
    if not words:  # "Introducing X, ..." opening a sentence
        return kind == "ing" and lemma in ANNOUNCING
    last = words[-1]
    if kind in ("base", "ed"):
        if last == "we":
            return True
        if last == "and" and kind == "base" and "we" in words:
            return True
        return (
            kind == "base"
            and last == "to"
            and len(words) >= 2
            and words[-2] in ("we", "aim", "seek")
        )
    if kind == "s":
        return last in ("paper", "work", "article", "study", "note", "report", "chapter") and (
            len(words) >= 2 and words[-2] in ("this", "the", "our", "present")
        )
    if kind == "ing":  # "we ... by introducing X", not "this was addressed by introducing X"
        return last in ("by", "through", "via", "and") and we_in_sentence
    return False


def triggers(
    scan: Scan, start: int, end: int, forms: dict[str, tuple[str, str]]
) -> Iterator[tuple[int, str]]:
    """Yield ``(object_start, lemma)`` for each author-spoken verb of ``forms`` in a sentence."""
    text = scan.text
    we_in_sentence = bool(_SUBJECT_WE.search(text, start, end))
    for verb_start, verb_end, form in scan.verbs:
        if verb_start < start or verb_end > end or form not in forms:
            continue
        lemma, kind = forms[form]
        clause_start = max(start, *(text.rfind(p, start, verb_start) + 1 for p in (";", ":", ". ")))
        comma = text.rfind(",", clause_start, verb_start)
        if comma >= 0 and "we" in text[comma:verb_start].lower().split():
            clause_start = comma + 1
        if _subject_ok(text, clause_start, verb_start, kind, lemma, we_in_sentence):
            yield verb_end, lemma


def _names_in_sentence(scan: Scan, start: int, end: int) -> list[ContributionName]:
    """Names introduced in one sentence: by a proposing verb, a naming phrase or "our method, X"."""
    text = scan.text
    lowered = text[start:end].lower()
    found: list[ContributionName] = []
    for obj, _lemma in triggers(scan, start, end, PROPOSE_FORMS):
        found.extend(_names_after_verb(scan, obj, end))
        found.extend(_names_after_ie(scan, obj, min(end, obj + 160)))
    if (
        scan.naming_hints
        and any(w in lowered for w in NAMING_HINTS)
        and _SUBJECT_WE.search(text, start, end)
    ):
        found.extend(_names_after_naming_phrase(scan, start, end))
    if "our " in lowered:
        for match in _OUR_METHOD_RE.finditer(text, start, end):
            cand = _name_at(scan, match.end(), end, strict=False)
            if cand:
                found.append(cand)
    return found


def _names_after_ie(scan: Scan, start: int, end: int) -> list[ContributionName]:
    """``we propose a dataset, i.e., ReCo-Data``: a name after "i.e."/"namely" in a verb's object."""
    if not any(w in scan.text[start:end] for w in ("i.e.", "namely", "viz.")):
        return []
    found = []
    for match in _IE_RE.finditer(scan.text, start, end):
        cand = _name_at(scan, match.end(), end, strict=True)
        if cand:
            found.append(cand)
    return found


def _names_after_naming_phrase(scan: Scan, start: int, end: int) -> list[ContributionName]:
    """``called X``, ``dubbed X``, ``which we call X`` in a sentence the authors speak.

    Skipped when the thing named is prior work ("a recent architecture, named X")
    or a "so-called" term.
    """
    text = scan.text
    found = []
    for match in _NAMING_RE.finditer(text, start, end):
        spoken = match.group(0).lower().startswith(("we", "which", "that"))
        if not spoken and not _SUBJECT_WE.search(text, start, match.start()):
            continue
        before = text[max(start, match.start() - 60) : match.start()].lower()
        if before.endswith("so-"):
            continue
        if not spoken and _PRIOR_WORK.search(re.split(r"[,;]", before.rstrip(" ,"))[-1]):
            continue
        cand = _name_at(scan, match.end(), end, strict=False) or _acronym_for_phrase(
            scan, match.end(), match.end(), _clause_end(text, match.end(), end)
        )
        if cand:
            found.append(cand)
    return found


_PRIOR_WORK = re.compile(
    r"\b(?:recent(?:ly)?|existing|prior|previous(?:ly)?|popular|standard|well-known|classic(?:al)?|"
    r"conventional|traditional|widely|commonly|phenomenon|known|"
    r"employ\w*|us(?:e|es|ed|ing)|adopt\w*|leverag\w*|utiliz\w*|appl(?:y|ies|ied|ying)|follow\w*|extend\w*)\b"
)

_DETERMINERS = re.compile(
    r"(?:\s*\b(?:the|a|an|our|this|two|three|several|novel|new|simple|unified|first|"
    r"general|generic|effective|efficient|lightweight|principled|innovative|powerful)\b)*\s*",
    re.I,
)


def _names_after_verb(scan: Scan, obj: int, end: int) -> list[ContributionName]:
    """Names in a proposing verb's object: direct, ``(ACRO)`` after a phrase, or an appositive."""
    text = scan.text
    q = _DETERMINERS.match(text, obj).end()  # type: ignore[union-attr]
    direct = _name_at(scan, q, end, strict=False)
    if direct:
        return [direct]
    clause_end = _clause_end(text, q, end)
    acronym = _acronym_for_phrase(scan, obj, q, clause_end)
    if acronym:
        return [acronym]
    if clause_end < end and text[clause_end] == "," and len(text[q:clause_end].split()) <= 6:
        after = clause_end + 1
        while after < end and text[after] == " ":
            after += 1
        cand = _name_at(scan, after, end, strict=True)
        if cand:
            return [cand]
    return []


def _clause_end(text: str, q: int, end: int) -> int:
    """Offset of the first ``, ; :`` or sentence period after ``q`` outside brackets (else ``end``)."""
    depth = 0
    for index in range(q, end):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and (
            char in ",;:" or (char == "." and (index + 1 >= end or text[index + 1] == " "))
        ):
            return index
    return end


def _name_at(scan: Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
    """Read a name starting exactly at ``q`` (spaces skipped), or None.

    Tried in turn: an emphasised phrase, a quoted phrase, a capitalised phrase
    (with an ``(ACRO)`` after it, the acronym is the name). ``strict`` asks for
    a name-shaped token (inner capital, digit ...), as after a bare comma.
    """
    text = scan.text
    while q < end and text[q] == " ":
        q += 1
    if q >= end:
        return None
    return (
        _emphasised_name(scan, q, end)
        or _quoted_name(scan, q, end, strict=strict)
        or _capitalised_name(scan, q, end, strict=strict)
    )


def _emphasised_name(scan: Scan, q: int, end: int) -> ContributionName | None:
    """``*debate with images*``, ``\\texttt{Spotter}``: an emphasised phrase of one to six words."""
    emph_end = scan.emphasis.get(q)
    if not emph_end or emph_end > end:
        return None
    phrase = scan.text[q:emph_end].strip()
    words = phrase.split()
    if not 1 <= len(words) <= 6 or (len(words) == 1 and phrase.lower() in FUNCTION_WORDS):
        return None
    text = scan.text
    if _PUNCT_BOUNDARY.match(text, emph_end) or _WORD_BOUNDARY.match(text, emph_end):
        return with_details(scan, phrase, None, q, emph_end)
    return None


def _quoted_name(scan: Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
    """A quoted phrase: "look-alike clustering", or LaTeX-quoted with an acronym after it (wDG)."""
    text = scan.text
    quote = _OPENING_QUOTE.match(text, q)
    if not quote:
        return None
    close = _CLOSING_QUOTE[quote.group(0)]
    stop = text.find(close, quote.end(), min(end, q + 80))
    if stop <= quote.end():
        return None
    phrase = text[quote.end() : stop].strip(" ,.")
    paren = _ACRONYM_IN_PARENS.match(text, stop + len(close))
    if paren and is_acronym(paren.group(1)):
        return with_details(scan, paren.group(1), phrase, q, paren.end())
    if 1 <= len(phrase.split()) <= 5 and not strict:
        return with_details(scan, phrase, None, q, stop + len(close))
    return None


def _capitalised_name(scan: Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
    """``GSFixer,`` / ``Latent Self-Imitation,`` / ``Differentiable Coherent Factuality (DCF)``.

    A single token must be followed by a boundary (punctuation, "which", "to"
    ...) or, when name-shaped, by a head noun ("the GSFixer framework"). Several
    capitalised words must be followed by punctuation or "which/that/to", or by
    a head noun when one word is name-shaped or the phrase recurs in the text
    (a generic "Semi-Supervised Learning framework" does neither).
    """
    text = scan.text
    tokens = _capitalized_phrase(text, q, end)
    if not tokens:
        return None
    phrase_end = tokens[-1][1]
    phrase = text[q:phrase_end]
    paren = _ACRONYM_IN_PARENS.match(text, phrase_end)
    if paren and is_acronym(paren.group(1)):
        if modifies_next_word(text, paren.end()):
            return None  # "Statistical Query (SQ) lower bounds": a term qualifying something else
        return with_details(scan, paren.group(1), phrase, q, paren.end())
    words = [word for _, _, word in tokens]
    head = _NEXT_WORD.match(text, phrase_end)
    before_head_noun = bool(head and head.group(1) in HEAD_NOUNS)
    if len(words) == 1:
        shape = name_shape(words[0])
        if strict and shape != "strong":
            return None
        at_boundary = _PUNCT_BOUNDARY.match(text, phrase_end) or _WORD_BOUNDARY.match(
            text, phrase_end
        )
        if at_boundary or (shape == "strong" and before_head_noun):
            return with_details(scan, words[0], None, q, phrase_end)
        return None
    if len(words) > 6:
        return None
    has_strong = any(name_shape(w) == "strong" for w in words)
    at_punct = _PUNCT_BOUNDARY.match(text, phrase_end) or _RELATIVE_NEXT.match(text, phrase_end)
    if (at_punct and (has_strong or not strict)) or (
        before_head_noun and (has_strong or text.count(phrase) >= 2)
    ):
        return with_details(scan, phrase, None, q, phrase_end)
    return None


_OPENING_QUOTE = re.compile(r"``|[\"\u201c'\u2018`]")

_NEXT_WORD = re.compile(r"\s+([a-z]+)")

_RELATIVE_NEXT = re.compile(r"\s+(?:which|that|to)\b")

_CLOSING_QUOTE = {"``": "''", '"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019", "`": "'"}


def _capitalized_phrase(text: str, q: int, end: int) -> list[tuple[int, int, str]]:
    """Tokens of a capitalised phrase at ``q`` ("Latent Self-Imitation", "M+Adam")."""
    tokens: list[tuple[int, int, str]] = []
    position = q
    pending: list[tuple[int, int, str]] = []
    while position < end and len(tokens) + len(pending) < 10:
        match = _TOKEN.match(text, position)
        if not match or match.end() > end:
            break
        word = match.group(0).rstrip(".-'\u2019/&@")
        token = (match.start(), match.start() + len(word), word)
        if not word:
            break
        if tokens and word.lower() in CONNECTORS and word.islower():
            pending.append(token)
        elif name_shape(word) and not ADJECTIVE_SUFFIX.search(word):
            tokens.extend(pending)
            pending = []
            tokens.append(token)
        else:
            break
        if len(word) < len(match.group(0)):
            break  # the token ended in punctuation ("M+Adam.")
        gap = re.match(r" +", text[token[1] : token[1] + 4])
        if not gap:
            break
        position = token[1] + len(gap.group(0))
    return tokens


def _acronym_for_phrase(scan: Scan, obj: int, q: int, clause_end: int) -> ContributionName | None:
    """``we propose support-preserving action rectification (SPAR)``: an acronym whose initials match."""
    text = scan.text
    for paren in re.finditer(r"\(\s*([A-Za-z0-9][\w+\-./&]{0,19}?)\s*\)", text[q:clause_end]):
        acronym = paren.group(1)
        if not is_acronym(acronym):
            continue
        before = text[q : q + paren.start()]
        span = initials_span(before, acronym)
        if span is None:
            continue
        offset, expansion = span
        if len(before[:offset].split()) > 3 or modifies_next_word(text, q + paren.end()):
            continue
        return with_details(
            scan, acronym, expansion, q + offset, q + paren.end(), position=q + offset
        )
    return None


def _dedupe_names(found: list[ContributionName]) -> list[ContributionName]:
    """``found`` without repeated names (compared folded); a repeat fills the gaps of the first."""
    by_key: dict[str, int] = {}
    out: list[ContributionName] = []
    for cand in found:
        key = fold(cand.name)
        if key in by_key:
            kept = out[by_key[key]]
            out[by_key[key]] = ContributionName(
                kept.name,
                kept.expansion or (cand.expansion if cand.position == kept.position else None),
                kept.description or cand.description,
                kept.position,
            )
            continue
        by_key[key] = len(out)
        out.append(cand)
    return out
