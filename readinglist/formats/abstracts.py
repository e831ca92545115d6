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
  titles and names are decoded to Unicode; a title with inline ``$...$`` math also keeps
  its raw LaTeX in ``fields["title"]``, as the BibTeX reader keeps a raw title, so the
  BibTeX exports write the math as written (:func:`_title_latex`).

What each paper gets besides its given fields:

* ``short_name``: the contribution the paper names, from the title
  (:func:`readinglist.naming.short_name_from_title`) or the abstract
  (:func:`readinglist.naming.contribution_names`). The abstract's other names are
  not kept: ``keywords`` holds only what the list gives (a ``Keywords:`` label), never
  a word the reader mined, which an export would present as the authors' (issue 15);
* a provisional title when the list gives none
  (:func:`readinglist.naming.provisional_title`), with ``title_provisional=True``;
* links sorted into ``code_url``, ``arxiv``, ``doi`` and ``url``
  (:func:`extract_links`); authors split into BibTeX name parts
  (:func:`parse_authors`);
* ``entry_type`` "inproceedings" when a venue is known, else "misc";
  ``citekey`` None (the library makes keys); ``line`` the block's first line.

All rules are heuristics on layout, phrasing and capitalisation, driven by word
lists (field terms, stop words, head nouns: :mod:`readinglist.naming.words`), never
by one input file. LaTeX is decoded by pylatexenc through
:func:`readinglist.text.latex_to_unicode`, but only for the short strings a record
gets (titles, names, descriptions): decoding whole abstracts costs seconds on a
600-paper list. No library reads this format, so the layout rules are hand-written;
Markdown is handled line by line rather than with markdown-it-py because pasted
lists mix Markdown with plain-text layouts.

Where the rules live: this module builds the records; the layout (paragraphs,
labels, header, blocks) is in ``_abstracts_blocks`` and ``_abstracts_labels``, the
header in ``_abstracts_header``, authors in ``_abstracts_authors``, links in
``_abstracts_links`` (DOI and arXiv rules: :mod:`readinglist.identifiers`); naming
the contribution from prose is not a format and lives in :mod:`readinglist.naming`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import NamedTuple

from readinglist.formats._abstracts_authors import parse_authors, parse_name
from readinglist.formats._abstracts_blocks import (
    LINK_GROUP,
    LIST_MARKER,
    Block,
    group_blocks,
    header_line,
    normalize_newlines,
    parse_paragraphs,
    split_header,
)
from readinglist.formats._abstracts_header import YEAR, parse_header, to_year
from readinglist.formats._abstracts_labels import PRESENTATION_TAGS, TAG_LABELS
from readinglist.formats._abstracts_links import Links, extract_links, find_urls
from readinglist.formats._abstracts_pubmed import looks_like_pubmed, read_pubmed
from readinglist.identifiers import arxiv_from_doi, normalize_arxiv, normalize_doi
from readinglist.naming import contribution_names, provisional_title, short_name_from_title
from readinglist.naming.markup import WHITESPACE, clean_inline, inline_latex
from readinglist.naming.titles import BRACKET_TAG
from readinglist.records import LIST_FIELD_PREFIX, PaperRecord, ParseProblem, ParseResult
from readinglist.text import fold

__all__ = [
    "Links",
    "extract_links",
    "parse_authors",
    "parse_header",
    "parse_name",
    "read",
]


#: A presentation tag written as a label before the title: "Oral: Diffusion Policies ...".
_TAG_PREFIX = re.compile(rf"^\s*({'|'.join(TAG_LABELS)})\s*:\s+(?=\S)", re.IGNORECASE)
_TRAILING_VENUE = re.compile(r"\s*[(\[]([^()\[\]]{2,40})[)\]]\s*$")


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
        (none for an empty text, a header alone, or text in which no paper is
        recognisable: no author line, label, link, list marker, heading or sentence
        of prose, such as ``/etc/hostname``); ``meta`` holds ``venue``,
        ``year`` and ``list_title`` read from the header; ``problems`` holds
        warnings for blocks that could not be read as a paper. Never raises.
    """
    text = normalize_newlines(text)
    if looks_like_pubmed(text):
        return ParseResult(records=_pubmed_records(text, venue, year, source), problems=[])
    lines = text.split("\n")
    parts = parse_paragraphs(lines)
    header_parts, paper_parts = split_header(parts)
    header_text = "\n".join(header_line(p) for p in header_parts)
    meta = parse_header(header_text) if header_text.strip() else {}
    overrides = {"venue": venue, "year": str(year) if year else None}
    records: list[PaperRecord] = []
    problems: list[ParseProblem] = []
    recognised = False
    for block in group_blocks(paper_parts):
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
        record = _build_record(block, meta, overrides, source, problems)
        records.append(record)
        recognised = recognised or _is_recognisable(block, record)
    if not recognised:
        records = []  # e.g. /etc/hostname's one word: no paper (the import exits 5)
    return ParseResult(records=records, problems=problems, meta=meta)


#: A sentence of prose: four or more words ending in ``.``, ``!`` or ``?`` (searching for
#: the last four is the same test). Words start at a word start and are taken whole
#: (possessive ``*+``), so a search is linear: ``{3,}`` backtracked over every word of a
#: paragraph without a full stop, quadratic (a 20 kB line took 23 s; issue 18).
_SENTENCE = re.compile(
    r"(?<![\w'’-])(?:[^\W\d_][\w'’-]*+[,;:]?\s+){3}[^\W\d_][\w'’)-]*+[.!?](?:\s|$)"
)


def _is_recognisable(block: Block, record: PaperRecord) -> bool:
    """Is this a paper rather than stray text? It has an author line, a label, a DOI,
    an arXiv id or a code link, a list marker, or an abstract with a sentence of prose
    (:data:`_SENTENCE`). A list with no such paper has no papers (issue 18)."""
    return bool(
        block.authors
        or block.labels
        or block.marked
        or record.doi
        or record.arxiv
        or record.code_url
        or (record.abstract and _SENTENCE.search(record.abstract))
    )


def _pubmed_records(
    text: str, venue: str | None, year: int | None, source: str
) -> list[PaperRecord]:
    """The papers of a PubMed list (:func:`read_pubmed`), named and with the overrides applied."""
    records = []
    for record in read_pubmed(text):
        try:
            named = _name_paper(record.title, record.abstract, [])
        except Exception:  # defensive: a heuristic bug must not lose a paper
            named = _Named(record.title or "Untitled", False, None, [])
        records.append(
            replace(
                record,
                short_name=named.short_name,
                keywords=tuple(named.keywords),
                venue=venue or record.venue,
                year=year or record.year,
            )
        )
    return records


def _build_record(
    block: Block,
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
    title, title_venue, latex = (
        _clean_title(block.title, extra) if block.title else (None, {}, None)
    )
    if latex is not None:
        extra["title"] = latex  # the title's raw LaTeX, as the BibTeX reader keeps it
    abstract = block.abstract or None
    links = _block_links(block)
    label_venue, label_year = _venue_label(block.labels.get("venue", ""))
    venue = overrides.get("venue") or label_venue or title_venue.get("venue") or meta.get("venue")
    year = to_year(
        overrides.get("year")
        or block.labels.get("year")
        or label_year
        or title_venue.get("year")
        or meta.get("year")
    )
    keywords = [k.strip() for k in re.split(r"[;,]", block.labels.get("keywords", "")) if k.strip()]
    try:
        named = _name_paper(title, abstract, keywords)
    except Exception as exc:  # defensive: a heuristic bug must not lose a paper
        problems.append(
            ParseProblem(
                f"internal error while naming this paper: {exc!r}", source, block.line, "warning"
            )
        )
        named = _Named(title or _fallback_title(abstract), title is None, None, keywords)
    return PaperRecord(
        entry_type="inproceedings" if venue else "misc",
        title=named.title or "Untitled",
        title_provisional=named.provisional,
        short_name=named.short_name,
        authors=parse_authors(block.authors) if block.authors else (),
        year=year,
        venue=venue or None,
        abstract=abstract,
        doi=links.doi,
        arxiv=links.arxiv,
        url=links.url,
        code_url=links.code_url,
        keywords=tuple(named.keywords),
        fields=extra,
        line=block.line,
        latex_fields=False,
    )


class _Named(NamedTuple):
    """What the naming gives a paper: its title, short name and keywords."""

    title: str
    provisional: bool
    short_name: str | None
    keywords: list[str]


def _name_paper(title: str | None, abstract: str | None, keywords: list[str]) -> _Named:
    """Name the paper: short name from the title or else the abstract; a title if it has none.

    ``keywords`` (the list's own, duplicates by :func:`readinglist.text.fold` dropped) are
    returned as given: the abstract's other contribution names are the reader's guesses,
    not the authors' keywords, and are not kept (issue 15). May raise on a heuristic bug;
    the caller turns that into a warning.
    """
    names = contribution_names(abstract) if abstract else []
    short_name = short_name_from_title(title) if title else None
    if short_name is None and names:
        short_name = names[0].name
    provisional = title is None
    if title is None:
        title = provisional_title(abstract or "", names)
    return _Named(title, provisional, short_name, _unique(keywords))


def _venue_label(value: str) -> tuple[str | None, str | None]:
    """Venue and year of a ``Venue:``/``Conference:`` label: ``"*aaai 2023*"`` gives
    ``("AAAI", "2023")``, ``"NeurIPS'23 (Oral)"`` ``("NeurIPS", "2023")``,
    ``"Proceedings of ACL"`` ``("Proceedings of ACL", None)``.

    The year (four digits or ``'23``) and a presentation tag in brackets ("(Oral)",
    :data:`PRESENTATION_TAGS`) or ending the label (OpenReview's "ICLR 2024 poster")
    are taken out of the name; a one-word name written
    all in lower case is an acronym typed carelessly and is upper-cased. Either part is
    None when the label has none.
    """
    text = clean_inline(value)
    year = to_year(text)
    short = re.search(r"['\u2018\u2019](\d\d)\b", text) if year is None else None
    if short:
        year = 2000 + int(short.group(1))
    name = YEAR.sub(" ", text) if short is None else text[: short.start()] + text[short.end() :]
    name = re.sub(
        r"[(\[]\s*([^()\[\]]*?)\s*[)\]]",
        lambda m: "" if m.group(1).lower() in PRESENTATION_TAGS | {""} else m.group(0),
        name,
    )
    words = name.split()
    # OpenReview writes the presentation after the year, unbracketed: "ICLR 2024 poster".
    while len(words) > 1 and words[-1].strip(",;:-").lower() in PRESENTATION_TAGS:
        words.pop()
    name = " ".join(words).strip(" ,;:-")
    if re.fullmatch(r"[a-z]{2,10}", name):
        name = name.upper()
    return name or None, str(year) if year else None


def _fallback_title(abstract: str | None) -> str:
    """The first ten words of ``abstract`` (cleaned), or "Untitled" (used only after an internal error)."""
    words = clean_inline(abstract or "").split()
    return " ".join(words[:10]).rstrip(".,;:") if words else "Untitled"


def _clean_title(raw: str, extra: dict[str, str]) -> tuple[str, dict[str, str], str | None]:
    """Clean a title line; return it with the venue/year of a trailing "(ICML 2024)" and
    the title's raw LaTeX when it holds math (:func:`_title_latex`, else None).

    List markers, link groups such as ``[[paper](...)] [[code](...)]`` and a
    presentation tag before or after the title ("[Spotlight]", "Oral: ", "(Oral)", moved to
    ``extra["list_presentation"]``) are removed; the links themselves are read from the raw line elsewhere.
    """
    text = LINK_GROUP.sub("", LIST_MARKER.sub("", raw.strip(), count=1))
    tag = BRACKET_TAG.match(text) or _TAG_PREFIX.match(text)
    if tag and tag.group(1).strip().lower() in PRESENTATION_TAGS:
        extra.setdefault(f"{LIST_FIELD_PREFIX}presentation", tag.group(1).strip())
        text = text[tag.end() :]
    before = dict(extra)
    title, venue = _title_end(clean_inline(text), extra)
    return title, venue, _title_latex(text, title, before) if "$" in text else None


def _title_end(title: str, extra: dict[str, str]) -> tuple[str, dict[str, str]]:
    """``title`` without a presentation tag and a venue at its end (moved to ``extra``
    and returned), and without a final period that ends no abbreviation."""
    venue: dict[str, str] = {}
    # At most one presentation tag and one venue at the end, in either order:
    # "Title [Spotlight]", "Title (Oral) (ICML 2024)", "Title (ICML 2024) [Oral]".
    for _ in range(2):
        trailing = _TRAILING_VENUE.search(title)
        if trailing is None:
            break
        group = trailing.group(1).strip()
        if group.lower() in PRESENTATION_TAGS and f"{LIST_FIELD_PREFIX}presentation" not in extra:
            extra[f"{LIST_FIELD_PREFIX}presentation"] = group
            title = title[: trailing.start()].rstrip()
            continue
        found = {k: v for k, v in parse_header(group).items() if k != "list_title"}
        if venue or "venue" not in found or "year" not in found:
            break
        venue = found
        title = title[: trailing.start()].rstrip()
    if title.endswith(".") and not re.search(r"\b(?:al|etc|[A-Z])\.$", title):
        title = title[:-1].rstrip()
    return title, venue


def _title_latex(text: str, title: str, extra: dict[str, str]) -> str | None:
    """The raw LaTeX of a title line ``text`` whose cleaned title is ``title``: its TeX
    source (:func:`~readinglist.naming.markup.inline_latex`) ended as the title is
    (:func:`_title_end`, on a copy of ``extra`` as it was), with its math kept
    (:func:`readinglist.formats.bibtex.encode.math_title`). The BibTeX reader keeps a
    title's raw form so (``fields["title"]``) and exports write it while it still decodes
    to the title; None when it has no inert math or does not decode to ``title``."""
    from readinglist.formats.bibtex.encode import math_title
    from readinglist.formats.bibtex.fields import decode_title

    source, _ = _title_end(WHITESPACE.sub(" ", inline_latex(text)).strip(), dict(extra))
    latex = math_title(source)
    return latex if latex is not None and decode_title(latex) == title else None


def _block_links(block: Block) -> Links:
    """The links of a block: its labelled ones first, then those in its title, abstract and
    fields; an arXiv DOI (``10.48550/arXiv.ID``) also gives the arXiv id."""
    labelled = Links()
    for key in ("code", "arxiv", "doi", "url"):
        value = block.labels.get(key)
        if not value:
            continue
        if key == "code":
            url = next(iter(find_urls(value)), None)
            labelled = labelled.merged(Links(code_url=url) if url else Links())
        elif key == "arxiv":
            labelled = labelled.merged(Links(arxiv=normalize_arxiv(value)))
        elif key == "doi":
            labelled = labelled.merged(Links(doi=normalize_doi(value)))
        else:
            labelled = labelled.merged(extract_links(value))
    text = "\n".join([block.title or "", block.abstract or "", *block.extra.values()])
    links = labelled.merged(extract_links(text))
    # arXiv's own DOI names the arXiv id too, as in the other readers (issue 15).
    return links.merged(Links(arxiv=arxiv_from_doi(links.doi)))


def _unique(items: Iterable[str]) -> list[str]:
    """``items`` in order without repeats (compared folded) and without empty ones."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = fold(item)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out
