"""The abstracts reader's layout: paragraphs -> parts -> header and paper blocks.

:func:`parse_paragraphs` sorts each blank-line separated paragraph's lines into a
:class:`Part` (heading or title, labels, author line, abstract); :func:`split_header`
separates the list's header from the papers; :func:`group_blocks` gathers the parts of
one paper into a :class:`Block`. Rules on layout only (see the docstring of
:mod:`readinglist.formats.abstracts`); the record is built there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from readinglist.formats._abstracts_authors import looks_like_author_list, looks_like_authors
from readinglist.formats._abstracts_header import parse_header
from readinglist.formats._abstracts_labels import read_label
from readinglist.formats._abstracts_links import url_spans
from readinglist.naming.markup import strip_markup
from readinglist.naming.words import FUNCTION_WORDS

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")

_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,}|(?:- ){2,}-|<hr\s*/?>)\s*$", re.I)

#: A numbered or bulleted list item's marker ("1.", "(2)", "[3]", "-", "•").
LIST_MARKER = re.compile(
    r"^\s*(?:\d{1,4}[.)]|\(\d{1,4}\)|\[\d{1,4}\]|[-*+\u2022\u25cf\u2023\u25e6])\s+"
)

_DETAILS_OPEN = re.compile(r"<details\b", re.I)

_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)

#: Link groups after a title in "awesome" lists: [[paper](url)] [code](url) [PDF](url).
LINK_GROUP = re.compile(
    r"\s*\[?\[\s*(?:paper|code|pdf|arxiv|project(?: page)?|github|website|page|video|slides|"
    r"bib(?:tex)?|demo|blog|data(?:set)?|models?|openreview|html|poster|link)\s*\]\([^()\s]*\)\]?",
    re.I,
)


@dataclass
class Part:
    """What one paragraph (blank-line separated) of the list holds."""

    line: int  # 1-based line of the paragraph's first line
    separator: bool = False
    rule: bool = False  # a separator line (``---``), not a section heading made a separator
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
class Block:
    """One paper's pieces, gathered from one or more parts."""

    line: int
    title: str | None = None
    authors: str | None = None
    abstract: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)
    marked: bool = False  # started by a numbered or bulleted list item
    bare: bool = True  # one unlabelled paragraph of text: maybe an abstract's next paragraph
    segment: int = 0  # how many separator lines (``---``) come before it


def normalize_newlines(text: str) -> str:
    """Return ``text`` without a leading BOM, with CRLF and CR line ends as LF."""
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


def parse_paragraphs(lines: list[str]) -> list[Part]:
    """Parse each paragraph; a paragraph of one-line list items gives one part per item."""
    parts: list[Part] = []
    for start, para, is_separator in _paragraphs(lines):
        if is_separator:
            parts.append(Part(line=start + 1, separator=True, rule=True))
        elif _is_title_list(para):
            parts.extend(_parse_paragraph([item], start + 1 + i) for i, item in enumerate(para))
        else:
            parts.append(_parse_paragraph(para, start + 1))
    return parts


def _is_title_list(lines: list[str]) -> bool:
    """True for lines that are all list items reading as titles ("- Title [[paper](...)]")."""
    if len(lines) < 2 or not all(LIST_MARKER.match(line) for line in lines):
        return False
    return all(_is_title_line(LINK_GROUP.sub("", line), []) for line in lines)


#: A DOI or arXiv id written with its scheme (``doi:10.1/x``, ``arXiv:2101.00001``).
_SCHEME_ID = re.compile(r"(?i)\b(?:doi|arxiv):\s*\S+")


def _without_links(line: str) -> str:
    """``line`` without its links and identifiers: a Markdown link keeps its text, a bare
    URL, ``doi:...`` or ``arXiv:...`` goes. A list of references ("- *Title*. Karras et
    al. 2022. doi:10.48550/...") is then judged on its words alone, so each item is a
    paper, not one paper whose abstract holds the others (and their DOIs)."""
    pieces, last = [], 0
    for start, end, _url, label in url_spans(line):
        pieces += [line[last:start], label or ""]
        last = end
    return _SCHEME_ID.sub("", "".join([*pieces, line[last:]])).strip()


def _parse_paragraph(lines: list[str], line_no: int) -> Part:
    """Sort one paragraph's lines into heading/title, labels, author line and abstract."""
    part = Part(line=line_no, lines=lines)
    free: list[int] = []
    abstract_from: int | None = None  # index where a labelled abstract starts
    abstract_first = ""
    folded: str | None = None  # the key of a label at column 0 that an indented line continues
    index = 0
    while index < len(lines):
        line = lines[index]
        if folded is not None and line[:1] in (" ", "\t") and read_label(line) is None:
            # A folded header line, as in arXiv's listing mails: "Title: ... Wrap\n  Onto".
            _continue_label(part, folded, line.strip())
            index += 1
            continue
        folded = None
        if abstract_from is not None:
            label = read_label(line)
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
        label = read_label(line)
        if label is not None:
            key, value = label
            if key == "abstract":
                abstract_from, abstract_first = index + 1, value
            elif key == "_markup":
                pass
            else:
                _store_label(part, key, value)
                folded = key if line[:1] not in (" ", "\t") else None
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
    """A labelled abstract's text: the label line's value, the lines after it, no ``</details>``."""
    text = "\n".join([first, *rest]) if first.strip() else "\n".join(rest)
    text = _DETAILS_CLOSE.sub("", text) if _DETAILS_CLOSE.search(text[-40:]) else text
    return text.strip()


def _store_label(part: Part, key: str, value: str) -> None:
    """Keep a labelled value in ``part``: title and authors once, other labels joined by lines."""
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


def _continue_label(part: Part, key: str, more: str) -> None:
    """Add ``more`` (a folded line) to the value ``part`` keeps for the label ``key``."""
    if key == "title" and part.title is not None:
        part.title = f"{part.title} {more}"
    elif key == "authors" and part.authors is not None:
        part.authors = f"{part.authors} {more}"
    elif key.startswith("field:") and key[6:] in part.extra:
        part.extra[key[6:]] += f" {more}"
    elif key in part.labels:
        part.labels[key] += f" {more}"


def _assign_free_lines(part: Part, lines: list[str], free: list[int]) -> None:
    """Give unlabelled lines their role by position: title, author line, abstract."""
    position = 0
    if part.title is None and free:
        first = lines[free[0]]
        following = [lines[i] for i in free[1:]]
        if following and looks_like_author_list(first) and not looks_like_authors(following[0]):
            part.authors = first  # an author line, then the abstract (the title came before)
            position = 1
        elif _is_title_line(first, following):
            part.numbered = bool(LIST_MARKER.match(first))
            part.title = first
            position = 1
    if part.title is not None and part.authors is None and position < len(free):
        candidate = lines[free[position]]
        if looks_like_authors(candidate):
            part.authors = candidate
            position += 1
    rest = free[position:]
    if rest:
        text = (
            "\n".join(lines[rest[0] : rest[-1] + 1])
            if rest == list(range(rest[0], rest[-1] + 1))
            else "\n".join(lines[i] for i in rest)
        )
        text = LIST_MARKER.sub("", text, count=1)  # list syntax, not part of the abstract
        text = _join_abstract("", [text])
        if part.abstract is None:
            part.abstract = text or None
        elif text:
            part.extra.setdefault("note", text)


def _is_title_line(line: str, following: list[str]) -> bool:
    """Decide whether a paragraph's first unlabelled line is a title (see module docs)."""
    numbered = bool(LIST_MARKER.match(line))
    # Judged on its words: links and identifiers are no prose (_without_links).
    text = strip_markup(_without_links(LIST_MARKER.sub("", line, count=1)))
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
    if text.endswith((",", ";")) or words[-1].lower() in FUNCTION_WORDS:
        return False
    nxt = strip_markup(following[0]).lstrip()
    if nxt[:1].islower() and not looks_like_authors(following[0]):
        return False  # a hard-wrapped sentence continues
    if numbered or line.lstrip().startswith(("**", "__")) or ": " in text:
        return True
    if _title_case_ratio(words) >= 0.6:
        return True
    longest = max(len(x) for x in following)
    return len(line.strip()) < 0.7 * longest or looks_like_authors(following[0])


def _title_case_ratio(words: list[str]) -> float:
    """The share of capitalised words among the words of four or more letters (0.0 if none)."""
    content = [w for w in words if len(w) >= 4 and w[0].isalpha()]
    if not content:
        return 0.0
    return sum(1 for w in content if w[0].isupper()) / len(content)


def header_line(part: Part) -> str:
    """The text of a header paragraph: its title line, then any other line."""
    lines = [LIST_MARKER.sub("", part.title, count=1)] if part.title else []
    if part.abstract:
        lines.append(part.abstract)
    return "\n".join(lines) if lines else " ".join(x.strip() for x in part.lines)


def _is_header_candidate(part: Part) -> bool:
    """A short paragraph of title-like lines (a second line such as "compiled by ..." is allowed)."""
    if part.separator or part.labels or part.authors or part.numbered or part.title is None:
        return False
    if part.abstract and (len(part.abstract.split()) > 15 or part.abstract.rstrip().endswith(".")):
        return False
    return len(part.lines) <= 3 and all(len(x.split()) <= 20 for x in part.lines)


def _paper_heading_level(parts: list[Part]) -> int | None:
    """The Markdown heading level of paper titles: the most frequent one (deeper on ties)."""
    counts = Counter(p.heading_level for p in parts if p.heading_level)
    if not counts:
        return None
    best = max(counts.values())
    return max(level for level, count in counts.items() if count == best)


def split_header(parts: list[Part]) -> tuple[list[Part], list[Part]]:
    """Separate header paragraphs (list title, venue, year) from the papers' paragraphs."""
    paper_level = _paper_heading_level(parts)
    if paper_level and _headings_title_papers(parts, paper_level):
        return _split_markdown_header(parts, paper_level)
    header: list[Part] = []
    body: list[Part] = []
    for part in parts:  # headings name the list or its sections here, not papers
        if part.heading_level and not part.abstract:
            if all(p.separator for p in body):
                header.append(part)
            else:
                body.append(Part(line=part.line, separator=True))
        else:
            body.append(part)
    index = 0
    layout = author_paragraphs(body)
    while index < len(body) and len(header) < 4:
        part = body[index]
        if part.separator:
            index += 1
            continue
        if not _is_header_candidate(part) or not _header_by_shape(part, body[index + 1 :], layout):
            break
        header.append(part)
        index += 1
    return header, body[index:]


def _headings_title_papers(parts: list[Part], level: int) -> bool:
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


def _split_markdown_header(parts: list[Part], paper_level: int) -> tuple[list[Part], list[Part]]:
    """Markdown lists: papers start at headings of ``paper_level``.

    Shallower headings and the prose under them (an introduction, a session
    name) are not papers; those before the first paper form the header.
    """
    header: list[Part] = []
    body: list[Part] = []
    seen_paper = False
    in_intro = True
    for part in parts:
        if part.heading_level == paper_level:
            seen_paper, in_intro = True, False
            body.append(part)
        elif part.heading_level and part.heading_level < paper_level:
            if seen_paper:
                body.append(Part(line=part.line, separator=True))
            else:
                header.append(part)
            in_intro = True
        elif in_intro:
            if not seen_paper and not part.abstract:
                header.append(part)
        else:
            body.append(part)
    return header, body


def _header_by_shape(part: Part, rest: list[Part], layout: bool) -> bool:
    """Decide if a leading title-only paragraph is the list's header rather than a paper
    title (``layout``: the list gives authors paragraphs, :func:`author_paragraphs`)."""
    if part.heading_level and any(p.heading_level == part.heading_level for p in rest):
        return False  # the same heading level titles the papers
    if parse_header(header_line(part)).keys() & {"venue", "year"}:
        return True
    papers = [p for p in rest if p.abstract]
    if not papers:
        return False
    later = [p for p in rest if not p.separator]
    following = later[0] if later else None
    if following is not None and following.title and not following.heading_level:
        # Another title follows before any abstract, unless that "title" is the author
        # line of this paragraph's paper (title, authors, abstract: README's first shape).
        after = later[1] if len(later) > 1 else None
        return not is_author_paragraph(following, after, layout)
    titled = untitled = 0
    previous: Part | None = None
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


def group_blocks(parts: list[Part]) -> list[Block]:
    """Gather parts into papers: title/author/label paragraphs attach to the next abstract.

    A paragraph that is only a list of people, after a title and before the abstract, is
    that paper's author line. Paragraphs of text after a paper's abstract are more of
    that abstract (:func:`_join_paragraphs`) when the list marks where papers start.
    """
    blocks: list[Block] = []
    pending: Block | None = None
    segment = 0
    layout = author_paragraphs(parts)
    for index, part in enumerate(parts):
        if part.separator:
            if pending is not None:
                blocks.append(pending)
            pending = None
            segment += part.rule
            continue
        after = parts[index + 1] if index + 1 < len(parts) else None
        if (
            pending is not None
            and pending.title
            and not (pending.authors or pending.abstract)
            and is_author_paragraph(part, after, layout)
        ):
            pending.authors, part.title = part.title, None
        if pending is not None and (
            (part.title and pending.title) or (part.abstract and pending.abstract)
        ):
            blocks.append(pending)
            pending = None
        if pending is None:
            pending = Block(line=part.line, segment=segment)
        _merge(pending, part)
        if pending.abstract and not part.details_open:
            blocks.append(pending)
            pending = None
    if pending is not None:
        blocks.append(pending)
    return _join_paragraphs(blocks)


def is_author_paragraph(part: Part, after: Part | None, layout: bool) -> bool:
    """Is ``part``, read as a title and coming after a paper's title, that paper's author
    line (title, authors, abstract, each a paragraph)?

    Surely when it lists two or more people (:func:`looks_like_author_list`). One name
    ("Jane Doe": :func:`looks_like_authors`, which "Deep Residual Learning" also passes)
    only where the list gives its authors paragraphs of their own (``layout``:
    :func:`author_paragraphs`), the paragraph is that one line, and an abstract follows.
    """
    if not part.title or part.heading_level or part.numbered or part.authors:
        return False
    if looks_like_author_list(part.title):
        return True
    return bool(
        layout
        and not part.abstract
        and after is not None
        and after.abstract
        and not (after.title or after.heading_level)
        and looks_like_authors(part.title)
    )


def author_paragraphs(parts: list[Part]) -> bool:
    """Does the list give a paper's authors a paragraph of their own? True when some
    title-only paragraph that surely lists people (:func:`looks_like_author_list`) comes
    between a title paragraph and an abstract paragraph."""
    return any(
        before.title
        and not (before.abstract or before.separator or part.abstract)
        and after.abstract
        and not after.title
        and is_author_paragraph(part, after, layout=False)
        for before, part, after in zip(parts, parts[1:], parts[2:], strict=False)
    )


def _join_paragraphs(blocks: list[Block]) -> list[Block]:
    """Join a paper's abstract paragraphs that the paragraph rules read as papers of their own.

    A bare block (one unlabelled paragraph of text) continues the paper before it when
    the list marks where its papers start: every paper in it has a title (or a labelled
    abstract) and no bare block opens the list or follows a separator; or separator
    lines (two or more) stand between the papers and no part between two separators
    holds two titled papers. Joined paragraphs are kept apart by a blank line.
    """
    bare_first = any(
        b.bare and (i == 0 or blocks[i - 1].segment != b.segment) for i, b in enumerate(blocks)
    )
    titled = not bare_first and any(b.title for b in blocks)
    segments = Counter(b.segment for b in blocks if b.title)
    ruled = (blocks[-1].segment if blocks else 0) >= 2 and max(segments.values(), default=0) <= 1
    if not (titled or ruled):
        return blocks
    out: list[Block] = []
    for block in blocks:
        previous = out[-1] if out else None
        if block.bare and previous is not None and previous.segment == block.segment:
            previous.abstract = f"{previous.abstract}\n\n{block.abstract}"
            continue
        out.append(block)
    return out


def _merge(block: Block, part: Part) -> None:
    """Fill the gaps of ``block`` from ``part`` (what the block has already is kept)."""
    block.bare = block.bare and not block.title and _is_bare(part)
    block.marked = block.marked or part.numbered
    block.title = block.title or part.title
    block.authors = block.authors or part.authors
    block.abstract = block.abstract or part.abstract
    for key, value in part.labels.items():
        block.labels.setdefault(key, value)
    for key, value in part.extra.items():
        block.extra.setdefault(key, value)


def _is_bare(part: Part) -> bool:
    """A paragraph of text only: no title, heading, authors, labels or other fields."""
    return bool(part.abstract) and not (
        part.title or part.heading_level or part.authors or part.labels or part.extra
    )
