"""Reader for pasted lists of papers: the ``abstracts`` format.

Researchers triage from lists pasted out of conference pages, newsletters and
mailing lists. :func:`read` turns such a list into :class:`PaperRecord` values.

Layouts read (issue "Import pasted lists of papers well"; all by general rules):

* optional header paragraph(s) before the first paper; venue and year are read
  from them when they say so ("ICML 2026 Papers", "CVPR'25 orals",
  "Proceedings of ACL 2024"), see :func:`parse_header`;
* papers separated by blank lines: an abstract alone; a title line then the
  abstract (also as two paragraphs); a title, an author line, the abstract;
  labelled lines (``Title:``, ``Authors:``, ``Abstract:``, ``URL:``, ``arXiv:``,
  ``DOI:``, ``Code:``, ``Keywords:``, ``TL;DR:`` ...; unknown bold labels and
  metadata such as ``Date:``/``Categories:`` go to ``fields``); numbered or
  bulleted titles, including one-line "awesome list" items with
  ``[[paper](...)] [[code](...)]`` and "(ICML 2024)"; arXiv listing mails;
  Markdown lists as published on GitHub (a heading per paper, ``**Authors:**``,
  ``<details>`` abstracts, ``----`` separators, section headings);
* hard-wrapped text, CRLF/CR line ends and a BOM; LaTeX, Markdown and HTML
  entities. The abstract is stored exactly as given (the block's text, stripped);
  titles and names are decoded to Unicode.

What each paper gets besides its given fields:

* ``short_name``: the contribution the paper names, from the title
  (:func:`short_name_from_title`) or the abstract (:func:`contribution_names`);
  the abstract's other names become ``keywords``;
* a provisional title when the list gives none (:func:`provisional_title`),
  with ``title_provisional=True``;
* links sorted into ``code_url``, ``arxiv``, ``doi`` and ``url``
  (:func:`extract_links`); authors split into BibTeX name parts
  (:func:`parse_authors`);
* ``entry_type`` "inproceedings" when a venue is known, else "misc";
  ``citekey`` None (the library makes keys); ``line`` the block's first line.

All rules are heuristics on layout, phrasing and capitalisation, driven by the
word lists below (field terms, stop words, head nouns), never by one input file.
LaTeX is decoded by pylatexenc through :func:`readinglist.text.latex_to_unicode`,
but only for the short strings a record gets (titles, names, descriptions):
decoding whole abstracts costs seconds on a 600-paper list. pylatexenc drops
``\\texttt{..}`` inside math (``$\\texttt{Name}$`` decodes to nothing), so such
text commands are unwrapped here first. No library reads this format, so the
layout rules are hand-written; Markdown is handled line by line rather than
with markdown-it-py because pasted lists mix Markdown with plain-text layouts.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from readinglist.records import PaperRecord, ParseProblem, ParseResult, Person
from readinglist.text import fold, latex_to_unicode

__all__ = [
    "ContributionName",
    "Links",
    "contribution_names",
    "extract_links",
    "parse_authors",
    "parse_header",
    "parse_name",
    "provisional_title",
    "read",
    "short_name_from_title",
]

# --------------------------------------------------------------------------- #
# Word lists (the knowledge the heuristics use; extend them, do not special-case)
# --------------------------------------------------------------------------- #


def _words(text: str) -> frozenset[str]:
    """A word list written as white-space separated text."""
    return frozenset(text.split())


#: Abbreviations of a field's terms: an acronym in this list (or its plural) is
#: never a contribution name, e.g. "large language models (LLMs)".
FIELD_TERMS: frozenset[str] = _words(
    """
    ai agi ml dl rl nlp cv ir llm mllm vlm lvlm lm plm slm nn dnn cnn rnn gnn ann snn
    mlp lstm gru gan vae vit sgd gd adam dp ldp cot rlhf rlvr dpo ppo sft icl rag asr
    tts sota api gpu cpu tpu fpga pde ode sde mdp pomdp kl mse mae rmse iou fid auc roc
    qa vqa ner mt ocr pos 2d 3d 4d iid ood id kg gp bo mcmc em svm pca ica hmm crf nerf
    3dgs moe lora peft ssl uda da fl ddpm sde t2i t2v i2v vla mllms us eu uk usa ieee
    acm arxiv github url urls doi pdf html json csv ui ux io kd mbrl marl irl ssl nas
    hpo automl xai sq pac erm tl mtl ctr cf ts seg det
    """
)

#: Words that are never a name, however they are capitalised ("We", "This").
STOP_NAMES: frozenset[str] = _words(
    """
    we our us it its they their this that these those the a an here there in on to for
    of and or but with by from as at via into such both each all any some one two three
    four five several many most first second third new novel however moreover
    furthermore finally then thus therefore specifically additionally instead also
    further extensive experiments experimental results code data project page paper work
    method methods approach model models i ii iii iv v vi table figure section appendix
    github
    """
)

#: Words that open a title but are not the name of a contribution ("Position: ...").
TITLE_PREFIX_STOP: frozenset[str] = _words(
    """
    position survey review tutorial editorial commentary perspective perspectives
    overview keynote introduction abstract erratum correction corrigendum retraction
    addendum extended revisiting rethinking towards toward beyond why how what when
    where who which invited discussion reply response comment note short demo
    """
)

#: Suffixes that make an adjective out of a name ("DiT-based"): never a name.
_ADJECTIVE_SUFFIX = re.compile(
    r"-(?:based|like|aware|free|guided|driven|style|level|wise|specific|agnostic|"
    r"conditioned|augmented|enhanced|powered|informed|centric|oriented|efficient|"
    r"scale|sized|only|type|dependent|invariant|equivariant|tuned|generated|"
    r"assisted|inspired|friendly|compatible|ready|grounded|centered)$",
    re.IGNORECASE,
)

#: Head nouns after a capitalised name ("the Adaptive Safe Context Learning framework").
HEAD_NOUNS: frozenset[str] = _words(
    """
    framework method model module strategy algorithm benchmark dataset approach
    architecture system loss mechanism technique paradigm library toolkit toolbox
    environment agent pipeline network metric attack defense defence suite platform
    objective layer scheme procedure protocol estimator optimizer regularizer corpus
    simulator family engine policy planner solver language tool testbed leaderboard
    """
)

#: Presentation tags in front of a title ("[Spotlight] AbDiffuser: ...").
PRESENTATION_TAGS: frozenset[str] = frozenset(
    {"spotlight", "oral", "poster", "highlight", "award", "featured", "invited", "demo", "new"}
    | {"best paper", "outstanding paper", "honorable mention"}
)

#: Generic header words that are not a venue even next to a year ("Papers 2025").
HEADER_STOP: frozenset[str] = _words(
    """
    papers paper accepted orals oral posters poster spotlights session sessions
    proceedings conference workshop volume vol track list reading issue spring summer
    fall autumn winter january february march april may june july august september
    october november december jan feb mar apr jun jul aug sep sept oct nov dec the of in
    and top best my our new selected abstracts list week day edition digest newsletter
    part utc gmt ct et pt cet cest est edt cst cdt pst pdt bst ist
    """
)

#: Verbs announcing a contribution ("we propose X"), priority 1 for a title phrase.
_PROPOSE_VERBS = _words(
    """
    propose introduce present develop design devise build construct create release curate
    contribute unveil offer describe
    """
)
#: Verbs stating a study ("we study X"), priority 2, used only for a title phrase.
_STUDY_VERBS = _words(
    """
    study investigate analyze analyse examine explore consider address tackle give provide
    derive characterize characterise revisit establish formulate
    """
)

_ADVERBS = _words(
    """
    also further then first now here hence therefore thus additionally finally newly
    subsequently instead next jointly moreover furthermore accordingly consequently
    specifically concretely secondly lastly thereby ultimately
    """
)

#: Adjectives dropped from description phrases in titles (marketing, not content).
_HYPE = _words("novel new innovative powerful")

_CONNECTORS = _words(
    """
    of for with and in on via to the from over under by a an as at
    """
)
_FUNCTION_WORDS = _words(
    """
    the a an of and or to in for with we that which on by from is are as at via our its
    their this these be can into using based than but not has have was were
    """
)
_NAME_PARTICLES = _words(
    """
    van von der den de del della di da dos das du le la los las ter ten bin ibn al el y
    e zu
    """
)
_NAME_SUFFIXES = _words("jr jr. sr sr. ii iii iv v")

# --------------------------------------------------------------------------- #
# Regular expressions
# --------------------------------------------------------------------------- #

_EM0, _EM1 = "\ue000", "\ue001"  # emphasis markers in scan text (private use area)

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,}|(?:- ){2,}-|<hr\s*/?>)\s*$", re.I)
_LIST_MARKER = re.compile(
    r"^\s*(?:\d{1,4}[.)]|\(\d{1,4}\)|\[\d{1,4}\]|[-*+\u2022\u25cf\u2023\u25e6])\s+"
)
_BOLD_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+)?(\*\*|__)\s*(?P<label>[^*_:\n<>]{1,40}?)\s*(?::\s*\1|\1\s*:)\s*(?P<value>.*)$"
)
_PLAIN_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<label>[A-Za-z][A-Za-z .()/;&'-]{0,28}?)\s*:\s*(?P<value>.*)$"
)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,200}>")
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,500})\]\(\s*<?([^()\s<>]+)>?\s*\)")
#: Link groups after a title in "awesome" lists: [[paper](url)] [code](url) [PDF](url).
_LINK_GROUP = re.compile(
    r"\s*\[?\[\s*(?:paper|code|pdf|arxiv|project(?: page)?|github|website|page|video|slides|"
    r"bib(?:tex)?|demo|blog|data(?:set)?|models?|openreview|html|poster|link)\s*\]\([^()\s]*\)\]?",
    re.I,
)
_TRAILING_VENUE = re.compile(r"\s*[(\[]([^()\[\]]{2,40})[)\]]\s*$")
_BRACKET_TAG = re.compile(r"^\s*\[([^\[\]]{1,40})\]\s*(?!\()")

_URL = re.compile(
    r"\[[^\[\]\n]{0,300}\]\(\s*<?((?:https?|ftp)://[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*)>?\s*\)"  # [text](url)
    r"|\\(?:url|href)\{([^{}\s]+)\}"  # \url{...} / \href{...}
    r"|<((?:https?|ftp)://[^<>\s]+)>"  # <https://...>
    r"|\b((?:https?://|www\.)[^\s<>\"'`{}|\\^\[\]]+(?:\\[_%#&~][^\s<>\"'`{}|\\^\[\]]*)*)"
    r"|(?<![\w@/.])((?:github\.com|gitlab\.com|huggingface\.co|arxiv\.org|doi\.org)/[^\s<>\"'`{}|\\^\[\]()]+)",
    re.I,
)
_URL_HINTS = (
    "://",
    "www.",
    "\\url",
    "\\href",
    "github.com",
    "gitlab.com",
    "huggingface.co",
    "arxiv.org",
    "doi.org",
)
_URL_TRAIL = ".,;:!?'\"*_>}`\u2019\u201d"
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)")

_YEAR = re.compile(r"(?<![\d:.,/])(19[5-9]\d|20\d\d)(?![\d:])")
_SHORT_YEAR = re.compile(r"['\u2018\u2019](\d\d)\b")
_VENUE_BEFORE_YEAR = re.compile(
    r"(?<![\w-])([A-Z][A-Za-z&-]*[A-Za-z])\s*(?:['\u2018\u2019]\d\d\b|-?(?:19[5-9]\d|20\d\d)(?!\d))"
)
_ACRONYM_TOKEN = re.compile(r"(?<![\w-])([A-Z][A-Za-z]*[A-Z][A-Za-z]*|[A-Z]{3,})(?![\w-])")
_VENUE_PHRASE = re.compile(
    r"\b((?:International |Annual |European |Asian |North American )*"
    r"(?:Conference|Symposium|Workshop|Meeting) on (?:[A-Z][\w-]*|and|of|for|in|&)"
    r"(?:\s+(?:[A-Z][\w-]*|and|of|for|in|&))*)"
)

_TOKEN = re.compile(r"[^\W_][\w+\-./&@'\u2019\u2010\u2011]*")
_ACRONYM_IN_PARENS = re.compile(
    r"\s*\(\s*((?:\$\\[A-Za-z]+\$)?[A-Za-z0-9][\w+\-./&]{0,19}?)\s*\)"  # (SPAR), ($\\chi$SPN)
)
_SENTENCE_BREAK = re.compile(
    r"[.!?][\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[$\\]?[A-Z0-9])"
    r"|(?<=[a-z]{3})\.(?=[A-Z][a-z]{2})"  # "energies.Extensive": a space lost in copying
)
_ABBREVIATIONS = _words(
    """
    e.g i.e a.k.a w.r.t et al etc vs cf fig figs eq eqs sec no approx resp dr mr ms prof
    st viz
    """
)
_LIST_COMMA_ITEM = re.compile(r"\s*(?:and\s+|or\s+)?[\w\-]+(?:\s+[\w\-]+)?\s*(?:,|\band\b|\bor\b)")

_MARKUP_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # $\texttt{Name}$: pylatexenc drops text commands inside math, so unwrap first.
    (
        re.compile(
            r"\$\s*\\(?:texttt|textbf|textit|textsc|textsf|textrm|text|mathtt|mathbf|"
            r"mathrm|mathsf|mathit|emph|operatorname)\s*\{([^{}$]{2,})\}\s*\$"
        ),
        _EM0 + r"\1" + _EM1,
    ),
    (
        re.compile(
            r"\\(?:textbf|textit|texttt|textsc|textsf|emph|underline|textsl)\s*"
            r"\{((?:[^{}]|\{[^{}]*\})*)\}"
        ),
        _EM0 + r"\1" + _EM1,
    ),
    (re.compile(r"\{\\(?:bf|em|it|tt|sc|sl)\s+([^{}]*)\}"), _EM0 + r"\1" + _EM1),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), _EM0 + r"\2" + _EM1),
    (
        re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*\\])\*(?![\w*])"),
        _EM0 + r"\1" + _EM1,
    ),
    (
        re.compile(r"(?<![\w\\$])_(?=[^\s_$])([^_\n$]{1,200}?)(?<=[^\s_\\$])_(?![\w$])"),
        _EM0 + r"\1" + _EM1,
    ),
    (
        re.compile(r"<(b|strong|em|i|code|tt|u)>(.{0,300}?)</\1\s*>", re.I),
        _EM0 + r"\2" + _EM1,
    ),
    (re.compile(r"(?<![`\w])`([^`'\n]{1,100})`(?!`)"), _EM0 + r"\1" + _EM1),
)
#: A character each rule of _MARKUP_RULES needs, to skip rules cheaply.
_MARKUP_HINTS: tuple[tuple[str, ...], ...] = (
    ("$",),
    ("\\",),
    ("{\\",),
    ("**", "__"),
    ("*",),
    ("_",),
    ("<",),
    ("`",),
)
_BOLD_INITIAL_WORD = rf"{_EM0}[A-Za-z0-9]{{1,3}}{_EM1}[a-z][\w\-\u2010\u2011]*"
_BOLD_RUN = re.compile(
    rf"{_BOLD_INITIAL_WORD}(?:(?:[\s\-\u2010\u2011]+[\w\-\u2010\u2011]+){{0,2}}[\s\-\u2010\u2011]+"
    rf"{_BOLD_INITIAL_WORD}|[\-\u2010\u2011]?{_BOLD_INITIAL_WORD})+"
)
_WHITESPACE = re.compile(r"\s+")
_SPACES = re.compile("[~\u00a0\u2009\u202f\n\t\r]")
_MARKER = re.compile(f"[{_EM0}{_EM1}]")
_BOLD_PART = re.compile(rf"{_EM0}([A-Za-z0-9]{{1,3}}){_EM1}")

# --------------------------------------------------------------------------- #
# Public helpers
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Links:
    """Identifiers and links found in a paper's text.

    ``code_url``: first GitHub/GitLab/Hugging Face/Bitbucket/Codeberg link;
    ``url``: first other web link; ``arxiv``: arXiv id without version;
    ``doi``: DOI lower-cased without resolver prefix. Missing ones are None.
    """

    url: str | None = None
    code_url: str | None = None
    arxiv: str | None = None
    doi: str | None = None

    def merged(self, other: Links) -> Links:
        """Return these links with the gaps filled from ``other``."""
        return Links(
            self.url or other.url,
            self.code_url or other.code_url,
            self.arxiv or other.arxiv,
            self.doi or other.doi,
        )


@dataclass(frozen=True)
class ContributionName:
    """A named contribution found in an abstract.

    ``name`` is Unicode ("SPAR"); ``expansion`` the spelled-out form given with it
    ("Support-Preserving Action Rectification") or None; ``description`` the
    appositive describing it ("a framework designed to ...") or None;
    ``position`` the character offset in the scanned abstract (for ordering).
    """

    name: str
    expansion: str | None = None
    description: str | None = None
    position: int = 0


def read(
    text: str,
    source: str = "<stdin>",
    *,
    venue: str | None = None,
    year: int | None = None,
) -> ParseResult:
    """Read a pasted list of papers.

    Args:
        text: the decoded list (str). A UTF-8 BOM and CRLF/CR line ends are
            accepted; any content is accepted.
        source: the file name or ``<stdin>``, for problems.
        venue, year: overrides for every record (the CLI's ``--venue``/``--year``);
            they win over the header and over labelled ``Venue:``/``Year:`` lines.

    Returns:
        A :class:`ParseResult`: one :class:`PaperRecord` per paper in file order
        (none for an empty text or a header alone); ``meta`` holds ``venue``,
        ``year`` and ``list_title`` read from the header; ``problems`` holds
        warnings for blocks that could not be read as a paper. Never raises.
    """
    lines = _normalize_newlines(text).split("\n")
    parts = _parse_paragraphs(lines)
    header_parts, paper_parts = _split_header(parts)
    header_text = "\n".join(_header_line(p) for p in header_parts)
    meta = parse_header(header_text) if header_text.strip() else {}
    overrides = {"venue": venue, "year": str(year) if year else None}
    records: list[PaperRecord] = []
    problems: list[ParseProblem] = []
    for block in _group_blocks(paper_parts):
        if not (block.title or block.abstract):
            problems.append(
                ParseProblem(
                    "a block with neither a title nor an abstract was skipped",
                    source,
                    block.line,
                    "warning",
                )
            )
            continue
        records.append(_build_record(block, meta, overrides, source, problems))
    return ParseResult(records=records, problems=problems, meta=meta)


def parse_header(text: str) -> dict[str, str]:
    """Read venue and year from a list's header line(s).

    ``"ICML 2026 Papers"`` gives ``{"venue": "ICML", "year": "2026", "list_title":
    "ICML 2026 Papers"}``; ``"CVPR'25 orals"`` gives venue CVPR, year 2025;
    ``"Proceedings of ACL 2024"`` venue ACL. The venue is the capitalised token
    written against a year (``NeurIPS 2025``, ``CVPR'25``), else the first
    acronym of two or more capitals that is not a field's term (ICML, EMNLP),
    else a "Conference on ..." phrase. ``list_title`` is the first non-empty line
    cleaned of Markdown. Keys are present only when found; values are str.
    """
    lines = [_clean_inline(line) for line in text.split("\n")]
    lines = [line for line in lines if line]
    if not lines:
        return {}
    meta: dict[str, str] = {"list_title": lines[0]}
    joined = " \n ".join(lines)
    venue = _header_venue(joined)
    if venue:
        meta["venue"] = venue
    year = _header_year(joined)
    if year:
        meta["year"] = year
    return meta


def extract_links(text: str) -> Links:
    """Find links and identifiers in ``text`` (plain URLs, ``\\url{}``, ``<...>``, Markdown links).

    Trailing sentence punctuation, braces and unbalanced closing brackets are
    stripped from each URL; ``\\_`` style escapes inside ``\\url{}`` are undone.
    GitHub, GitLab, Hugging Face, Bitbucket and Codeberg links become
    ``code_url``; arxiv.org links the arXiv id (no version); doi.org links the
    DOI (lower case, no resolver prefix); the first other link ``url``.
    """
    links = Links()
    for url in _urls(text):
        links = links.merged(_classify_url(url))
    return links


def parse_authors(text: str) -> tuple[Person, ...]:
    """Split an author line into people.

    Accepts "A. Name, B. Name and C. Name", "Name1 · Name2", "Name1; Name2",
    "Family, Given; Family, Given", an Oxford comma, affiliation marks
    (digits, ``*``, daggers) and "et al." (-> the ``others`` marker). Names are
    LaTeX-decoded and split by :func:`parse_name`. Returns ``()`` for no names.
    """
    cleaned = _strip_markup(text)
    cleaned = re.sub(r"^\s*(?:by|authors?)\s*:?\s+", "", cleaned, flags=re.I)
    people: list[Person] = []
    for part in _author_parts(cleaned):
        if re.fullmatch(r"et\.?\s*al\.?|others", part, re.I):
            people.append(Person(literal="others"))
            continue
        person = parse_name(part)
        if person.family or person.literal:
            people.append(person)
    return tuple(people)


def parse_name(name: str) -> Person:
    """Split one personal name into BibTeX's given / von / family / jr parts.

    Follows BibTeX's rules ("Tame the BeaST" section 11): "Family, Given",
    "von Family, Jr, Given", or "Given von Family" where the von part is the
    run of lower-case words before the family name. A suffix such as "Jr." at
    the end of the "Given Family" form becomes ``jr``. A name in lower case only
    ("jie liu") is read as given names then family. LaTeX is decoded.
    """
    name = _WHITESPACE.sub(" ", latex_to_unicode(name.strip())).strip(" ,;")
    if not name:
        return Person()
    if "," in name:
        pieces = [p.strip() for p in name.split(",")]
        last, rest = pieces[0], [p for p in pieces[1:] if p]
        jr = rest[0] if len(rest) > 1 else ""
        given = rest[-1] if rest else ""
        von, family = _split_von(last.split())
        return Person(family=family, given=given, von=von, jr=jr)
    words = name.split()
    jr = ""
    if len(words) > 2 and words[-1].lower() in _NAME_SUFFIXES:
        jr = words.pop()
    if len(words) == 1:
        return Person(family=words[0], jr=jr)
    if all(not w[:1].isupper() for w in words):
        return Person(family=words[-1], given=" ".join(words[:-1]), jr=jr)
    given_words: list[str] = []
    index = 0
    while index < len(words) - 1 and not _is_lower_word(words[index]):
        given_words.append(words[index])
        index += 1
    von, family = _split_von(words[index:])
    return Person(family=family, given=" ".join(given_words), von=von, jr=jr)


def _is_lower_word(word: str) -> bool:
    """A von word: lower case and a known particle ("van", "de", "della", "d'...").

    BibTeX takes every lower-case word for a von part; pasted lists are written
    carelessly ("lincan Cai"), so only known particles count here.
    """
    letter = next((c for c in word if c.isalpha()), "")
    return letter.islower() and (
        word in _NAME_PARTICLES or bool(re.match(r"[a-z]{1,2}['\u2019]", word))
    )


def _split_von(words: list[str]) -> tuple[str, str]:
    """Split ``von Family`` words: the von part runs to the last lower-case word before the end."""
    if not words:
        return "", ""
    last_lower = max((i for i, w in enumerate(words[:-1]) if _is_lower_word(w)), default=-1)
    return " ".join(words[: last_lower + 1]), " ".join(words[last_lower + 1 :])


def short_name_from_title(title: str) -> str | None:
    """Return the name a title leads with, or None.

    ``"FlowSketch: Sketch-Guided Optical Flow"`` -> ``"FlowSketch"``;
    ``"Llama 2: Open Foundation ..."`` -> ``"Llama 2"``; ``"A Tracking Benchmark
    (MGIT): ..."`` -> ``"MGIT"``. The part before the first ``:`` (or a spaced
    dash) is a name when it is one token that is not an ordinary title word
    ("Position", "Towards"), or two to four capitalised tokens of which one is
    written like a name (inner capital, digit, ``+``) or is a version number.
    """
    title = _BRACKET_TAG.sub("", _clean_inline(title))
    match = re.match(r"^(.{1,80}?)\s*(?::(?:\s|(?=[A-Z]))|\s[-\u2013\u2014]\s)", title)
    if not match:
        return None
    prefix = match.group(1).strip()
    acronym = re.search(r"\(([^()\s]{2,20})\)$", prefix)
    if acronym:
        return acronym.group(1) if _is_acronym(acronym.group(1)) else None
    tokens = prefix.split()
    if not tokens or len(tokens) > 4:
        return None
    if len(tokens) == 1:
        token = tokens[0]
        if token.lower() in TITLE_PREFIX_STOP or not _name_shape(token):
            return None
        if token.lower() in FIELD_TERMS and re.fullmatch(r"[A-Z0-9]+s?", token):
            return None  # "RL: ...", "LLMs: ..."
        return token if _acceptable_name(token, all_caps_ok=True) else None
    versions = [t for t in tokens[1:] if re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]?", t)]
    words = [t for t in tokens if t not in versions]
    if any(t.lower() in _FUNCTION_WORDS or not _name_shape(t) for t in words):
        return None
    strong = [t for t in words if _name_shape(t) == "strong" and t.lower() not in FIELD_TERMS]
    if not (strong or versions):
        return None
    return prefix if _acceptable_name(prefix) else None


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
    scan = _Scan.of(abstract)
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
        if sum(1 for c in acronym if c.isupper()) >= 2 and _initials_span(
            text[start : start + paren.start()], acronym
        ):
            found.add(acronym)
            if acronym.endswith("s"):
                found.add(acronym[:-1])
    return found


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
    scan = _Scan.of(abstract)
    phrase = _claim_phrase(scan) or _subject_phrase(scan) or _first_words(scan)
    return phrase[:1].upper() + phrase[1:] if phrase else "Untitled"


# --------------------------------------------------------------------------- #
# Paragraphs and blocks
# --------------------------------------------------------------------------- #


@dataclass
class _Part:
    """What one paragraph (blank-line separated) of the list holds."""

    line: int  # 1-based line of the paragraph's first line
    separator: bool = False
    heading_level: int | None = None
    title: str | None = None
    numbered: bool = False
    authors: str | None = None
    abstract: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)
    details_open: bool = False
    lines: list[str] = field(default_factory=list)


@dataclass
class _Block:
    """One paper's pieces, gathered from one or more parts."""

    line: int
    title: str | None = None
    authors: str | None = None
    abstract: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)


def _normalize_newlines(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _paragraphs(lines: list[str]) -> Iterator[tuple[int, list[str], bool]]:
    """Yield ``(first_line_index, lines, is_separator)``; keeps ``<details>`` bodies whole."""
    current: list[str] = []
    start = 0
    open_details = False
    for index, line in enumerate(lines):
        if _SEPARATOR.match(line) and not (len(current) == 1 and line.strip()[0] in "=-"):
            if current:
                yield start, current, False
            yield index, [line], True
            current, open_details = [], False
            continue
        if not line.strip() and not open_details:
            if current:
                yield start, current, False
            current = []
            continue
        if open_details and current and _HEADING.match(line):
            yield start, current, False
            current, open_details = [], False
        if not current:
            start = index
        current.append(line)
        opened = _DETAILS_OPEN.search(line)
        if opened:
            open_details = not _DETAILS_CLOSE.search(line, opened.start())
        elif _DETAILS_CLOSE.search(line):
            open_details = False
    if current:
        while current and not current[-1].strip():
            current.pop()
        if current:
            yield start, current, False


def _parse_paragraphs(lines: list[str]) -> list[_Part]:
    """Parse each paragraph; a paragraph of one-line list items gives one part per item."""
    parts: list[_Part] = []
    for start, para, is_separator in _paragraphs(lines):
        if is_separator:
            parts.append(_Part(line=start + 1, separator=True))
        elif _is_title_list(para):
            parts.extend(_parse_paragraph([item], start + 1 + i) for i, item in enumerate(para))
        else:
            parts.append(_parse_paragraph(para, start + 1))
    return parts


def _is_title_list(lines: list[str]) -> bool:
    """True for lines that are all list items reading as titles ("- Title [[paper](...)]")."""
    if len(lines) < 2 or not all(_LIST_MARKER.match(line) for line in lines):
        return False
    return all(_is_title_line(_LINK_GROUP.sub("", line), []) for line in lines)


def _parse_paragraph(lines: list[str], line_no: int) -> _Part:
    """Sort one paragraph's lines into heading/title, labels, author line and abstract."""
    part = _Part(line=line_no, lines=lines)
    free: list[int] = []
    abstract_from: int | None = None  # index where a labelled abstract starts
    abstract_first = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if abstract_from is not None:
            label = _label(line)
            if label is None:
                index += 1
                continue
            part.abstract = _join_abstract(abstract_first, lines[abstract_from:index])
            abstract_from = None
        if index == 1 and free == [0] and _SEPARATOR.match(line):
            part.heading_level = 1 if "=" in line else 2  # setext heading underline
            part.title, free = lines[0], []
            index += 1
            continue
        heading = _HEADING.match(line)
        if heading and part.title is None and not free:
            part.heading_level = len(heading.group(1))
            part.title = heading.group(2)
            index += 1
            continue
        label = _label(line)
        if label is not None:
            key, value = label
            if key == "abstract":
                abstract_from, abstract_first = index + 1, value
            elif key == "_markup":
                pass
            else:
                _store_label(part, key, value)
            index += 1
            continue
        free.append(index)
        index += 1
    if abstract_from is not None:
        part.abstract = _join_abstract(abstract_first, lines[abstract_from:])
    if part.abstract is not None and not part.abstract.strip():
        part.abstract = None
        part.details_open = any(_DETAILS_OPEN.search(x) for x in lines)
    _assign_free_lines(part, lines, free)
    return part


def _join_abstract(first: str, rest: list[str]) -> str:
    text = "\n".join([first, *rest]) if first.strip() else "\n".join(rest)
    text = _DETAILS_CLOSE.sub("", text) if _DETAILS_CLOSE.search(text[-40:]) else text
    return text.strip()


def _label(line: str) -> tuple[str, str] | None:
    """Return ``(key, value)`` for a labelled line, ``("_markup", "")`` for markup only, else None."""
    stripped = line.strip()
    if not stripped:
        return None
    bold = _BOLD_LABEL.match(stripped)
    if bold and not _HTML_TAG.search(bold.group("label")):
        key = _label_key(bold.group("label"))
        field_name = re.sub(r"[^a-z0-9]+", "_", bold.group("label").strip().lower()).strip("_")
        return key or "field:" + (field_name or "note"), bold.group("value").strip()
    without_tags = _HTML_TAG.sub("", stripped)
    if without_tags != stripped:
        bare = without_tags.replace("*", "").replace("_", "").strip().rstrip(":").strip()
        if not bare:
            return "_markup", ""
        if bare.lower() in ("abstract", "summary"):
            return "abstract", ""
        stripped = without_tags.strip()
    if stripped.startswith("\\\\"):  # arXiv listing mail: "\\" rules and "\\ ( URL , 120kb)"
        rest = stripped[2:].strip()
        return ("url", rest) if _URL.search(rest) else ("_markup", "")
    bare_word = stripped.strip("*_#").strip().rstrip(":").strip()
    if bare_word.lower() in ("abstract", "summary") and len(stripped) <= 20:
        return "abstract", ""
    plain = _PLAIN_LABEL.match(stripped)
    if plain:
        key = _label_key(plain.group("label"))
        value = plain.group("value").strip()
        if key and _label_value_fits(key, value):
            return key, value
    return None


_LABEL_KEYS: dict[str, str] = {
    "title": "title",
    "paper title": "title",
    "paper": "title",
    "authors": "authors",
    "author": "authors",
    "author(s)": "authors",
    "by": "authors",
    "abstract": "abstract",
    "summary": "abstract",
    "url": "url",
    "link": "url",
    "links": "url",
    "pdf": "url",
    "paper url": "url",
    "paper link": "url",
    "openreview": "url",
    "project page": "url",
    "project": "url",
    "website": "url",
    "homepage": "url",
    "arxiv": "arxiv",
    "doi": "doi",
    "code": "code",
    "github": "code",
    "repo": "code",
    "repository": "code",
    "code url": "code",
    "source code": "code",
    "venue": "venue",
    "conference": "venue",
    "booktitle": "venue",
    "journal": "venue",
    "year": "year",
    "keywords": "keywords",
    "key words": "keywords",
    "tl;dr": "field:tldr",
    "date": "field:date",
    "categories": "field:categories",
    "subjects": "field:subjects",
    "comments": "field:comments",
    "journal-ref": "field:journal_ref",
    "report-no": "field:report_no",
    "msc-class": "field:msc_class",
    "acm-class": "field:acm_class",
    "license": "field:license",
    "session": "field:session",
    "track": "field:track",
    "pages": "field:pages",
    "note": "field:note",
    "notes": "field:note",
    "tldr": "field:tldr",
}


def _label_key(label: str) -> str | None:
    return _LABEL_KEYS.get(_WHITESPACE.sub(" ", label.strip().lower()))


def _label_value_fits(key: str, value: str) -> bool:
    """A plain ``Code:``/``DOI:``/... label must carry a link or identifier, so titles are not eaten."""
    if key in ("url", "code"):
        return bool(_URL.search(value))
    if key == "arxiv":
        return bool(_ARXIV_NEW.search(value) or _ARXIV_OLD.search(value) or _URL.search(value))
    if key == "doi":
        return bool(_DOI.search(value))
    if key == "year":
        return bool(_YEAR.search(value))
    if key == "title":
        return bool(value)
    return True


def _store_label(part: _Part, key: str, value: str) -> None:
    if key.startswith("field:"):
        if value:
            part.extra.setdefault(key[6:], value)
    elif key == "title":
        part.title = part.title or value
    elif key == "authors":
        part.authors = part.authors or value
    else:
        if key in part.labels:
            part.labels[key] += "\n" + value
        else:
            part.labels[key] = value


def _assign_free_lines(part: _Part, lines: list[str], free: list[int]) -> None:
    """Give unlabelled lines their role by position: title, author line, abstract."""
    position = 0
    if part.title is None and free:
        first = lines[free[0]]
        following = [lines[i] for i in free[1:]]
        if _is_title_line(first, following):
            part.numbered = bool(_LIST_MARKER.match(first))
            part.title = first
            position = 1
    if part.title is not None and part.authors is None and position < len(free):
        candidate = lines[free[position]]
        if _looks_like_authors(candidate):
            part.authors = candidate
            position += 1
    rest = free[position:]
    if rest:
        text = (
            "\n".join(lines[rest[0] : rest[-1] + 1])
            if rest == list(range(rest[0], rest[-1] + 1))
            else "\n".join(lines[i] for i in rest)
        )
        text = _LIST_MARKER.sub("", text, count=1)  # list syntax, not part of the abstract
        text = _join_abstract("", [text])
        if part.abstract is None:
            part.abstract = text or None
        elif text:
            part.extra.setdefault("note", text)


def _is_title_line(line: str, following: list[str]) -> bool:
    """Decide whether a paragraph's first unlabelled line is a title (see module docs)."""
    numbered = bool(_LIST_MARKER.match(line))
    text = _strip_markup(_LIST_MARKER.sub("", line, count=1))
    words = text.split()
    if not words or len(text) > 300 or len(words) > 35:
        return False
    if re.match(r"(?i)(we|our|here|in this (paper|work|study))\b", text):
        return False
    if re.search(r"[.!?]\s+[A-Z]", text) and len(words) > 12:
        return False  # several sentences: prose
    ends_sentence = text.endswith(".") and not re.search(r"\b(?:al|etc|[A-Z])\.$", text)
    if not following:
        return numbered or not ends_sentence
    if ends_sentence and not numbered:
        return False
    if text.endswith((",", ";")) or words[-1].lower() in _FUNCTION_WORDS:
        return False
    nxt = _strip_markup(following[0]).lstrip()
    if nxt[:1].islower() and not _looks_like_authors(following[0]):
        return False  # a hard-wrapped sentence continues
    if numbered or line.lstrip().startswith(("**", "__")) or ": " in text:
        return True
    if _title_case_ratio(words) >= 0.6:
        return True
    longest = max(len(x) for x in following)
    return len(line.strip()) < 0.7 * longest or _looks_like_authors(following[0])


def _title_case_ratio(words: list[str]) -> float:
    content = [w for w in words if len(w) >= 4 and w[0].isalpha()]
    if not content:
        return 0.0
    return sum(1 for w in content if w[0].isupper()) / len(content)


_AUTHOR_SPLIT = re.compile(r"\s*(?:[;\u00b7\u2022\u2219|\u3001\uff0c]|,|\s&\s|\band\b)\s*")
_NAME_TOKEN = re.compile(
    r"^(?:[A-Z\u00c0-\u00de][\w'\u2019.\-]*|[A-Z]\.(?:-?[A-Z]\.)*|[a-z]{1,4}|"
    r"[^\W\d_][\w'\u2019.\-]*|\{[^{}]*\}[\w'.\-]*|\\\S+)$"
)
_AFFILIATION_MARKS = re.compile(
    r"[\d*\u2020\u2021\u00a7\u00b6#\u00b9\u00b2\u00b3\u2070-\u2079\u2709]+"
)


def _author_parts(text: str) -> list[str]:
    """Split an author line into name strings (see :func:`parse_authors`)."""
    text = re.sub(r"\([^()]*\)", " ", text)
    text = re.sub(r",?\s+et\.?\s*al\b\.?", ", et al.", text)
    pieces = [p for p in re.split(r"\s*;\s*|\s+and\s+", text) if p.strip()]
    if pieces and all(p.count(",") == 1 for p in pieces) and not _comma_list(pieces):
        pass  # "Family, Given; Family, Given" or BibTeX's "Family, Given and Family, Given"
    else:
        pieces = _AUTHOR_SPLIT.split(text)
    out = []
    for piece in pieces:
        piece = _WHITESPACE.sub(" ", _AFFILIATION_MARKS.sub(" ", piece)).strip(" ,;")
        last = piece.rsplit(" ", 1)[-1]
        if piece.endswith(".") and len(last) > 3 and last.lower() not in _NAME_SUFFIXES:
            piece = piece[:-1]  # a sentence period, not an initial or "Jr."
        if piece:
            out.append(piece)
    return out


def _comma_list(pieces: list[str]) -> bool:
    """True when a single comma separates two full names ("Ana Pérez, Wei Zhang")."""
    if len(pieces) != 1:
        return False
    left, right = (side.split() for side in pieces[0].split(","))
    return len(left) != 1 or not 1 <= len(right) <= 3


def _looks_like_authors(line: str) -> bool:
    """True when ``line`` reads as a list of personal names (not prose, not a title)."""
    text = _strip_markup(line).strip()
    text = re.sub(r"^(?:by|authors?)\s*:?\s+", "", text, flags=re.I)
    if not text or len(text) > 2000 or re.search(r"[.!?]\s+[a-z]", text):
        return False
    if text.endswith(".") and not re.search(r"(?:\b[A-Z]|\bal)\.$", text):
        return False
    parts = _author_parts(text)
    if not parts:
        return False
    for part in parts:
        if re.fullmatch(r"et\.?\s*al\.?|others", part, re.I):
            continue
        tokens = part.split()
        if not 1 <= len(tokens) <= 6:
            return False
        if any(
            t.lower() in _FUNCTION_WORDS - {"de", "van", "von", "da", "di", "le", "la"}
            for t in tokens
        ):
            return False
        if not all(_NAME_TOKEN.match(t.strip(",")) for t in tokens):
            return False
        upper = sum(1 for t in tokens if t[:1].isupper())
        if upper == 0:
            return False
        if len(parts) == 1 and len(tokens) == 1:
            return False
    return len(parts) >= 2 or 2 <= len(parts[0].split()) <= 4


def _header_line(part: _Part) -> str:
    """The text of a header paragraph: its title line, then any other line."""
    lines = [_LIST_MARKER.sub("", part.title, count=1)] if part.title else []
    if part.abstract:
        lines.append(part.abstract)
    return "\n".join(lines) if lines else " ".join(x.strip() for x in part.lines)


def _is_header_candidate(part: _Part) -> bool:
    """A short paragraph of title-like lines (a second line such as "compiled by ..." is allowed)."""
    if part.separator or part.labels or part.authors or part.numbered or part.title is None:
        return False
    if part.abstract and (len(part.abstract.split()) > 15 or part.abstract.rstrip().endswith(".")):
        return False
    return len(part.lines) <= 3 and all(len(x.split()) <= 20 for x in part.lines)


def _paper_heading_level(parts: list[_Part]) -> int | None:
    """The Markdown heading level of paper titles: the most frequent one (deeper on ties)."""
    counts = Counter(p.heading_level for p in parts if p.heading_level)
    if not counts:
        return None
    best = max(counts.values())
    return max(level for level, count in counts.items() if count == best)


def _split_header(parts: list[_Part]) -> tuple[list[_Part], list[_Part]]:
    """Separate header paragraphs (list title, venue, year) from the papers' paragraphs."""
    paper_level = _paper_heading_level(parts)
    if paper_level and _headings_title_papers(parts, paper_level):
        return _split_markdown_header(parts, paper_level)
    header: list[_Part] = []
    body: list[_Part] = []
    for part in parts:  # headings name the list or its sections here, not papers
        if part.heading_level and not part.abstract:
            if all(p.separator for p in body):
                header.append(part)
            else:
                body.append(_Part(line=part.line, separator=True))
        else:
            body.append(part)
    index = 0
    while index < len(body) and len(header) < 4:
        part = body[index]
        if part.separator:
            index += 1
            continue
        if not _is_header_candidate(part) or not _header_by_shape(part, body[index + 1 :]):
            break
        header.append(part)
        index += 1
    return header, body[index:]


def _headings_title_papers(parts: list[_Part], level: int) -> bool:
    """Do headings of ``level`` title papers (rather than name sections of a list)?

    Yes when most of them are followed by a paper's text (an abstract, author
    line or labels) rather than by papers with titles of their own.
    """
    indices = [i for i, p in enumerate(parts) if p.heading_level == level]
    with_text = 0
    for index in indices:
        following = next((p for p in parts[index + 1 :] if not p.separator), None)
        if following is not None and not following.title and not following.heading_level:
            with_text += bool(following.abstract or following.authors or following.labels)
    return bool(indices) and with_text * 2 >= len(indices)


def _split_markdown_header(parts: list[_Part], paper_level: int) -> tuple[list[_Part], list[_Part]]:
    """Markdown lists: papers start at headings of ``paper_level``.

    Shallower headings and the prose under them (an introduction, a session
    name) are not papers; those before the first paper form the header.
    """
    header: list[_Part] = []
    body: list[_Part] = []
    seen_paper = False
    in_intro = True
    for part in parts:
        if part.heading_level == paper_level:
            seen_paper, in_intro = True, False
            body.append(part)
        elif part.heading_level and part.heading_level < paper_level:
            if seen_paper:
                body.append(_Part(line=part.line, separator=True))
            else:
                header.append(part)
            in_intro = True
        elif in_intro:
            if not seen_paper and not part.abstract:
                header.append(part)
        else:
            body.append(part)
    return header, body


def _header_by_shape(part: _Part, rest: list[_Part]) -> bool:
    """Decide if a leading title-only paragraph is the list's header rather than a paper title."""
    if part.heading_level and any(p.heading_level == part.heading_level for p in rest):
        return False  # the same heading level titles the papers
    if parse_header(_header_line(part)).keys() & {"venue", "year"}:
        return True
    papers = [p for p in rest if p.abstract]
    if not papers:
        return False
    following = next((p for p in rest if not p.separator), None)
    if following is not None and following.title and not following.heading_level:
        return True  # another title follows before any abstract
    titled = untitled = 0
    previous: _Part | None = None
    for p in rest:
        if p.abstract:
            has_title = p.title or (
                previous is not None and previous.title and not previous.abstract
            )
            if has_title:
                titled += 1
            else:
                untitled += 1
        previous = p
    if papers[0].title:
        return True  # the first abstract has its own title
    return untitled >= 2 and untitled - 1 >= titled  # the other abstracts are untitled too


def _group_blocks(parts: list[_Part]) -> Iterator[_Block]:
    """Gather parts into papers: title/author/label paragraphs attach to the next abstract."""
    pending: _Block | None = None
    for part in parts:
        if part.separator:
            if pending is not None:
                yield pending
            pending = None
            continue
        if pending is not None and (
            (part.title and pending.title) or (part.abstract and pending.abstract)
        ):
            yield pending
            pending = None
        if pending is None:
            pending = _Block(line=part.line)
        _merge(pending, part)
        if pending.abstract and not part.details_open:
            yield pending
            pending = None
    if pending is not None:
        yield pending


def _merge(block: _Block, part: _Part) -> None:
    block.title = block.title or part.title
    block.authors = block.authors or part.authors
    block.abstract = block.abstract or part.abstract
    for key, value in part.labels.items():
        block.labels.setdefault(key, value)
    for key, value in part.extra.items():
        block.extra.setdefault(key, value)


# --------------------------------------------------------------------------- #
# Records
# --------------------------------------------------------------------------- #


def _build_record(
    block: _Block,
    meta: dict[str, str],
    overrides: dict[str, str | None],
    source: str,
    problems: list[ParseProblem],
) -> PaperRecord:
    """Turn a block into a PaperRecord; enrichment failures become warnings, never errors.

    Venue and year: the caller's override, else the block's ``Venue:``/``Year:``
    label, else a "(ICML 2024)" after the title, else the list header (``meta``).
    """
    extra = dict(block.extra)
    title, title_venue = _clean_title(block.title, extra) if block.title else (None, {})
    abstract = block.abstract or None
    links = _block_links(block)
    venue = (
        overrides.get("venue")
        or _clean_inline(block.labels.get("venue", ""))
        or title_venue.get("venue")
        or meta.get("venue")
    )
    year = _to_year(
        overrides.get("year")
        or block.labels.get("year")
        or title_venue.get("year")
        or meta.get("year")
    )
    keywords: list[str] = [
        k.strip() for k in re.split(r"[;,]", block.labels.get("keywords", "")) if k.strip()
    ]
    short_name: str | None = None
    provisional = False
    try:
        names = contribution_names(abstract) if abstract else []
        short_name = short_name_from_title(title) if title else None
        if short_name is None and names:
            short_name = names[0].name
        if title is None:
            title = provisional_title(abstract or "", names)
            provisional = True
        others = [n.name for n in names if fold(n.name) != fold(short_name or "")]
        keywords = _unique([*others, *keywords])
    except Exception as exc:  # defensive: a heuristic bug must not lose a paper
        problems.append(
            ParseProblem(
                f"internal error while naming this paper: {exc!r}", source, block.line, "warning"
            )
        )
        if title is None:
            title = _fallback_title(abstract)
            provisional = True
    authors = parse_authors(block.authors) if block.authors else ()
    return PaperRecord(
        entry_type="inproceedings" if venue else "misc",
        title=title or "Untitled",
        title_provisional=provisional,
        short_name=short_name,
        authors=authors,
        year=year,
        venue=venue or None,
        abstract=abstract,
        doi=links.doi,
        arxiv=links.arxiv,
        url=links.url,
        code_url=links.code_url,
        keywords=tuple(keywords),
        fields=extra,
        line=block.line,
    )


def _fallback_title(abstract: str | None) -> str:
    """The first ten words of ``abstract`` (cleaned), or "Untitled" (used only after an internal error)."""
    words = _clean_inline(abstract or "").split()
    return " ".join(words[:10]).rstrip(".,;:") if words else "Untitled"


def _clean_title(raw: str, extra: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Clean a title line; return it with the venue/year of a trailing "(ICML 2024)".

    List markers, link groups such as ``[[paper](...)] [[code](...)]`` and a
    presentation tag ("[Spotlight]", moved to ``extra["presentation"]``) are
    removed; the links themselves are read from the raw line elsewhere.
    """
    text = _LINK_GROUP.sub("", _LIST_MARKER.sub("", raw.strip(), count=1))
    tag = _BRACKET_TAG.match(text)
    if tag and tag.group(1).strip().lower() in PRESENTATION_TAGS:
        extra.setdefault("presentation", tag.group(1).strip())
        text = text[tag.end() :]
    title = _clean_inline(text)
    venue: dict[str, str] = {}
    trailing = _TRAILING_VENUE.search(title)
    if trailing:
        venue = {k: v for k, v in parse_header(trailing.group(1)).items() if k != "list_title"}
        if "venue" in venue and "year" in venue:
            title = title[: trailing.start()].rstrip()
        else:
            venue = {}
    if title.endswith(".") and not re.search(r"\b(?:al|etc|[A-Z])\.$", title):
        title = title[:-1].rstrip()
    return title, venue


def _block_links(block: _Block) -> Links:
    labelled = Links()
    for key in ("code", "arxiv", "doi", "url"):
        value = block.labels.get(key)
        if not value:
            continue
        if key == "code":
            url = next(iter(_urls(value)), None)
            labelled = labelled.merged(Links(code_url=url) if url else Links())
        elif key == "arxiv":
            labelled = labelled.merged(Links(arxiv=_arxiv_id(value)))
        elif key == "doi":
            labelled = labelled.merged(Links(doi=_normalize_doi(value)))
        else:
            labelled = labelled.merged(extract_links(value))
    text = "\n".join([block.title or "", block.abstract or "", *block.extra.values()])
    return labelled.merged(extract_links(text))


def _to_year(value: str | None) -> int | None:
    if not value:
        return None
    match = _YEAR.search(str(value))
    return int(match.group(1)) if match else None


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        key = fold(item)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


# --------------------------------------------------------------------------- #
# Header
# --------------------------------------------------------------------------- #


def _header_venue(text: str) -> str | None:
    for match in _VENUE_BEFORE_YEAR.finditer(text):
        token = match.group(1)
        if token.lower() not in HEADER_STOP and token.lower() not in FIELD_TERMS:
            return token
    for match in _ACRONYM_TOKEN.finditer(text):
        token = match.group(1)
        if len(token) >= 3 and token.lower() not in HEADER_STOP | FIELD_TERMS:
            return token
    phrase = _VENUE_PHRASE.search(text)
    return phrase.group(1).strip() if phrase else None


def _header_year(text: str) -> str | None:
    match = _YEAR.search(text)
    if match:
        return match.group(1)
    short = _SHORT_YEAR.search(text)
    return f"20{short.group(1)}" if short else None


# --------------------------------------------------------------------------- #
# Links
# --------------------------------------------------------------------------- #


def _urls(text: str) -> Iterator[str]:
    lowered = text.lower()
    if not any(hint in lowered for hint in _URL_HINTS):
        return
    for match in _URL.finditer(text):
        raw = next(g for g in match.groups() if g)
        url = _trim_url(re.sub(r"\\([_%#&~])", r"\1", raw))
        if not url:
            continue
        if not re.match(r"(?i)[a-z][a-z0-9+.-]*://", url):
            url = "https://" + url
        yield url


def _trim_url(url: str) -> str:
    while url:
        last = url[-1]
        if (
            last in _URL_TRAIL
            or (last == ")" and url.count("(") < url.count(")"))
            or (last == "]" and url.count("[") < url.count("]"))
        ):
            url = url[:-1]
        else:
            break
    return url


def _classify_url(url: str) -> Links:
    try:
        parts = urlsplit(url)
    except ValueError:
        return Links()
    host = (parts.hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    path = parts.path.strip("/")
    if host in (
        "github.com",
        "gitlab.com",
        "huggingface.co",
        "hf.co",
        "bitbucket.org",
        "codeberg.org",
    ):
        return Links(code_url=url) if path else Links(url=url)
    if host.endswith("arxiv.org"):
        ident = _arxiv_id(path)
        return Links(arxiv=ident) if ident else Links(url=url)
    if host in ("doi.org", "dx.doi.org"):
        doi = _normalize_doi(unquote(path))
        return Links(doi=doi) if doi else Links(url=url)
    return Links(url=url)


def _arxiv_id(text: str) -> str | None:
    match = _ARXIV_NEW.search(text)
    if match:
        return match.group(1)
    old = _ARXIV_OLD.search(text)
    return old.group(1) if old else None


def _normalize_doi(text: str) -> str | None:
    match = _DOI.search(text)
    return _trim_url(match.group(1)).lower() if match else None


# --------------------------------------------------------------------------- #
# Inline text cleaning
# --------------------------------------------------------------------------- #


_MD_STRONG = re.compile(r"(\*\*|__)(.+?)\1")
_MD_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")


def _strip_markup(text: str) -> str:
    """Remove Markdown emphasis, links and HTML tags; keep LaTeX (cheap; for layout tests)."""
    if "](" in text:
        text = _MD_LINK.sub(r"\1", text)
    if "<" in text:
        text = _HTML_TAG.sub("", text)
    if "*" in text or "__" in text:
        text = _MD_STRONG.sub(r"\2", text)
        text = _MD_EMPHASIS.sub(r"\1", text)
    return text.strip()


_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s+")
_URL_COMMAND = re.compile(r"\\(?:url|href)\{([^{}]*)\}")


def _clean_inline(text: str) -> str:
    """Title-quality Unicode: no Markdown, HTML or LaTeX markup, single spaces."""
    if not text:
        return ""
    text = _strip_markup(text)
    text = _HEADING_MARK.sub("", text)
    text = _URL_COMMAND.sub(r"\1", text) if "\\" in text else text
    text = _unwrap_markers(_apply_markup_rules(text))
    text = html.unescape(text)
    text = latex_to_unicode(text)
    return _WHITESPACE.sub(" ", text).strip()


def _apply_markup_rules(text: str) -> str:
    """Turn emphasis markup (LaTeX, Markdown, HTML) into private-use markers around the text."""
    for (pattern, replacement), hint in zip(_MARKUP_RULES, _MARKUP_HINTS, strict=True):
        if any(h in text for h in hint):
            text = pattern.sub(replacement, text)
    return text


def _unwrap_markers(text: str) -> str:
    return text.replace(_EM0, "").replace(_EM1, "")


# --------------------------------------------------------------------------- #
# Contribution names: the scan text
# --------------------------------------------------------------------------- #


@dataclass
class _Scan:
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
    def of(abstract: str) -> _Scan:
        return _scan(abstract)


_SCAN_CACHE: dict[str, _Scan] = {}


def _scan(abstract: str) -> _Scan:
    cached = _SCAN_CACHE.get(abstract)
    if cached is not None:
        return cached
    marked = (
        html.unescape(_HTML_TAG.sub(_html_emphasis, abstract))
        if "<" in abstract or "&" in abstract
        else abstract
    )
    marked = _apply_markup_rules(marked)
    marked = _URL_COMMAND.sub(r"\1", marked) if "\\" in marked else marked
    marked = _SPACES.sub(" ", marked).replace("\\ ", "  ")
    bold = _bold_acronyms(marked)
    text, emphasis, mapping = _remove_markers(marked)
    bold_names = [
        ContributionName(name, expansion, None, mapping(pos)) for name, expansion, pos in bold
    ]
    lowered = text.lower()
    result = _Scan(
        text,
        emphasis,
        bold_names,
        list(_sentences(text)),
        _find_verbs(text),
        any(w in lowered for w in _NAMING_HINTS),
    )
    if len(_SCAN_CACHE) > 4096:
        _SCAN_CACHE.clear()
    _SCAN_CACHE[abstract] = result
    return result


def _html_emphasis(match: re.Match[str]) -> str:
    tag = match.group(0).lower()
    name = re.match(r"</?\s*([a-z0-9]+)", tag)
    if name and name.group(1) in ("b", "strong", "em", "i", "code", "tt", "u"):
        return match.group(0)  # kept for the emphasis rules
    return " " * len(match.group(0)) if name and name.group(1) in ("br", "p") else ""


def _remove_markers(marked: str) -> tuple[str, dict[int, int], _PositionMap]:
    """Drop emphasis markers; return the text, emphasised spans (start -> end) and an offset map."""
    if _EM0 not in marked and _EM1 not in marked:
        return marked, {}, _PositionMap([])
    emphasis: dict[int, int] = {}
    stack: list[int] = []
    marker_positions: list[int] = []
    for match in _MARKER.finditer(marked):
        index = match.start()
        length = index - len(marker_positions)  # offset in the text without markers
        marker_positions.append(index)
        if match.group(0) == _EM0:
            stack.append(length)
        elif stack:
            start = stack.pop()
            if length > start:
                emphasis[start] = max(emphasis.get(start, 0), length)
    return _unwrap_markers(marked), emphasis, _PositionMap(marker_positions)


@dataclass(frozen=True)
class _PositionMap:
    """Maps an offset in marked text to the offset once markers are removed."""

    markers: list[int]

    def __call__(self, position: int) -> int:
        return position - sum(1 for m in self.markers if m < position)


def _bold_acronyms(marked: str) -> list[tuple[str, str, int]]:
    """Acronyms spelled by bolded initials: ``**P**atched ... **I**nitialization`` -> PIDI."""
    found: list[tuple[str, str, int]] = []
    if _EM0 not in marked:
        return found
    for match in _BOLD_RUN.finditer(marked):
        letters = "".join(_BOLD_PART.findall(match.group(0)))
        if len(letters) < 2 or not any(c.isupper() for c in letters):
            continue
        expansion = _unwrap_markers(match.group(0))
        after = _unwrap_markers(marked[match.end() : match.end() + 80])
        tail = re.match(r"((?:[\s\-][A-Z][\w\-]*){0,2})\s*\(([^()]{1,25})\)", after)
        if tail and tail.group(2).strip() != letters:
            continue  # the bold letters are not the name: "(\\chi SPN)" after "**Ch**aracteristic"
        if tail:
            expansion += tail.group(1)
        name = _decode(letters)
        if _acceptable_name(name) and name.lower() not in FIELD_TERMS:
            found.append((name, _decode(expansion), match.start()))
    return found


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each sentence; a period after an abbreviation or initial does not end one."""
    start = 0
    for match in _SENTENCE_BREAK.finditer(text):
        stop = match.start()
        if text[stop] == ".":
            word_start = max(text.rfind(" ", start, stop), text.rfind("(", start, stop)) + 1
            word = text[word_start:stop]
            if word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper()):
                continue
        yield start, stop + 1
        start = match.end()
    if start < len(text):
        yield start, len(text)


# --------------------------------------------------------------------------- #
# Contribution names: phrase patterns
# --------------------------------------------------------------------------- #


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


_PROPOSE_FORMS = _verb_forms(_PROPOSE_VERBS)
_STUDY_FORMS = _verb_forms(_STUDY_VERBS)
_ALL_FORMS = {**_STUDY_FORMS, **_PROPOSE_FORMS}
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
#: Substrings without which _NAMING_RE cannot match (a cheap pre-test).
_NAMING_HINTS = ("call", "dub", "name", "term", "coined", "referred")
_IE_RE = re.compile(r"\b(?:i\.e\.|namely|viz\.)\s*,?\s*")
_SUBJECT_WE = re.compile(r"\b(?:we|our|this\s+(?:paper|work|article|study|note|report))\b", re.I)
_PUNCT_BOUNDARY = re.compile(r"\s*(?:[,;:.!?)\]]|\s[\u2014\u2013]|--|\u2014|$)")
_WORD_BOUNDARY = re.compile(
    r"\s+(?:which|that|to|for|as|and|where|whose|with|in|on|from|via|by|using|is|are|was|were)\b"
)


_ANNOUNCING = _words("introduce present propose")


def _subject_ok(
    text: str, clause_start: int, verb_start: int, kind: str, lemma: str, we_in_sentence: bool
) -> bool:
    """Is the verb at ``verb_start`` said by the authors ("we propose", "this paper presents")?"""
    before = text[clause_start:verb_start]
    words = re.findall(r"[A-Za-z]+", before.lower())
    while words and (words[-1] in _ADVERBS or (words[-1].endswith("ly") and len(words[-1]) > 4)):
        words.pop()
    if not words:  # "Introducing X, ..." opening a sentence
        return kind == "ing" and lemma in _ANNOUNCING
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


def _triggers(
    scan: _Scan, start: int, end: int, forms: dict[str, tuple[str, str]]
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


def _names_in_sentence(scan: _Scan, start: int, end: int) -> list[ContributionName]:
    """Names introduced in one sentence: by a proposing verb, a naming phrase or "our method, X"."""
    text = scan.text
    lowered = text[start:end].lower()
    found: list[ContributionName] = []
    for obj, _lemma in _triggers(scan, start, end, _PROPOSE_FORMS):
        found.extend(_names_after_verb(scan, obj, end))
        found.extend(_names_after_ie(scan, obj, min(end, obj + 160)))
    if (
        scan.naming_hints
        and any(w in lowered for w in _NAMING_HINTS)
        and _SUBJECT_WE.search(text, start, end)
    ):
        found.extend(_names_after_naming_phrase(scan, start, end))
    if "our " in lowered:
        for match in _OUR_METHOD_RE.finditer(text, start, end):
            cand = _name_at(scan, match.end(), end, strict=False)
            if cand:
                found.append(cand)
    return found


def _names_after_ie(scan: _Scan, start: int, end: int) -> list[ContributionName]:
    """``we propose a dataset, i.e., ReCo-Data``: a name after "i.e."/"namely" in a verb's object."""
    if not any(w in scan.text[start:end] for w in ("i.e.", "namely", "viz.")):
        return []
    found = []
    for match in _IE_RE.finditer(scan.text, start, end):
        cand = _name_at(scan, match.end(), end, strict=True)
        if cand:
            found.append(cand)
    return found


def _names_after_naming_phrase(scan: _Scan, start: int, end: int) -> list[ContributionName]:
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


def _names_after_verb(scan: _Scan, obj: int, end: int) -> list[ContributionName]:
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


def _name_at(scan: _Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
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


def _emphasised_name(scan: _Scan, q: int, end: int) -> ContributionName | None:
    """``*debate with images*``, ``\\texttt{Spotter}``: an emphasised phrase of one to six words."""
    emph_end = scan.emphasis.get(q)
    if not emph_end or emph_end > end:
        return None
    phrase = scan.text[q:emph_end].strip()
    words = phrase.split()
    if not 1 <= len(words) <= 6 or (len(words) == 1 and phrase.lower() in _FUNCTION_WORDS):
        return None
    text = scan.text
    if _PUNCT_BOUNDARY.match(text, emph_end) or _WORD_BOUNDARY.match(text, emph_end):
        return _with_details(scan, phrase, None, q, emph_end)
    return None


def _quoted_name(scan: _Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
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
    if paren and _is_acronym(paren.group(1)):
        return _with_details(scan, paren.group(1), phrase, q, paren.end())
    if 1 <= len(phrase.split()) <= 5 and not strict:
        return _with_details(scan, phrase, None, q, stop + len(close))
    return None


def _capitalised_name(scan: _Scan, q: int, end: int, *, strict: bool) -> ContributionName | None:
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
    if paren and _is_acronym(paren.group(1)):
        if _modifies_next_word(text, paren.end()):
            return None  # "Statistical Query (SQ) lower bounds": a term qualifying something else
        return _with_details(scan, paren.group(1), phrase, q, paren.end())
    words = [word for _, _, word in tokens]
    head = _NEXT_WORD.match(text, phrase_end)
    before_head_noun = bool(head and head.group(1) in HEAD_NOUNS)
    if len(words) == 1:
        shape = _name_shape(words[0])
        if strict and shape != "strong":
            return None
        at_boundary = _PUNCT_BOUNDARY.match(text, phrase_end) or _WORD_BOUNDARY.match(
            text, phrase_end
        )
        if at_boundary or (shape == "strong" and before_head_noun):
            return _with_details(scan, words[0], None, q, phrase_end)
        return None
    if len(words) > 6:
        return None
    has_strong = any(_name_shape(w) == "strong" for w in words)
    at_punct = _PUNCT_BOUNDARY.match(text, phrase_end) or _RELATIVE_NEXT.match(text, phrase_end)
    if (at_punct and (has_strong or not strict)) or (
        before_head_noun and (has_strong or text.count(phrase) >= 2)
    ):
        return _with_details(scan, phrase, None, q, phrase_end)
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
        if tokens and word.lower() in _CONNECTORS and word.islower():
            pending.append(token)
        elif _name_shape(word) and not _ADJECTIVE_SUFFIX.search(word):
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


_HYPHENS = re.compile(r"[-\u2010\u2011\u2013/]")
_STRONG_PART = re.compile(r"[A-Z].*[A-Z]|[a-z][A-Z]")


def _name_shape(word: str) -> str:
    """``"strong"`` (inner capital, two capitals, digit, ``+``), ``"cap"`` (capitalised) or ``""``.

    Hyphenated parts are judged one by one, so "Data-Driven" is only ``"cap"``
    while "MM-DeceptionBench" and "rPPG-Toolbox" are ``"strong"``.
    """
    if not word or not any(c.isalpha() for c in word):
        return ""
    if "+" in word or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
        return "strong"
    if any(_STRONG_PART.search(part) for part in _HYPHENS.split(word)):
        return "strong"
    return "cap" if word[0].isupper() else ""


def _modifies_next_word(text: str, position: int) -> bool:
    """True when the word after ``position`` is lower case and not a head noun ("(SQ) lower")."""
    words = re.findall(r"[a-z][\w-]*|\S", text[position : position + 60])[:3]
    if not words or not words[0][0].islower():
        return False
    if words[0] in _CONNECTORS or words[0] in _BOUNDARY_WORDS:
        return False
    for (
        word
    ) in words:  # a compound noun ending in a head noun is fine: "(DG-SCT) attention mechanism"
        if word in HEAD_NOUNS:
            return False
        if not word[0].islower():
            break
    return True


_BOUNDARY_WORDS = _words(
    """
    which that to for as and where whose with in on from via by using is are was were
    """
)


def _is_acronym(token: str) -> bool:
    """An acronym-like name: two or more capitals (or one and a digit), not a field's term."""
    if "$" in token:
        token = _decode(token)  # "$\\chi$SPN" -> "χSPN"
    if not 2 <= len(token) <= 20 or not token[0].isalnum():
        return False
    capitals = sum(1 for c in token if c.isupper())
    if capitals < 2 and not (capitals == 1 and re.search(r"\d", token)):
        return False
    return _acceptable_name(token)


def _acceptable_name(name: str, *, all_caps_ok: bool = False) -> bool:
    """False for ordinary words, a field's terms, plural acronyms and adjectives ("DiT-based").

    ``all_caps_ok`` lets an all-capitals stop word through ("AND: Adversarial ...").
    """
    stripped = name.strip()
    if not 2 <= len(stripped) <= 80 or len(stripped.split()) > 6:
        return False
    lowered = stripped.lower()
    if lowered in FIELD_TERMS and not (all_caps_ok and not stripped.isupper()):
        return False
    if lowered in STOP_NAMES and not (all_caps_ok and stripped.isupper()):
        return False
    if re.fullmatch(r"[A-Z0-9\-]{2,}s", stripped):
        return False  # a plural acronym (LLMs, CNNs) names a class of things, not a contribution
    if _ADJECTIVE_SUFFIX.search(stripped) or re.fullmatch(r"[\d.,\-+%]+", stripped):
        return False
    return any(c.isalpha() for c in stripped)


def _acronym_for_phrase(scan: _Scan, obj: int, q: int, clause_end: int) -> ContributionName | None:
    """``we propose support-preserving action rectification (SPAR)``: an acronym whose initials match."""
    text = scan.text
    for paren in re.finditer(r"\(\s*([A-Za-z0-9][\w+\-./&]{0,19}?)\s*\)", text[q:clause_end]):
        acronym = paren.group(1)
        if not _is_acronym(acronym):
            continue
        before = text[q : q + paren.start()]
        span = _initials_span(before, acronym)
        if span is None:
            continue
        offset, expansion = span
        if len(before[:offset].split()) > 3 or _modifies_next_word(text, q + paren.end()):
            continue
        return _with_details(
            scan, acronym, expansion, q + offset, q + paren.end(), position=q + offset
        )
    return None


def _initials_span(before: str, acronym: str) -> tuple[int, str] | None:
    """Find the words ending ``before`` whose initials spell ``acronym``; return (offset, words)."""
    letters = [
        c.lower()
        for i, c in enumerate(acronym)
        if c.isupper() or c.isdigit() or (i == 0 and c.isalpha())
    ]
    if len(letters) < 2:
        return None
    words = list(
        re.finditer(r"[^\s\-\u2010\u2011/`'\"\u201c\u201d\u2018\u2019(]+", before.rstrip())
    )
    for first in range(len(words) - 1, max(-1, len(words) - 12), -1):
        if words[first].group(0)[:1].lower() != letters[0]:
            continue
        k = 0
        skipped = 0
        for word in words[first:]:
            w = word.group(0)
            candidates = [w[:1].lower()] + [c.lower() for c in w[1:] if c.isupper()]
            used = False
            for ch in candidates:
                if k < len(letters) and ch == letters[k]:
                    k += 1
                    used = True
            if not used and w.lower() not in _CONNECTORS:
                skipped += 1
        if k == len(letters) and skipped <= 1:
            start = words[first].start()
            return start, before[start:].strip()
    return None


def _with_details(
    scan: _Scan, name: str, expansion: str | None, q: int, after: int, position: int | None = None
) -> ContributionName | None:
    """Build a ContributionName, attaching the appositive that follows the name."""
    name = _decode(name).strip(" ,.;:")
    if not _acceptable_name(name):
        return None
    if expansion is not None:
        expansion = _decode(expansion).strip(" ,.;:'\"`\u201c\u201d\u2018\u2019")
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
    phrase = _trim_phrase(rest)
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


def _trim_phrase(phrase: str) -> str:
    """Cut a description phrase to title length at clause boundaries; drop hype words; decode.

    A relative clause ("that ...") is dropped when the phrase is long and its
    head says enough ("an autoregressive planner with self-correction"); after
    a bare head ("a model that ...") it is kept but cut before a preposition.
    """
    words = _drop_hype(_cut_at_boundary(phrase).split())
    relative = next(
        (i for i, w in enumerate(words) if i >= 2 and w.lower() in _RELATIVE_WORDS), None
    )
    if relative is not None:
        head = [w for w in words[:relative] if w.lower() not in _HYPE | {"a", "an", "the"}]
        if len(head) >= 2 and (len(words) > 12 or len(words) - relative < 3):
            words = words[:relative]
        elif len(head) < 2 and len(words) > 12:
            cuts = [i for i in range(relative + 3, 13) if words[i].lower() in _CUT_PREPOSITIONS]
            words = words[: cuts[-1] if cuts else 12]
    if len(words) > 14:  # keep as much as fits, up to a preposition
        cuts = [i for i in range(6, 13) if words[i].lower() in _CUT_PREPOSITIONS]
        words = words[: cuts[-1] if cuts else 12]
    while words and (
        words[-1].lower().strip(",;:") in _FUNCTION_WORDS or words[-1] in "-\u2013\u2014"
    ):
        words.pop()
    text = " ".join(words).strip(" ,;:")
    text = _WHITESPACE.sub(" ", _decode(text)).strip(" ,;:")
    return text[:-1] if text.endswith(".") and not text.endswith("al.") else text


_RELATIVE_WORDS = _words("that which where who whose while whereas")
_CUT_PREPOSITIONS = _words(
    "as by using via through based for in on with from to under over across into"
)


def _cut_at_boundary(phrase: str) -> str:
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
    out: list[str] = []
    for word in words:
        if word.lower() in _HYPE and out is not None:
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
    words = text.split()
    return " ".join(
        w
        if (i and w.lower() in _CONNECTORS)
        else "-".join(p[:1].upper() + p[1:] for p in w.split("-"))
        for i, w in enumerate(words)
    )


def _decode(text: str) -> str:
    """Decode LaTeX/HTML in a short string that goes into a record."""
    text = _unwrap_markers(text)
    if "&" in text:
        text = html.unescape(text)
    return _WHITESPACE.sub(" ", latex_to_unicode(text)).strip()


def _dedupe_names(found: list[ContributionName]) -> list[ContributionName]:
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


# --------------------------------------------------------------------------- #
# Provisional titles without a name
# --------------------------------------------------------------------------- #


def _claim_phrase(scan: _Scan) -> str | None:
    """The object of the first "we propose/introduce ..." (else "we study ...") as a title phrase."""
    for forms in (_PROPOSE_FORMS, _STUDY_FORMS):
        for start, end in scan.sentences:
            for obj, _lemma in _triggers(scan, start, end, forms):
                rest = scan.text[obj:end]
                rest = re.sub(r"^\s*(?:here\s+|also\s+|further\s+)?", "", rest)
                if re.match(
                    r"\s*(?:that|how|whether|to|on|in|with|for|about|if|why|when|what)\b",
                    rest,
                    re.I,
                ):
                    continue
                phrase = _trim_phrase(rest.strip())
                if len(phrase.split()) >= 2:
                    return phrase
    return None


def _first_words(scan: _Scan) -> str:
    """The first sentence's first clause, at most twelve words (the last resort)."""
    if not scan.sentences:
        return ""
    start, end = scan.sentences[0]
    words = _cut_at_boundary(scan.text[start:end]).split()[:12]
    while len(words) > 1 and words[-1].lower() in _FUNCTION_WORDS:
        words.pop()
    return _decode(" ".join(words)).rstrip(".!?,;: ")


def _subject_phrase(scan: _Scan) -> str | None:
    """The subject of the abstract's first sentence, when it is short."""
    if not scan.sentences:
        return None
    start, end = scan.sentences[0]
    sentence = scan.text[start:end]
    verb = re.search(
        r"\s(?:is|are|was|were|has|have|can|remains?|plays?|aims?|offers?|provides?)\s", sentence
    )
    if verb and 2 <= len(sentence[: verb.start()].split()) <= 12:
        return _trim_phrase(sentence[: verb.start()])
    return None
