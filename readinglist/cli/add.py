"""``readinglist add``: add one paper by hand."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_tag
from readinglist.records import Person


def parse_author(text: str) -> Person:
    """Split an ``--author`` value into BibTeX's name parts.

    Follows BibTeX's three name forms ("Tame the BeaST", section 11): ``von Last,
    First``, ``von Last, Jr, First`` and ``First von Last``; the von part is the
    run of words starting in lower case before the last name. A name in braces
    (``{OpenAI}``) is a corporate name kept whole. bibtexparser implements the
    full rules (brace-aware), but only ``formats/bibtex.py`` may import it; a
    command-line name has no braces inside, so this covers it.
    """
    text = " ".join(text.split())
    if text.startswith("{") and text.endswith("}"):
        return Person(literal=text[1:-1].strip())
    parts = [p.strip() for p in text.split(",")]
    if len(parts) >= 2:
        last, given = parts[0], parts[-1]
        jr = ", ".join(parts[1:-1])
        von, family = _split_von(last.split())
        return Person(family=family, given=given, von=von, jr=jr)
    words = text.split()
    if len(words) == 1:
        return Person(family=words[0])
    first_lower = next((i for i, w in enumerate(words[:-1]) if w[:1].islower()), None)
    if first_lower is None:
        return Person(family=words[-1], given=" ".join(words[:-1]))
    von, family = _split_von(words[first_lower:])
    return Person(family=family, given=" ".join(words[:first_lower]), von=von)


def _split_von(words: list[str]) -> tuple[str, str]:
    """Split the words of ``von Last`` at the last lower-case word (BibTeX's rule)."""
    last_lower = max((i for i, w in enumerate(words[:-1]) if w[:1].islower()), default=-1)
    return " ".join(words[: last_lower + 1]), " ".join(words[last_lower + 1 :])


@click.command("add")
@click.option("--title", required=True, help="The paper's title.")
@click.option(
    "--author",
    "authors",
    multiple=True,
    metavar='"Family, Given"',
    help='An author, "Family, Given" or "Given Family" (repeatable, in order).',
)
@click.option(
    "--year",
    type=click.IntRange(1000, 2999),
    help="Year of publication (default: from a new- or old-style --arxiv id).",
)
@click.option("--venue", help="Conference or journal.")
@click.option("--doi", help="DOI: bare, doi:..., or a doi.org URL.")
@click.option("--arxiv", help="arXiv id: bare, arXiv:..., or an arxiv.org URL.")
@click.option("--url", help="A link to the paper.")
@click.option("--abstract", help="The abstract.")
@click.option(
    "--type",
    "entry_type",
    default="misc",
    show_default=True,
    help="BibTeX entry type (article, inproceedings, ...): a letter, then letters, digits, - or _.",
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Tag the paper (repeatable).",
    shell_complete=complete_tag,
)
@pass_app
def add_command(
    app: AppContext,
    title: str,
    authors: tuple[str, ...],
    year: int | None,
    venue: str | None,
    doi: str | None,
    arxiv: str | None,
    url: str | None,
    abstract: str | None,
    entry_type: str,
    tags: tuple[str, ...],
) -> None:
    """Add one paper by hand and print its citation key.

    The key is generated (family name, year, first title word); a paper you have
    already (same DOI, arXiv id, or title and year) is completed instead, and its
    key printed.

    \b
    Examples:
        readinglist add --title "Attention Is All You Need" --author "Vaswani, Ashish" --year 2017
        readinglist add --title "SPAR" --arxiv https://arxiv.org/abs/2601.01234v2 --tag rl
    """
    from readinglist import bounds, library, render
    from readinglist.errors import UsageError
    from readinglist.identifiers import arxiv_year_month, normalize_arxiv, normalize_doi
    from readinglist.records import PaperRecord

    if not title.strip():
        raise UsageError("--title cannot be empty")
    if doi is not None and normalize_doi(doi) is None:
        raise UsageError(f"--doi {doi[:80]!r} is not a DOI (expected 10.NNNN/...)")
    wrong_doi = bounds.doi_problem(normalize_doi(doi) or "")
    if wrong_doi is not None:
        raise UsageError(f"--doi: {wrong_doi}")
    if arxiv is not None and normalize_arxiv(arxiv) is None:
        raise UsageError(f"--arxiv {arxiv[:80]!r} is not an arXiv id (expected e.g. 2401.01234)")
    clean_tags = [library.check_tag_name(t) for t in tags]
    entry_type = bounds.check_entry_type(entry_type)
    # No --year: the year the arXiv id says the paper was submitted (not its month: a
    # merge would put it beside another year, that of the published version).
    submitted = arxiv_year_month(normalize_arxiv(arxiv)) if year is None else None
    year = submitted[0] if submitted is not None else year
    record = PaperRecord(
        entry_type=entry_type,
        title=" ".join(title.split()),
        authors=tuple(parse_author(a) for a in authors if a.strip()),
        year=year,
        venue=venue.strip() if venue and venue.strip() else None,
        doi=doi,
        arxiv=arxiv,
        url=url.strip() if url and url.strip() else None,
        abstract=abstract.strip() if abstract and abstract.strip() else None,
        latex_fields=False,
    )
    with app.session(create=True) as session:
        report = library.import_records(
            session, [record], source="<add>", fmt="manual", tags=clean_tags
        )
    for problem in report.problems:
        render.warn(problem.message)
    if report.added:
        render.echo(report.added[0])
        render.info(f"added {report.added[0]}")
        return
    if report.merged:
        key, filled = report.merged[0]
        render.echo(key)
        render.info(f"already in the library as {key}; added {', '.join(filled)}")
        return
    key = report.present[0]
    render.echo(key)
    render.info(f"already in the library as {key}; nothing changed")
