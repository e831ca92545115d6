"""``readinglist import``: read files (or stdin) and add their papers to the library."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from readinglist import render
from readinglist.cli._app import AppContext, PositiveInt, pass_app
from readinglist.cli._complete import complete_path, complete_tag
from readinglist.cli._progress import progress_bar
from readinglist.errors import InvalidInput
from readinglist.text import counted

if TYPE_CHECKING:
    from readinglist.library import ImportReport
    from readinglist.pipelines.importing import ImportRun


@click.command("import")
@click.argument("paths", nargs=-1, metavar="PATH...", shell_complete=complete_path)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["auto", "abstracts", "bibtex", "ris", "csl-json", "markdown"]),
    default="auto",
    show_default=True,
    help="Input format; auto picks by extension, then by content.",
)
@click.option(
    "-t",
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Tag every imported paper (repeatable).",
    shell_complete=complete_tag,
)
@click.option("--venue", help="Set the venue of every paper (overrides the list's header).")
@click.option("--year", type=click.IntRange(1000, 2999), help="Set the year of every paper.")
@click.option(
    "--keywords-as-tags",
    is_flag=True,
    help="Also make each keyword of the file (BibTeX keywords, RIS KW, CSL keyword) a tag.",
)
@click.option("--strict", is_flag=True, help="Write nothing if any entry is rejected.")
@click.option("--no-merge", is_flag=True, help="Report duplicates instead of merging them.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print what the import would add, merge and reject; write nothing.",
)
@click.option(
    "--list-batches",
    is_flag=True,
    help="List past imports (batch id, time, format, counts, source) instead of importing.",
)
@click.option(
    "--undo",
    "undo",
    type=PositiveInt(),
    metavar="BATCH",
    help="Remove the papers import BATCH added, except those triaged, tagged or annotated since.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --undo: remove papers even when a kept .aux export (export --aux --keep) cites them.",
)
@click.option("--json", "as_json", is_flag=True, help="With --list-batches: print JSON.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also name each paper merged, re-keyed or with values kept in its merge history.",
)
@pass_app
def import_command(
    app: AppContext,
    paths: tuple[str, ...],
    fmt: str,
    tags: tuple[str, ...],
    venue: str | None,
    year: int | None,
    keywords_as_tags: bool,
    strict: bool,
    no_merge: bool,
    dry_run: bool,
    list_batches: bool,
    undo: int | None,
    force: bool,
    as_json: bool,
    verbose: bool,
) -> None:
    """Import papers from files or standard input (-).

    Reads lists of abstracts (one paper per paragraph, optional header such as
    "ICML 2026 Papers"), BibTeX/biblatex (.bib, .bib.gz), RIS, CSL-JSON and our own
    Markdown lists. Duplicates (same DOI, arXiv id, title, or abstract) are merged
    into the paper you have, never overwriting your title, status, tags or notes;
    near-identical abstracts and titles (a word changed, a sentence missing) merge
    when the evidence is strong, each merge says why, and weaker look-alikes are
    reported as candidates (see duplicates). A summary with counts goes to stderr,
    with the entries rejected (file:line, exit 5) and the look-alikes to check;
    --verbose names every paper merged or re-keyed. Importing the same data again
    changes nothing, the merge history included.

    \b
    Examples:
        readinglist import icml2026-abstracts.txt --tag icml
        readinglist import refs.bib other.ris
        readinglist import zotero.ris --keywords-as-tags
        readinglist import --dry-run icml2015.bib
        pbpaste | readinglist import - --venue NeurIPS --year 2025
        readinglist import --list-batches
        readinglist import --undo 3
    """
    if list_batches or undo is not None or as_json or force:
        _batches(app, paths, list_batches, undo, as_json, force)
        return
    if not paths:
        raise click.UsageError("give at least one PATH (or - for standard input)")

    from readinglist.pipelines import importing

    inputs = importing.open_inputs(paths, fmt)
    try:
        with app.session(create=True) as session:
            options = importing.ImportOptions(tags, not no_merge, venue, year, keywords_as_tags)
            run = importing.import_inputs(session, inputs, options, progress_bar)
            _refuse_under_strict(run, strict)
            _refuse_empty_creation(run, app.creating)
            if dry_run:
                raise _DryRun(run)
    except _DryRun as done:  # the transaction is rolled back: nothing is written
        _summarize(done.run, written=False, list_added=True, verbose=verbose)
        render.info("dry run: nothing written")
        return
    # Summaries only after the commit: a reader that goes away (`| head`) must not
    # roll the import back.
    _summarize(run, verbose=verbose)
    if run.rejected:
        raise InvalidInput(
            f"{counted(run.rejected, 'entry', 'entries')} rejected; "
            f"{run.kept} imported or merged (see above)"
        )


def _refuse_under_strict(run: ImportRun, strict: bool) -> None:
    """Raise InvalidInput (rolling the import back) when ``--strict`` and any entry was
    rejected, any line of bad UTF-8 was replaced (issue 18) or a NUL byte removed (issue 15)."""
    if not strict:
        return
    if run.rejected:
        _summarize(run, written=False)
        raise InvalidInput(
            f"{counted(run.rejected, 'entry', 'entries')} rejected; nothing imported (--strict)"
        )
    if run.replaced:
        _summarize(run, written=False)
        lines = counted(run.replaced, "line")
        raise InvalidInput(f"{lines} not valid UTF-8; nothing imported (--strict)")
    if run.cleaned:
        _summarize(run, written=False)
        lines = counted(run.cleaned, "line")
        raise InvalidInput(f"{lines} with a NUL byte; nothing imported (--strict)")


def _refuse_empty_creation(run: ImportRun, creating: bool) -> None:
    """Raise InvalidInput, rolling the import back, when it would create a library with
    nothing in it: every entry rejected on a library that did not exist. The library's
    creation is part of that transaction, so nothing is left (no file, no tables)."""
    if creating and run.rejected and not run.kept:
        _summarize(run, written=False)
        raise InvalidInput(
            f"{counted(run.rejected, 'entry', 'entries')} rejected; nothing imported, "
            "no library created"
        )


class _DryRun(Exception):
    """Raised inside the import's transaction to roll it back (``--dry-run``)."""

    def __init__(self, run: ImportRun) -> None:
        super().__init__("dry run")
        self.run = run


def _summarize(
    run: ImportRun, *, written: bool = True, list_added: bool = False, verbose: bool = False
) -> None:
    """Write each input's problems, what needs a look and one-line summary to stderr; with
    ``written`` False (a dry run, a refusal under ``--strict``) the summary says that
    nothing was written, and ``list_added`` names each paper it would add; ``verbose``
    names each merge, new key and merge-history entry too."""
    for item, report in run.reports:
        _summarize_one(item.source, item.fmt, report, written, list_added, verbose)


#: Look-alikes (possible duplicates, vetoed merges) named without --verbose, per input.
SHOWN_LOOKALIKES = 5


def _name_each_merge(report: ImportReport) -> None:
    """One line per merge, new key and merge-history entry of ``report`` (``--verbose``)."""
    for key, filled in report.merged:
        why = report.evidence.get(key)
        render.info(f"merged into {key}{f' ({why})' if why else ''}: {', '.join(filled)}")
    for old, new in report.rekeyed:
        render.info(f"{old} is now {new} (the old key remains an alias)")
    for key, names in report.conflicts:
        render.info(
            f"{key}: the other values of {', '.join(names)} are kept in its merge "
            f"history (readinglist merge --history {key})"
        )


def _summarize_one(
    source: str,
    fmt: str,
    report: ImportReport,
    written: bool = True,
    list_added: bool = False,
    verbose: bool = False,
) -> None:
    """Write the problems, the look-alikes and the one-line summary of one input to stderr;
    each merge, new key and merge-history entry with ``verbose``, else their counts.
    An import of a bibliography that found every paper already present, unchanged, says
    only its summary line: its warnings were said when the file was first imported (counted in that line;
    ``verbose`` writes them again)."""
    # (A Markdown list's warnings are about this sync's decisions: always said.)
    unchanged = _nothing_new(report) and not verbose and fmt != "markdown"
    for problem in report.problems:
        if problem.severity == "error":
            render.info(f"{problem}: rejected")
        elif not unchanged:
            render.warn(str(problem))
    if verbose:
        _name_each_merge(report)
    elif report.merged or report.rekeyed or report.conflicts:
        parts = [f"{counted(len(report.merged), 'paper')} merged"] if report.merged else []
        if report.rekeyed:
            parts.append(f"{counted(len(report.rekeyed), 'key')} changed (the old kept as aliases)")
        if report.conflicts:
            parts.append(
                f"{counted(len(report.conflicts), 'paper')} kept other values in the merge "
                "history (readinglist merge --history KEY)"
            )
        render.info(f"{source}: {', '.join(parts)}; --verbose names them")
    lookalikes = [
        *(
            f"{w}: possible duplicate of {k} ({y}); added as a new paper"
            for w, k, y in report.candidates
        ),
        *(f"{w}: looks like {k} but not merged: {y}" for w, k, y in report.vetoed),
        *(f"{w}: duplicate of {k}, not imported (--no-merge)" for w, k in report.skipped),
    ]
    shown = lookalikes if verbose else lookalikes[:SHOWN_LOOKALIKES]
    for line in shown:
        render.info(line)
    if len(shown) < len(lookalikes):
        more = counted(len(lookalikes) - len(shown), "more look-alike")
        render.info(f"{source}: {more} (--verbose)")
    if list_added:
        for key in report.added:
            render.info(f"would add {key}")
    if report.undated and fmt == "abstracts":
        # A pasted list without its conference's year (the NeurIPS poster list): its
        # citations would print "Even et al. ()" and bibtex warns "empty year" on each.
        # (A bibliography's entries without a year are its author's choice.)
        render.warn(
            f"{source}: {counted(len(report.undated), 'added paper')} without a year "
            f"(e.g. {report.undated[0]}): citations will show none; import the file "
            "again with --year (and --venue) to give them one"
        )
    state = "" if written else ", not written"
    warned = sum(problem.severity != "error" for problem in report.problems) if unchanged else 0
    said = f" ({counted(warned, 'warning')} as before: --verbose)" if warned else ""
    render.info(
        f"{source} ({fmt}){state}: {len(report.added)} added, {len(report.merged)} merged, "
        f"{len(report.present) + len(report.skipped)} already present, {report.rejected} "
        f"rejected{said}"
    )


def _nothing_new(report: ImportReport) -> bool:
    """True when ``report`` added, merged, re-keyed and rejected nothing: every paper of
    the input was already in the library as it is."""
    return not (
        report.added
        or report.merged
        or report.rekeyed
        or report.conflicts
        or report.rejected
        or report.candidates
        or report.vetoed
    ) and bool(report.present)


# --- batches: --list-batches and --undo -------------------------------------------------------


def _batches(
    app: AppContext,
    paths: tuple[str, ...],
    list_batches: bool,
    undo: int | None,
    as_json: bool,
    force: bool = False,
) -> None:
    """Run ``import --list-batches [--json]`` or ``import --undo BATCH [--force]``."""
    if (
        paths
        or (list_batches and undo is not None)
        or (as_json and not list_batches)
        or (force and undo is None)
    ):
        raise click.UsageError(
            "use --list-batches [--json] or --undo BATCH [--force] alone, without PATHs"
        )
    from readinglist import batches as import_batches

    if list_batches:
        with app.session(write=False) as session:
            batches = import_batches.list_batches(session)
        if as_json:
            render.echo_json([{**asdict(b), "started": render.iso(b.started)} for b in batches])
            return
        if not batches:
            render.info("no imports yet")
            return
        render.echo(
            f"{'BATCH':>5}  {'STARTED':<20}  {'FORMAT':<9}  {'ADDED':>6}  {'MERGED':>6}  "
            f"{'REJECTED':>8}  {'PAPERS':>6}  SOURCE"
        )
        for b in batches:
            render.echo(
                f"{b.id:>5}  {render.iso(b.started) or '':<20}  {b.format:<9}  {b.added:>6}  "
                f"{b.merged:>6}  {b.rejected:>8}  {b.papers:>6}  {b.source}"
            )
        return
    assert undo is not None
    with app.session() as session:
        report = import_batches.undo_batch(session, undo, spare=None if force else _cited)
    for key, reasons in report.kept:
        render.info(f"kept {key}: {', '.join(reasons)}")
    batch = report.batch
    summary = (
        f"undid import {batch.id} ({batch.source}): removed {counted(len(report.removed), 'paper')}"
    )
    if batch.format == "resolve":  # completions of papers you had, put back as they were
        for change in report.removed:
            render.info(f"restored {change}")
        count = len(report.removed)
        summary = f"undid resolve {batch.id} ({batch.source}): restored {counted(count, 'paper')}"
    if batch.format != "resolve":
        for key in report.restored:
            render.info(f"restored {key} (the preprint as it was before the published version)")
        if report.restored:
            summary += f", restored {counted(len(report.restored), 'preprint')}"
    if report.kept:
        summary += f", kept {len(report.kept)} you have worked on since"
    merged = batch.merged - len(report.restored)
    if merged > 0 and batch.format != "resolve":
        summary += f"; not undone: {merged} merged into papers you had before"
    render.info(summary)


def _cited(session: Any, keys: dict[str, str]) -> None:
    """Refuse (Conflict, exit 4) an undo that would remove ``keys`` (citation keys and
    aliases, each mapped to its paper's key) a kept ``.aux``
    export of this machine cites: its document would lose those references at the next
    refresh. Names each paper and profile; ``--force`` removes them anyway."""
    from readinglist.errors import Conflict
    from readinglist.pipelines.exporting import citing_profiles

    citing = citing_profiles(session, keys)
    if citing:
        named = "; ".join(
            f"{', '.join(_as_cited(keys, key) for key in cited)} (cited by kept export {name!r})"
            for name, cited in citing
        )
        raise Conflict(
            f"not undone: kept exports cite papers or keys of this import: {named}; nothing "
            "removed "
            "(--force removes them anyway; the next refresh of those exports warns of the "
            "missing keys)"
        )


def _as_cited(keys: dict[str, str], cited: str) -> str:
    """A paper's key as a refusal names it: ``k1 (cited as k2)`` for an alias."""
    return keys[cited] if keys[cited] == cited else f"{keys[cited]} (cited as {cited})"
