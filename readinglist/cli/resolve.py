"""``readinglist resolve``: complete provisional or incomplete papers from a source (issue 13)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from readinglist.cli._app import AppContext, pass_app
from readinglist.cli._complete import complete_path
from readinglist.cli._query import QUERY_HELP, QueryCommand, join_query, query_argument
from readinglist.errors import UsageError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from readinglist.library.resolving import Found, ResolveReport
    from readinglist.records import PaperRecord
    from readinglist.sources import Finder
    from readinglist.sources.http import HttpClient


class _DryRun(Exception):
    """Raised inside the transaction of a dry run, so that it is rolled back."""


@click.command("resolve", cls=QueryCommand, epilog=QUERY_HELP)
@query_argument
@click.option(
    "--from",
    "sources",
    multiple=True,
    metavar="FILE",
    shell_complete=complete_path,
    help="Complete from this bibliography (BibTeX, RIS, CSL-JSON; repeatable).",
)
@click.option(
    "--online",
    is_flag=True,
    help="Ask online sources (arXiv, DBLP, Crossref); sends requests, see README.",
)
@click.option(
    "--service",
    "services",
    multiple=True,
    metavar="NAME",
    help="With --online: ask only this service (arxiv, dblp, crossref; repeatable).",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["auto", "bibtex", "ris", "csl-json"]),
    default="auto",
    show_default=True,
    help="Format of the --from files; auto picks by extension, then by content.",
)
@click.option("--dry-run", is_flag=True, help="Show each proposed completion; write nothing.")
@pass_app
def resolve_command(
    app: AppContext,
    query: tuple[str, ...],
    sources: tuple[str, ...],
    online: bool,
    services: tuple[str, ...],
    fmt: str,
    dry_run: bool,
) -> None:
    """Complete provisional or incomplete papers from a bibliography or online.

    Among the papers QUERY selects (all without one), those with a made-up title, no
    author or no DOI/arXiv id are matched, by the import's rules, against the records
    of the --from files or what arXiv, DBLP and Crossref find (--online). A match fills
    what the paper lacks and gives it a real citation key (the old one stays an alias);
    your title, status, priority, tags and notes are kept. No paper is added. The
    changes are one import batch (undo: import --undo BATCH). An online source that
    cannot be reached or answers an error leaves the library unchanged (exit 6).

    \b
    Examples:
        readinglist resolve --from pmlr-v37-icml2015.bib
        readinglist resolve venue:ICML year:2015 --from icml.bib --dry-run
        READINGLIST_CONTACT=me@example.org readinglist resolve is:provisional --online
        readinglist resolve tag:thesis --online --service arxiv
    """
    if not sources and not online:
        raise click.UsageError("give --from FILE... or --online")
    if services and not online:
        raise click.UsageError("--service needs --online")
    records = _read_sources(sources, fmt) if sources else []
    text = join_query(query)
    found = _search_online(app, text, records, sources, services) if online else None
    try:
        with app.session() as session:
            report = _run(session, text, records, sources, found)
            _show(report, dry_run)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass


def _search_online(
    app: AppContext,
    text: str,
    records: list[PaperRecord],
    sources: tuple[str, ...],
    services: tuple[str, ...],
) -> list[Found]:
    """Ask the online services about the papers that need it, with no transaction open
    while they answer (issue 13: a ``mark`` from another terminal is never locked out).

    The papers are read in a short transaction (the --from completions are applied
    there and rolled back, so only what the files leave incomplete is asked about);
    the answers are written later by :func:`_run`, in one short transaction.
    """
    from readinglist.library import resolving

    with app.session(write=False) as session:
        papers = resolving.select_incomplete(session, text)
        if records and papers:
            with session.begin_nested() as attempt:
                resolving.resolve_records(session, papers, records, source="")
                papers = [p for p in papers if resolving.needs_completion(p)]
                pending = resolving.read_pending(papers)
                attempt.rollback()
        else:
            pending = resolving.read_pending(papers)
    if not pending:
        return []
    finder, client = _finder(services)
    try:
        found = resolving.search_online(pending, finder)
    finally:
        client.close()
    _say_unasked(finder.unasked, len(pending), finder.services)
    return found


def _say_unasked(unasked: int, pending: int, services: tuple[str, ...]) -> None:
    """Say how many papers no chosen service could be asked about; when that is every paper
    nothing was asked at all, which is no answer: SourceUnavailable (exit 6), as for a
    service that cannot be reached, never "N not found"."""
    from readinglist import render
    from readinglist.errors import SourceUnavailable
    from readinglist.text import counted

    if not unasked:
        return
    why = (
        f"{counted(unasked, 'paper')} could not be asked: only a made-up title (from the "
        f"abstract) and no DOI or arXiv id, and none of {', '.join(services)} searches "
        "abstracts (arXiv does)"
    )
    if unasked == pending:
        raise SourceUnavailable(f"{why}; nothing was asked, nothing changed")
    render.warn(why)


def _run(
    session: Session,
    text: str,
    records: list[PaperRecord],
    sources: tuple[str, ...],
    found: list[Found] | None,
) -> ResolveReport:
    """Select the papers and complete them from the files, then from what the online
    services ``found`` (None: not asked)."""
    from readinglist.library import resolving

    papers = resolving.select_incomplete(session, text)
    if not papers and text.strip():
        from readinglist import library
        from readinglist.cli._query import warn_if_nothing_matched

        if not library.list_papers(session, text, limit=1):
            # `resolve spar2026`: free text, not a key (fresh user: "0 of 0" and no hint).
            warn_if_nothing_matched(session, text)
    report = resolving.ResolveReport(selected=len(papers))
    if records:
        report = resolving.resolve_records(
            session, papers, records, source="resolve --from " + " ".join(sources)
        )
        papers = [p for p in papers if resolving.needs_completion(p)]
    if found is not None and papers:
        more = resolving.complete_found(session, papers, found, source="resolve --online")
        done = {c.key for c in report.completions}
        report.completions += more.completions
        report.unmatched = [k for k in more.unmatched if k not in done]
        report.batch_id = report.batch_id or more.batch_id
    return report


def _finder(services: tuple[str, ...]) -> tuple[Finder, HttpClient]:
    from readinglist import config, render, sources

    try:
        chosen = sources.service_names(services) if services else sources.SERVICES
    except ValueError as exc:
        raise UsageError(
            f"unknown service {exc} (choose from {', '.join(s.lower() for s in sources.SERVICES)})"
        ) from None
    contact = config.contact_address()
    if contact is None:
        render.warn(
            "READINGLIST_CONTACT is not set: online sources ask for a contact e-mail address "
            "(see README, Online sources)"
        )
    client = sources.HttpClient(contact, config.cache_directory("http"))
    return sources.Finder(client, chosen, contact), client


def _read_sources(paths: tuple[str, ...], fmt: str) -> list[PaperRecord]:
    """Read every --from file whole (as ``import`` reads it), held to the import's limits
    (:mod:`readinglist.pipelines.limits`); its problems are warnings (an entry a reader
    or the limits reject cannot complete anything)."""
    from readinglist import render
    from readinglist.pipelines import importing, limits

    records: list[PaperRecord] = []
    for item in importing.open_inputs(paths, fmt):
        result = item.parsed
        if result is None:  # a format read in pieces by import: read it whole here
            data = b"".join(item.byte_chunks())
            _, result = importing.parse_whole(item.source, data, item.fmt)
        problems = list(result.problems)
        records.extend(limits.check_all(result.records, item.source, problems))
        for problem in problems:
            render.warn(str(problem))
    return records


def _show(report: ResolveReport, dry_run: bool) -> None:
    """Each completion (stdout: key, source, evidence, what it fills), then a summary."""
    from readinglist import render
    from readinglist.text import counted

    verb = "would fill" if dry_run else "filled"
    for c in report.completions:
        if not c.filled:
            continue
        key = f"{c.key} -> {c.new_key}" if c.new_key else c.key
        render.echo(f"{key}: {c.source} ({c.evidence}); {verb} {', '.join(c.filled)}")
    summary = (
        f"{report.completed} of {counted(report.selected, 'incomplete paper')} "
        f"{'would be ' if dry_run else ''}completed, {len(report.unmatched)} not found"
    )
    if dry_run:
        summary += "; nothing written (--dry-run)"
    elif report.batch_id is not None and report.completed:
        summary += f" (import batch {report.batch_id})"
    render.info(summary)
