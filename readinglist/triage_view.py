"""What the triage loop draws: the card of a paper, fitted to the terminal, the overview,
the pages of an abstract, the progress line, the key legend and help.

Pure functions of records and numbers (no database, no terminal), so every screen is
tested line by line. :mod:`readinglist.triage` runs the loop and re-exports these names.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from readinglist.identifiers import is_web_link
from readinglist.records import PaperRecord
from readinglist.render import PROVISIONAL_MARK
from readinglist.text import counted, latex_to_unicode

#: Every key with what it does, for the ``?`` screen and the README.
KEY_HELP: tuple[tuple[str, str], ...] = (
    ("t", "to read (next paper)"),
    ("s", "skip (next paper)"),
    ("r", "reading (next paper)"),
    ("d", "read, done (next paper)"),
    ("h/m/l", "priority high / medium / low"),
    ("a", "add tags (comma-separated; Tab completes existing tags)"),
    ("n", "add a note"),
    ("e", "edit the title"),
    ("o", "open the first link in the browser"),
    ("u", "undo the last decision (also one made before you quit)"),
    ("space/j", "next paper without deciding"),
    ("b/k", "back to the previous paper"),
    ("v", "overview: the next titles with their scores; go to one"),
    ("/", "search the inbox (a query or words); / then Enter: next match"),
    ("w", "why: the terms that raised and lowered the interest"),
    ("x", "the whole abstract, a page at a time"),
    ("q", "quit (decisions are saved as you go)"),
    ("?", "this help"),
)
#: Legends from the most to the least explicit; the first shorter than the width is shown.
LEGENDS: tuple[str, ...] = (
    "t to-read  s skip  r reading  d read  h/m/l priority  a tag  n note  e title  "
    "o open  u undo  space next  b back  v list  / search  w why  x abstract  q quit  ? help",
    "t:to-read s:skip r:reading d:read h/m/l:priority a:tag n:note e:title o:open u:undo "
    "space:next b:back v:list /:search w:why x:abstract q:quit ?:help",
    "t:to-read s:skip r:reading d:read h/m/l:prio a:tag n:note u:undo b:back v:list /:find "
    "q:quit ?:more",
    "t:to-read s:skip r:reading d:read a:tag u:undo v:list /:find q:quit ?:more",
    "t s r d h m l a n e o u b v / w x q  ?:help",
)
#: Where the overview and the abstract pages end.
ELLIPSIS = "…"


def progress_line(position: int, total: int, statuses: Sequence[str]) -> str:
    """Return ``"12/19, 7 to read, 4 skipped"`` (reading and read appended when any)."""
    counts = Counter(statuses)
    text = f"{position}/{total}, {counts['to-read']} to read, {counts['skipped']} skipped"
    for status in ("reading", "read"):
        if counts[status]:
            text += f", {counts[status]} {status}"
    return text


def legend(width: int) -> str:
    """Return the most explicit key legend shorter than ``width`` columns (a line of
    exactly the width would wrap on some terminals); the shortest cut to fit."""
    for candidate in LEGENDS:
        if len(candidate) < width:
            return candidate
    return clip(LEGENDS[-1], max(width - 1, 1))


def links(record: PaperRecord) -> list[str]:
    """Return the paper's links, the one ``o`` opens first: URL, DOI, arXiv, code. A URL
    that is no web link (:func:`identifiers.is_web_link`: ``javascript:``, ``file:``) is
    left out: neither ``o`` nor the page opens it."""
    found: list[str] = []
    if record.url and is_web_link(record.url):
        found.append(record.url)
    if record.doi:
        found.append(f"https://doi.org/{record.doi}")
    if record.arxiv:
        found.append(f"https://arxiv.org/abs/{record.arxiv}")
    if record.code_url and record.code_url not in found:
        found.append(record.code_url)
    return found


def clip(text: str, width: int) -> str:
    """Return ``text`` cut to ``width`` columns, ending in an ellipsis when cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + ELLIPSIS


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


def abstract_lines(record: PaperRecord, width: int) -> list[str]:
    """Return the abstract (LaTeX decoded, paragraphs kept) wrapped to ``width``."""
    if not record.abstract:
        return ["(no abstract)"]
    lines: list[str] = []
    for paragraph in latex_to_unicode(record.abstract).split("\n\n"):
        lines += _wrap(" ".join(paragraph.split()), width)
    return lines


def _title(record: PaperRecord) -> str:
    return (record.title or "(no title)") + (PROVISIONAL_MARK if record.title_provisional else "")


def card(
    record: PaperRecord,
    *,
    progress: str,
    width: int,
    message: str = "",
    height: int | None = None,
    model: str = "",
) -> str:
    """Return the screen of one paper, lines at most ``width`` long where words allow.

    Progress line; ``model`` (the paper's interest, what the model learnt from, the
    papers skipped since the last wanted one; blank when empty); venue and year; title (marked when provisional); authors;
    links; key, status, priority, tags and number of notes; the abstract (LaTeX
    decoded) wrapped to the width; the message of the last action; the legend.

    With ``height`` (the terminal's rows) the screen never has more lines, each cut to
    the width, so the progress line and the title stay visible: first the abstract is cut (its last line
    then says how much more ``x`` shows), then the header is made compact (one line
    of authors, one link, at most two lines of title, no blank lines), then the
    abstract goes; the message and the legend always stay.
    """
    width = max(width, 20)
    where = " · ".join(str(x) for x in (record.venue, record.year) if x)
    people = "; ".join(p.display() for p in record.authors) or "(no authors)"
    state = [f"{record.citekey}", f"status {record.status}"]
    if record.priority:
        state.append(f"priority {record.priority}")
    if record.tags:
        state.append("tags " + ", ".join(record.tags))
    if record.notes:
        state.append(counted(len(record.notes), "note"))
    found = links(record)
    head = [progress, model, *([where] if where else []), *_wrap(_title(record), width)]
    head += [*_wrap(people, width, "  "), *(f"  {link}" for link in found)]
    head += [*_pack(state, " | ", width), ""]
    body = abstract_lines(record, width)
    said = _wrap(message, width) if message else [""]
    foot = ["", *said, legend(width)]
    if height is None:
        return "\n".join(head + body + foot)
    # Every line at most the width, so that a line is a row: a long URL, tag or word
    # would otherwise wrap and push the top line off a full screen.
    head, body = [clip(line, width) for line in head], [clip(line, width) for line in body]
    if len(head) + len(body) + len(foot) <= height:
        return "\n".join(head + body + foot)
    room = height - len(head) - len(foot)
    if room < 3:  # compact header: every line of it counts
        title = _wrap(_title(record), width)
        if len(title) > 2:
            title = [title[0], clip(" ".join(title[1:]), width)]
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        head = [progress, *([where] if where else []), *title, clip(people, width)]
        head += [clip(f"{found[0]}{more}", width)] if found else []
        head += [clip(" | ".join(state), width)]
        foot = [*said, foot[-1]] if message else foot[-1:]
        room = height - len(head) - len(foot)
    if room < 0:  # not even the header fits: its first lines (progress, title) do
        head = head[: max(height - len(foot), 1)]
    return "\n".join(head + _cut(body, room, width) + foot)


def _cut(body: list[str], room: int, width: int) -> list[str]:
    """Return at most ``room`` lines of ``body``; the last says what was left out."""
    if room >= len(body):
        return body
    if room <= 0:
        return []
    hidden = len(body) - room + 1
    return [*body[: room - 1], clip(f"{ELLIPSIS} {hidden} more lines: x shows the abstract", width)]


def _pack(items: Sequence[str], separator: str, width: int) -> list[str]:
    """Join ``items`` with ``separator`` into lines of at most ``width`` (items kept whole)."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(separator) + len(item) <= width:
            lines[-1] += separator + item
        else:
            lines.append(item)
    return lines


def overview(
    rows: Sequence[tuple[str, float | None]],
    *,
    first: int,
    progress: str,
    width: int,
    height: int,
    ranked: bool,
) -> str:
    """Return the overview screen (``v``) of one page of the next papers.

    ``rows`` are (title, interest) of the page's papers in queue order, the first of
    them the ``first``-th (0-based) from the current paper; they are numbered from 1 at
    the current paper, which is marked ``>``, one line each (title cut to the width),
    as many as ``height`` leaves after the progress line, a heading and the prompt.
    """
    heading = "Next papers, highest interest first" if ranked else "Next papers, in order"
    shown = rows[: max(height - 3, 1)]
    lines = [progress, heading + (":" if shown else ": none")]
    for n, (title, score) in enumerate(shown, start=first):
        mark = ">" if n == 0 else " "
        value = "     -" if score is None else f"{score:6.3f}"
        lines.append(clip(f"{mark}{n + 1:>4} {value}  {title}", width))
    return "\n".join(lines)


def abstract_pages(record: PaperRecord, width: int, height: int) -> list[str]:
    """Return the screens of ``x``: the title, then the abstract a page at a time."""
    title = clip(_title(record), max(width, 20))
    body = abstract_lines(record, max(width, 20))
    size = max(height - 3, 1)
    chunks = [body[start : start + size] for start in range(0, len(body), size)] or [[]]
    return [
        "\n".join(
            [title, "", *chunk, f"page {n + 1}/{len(chunks)}: any key goes on, q back to the card"]
        )
        for n, chunk in enumerate(chunks)
    ]


def help_pages(height: int | None = None, width: int | None = None) -> list[str]:
    """Return the list of keys (the ``?`` screen), in pages of at most ``height`` lines
    on a short terminal, each line shorter than ``width`` columns (a line of exactly the
    width wraps on some terminals, as in :func:`legend`): a description wraps on words
    under its own column (a fresh user saw lines cut mid-word at 60 columns). A key's
    lines stay on one page."""
    column = 11  # "  " + the key padded to 8 + " "
    entries = [
        textwrap.wrap(
            f"  {key:<8} {text}",
            max(width - 1, column + 10) if width else 10**6,
            subsequent_indent=" " * column,
            break_on_hyphens=False,
            break_long_words=False,
        )
        for key, text in KEY_HELP
    ]
    size = sum(map(len, entries)) if height is None else max(height - 3, 1)
    chunks: list[list[str]] = [[]]
    for lines in entries:
        if chunks[-1] and len(chunks[-1]) + len(lines) > size:
            chunks.append([])
        chunks[-1] += lines
    if len(chunks) == 1:
        return ["\n".join(["Keys:", *chunks[0], "", "press any key"])]
    return [
        "\n".join([f"Keys ({n + 1}/{len(chunks)}):", *chunk, "", "press any key"])
        for n, chunk in enumerate(chunks)
    ]


def why_lines(key: str | None, why: Any) -> list[str]:
    """Return what ``show --why`` and triage's ``w`` print: the interest, the model it
    comes from and the parts that add up to it, to 3 decimals (``why`` is a
    ``readinglist.ranking.Why``, or None without a score): the terms that raised and
    lowered it, the other terms together, the topic similarity (the LSA half of the
    score) and the library's average, which every score is measured against."""
    if why is None:
        return [f"{key}: no interest score yet (mark some papers to-read, read or skipped)"]
    why = why.rounded(3)
    from readinglist.ranking import model_label

    name = model_label(why.model)
    return [
        f"{key}: interest {why.score:.3f} (from {name}), the sum of:",
        "  raised by: "
        + (", ".join(f"{term_label(t.term)} ({t.weight:+.3f})" for t in why.up) or "-"),
        "  lowered by: "
        + (", ".join(f"{term_label(t.term)} ({t.weight:+.3f})" for t in why.down) or "-"),
        f"  {counted(why.others, 'other term')}: {why.other:+.3f}",
        f"  topic similarity: {why.topic:+.3f}",
        f"  minus the library's average: {why.offset:+.3f}",
    ]


def term_label(term: str) -> str:
    """A ranking feature as a reader names it: the tokens that
    ``ranking.features.person_token``/``tag_token`` make (``author_smith_j``, ``tag_rl``)
    shown as ``author:smith_j`` and ``tag:rl`` (a fresh user saw ``tag_icml`` printed)."""
    from readinglist.ranking import AUTHOR_TOKEN, TAG_TOKEN

    words = term.split()
    for prefix, shown in ((TAG_TOKEN, "tag:"), (AUTHOR_TOKEN, "author:")):
        words = [shown + w.removeprefix(prefix) if w.startswith(prefix) else w for w in words]
    return " ".join(words)
