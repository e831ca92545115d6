"""Markdown syntax for our reading list: CommonMark escaping and code spans, Obsidian tags.

Used by :mod:`readinglist.formats.markdown` to write the list and to read it back;
standard library only.

CommonMark 0.31.2 (https://spec.commonmark.org/0.31.2/) section 2.4 allows a backslash
before any ASCII punctuation, so :func:`escape` makes user text render as itself;
section 6.1 defines code spans (:func:`code_span`, :func:`code_spans`). GFM's extended
autolinks (GFM spec 0.29 section 6.9) and Obsidian's ``==``/``%%`` delimiters are
escaped too.

Tags are shown as Obsidian tags (:func:`obsidian_tag`); when that form differs from the
tag, the exact names are kept percent-encoded in a hidden ``<!-- rl:tags ... -->``
comment (:func:`tags_text` writes it, :func:`take_tag_comments` and
:func:`tags_in_text` read it back).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import quote, unquote

from readinglist.formats._abstracts_links import url_spans

#: ASCII punctuation that is always escaped in user text: CommonMark inline syntax
#: (``\\ ` * _ [ ] < > &``), GFM tables and strikethrough (``| ~``), Obsidian tags and
#: headings (``#``) and math (``$``).
_ALWAYS_ESCAPED = frozenset("\\`*_[]<>&|~$#")
#: :data:`_ALWAYS_ESCAPED` as a ``str.translate`` table (one C pass instead of a loop per character).
_ESCAPES = str.maketrans({ch: "\\" + ch for ch in _ALWAYS_ESCAPED})
#: C0 control characters (and DEL) other than tab and line ends: dropped from user text.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_DOUBLED = re.compile(r"==+|%%+")  # Obsidian highlight and comment delimiters
_AUTOLINK = re.compile(r":(?=//)|(?<=[Ww]{3})\.|@")
_LINE_START_MARK = re.compile(r"^(?:[-+=]|(\d{1,9})([.)]))")


def clean_line(text: str) -> str:
    """Return ``text`` on one line: control characters dropped, white space runs collapsed."""
    return " ".join(CONTROL.sub("", text).split())


def escape(text: str) -> str:
    """Backslash-escape ``text`` (already on one line) so it renders as itself, inline."""
    escaped = text.translate(_ESCAPES)
    if "==" in escaped or "%%" in escaped:
        escaped = _DOUBLED.sub(lambda m: "".join("\\" + c for c in m.group(0)), escaped)
    # GFM extended autolinks start at "scheme://", "www." or an e-mail "@"
    # (GFM spec 0.29 section 6.9); an escape before the ":" / "." / "@" stops them.
    if ":" in escaped or "." in escaped or "@" in escaped:
        escaped = _AUTOLINK.sub(lambda m: "\\" + m.group(0), escaped)
    return escaped


def guard_line_start(line: str) -> str:
    """Escape a list, heading-underline or definition marker at the start of ``line``."""
    match = _LINE_START_MARK.match(line)
    if match is None:
        return line
    if match.group(1) is not None:  # "1." / "1)" would start an ordered list
        return f"{match.group(1)}\\{match.group(2)}{line[match.end() :]}"
    return "\\" + line


def inline(text: str | None) -> str:
    """Clean and escape one line of user text."""
    return escape(clean_line(text or ""))


def unescape(text: str) -> str:
    """Undo :func:`escape`: drop the backslash before each ASCII punctuation character."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def code_span(text: str) -> str:
    """Return ``text`` as a CommonMark code span (spec 6.1), with a long enough fence."""
    text = clean_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


_URL_SAFE = "!#$%&'*+,/:;=?@[]~"


def link(label: str, url: str) -> str:
    """Return ``[label](url)`` with ``url`` percent-encoded; ``url`` must be http(s)."""
    return f"[{label}]({quote(url, safe=_URL_SAFE)})"


def is_web_url(url: str) -> bool:
    """True for an ``http://`` or ``https://`` address (the only links we write)."""
    return re.match(r"(?i)^https?://[^\s]", url) is not None


def neutralize_html(note: str) -> str:
    """Escape ``<`` outside code in a Markdown note, so it holds no raw HTML.

    Fenced code blocks (``` / ~~~ fences) and inline code spans are left alone:
    ``<`` is literal there anyway.
    """
    out: list[str] = []
    fence: str | None = None
    for line in note.split("\n"):
        stripped = line.lstrip()
        match = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is not None:
            out.append(line)
            closes = match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
            if closes and match and not stripped[len(match.group(1)) :].strip():
                fence = None
            continue
        if match and len(line) - len(stripped) < 4:
            fence = match.group(1)
            out.append(line)
            continue
        pieces: list[str] = []
        at = 0
        for begin, end, _ in code_spans(line):
            pieces.extend([line[at:begin].replace("<", "\\<"), line[begin:end]])
            at = end
        pieces.append(line[at:].replace("<", "\\<"))
        out.append("".join(pieces))
    return "\n".join(out)


def code_spans(text: str) -> list[tuple[int, int, str]]:
    """Find the CommonMark code spans of ``text`` (spec 6.1): ``(start, end, content)`` each.

    A backtick run opens a span that the next run of the same length closes; a run
    without such a partner is literal text, and a backslash-escaped backtick
    (outside code) opens nothing. ``content`` has line ends as spaces and one
    space stripped from each side when both sides have one (and it is not all
    spaces), as the spec says.
    """
    spans: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] != "`":
            i += 1
            continue
        j = i
        while j < n and text[j] == "`":
            j += 1
        for run in re.finditer(r"`+", text[j:]):
            if len(run.group(0)) == j - i:
                content = text[j : j + run.start()].replace("\n", " ")
                if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                    content = content[1:-1]
                spans.append((i, j + run.end(), content))
                j += run.end()
                break
        i = j
    return spans


# --- tags ---------------------------------------------------------------------------------

_TAG_CHARS = re.compile(r"(?:[^\w/-]|_)+")
_TAG_IN_TEXT = re.compile(r"(?<!\S)#([\w/-]+)")
_TAG_COMMENT = re.compile(r"<!-- rl:tags((?: [A-Za-z0-9%._~]+)*) -->")


def obsidian_tag(tag: str) -> str:
    """Return the form of ``tag`` written after ``#``: a valid Obsidian tag.

    Letters and digits (any script), ``-`` and ``/`` (Obsidian's nested tags) are
    kept; every run of other characters becomes one ``-`` (a space, ``+``, ``.``, and
    ``_``, which could start emphasis in CommonMark); ``-`` and ``/`` are trimmed at
    the ends. A tag without a letter gets the prefix ``tag-``, because Obsidian needs
    one non-digit (help.obsidian.md, "Tags"). ``obsidian_tag("deep learning") ==
    "deep-learning"``; ``obsidian_tag("c++") == "c"``; ``obsidian_tag("2024") ==
    "tag-2024"``. Never returns an empty string; the result matches ``[\\w/-]+``
    without ``_``.
    """
    shown = _TAG_CHARS.sub("-", tag)
    shown = re.sub(r"/{2,}", "/", re.sub(r"-{2,}", "-", shown)).strip("-/")
    if not any(ch.isalpha() for ch in shown):
        shown = f"tag-{shown}".rstrip("-")
    return shown


def _encode_tag(tag: str) -> str:
    """``tag`` percent-encoded, ``-`` included, so it is one word of the hidden comment."""
    return quote(tag, safe="").replace("-", "%2D")


def tags_text(tags: Sequence[str]) -> tuple[str, str]:
    """Return ``(visible #tags, hidden comment or "")`` for a paper's tags."""
    shown: list[str] = []
    for tag in tags:
        form = obsidian_tag(tag)
        if form not in shown:
            shown.append(form)
    visible = " ".join(f"#{form}" for form in shown)
    if all(obsidian_tag(tag) == tag for tag in tags):
        return visible, ""
    encoded = " ".join(_encode_tag(tag) for tag in tags)
    return visible, f"<!-- rl:tags {encoded} -->"


def take_tag_comments(header: str) -> tuple[str, list[str]]:
    """Return ``header`` with its ``rl:tags`` comments blanked out, and the tags they name.

    Input: an item's header lines joined by newlines. The tags are the exact names
    :func:`tags_text` encoded, in order.
    """
    originals: list[str] = []
    for match in _TAG_COMMENT.finditer(header):
        originals.extend(unquote(part) for part in match.group(1).split())
    return _TAG_COMMENT.sub(" ", header), originals


def tags_in_text(text: str, originals: Sequence[str]) -> list[str]:
    """Return the tags written as ``#tag`` in ``text``, without repeats, in order.

    A shown tag is mapped back to the exact names in ``originals`` whose Obsidian form
    it is; a tag without a letter (``#2024``) is no tag, as in Obsidian.
    """
    tags: list[str] = []
    for match in _TAG_IN_TEXT.finditer(text):
        shown = match.group(1)
        if not any(ch.isalpha() for ch in shown):
            continue  # "#2024" is no tag in Obsidian
        found = [tag for tag in originals if obsidian_tag(tag) == shown]
        for tag in found or [shown]:
            if tag not in tags:
                tags.append(tag)
    return tags


#: Characters an autolink cannot hold (CommonMark 0.31.2 section 6.5) or that a URL
#: should not carry into a link: such an address stays escaped text.
_AUTOLINK_BREAKERS = re.compile(r"[\s<>\x00-\x1f\x7f`]")


def linked(text: str) -> str:
    """Escape one line of abstract text, keeping its web links links.

    An ``http(s)://`` address (bare, ``<url>`` or ``\\url{url}``) becomes a CommonMark
    autolink ``<url>`` (spec 6.5: it shows the address, unescaped); ``www.x.org`` and a Markdown
    link ``[label](url)`` become ``[label](url)`` with the label escaped. URLs are
    found by :func:`readinglist.formats._abstracts_links.url_spans` (the one home of
    "a URL in prose"); other schemes stay escaped text.
    """
    out: list[str] = []
    at = 0
    for start, end, url, label in url_spans(text):
        if not is_web_url(url) or _AUTOLINK_BREAKERS.search(url):
            continue
        before = escape(text[at:start])
        shown = text[start:end]
        if label is None and "://" in shown:  # a bare address, <url> or \url{url}
            out.extend([before, f"<{url}>"])
        else:  # "!" before "[" would make an image
            before = before[:-1] + "\\!" if before.endswith("!") else before
            out.extend([before, link(escape(label if label is not None else shown), url)])
        at = end
    out.append(escape(text[at:]))
    return "".join(out)


#: Emphasis an abstract wrote in Markdown: ``**strong**`` or ``*em*`` opening at the start
#: of a word, neither run next to white space inside (CommonMark 0.31.2 section 6.2,
#: left- and right-flanking delimiter runs), on one line; ``*em*`` closes at the end of a
#: word (``2*3*4`` is arithmetic), ``**strong**`` may close inside one (``**P**atched``).
_EMPHASIS = re.compile(
    r"(?<![\w*\\])(?:(\*\*)(?=[^\s*])([^*\n]*?[^\s*\\])\*\*(?!\*)"
    r"|(\*)(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*]))"
)


def emphasised(text: str) -> str:
    """One piece of abstract text (control characters and line breaks dropped) escaped
    for Markdown as :func:`linked` does, keeping the emphasis it wrote in Markdown
    (``**bold**`` -> ``**bold**``, its words escaped); any other ``*`` is escaped
    (``2*3``). White space at the edges is kept as one space. Never raises."""
    core = clean_line(text)
    if not core:
        return " " if text else ""
    out: list[str] = []
    at = 0
    for match in _EMPHASIS.finditer(core):
        marker = match.group(1) or match.group(3)
        inner = match.group(2) or match.group(4)
        out.append(linked(core[at : match.start()]))
        out.append(f"{marker}{linked(inner)}{marker}")
        at = match.end()
    out.append(linked(core[at:]))
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{''.join(out)}{trail}"


#: The lines that only our list has (:func:`looks_like_our_list`): its ``Generated by
#: readinglist`` line, and an item's task line with a bold (or untitled) title, then,
#: among the next two lines, its key line (the key in a code span, first).
_GENERATED = re.compile(r"^Generated by readinglist \S+", re.MULTILINE)
_OUR_ITEM = re.compile(r"^- \[[ xX]\] (?:\*\*.*\*\*|\*\(untitled\)\*)")
_OUR_KEY_LINE = re.compile(r"^  `[^`\s]+`(?: · .*)?\s*$")


def looks_like_our_list(text: str) -> bool:
    """True when ``text`` (the start of a document) is a reading list this program wrote,
    with or without its marker line: the ``Generated by readinglist`` line, or an item
    as :mod:`readinglist.formats.markdown` writes it (task line, then the key line).
    A list whose marker was deleted (an editor, a copy) was read as a list of
    abstracts: each item became a junk paper. Never raises."""
    if _GENERATED.search(text[:4000]):
        return True
    lines = text[:20000].split("\n")
    for at, line in enumerate(lines):
        if _OUR_ITEM.match(line) and any(_OUR_KEY_LINE.match(n) for n in lines[at + 1 : at + 3]):
            return True
    return False
