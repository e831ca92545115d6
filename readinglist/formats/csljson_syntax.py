"""CSL-JSON text -> its items, each with the line it starts on.

CSL-JSON (``csl-data.json``, citation-style-language/schema, CSL 1.0.2) is a JSON
array of item objects; Better BibTeX and citeproc also accept a single object. This
module decodes the JSON (the stdlib ``json``) and finds where each element starts;
:mod:`readinglist.formats.csljson` maps an item's variables to a PaperRecord.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from readinglist.records import ParseProblem

__all__ = ["elements", "latex_rich_text", "rich_text_latex"]

_SPACE = re.compile(r"[ \t\n\r]*")


def elements(text: str, source: str) -> tuple[list[tuple[Any, int | None]], list[ParseProblem]]:
    """The top-level elements of CSL-JSON ``text``, each with its 1-based line.

    A leading BOM is ignored; a single object is one element. Returns the elements
    (any JSON value: the caller checks they are objects; line None when it cannot
    be told) and the problems: an error with the line and column from
    ``json.JSONDecodeError`` for invalid JSON, or for a top level that is neither
    array nor object; no elements then. Never raises.
    """
    text = text.lstrip("\ufeff")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (column {exc.colno})"
        return [], [ParseProblem(message, source, exc.lineno)]
    except (ValueError, RecursionError) as exc:
        return [], [ParseProblem(f"invalid JSON: {exc}", source, 1)]
    if isinstance(data, dict):
        return _cleaned([(data, text.count("\n", 0, text.find("{")) + 1)], source)
    if not isinstance(data, list):
        found = type(data).__name__
        message = f"expected a JSON array of CSL-JSON items, found {found}"
        return [], [ParseProblem(message, source, 1)]
    try:
        lines: list[int | None] = list(_item_lines(text))
    except (ValueError, IndexError, AttributeError):  # cannot happen for valid JSON
        lines = []
    if len(lines) != len(data):
        lines = [None] * len(data)
    return _cleaned(list(zip(data, lines, strict=True)), source)


def _cleaned(
    items: list[tuple[Any, int | None]], source: str
) -> tuple[list[tuple[Any, int | None]], list[ParseProblem]]:
    """``items`` with lone surrogates replaced (:func:`_without_lone_surrogates`), and a
    warning naming the line of each item that held one."""
    found: list[tuple[Any, int | None]] = []
    problems: list[ParseProblem] = []
    for item, line in items:
        clean, replaced = _without_lone_surrogates(item)
        if replaced:
            message = (
                "a lone surrogate escape such as \\ud800 (half of a UTF-16 pair, no "
                "character) replaced by U+FFFD"
            )
            problems.append(ParseProblem(message, source, line, "warning"))
        found.append((clean, line))
    return found, problems


def _without_lone_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` (decoded JSON) with every lone surrogate in its strings replaced by
    U+FFFD, and how many strings held one. JSON's ``\\ud800`` escape decodes to a lone
    surrogate (RFC 8259 section 8.2 allows it), which no UTF-8 file or database can
    hold: the import stopped with "an argument is not valid UTF-8 text"."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            pairs = value.encode("utf-16-le", "surrogatepass")
            return pairs.decode("utf-16-le", "replace"), 1
        return value, 0
    if isinstance(value, list):
        parts = [_without_lone_surrogates(v) for v in value]
        return [v for v, _ in parts], sum(n for _, n in parts)
    if isinstance(value, dict):
        total = 0
        clean: dict[Any, Any] = {}
        for key, inner in value.items():
            new_key, n_key = _without_lone_surrogates(key)
            new_value, n_value = _without_lone_surrogates(inner)
            clean[new_key] = new_value
            total += n_key + n_value
        return clean, total
    return value, 0


def _item_lines(text: str) -> list[int]:
    """The 1-based line on which each element of a valid top-level JSON array starts.

    Walks the array with ``json.JSONDecoder.raw_decode`` (the stdlib's own parser),
    since ``json.loads`` reports no positions for values it accepts.
    """
    decoder = json.JSONDecoder()
    index = _SPACE.match(text, 0).end() + 1  # type: ignore[union-attr]
    lines: list[int] = []
    line, counted = 1, 0
    while True:
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if index >= len(text) or text[index] == "]":
            return lines
        line += text.count("\n", counted, index)
        counted = index
        lines.append(line)
        _, index = decoder.raw_decode(text, index)
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if index < len(text) and text[index] == ",":
            index += 1


# --- rich text (CSL 1.0.2, "Rich Text Formatting" / CSL-JSON "HTML-like" markup) --------------

#: CSL's markup in a string variable -> the LaTeX written for it (``%s`` the content).
#: ``nocase`` is case protection, which BibTeX writes as braces.
_MARKUP: dict[tuple[str, str], str] = {
    ("i", ""): "\\textit{%s}",
    ("b", ""): "\\textbf{%s}",
    ("sub", ""): "$_{%s}$",
    ("sup", ""): "$^{%s}$",
    ("span", 'class="nocase"'): "{%s}",
    ("span", 'style="font-variant:small-caps;"'): "\\textsc{%s}",
}
#: Text that may sit in math mode unescaped, as in ``$_{2}$``.
_MATH_SAFE = re.compile(r"^[A-Za-z0-9+\-=(),. ]*$")
_TEXT_SCRIPT = {"$_{%s}$": "\\textsubscript{%s}", "$^{%s}$": "\\textsuperscript{%s}"}
_TAG = re.compile(r"<(/?)(i|b|sub|sup|span)((?:\s+[a-z-]+=\"[^\"]*\")?)\s*>")


def _markup_of(name: str, attributes: str) -> str | None:
    """The LaTeX pattern of a start tag, or None when it is no CSL markup."""
    attributes = " ".join(attributes.replace(": ", ":").split())
    if name == "span" and attributes.startswith('style="') and not attributes.endswith(';"'):
        attributes = attributes[:-1] + ';"'
    return _MARKUP.get((name, attributes))


def rich_text_latex(value: str, escape: Callable[[str], str]) -> str | None:
    """The LaTeX form of a CSL string holding rich-text markup, or None when it holds none.

    CSL 1.0.2 ("Rich Text Formatting") lets titles carry ``<i>``, ``<b>``, ``<sub>``,
    ``<sup>``, ``<span class="nocase">`` and ``<span style="font-variant:small-caps;">``;
    they become ``\\textit{}``, ``\\textbf{}``, ``$_{}$``, ``$^{}$`` (``\\textsubscript{}``
    / ``\\textsuperscript{}`` for text math mode would mangle), ``{}`` (case
    protection) and ``\\textsc{}``. Text between tags goes through ``escape`` (plain
    Unicode -> LaTeX that decodes back to it). A tag that is not CSL markup, or is not
    closed in order, is text. Never raises.
    """
    matches = list(_TAG.finditer(value))
    if not matches:
        return None
    # (pattern, parts) per open tag; the bottom entry is the whole value.
    stack: list[tuple[str, list[str], str]] = [("%s", [], "")]
    pos, used = 0, False
    for match in matches:
        stack[-1][1].append(escape(value[pos : match.start()]))
        pos = match.end()
        closing, name = match.group(1), match.group(2)
        pattern = None if closing else _markup_of(name, match.group(3).strip())
        if pattern is not None:
            stack.append((pattern, [], name))
        elif closing and len(stack) > 1 and stack[-1][2] == name:
            pattern, parts, _ = stack.pop()
            content = "".join(parts)
            if pattern in _TEXT_SCRIPT and not _MATH_SAFE.match(value_text(content)):
                pattern = _TEXT_SCRIPT[pattern]
            stack[-1][1].append(pattern.replace("%s", content, 1))
            used = True
        else:
            stack[-1][1].append(escape(match.group()))
    stack[-1][1].append(escape(value[pos:]))
    while len(stack) > 1:  # unclosed tags: their text stays, the tag is text
        _, parts, name = stack.pop()
        stack[-1][1].append(escape(f"<{name}>") + "".join(parts))
    return "".join(stack[0][1]) if used else None


def value_text(latex: str) -> str:
    """``latex`` without its backslashes and braces (only to test it for math safety)."""
    return re.sub(r"[\\{}]", "", latex)


#: LaTeX font commands with an argument -> the CSL markup written for them (the inverse
#: of :data:`_MARKUP`; ``\emph`` and ``\textsl`` are italics as pandoc writes them).
_COMMAND_MARKUP = {
    "textit": "<i>%s</i>",
    "emph": "<i>%s</i>",
    "textsl": "<i>%s</i>",
    "textbf": "<b>%s</b>",
    "textsc": '<span style="font-variant:small-caps;">%s</span>',
    "textsubscript": "<sub>%s</sub>",
    "textsuperscript": "<sup>%s</sup>",
}
#: Font switches that open a group (``{\it text}``) -> the CSL markup of the group.
_SWITCH_MARKUP = {
    "it": "<i>%s</i>",
    "em": "<i>%s</i>",
    "sl": "<i>%s</i>",
    "itshape": "<i>%s</i>",
    "bf": "<b>%s</b>",
    "bfseries": "<b>%s</b>",
    "sc": '<span style="font-variant:small-caps;">%s</span>',
    "scshape": '<span style="font-variant:small-caps;">%s</span>',
}
_SCRIPT = re.compile(r"\$([_^])(?:\{([^${}]*)\}|([^${}\\]))\$")
_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_SWITCH = re.compile(r"^\\([A-Za-z]+)(?![A-Za-z])\s*")


def _group_end(text: str, start: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start`` (``\\{`` not counted); -1
    when it is not closed."""
    depth, index = 0, start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def _math_end(text: str, start: int) -> int:
    """The index of the ``$`` closing the formula opened at ``start``; -1 if none."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == "$":
            return index
        index += 1
    return -1


def latex_rich_text(latex: str, decode: Callable[[str], str]) -> str | None:
    """The CSL rich text of a LaTeX title (the inverse of :func:`rich_text_latex`), or
    None when it holds no markup CSL has.

    ``\\textit{}``, ``\\emph{}``, ``{\\it }``, ``{\\em }`` become ``<i>``, ``\\textbf{}``
    and ``{\\bf }`` ``<b>``, ``\\textsc{}`` the small-caps span, ``$_{2}$`` /
    ``\\textsubscript{}`` ``<sub>``, ``$^{}$`` ``<sup>``, and a case-protecting group
    (``{BERT}``) ``<span class="nocase">``, as pandoc writes BibTeX titles as CSL-JSON.
    The text between is ``decode``d (LaTeX -> Unicode); a group that is a special
    character (``{\\"o}``) or a command's argument is text. Never raises.
    """
    if not any(char in latex for char in "{$\\"):
        return None
    out, used = _rich_parts(latex, decode)
    return out if used else None


#: The deepest nesting of groups made markup; deeper groups are text (a title of 1,000
#: nested braces ended the CSL-JSON export in RecursionError).
_RICH_DEPTH = 32


def _rich_parts(latex: str, decode: Callable[[str], str], depth: int = 0) -> tuple[str, bool]:
    """:func:`latex_rich_text` of ``latex``: (the text, whether any markup was made)."""
    if depth > _RICH_DEPTH:
        return decode(latex), False
    out: list[str] = []
    plain: list[str] = []
    used = False

    def flush() -> None:
        if plain:
            text = "".join(plain)
            lead = " " if text[:1].isspace() else ""
            trail = " " if text[-1:].isspace() and text.strip() else ""
            out.append(lead + decode(text) + trail)
            plain.clear()

    index = 0
    while index < len(latex):
        char = latex[index]
        script = _SCRIPT.match(latex, index) if char == "$" else None
        command = _COMMAND.match(latex, index) if char == "\\" else None
        if script is not None:
            flush()
            tag = "sub" if script.group(1) == "_" else "sup"
            inner = script.group(2) if script.group(2) is not None else script.group(3)
            out.append(f"<{tag}>{decode(inner)}</{tag}>")
            used, index = True, script.end()
        elif char == "$" and (close := _math_end(latex, index)) > 0:
            plain.append(latex[index : close + 1])  # a formula: text (math is no markup)
            index = close + 1
        elif command is not None:
            end = command.end()
            name = command.group(1)
            close = _group_end(latex, end) if latex[end : end + 1] == "{" else -1
            if name in _COMMAND_MARKUP and close > 0:
                flush()
                inner, _ = _rich_parts(latex[end + 1 : close], decode, depth + 1)
                out.append(_COMMAND_MARKUP[name].replace("%s", inner))
                used, index = True, close + 1
            else:  # a special character or another command: text, its argument too
                stop = close + 1 if close > 0 else end
                plain.append(latex[index:stop])
                index = stop
        elif char == "{" and (close := _group_end(latex, index)) > 0:
            inner_latex = latex[index + 1 : close]
            switch = _SWITCH.match(inner_latex)
            if switch is not None and switch.group(1) in _SWITCH_MARKUP:
                flush()
                inner, _ = _rich_parts(inner_latex[switch.end() :], decode, depth + 1)
                out.append(_SWITCH_MARKUP[switch.group(1)].replace("%s", inner))
                used = True
            elif inner_latex.startswith("\\") or not any(c.isalpha() for c in inner_latex):
                plain.append(latex[index : close + 1])  # {\"o}: a special character
            else:
                flush()
                inner, _ = _rich_parts(inner_latex, decode, depth + 1)
                out.append(f'<span class="nocase">{inner}</span>')
                used = True
            index = close + 1
        else:
            plain.append(char)
            index += 1
    flush()
    return "".join(out), used
