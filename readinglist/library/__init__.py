"""Domain operations on a reading list. Every function takes a Session (or a Core
Connection, where it says so) and never commits.

The caller (a CLI command) owns the transaction (``db.session_scope``,
``db.connection_scope``), so an import, a merge or a batch of marks is
all-or-nothing. The library never parses text (``formats`` do) and never prints
(``render`` does). This package re-exports its public names, so callers write
``library.resolve(...)``; each module is imported when one of its names is first
used, after :mod:`.hooks` (the ORM Session's flush hooks that keep the search text
and ``source_intact`` current). The commands a person types (``show``, ``mark``,
``priority``, ``tag add``, ``note add -m``, ``list QUERY``) import the Core functions
they call from their modules (``readinglist.library.refs`` ...), on a Connection:
neither ``sqlalchemy.orm`` nor ``readinglist.models`` is imported then (issue 17).
The modules of floors 0-3 and ``marks`` import no ORM at import time.

Layout: one module per domain noun, in floors; a module imports only modules on
floors below its own (``tests/test_architecture.py`` holds the table)::

    readinglist/library/
      _sql.py       floor 0  bulk SQL and every dialect branch: executemany with bind
                             processors, the SQLite FTS trigger, ON CONFLICT DO NOTHING,
                             the PostgreSQL advisory lock. Only SQLAlchemy Core, tables.
      readers.py    floor 1  the readers' rows: made on a first write, looked up, counted.
      rows.py       floor 1  rows <-> records: to_record, iter_records, load_papers,
                             people rows, the bibliographic digest.
      listing_rows.py / bibtex_rows.py
                    floor 2  records streamed for listings and text exports / for a
                             BibTeX export (its @string context, intact source text).
      marks.py      floor 1  status and priority: single-column Core writes.
      search.py     floor 2  the search text: derived and written here only (Core).
      hooks.py      floor 3  the ORM Session's flush hooks (search text, source_intact).
      refs.py       floor 3  REFs and queries resolved to papers; key/tag completion.
      tags.py       floor 3  tag names, links, rename, merge, counts.
      notes.py      floor 3  notes added, edited, deleted.
      listing.py    floor 3  read-only views: list, stats, triage queue, history.
      agreement.py  floor 3  two readers compared (Cohen's kappa, conflicts); what the
                             other readers decided about a paper (triage, show).
      profiles.py   floor 0  export profiles (kept exports): stored, listed, and which
                             kinds of change reach each. Only Core on export_profiles.
      merging.py    floor 4  the one merge rule (plan_merge): what a paper takes from
                             another record of it; the merge history; real keys.
      completing.py floor 4.5 stored papers completed from other records of them, many
                             at once in a fixed number of statements (complete_papers).
      matching.py   floor 5  an import's decisions: duplicate candidates (exact, and
                             tolerant: near-identical abstracts/titles), vetoes, free keys.
      papers.py     floor 5  status, priority, title, edit, rekey, merge, delete.
      duplicates.py floor 6  match_records (resolve), duplicate pairs, not-duplicate.
      versioning.py floor 6  preprints an import may supersede, candidates' merge
                             history, versions recorded for show, undo snapshots.
      importing.py  floor 6  Importer / import_records (one batch).
      markdown_sync.py floor 7  sync_markdown: a Markdown list's status and tags synced back.
      resolving.py  floor 7  ``resolve``: incomplete papers completed from a file or online.

Below the package: ``tables`` (Core), ``models`` (ORM classes), ``records`` (interchange types and the
field/priority vocabularies), ``prepare``, ``dedupe``, ``versions``, ``citekeys``, ``query``,
``text``, ``identifiers``. Above it: ``cli``, ``maintenance``, ``triage``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from readinglist._lazy import lazy_exports

if TYPE_CHECKING:
    from readinglist.library._sql import (
        CHUNK,
        IMPORT_LOCK,
        insert_or_ignore,
    )
    from readinglist.library.bibtex_rows import bibtex_context, iter_bibtex_records
    from readinglist.library.completing import complete_paper
    from readinglist.library.duplicates import (
        Match,
        Pair,
        duplicate_pairs,
        match_records,
        not_duplicate,
    )
    from readinglist.library.importing import (
        Importer,
        ImportReport,
        import_records,
    )
    from readinglist.library.listing import (
        all_papers,
        count_papers,
        history,
        list_papers,
        paper_stats,
        select_keys,
        triage_batches,
        triage_queue,
    )
    from readinglist.library.markdown_sync import sync_markdown
    from readinglist.library.marks import (
        priority_code,
        write_priority,
        write_status,
    )
    from readinglist.library.merging import (
        adopt_source_keys,
        are_not_duplicates,
        conflicts_of,
        take_conflict,
    )
    from readinglist.library.notes import (
        add_note,
        delete_notes,
        get_note,
        get_notes,
        notes_of,
        update_note,
    )
    from readinglist.library.papers import (
        delete_papers,
        merge_papers,
        rekey,
        set_priority,
        set_status,
        set_title,
        touch,
        update_paper,
    )
    from readinglist.library.refs import (
        TARGET_COLUMNS,
        find_paper,
        find_paper_id,
        key_taken,
        keys_in_query,
        papers_for_keys,
        resolve,
        resolve_many,
        resolve_targets,
        select_ids,
        select_ids_and_keys,
        select_papers,
        target_rows,
    )
    from readinglist.library.rows import (
        PERSON_CACHE,
        RECORD_CHUNK,
        bibliographic_digest,
        iter_records,
        load_papers,
        load_papers_for_listing,
        person_key,
        to_record,
    )
    from readinglist.library.search import (
        paper_search_text,
        refresh_search_text,
        search_text_for,
    )
    from readinglist.library.snapshots import undo_completions
    from readinglist.library.tags import (
        add_tags,
        check_tag_name,
        delete_unused_tags,
        ensure_tags,
        find_tag,
        merge_tags,
        remove_tags,
        rename_tag,
        tag_counts,
        tags_named,
    )
    from readinglist.prepare import (
        Prepared,
        normalize_record,
        prepare_record,
    )
    from readinglist.records import (
        EDITABLE,
        FILLABLE,
        PRIORITY_LEVELS,
    )

#: Where each public name lives; imported on first use (PEP 562), so a command loads
#: only the modules it calls (issue 17: `show` needs no importer, matcher or rapidfuzz).
_HOMES: dict[str, str] = {
    "CHUNK": "readinglist.library._sql",
    "EDITABLE": "readinglist.records",
    "FILLABLE": "readinglist.records",
    "IMPORT_LOCK": "readinglist.library._sql",
    "ImportReport": "readinglist.library.importing",
    "Importer": "readinglist.library.importing",
    "Match": "readinglist.library.duplicates",
    "PERSON_CACHE": "readinglist.library.rows",
    "PRIORITY_LEVELS": "readinglist.records",
    "Pair": "readinglist.library.duplicates",
    "Prepared": "readinglist.prepare",
    "RECORD_CHUNK": "readinglist.library.rows",
    "TARGET_COLUMNS": "readinglist.library.refs",
    "add_note": "readinglist.library.notes",
    "add_tags": "readinglist.library.tags",
    "adopt_source_keys": "readinglist.library.merging",
    "all_papers": "readinglist.library.listing",
    "are_not_duplicates": "readinglist.library.merging",
    "bibliographic_digest": "readinglist.library.rows",
    "bibtex_context": "readinglist.library.bibtex_rows",
    "check_tag_name": "readinglist.library.tags",
    "complete_paper": "readinglist.library.completing",
    "conflicts_of": "readinglist.library.merging",
    "count_papers": "readinglist.library.listing",
    "delete_notes": "readinglist.library.notes",
    "delete_papers": "readinglist.library.papers",
    "delete_unused_tags": "readinglist.library.tags",
    "duplicate_pairs": "readinglist.library.duplicates",
    "ensure_tags": "readinglist.library.tags",
    "find_paper": "readinglist.library.refs",
    "find_paper_id": "readinglist.library.refs",
    "find_tag": "readinglist.library.tags",
    "get_note": "readinglist.library.notes",
    "get_notes": "readinglist.library.notes",
    "history": "readinglist.library.listing",
    "import_records": "readinglist.library.importing",
    "insert_or_ignore": "readinglist.library._sql",
    "iter_bibtex_records": "readinglist.library.bibtex_rows",
    "iter_records": "readinglist.library.rows",
    "key_taken": "readinglist.library.refs",
    "keys_in_query": "readinglist.library.refs",
    "list_papers": "readinglist.library.listing",
    "load_papers": "readinglist.library.rows",
    "load_papers_for_listing": "readinglist.library.rows",
    "match_records": "readinglist.library.duplicates",
    "merge_papers": "readinglist.library.papers",
    "merge_tags": "readinglist.library.tags",
    "normalize_record": "readinglist.prepare",
    "not_duplicate": "readinglist.library.duplicates",
    "notes_of": "readinglist.library.notes",
    "paper_search_text": "readinglist.library.search",
    "paper_stats": "readinglist.library.listing",
    "papers_for_keys": "readinglist.library.refs",
    "person_key": "readinglist.library.rows",
    "priority_code": "readinglist.library.marks",
    "prepare_record": "readinglist.prepare",
    "refresh_search_text": "readinglist.library.search",
    "rekey": "readinglist.library.papers",
    "remove_tags": "readinglist.library.tags",
    "rename_tag": "readinglist.library.tags",
    "resolve": "readinglist.library.refs",
    "resolve_many": "readinglist.library.refs",
    "resolve_targets": "readinglist.library.refs",
    "search_text_for": "readinglist.library.search",
    "select_ids": "readinglist.library.refs",
    "select_ids_and_keys": "readinglist.library.refs",
    "select_keys": "readinglist.library.listing",
    "select_papers": "readinglist.library.refs",
    "set_priority": "readinglist.library.papers",
    "set_status": "readinglist.library.papers",
    "set_title": "readinglist.library.papers",
    "sync_markdown": "readinglist.library.markdown_sync",
    "tag_counts": "readinglist.library.tags",
    "tags_named": "readinglist.library.tags",
    "take_conflict": "readinglist.library.merging",
    "target_rows": "readinglist.library.refs",
    "to_record": "readinglist.library.rows",
    "touch": "readinglist.library.papers",
    "triage_batches": "readinglist.library.listing",
    "triage_queue": "readinglist.library.listing",
    "undo_completions": "readinglist.library.snapshots",
    "update_note": "readinglist.library.notes",
    "update_paper": "readinglist.library.papers",
    "write_priority": "readinglist.library.marks",
    "write_status": "readinglist.library.marks",
}


# The flush hooks must be registered before any Session of ours flushes: imported
# before the first name is served, whatever the caller uses.
__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), first="readinglist.library.hooks")

__all__ = [
    "CHUNK",
    "EDITABLE",
    "FILLABLE",
    "IMPORT_LOCK",
    "PERSON_CACHE",
    "PRIORITY_LEVELS",
    "RECORD_CHUNK",
    "TARGET_COLUMNS",
    "ImportReport",
    "Importer",
    "Match",
    "Pair",
    "Prepared",
    "add_note",
    "add_tags",
    "adopt_source_keys",
    "all_papers",
    "are_not_duplicates",
    "bibliographic_digest",
    "bibtex_context",
    "check_tag_name",
    "complete_paper",
    "conflicts_of",
    "count_papers",
    "delete_notes",
    "delete_papers",
    "delete_unused_tags",
    "duplicate_pairs",
    "ensure_tags",
    "find_paper",
    "find_paper_id",
    "find_tag",
    "get_note",
    "get_notes",
    "history",
    "import_records",
    "insert_or_ignore",
    "iter_bibtex_records",
    "iter_records",
    "key_taken",
    "keys_in_query",
    "list_papers",
    "load_papers",
    "load_papers_for_listing",
    "match_records",
    "merge_papers",
    "merge_tags",
    "normalize_record",
    "not_duplicate",
    "notes_of",
    "paper_search_text",
    "paper_stats",
    "papers_for_keys",
    "person_key",
    "prepare_record",
    "priority_code",
    "refresh_search_text",
    "rekey",
    "remove_tags",
    "rename_tag",
    "resolve",
    "resolve_many",
    "resolve_targets",
    "search_text_for",
    "select_ids",
    "select_ids_and_keys",
    "select_keys",
    "select_papers",
    "set_priority",
    "set_status",
    "set_title",
    "sync_markdown",
    "tag_counts",
    "tags_named",
    "take_conflict",
    "target_rows",
    "to_record",
    "touch",
    "triage_batches",
    "triage_queue",
    "undo_completions",
    "update_note",
    "update_paper",
    "write_priority",
    "write_status",
]
