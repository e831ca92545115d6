"""``readinglist tag ...``: add, remove, list, rename and merge tags."""

from __future__ import annotations

import click

from readinglist.cli._app import AppContext, json_option, pass_app
from readinglist.cli._complete import complete_tag
from readinglist.cli._query import QUERY_OPTION_HELP
from readinglist.cli.mark import (
    json_changes_option,
    query_option,
    refs_argument,
    report_changes,
)
from readinglist.text import counted


@click.group("tag")
def tag_group() -> None:
    """Add, remove, list, rename and merge tags.

    Tags are case-insensitive (the first spelling is kept); hierarchical names
    such as `ml/rl` are allowed (`tag:ml` finds them too). Commas, spaces, braces,
    quotes, backslashes and % are not: BibTeX keywords and queries could not carry them.

    \b
    Examples:
        readinglist tag add ml/rl spar2026 correctionplanner2026
        readinglist tag list
    """


@tag_group.command("add", epilog=QUERY_OPTION_HELP)
@click.argument("tag", metavar="TAG", shell_complete=complete_tag)
@refs_argument
@query_option
@json_changes_option
@pass_app
def tag_add_command(
    app: AppContext, tag: str, refs: tuple[str, ...], query_text: str | None, as_json: bool
) -> None:
    """Add TAG to papers (created when new).

    With several REFs of which one is unknown nothing changes (exit 3).

    \b
    Examples:
        readinglist tag add thesis spar2026 safeseek2026
        readinglist tag add icml -q year:2026
    """
    # Core rows on a Connection (issue 17: neither the ORM nor the models are imported).
    from readinglist.library.refs import target_rows
    from readinglist.library.tags import check_tag_name, find_tag_id, tag_name, tag_papers

    with app.connection() as connection:
        name = check_tag_name(tag)
        targets = target_rows(connection, refs, query_text)
        changed = set(tag_papers(connection, [t.id for t in targets], [name]))
        tag_id = find_tag_id(connection, name)
        keys = [t.citekey for t in targets]
        changed_keys = [t.citekey for t in targets if t.id in changed]
        shown = tag_name(connection, tag_id) if tag_id is not None else name
    report_changes(f"tagged {{n}} {shown}", keys, changed_keys, as_json, f"already {shown}")


@tag_group.command("remove", epilog=QUERY_OPTION_HELP)
@click.argument("tag", metavar="TAG", shell_complete=complete_tag)
@refs_argument
@query_option
@json_changes_option
@pass_app
def tag_remove_command(
    app: AppContext, tag: str, refs: tuple[str, ...], query_text: str | None, as_json: bool
) -> None:
    """Remove TAG from papers; a tag left on no paper disappears.

    An unknown TAG or REF changes nothing (exit 3).

    \b
    Examples:
        readinglist tag remove maybe spar2026
        readinglist tag remove maybe -q status:read
    """
    from readinglist import library

    with app.session() as session:
        shown = library.tags_named(session, [tag])[0].name
        papers = library.resolve_targets(session, refs, query_text)
        changed = library.remove_tags(session, papers, [tag])
        keys = [p.citekey for p in papers]
        changed_keys = [p.citekey for p in changed]
    report_changes(f"untagged {{n}} {shown}", keys, changed_keys, as_json, f"without {shown}")


@tag_group.command("list")
@json_option
@pass_app
def tag_list_command(app: AppContext, as_json: bool) -> None:
    """List the tags in use with the number of papers carrying each.

    JSON: a list of {"tag": name, "count": n}, ordered by name (case-insensitive).

    \b
    Examples:
        readinglist tag list
        readinglist tag list --json
    """
    from readinglist import library, render

    with app.session(write=False) as session:
        counts = library.tag_counts(session)
    if as_json:
        render.echo_json([{"tag": name, "count": count} for name, count in counts])
        return
    width = max((len(name) for name, _ in counts), default=0)
    for name, count in counts:
        render.echo(f"{name.ljust(width)}  {count}")


@tag_group.command("rename")
@click.argument("old", metavar="OLD", shell_complete=complete_tag)
@click.argument("new", metavar="NEW")
@pass_app
def tag_rename_command(app: AppContext, old: str, new: str) -> None:
    """Rename the tag OLD to NEW on every paper.

    An unknown OLD exits 3; a NEW that is another existing tag exits 4 (use
    `tag merge` to join two tags). Changing only the case is fine.

    \b
    Examples:
        readinglist tag rename ml machine-learning
        readinglist tag rename rl RL
    """
    from readinglist import library, render

    with app.session() as session:
        before, count = library.rename_tag(session, old, new)
    render.info(f"renamed tag {before} to {new.strip()} ({counted(count, 'paper')})")


@tag_group.command("merge")
@click.argument(
    "tags", nargs=-1, required=True, metavar="SOURCE... TARGET", shell_complete=complete_tag
)
@pass_app
def tag_merge_command(app: AppContext, tags: tuple[str, ...]) -> None:
    """Merge the tags SOURCE... into TARGET: their papers get TARGET, the sources go.

    TARGET is created when it does not exist. An unknown SOURCE changes nothing
    (exit 3).

    \b
    Examples:
        readinglist tag merge ml machine_learning machine-learning
    """
    from readinglist import library, render
    from readinglist.errors import UsageError

    if len(tags) < 2:
        raise UsageError("give at least one SOURCE tag and the TARGET tag")
    *sources, target = tags
    with app.session() as session:
        name, count = library.merge_tags(session, sources, target)
    render.info(f"merged {', '.join(sources)} into {name} ({counted(count, 'paper')})")
