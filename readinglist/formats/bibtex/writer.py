"""Writing ``.bib`` text: an entry's own bytes, with only what must change replaced, else generated.

Top floor of :mod:`readinglist.formats.bibtex` (imports every other module of it).

:func:`write` emits an entry whose bibliographic data is unchanged since it was read
byte for byte as its ``source_text``. "Unchanged" is decided here, by re-deriving:
the record's ``source_check`` (:func:`~readinglist.formats.bibtex.digest.source_check`)
is computed again with the export's macros, and when it does not settle the question
``source_text`` is read again (with the macros given in ``strings``) and its
:func:`~readinglist.formats.bibtex.digest.bibliographic_fingerprint` compared with the
record's (this costs about as much as reading the entry: 0.3 to 1 ms). The macros
an entry is checked with are those in effect where it was read: ``strings`` holds
every ``@string`` block of its input in order and the record says how many came
before it (``PaperRecord.strings_read``; unknown: all of them, the last definition
of each macro wins). An entry that uses a macro ``strings`` does not define is
regenerated with the resolved values, so the output never refers to an undefined
macro. The ``@string`` definitions that copied entries use (and those they use in
turn) are written at the top, in the order of ``strings``, each macro with the
value the first entry needing it was read with; when a later copied entry was read
with another value (Beebe's files redefine ``ack-nhfb``), the definition giving it
is written again just before that entry: BibTeX and biber read ``@string`` blocks
in order, silently taking the latest (checked with bibtex 0.99d and biber 2.18, see
``tests/test_real_tools.py``).

An entry read from BibTeX that cannot be copied whole (a value to escape, a value
changed since, tags or notes merged, the rules of :mod:`.copying`) is its own text
with only those values replaced in place (:mod:`.patch`). Every other entry (no
text, or one that does not settle so) is generated deterministically:

* fields in :data:`FIELD_ORDER`, then the remaining fields alphabetically, lower-case
  names, two-space indent, ``name = {value}``, no comma after the last field;
* ``month = jan`` as a bare macro; pages ``1--2``;
* a column still equal to the decoded raw value in ``fields`` is written as that raw
  value (so ``{B}ayesian`` or ``Schr{\\"o}dinger`` survive; a title that had no LaTeX
  is taken from the re-read ``source_text``), except the DOI, which is always
  written normalized; otherwise a column is encoded (:mod:`.encode`);
* ``dialect="bibtex"`` writes ASCII (:mod:`.encode`), ``journaltitle`` as
  ``journal``; arXiv ids get ``archiveprefix = {arXiv}``.
* ``dialect="biblatex"`` writes UTF-8, ``journaltitle`` for ``journal``, ``date``
  (``2016`` or ``2016-06``, or the raw ``date`` if it still matches) instead of
  ``year``/``month`` (a raw month such as ``{20--22 Jun}`` is dropped, biber would
  reject it; one that never decoded, ``{Summer}``, is kept) and
  ``eprinttype = {arxiv}``, and the paper's old keys (``aliases``) as ``ids``.
* a provisional paper gets ``readinglist-provisional = {title, key}`` (its marks,
  :func:`readinglist.records.provisional_marks`), which the reader turns back into
  the flags, so a re-imported export is still provisional (issue 13).

Copied entries and the kept values of patched ones are never re-encoded, whichever
the dialect: they are the user's own bytes. Records are ordered by :func:`entry_order`.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from readinglist.formats.bibtex.copying import (
    BIBLATEX_FOR_BIBTEX,
    biblatex_in_bibtex,
    keys_break_rule,
    marks_or_ids_differ,
    needs_user_state,
    stale_fields,
)
from readinglist.formats.bibtex.digest import (
    UNCHECKED,
    macro_check,
    source_check,
)
from readinglist.formats.bibtex.encode import (
    Dialect,
)
from readinglist.formats.bibtex.generate import (
    Facts,
    format_entry,
)
from readinglist.formats.bibtex.inert import (
    is_inert,
    join_may_build_command,
    preamble_offending,
)
from readinglist.formats.bibtex.patch import patch_entry, reread
from readinglist.formats.bibtex.reader import Reader, batches
from readinglist.formats.bibtex.values import (
    MONTH_MACROS,
    PREAMBLE_MACRO_USE,
    macro_names,
)
from readinglist.records import (
    IntactEntry,
    PaperRecord,
)


@dataclass(frozen=True)
class _Definition:
    """One ``@string`` block: the macro it defines, its text as written, the value it
    gave when read in order (months as BibTeX's styles define them), the macros it used."""

    name: str
    raw: str
    value: str
    deps: frozenset[str]


class _Strings:
    """The ``@string`` definitions handed to :func:`write`, every block in order.

    The macros in effect after the first ``n`` blocks are those a reader of the text
    had there: an entry read after ``n`` definitions (``PaperRecord.strings_read``)
    meant them, whatever the text redefines later (Beebe's files redefine
    ``ack-nhfb`` 74 times with 5 texts). An ``@string`` for a month name is counted
    but never applied: an export never redefines ``jan`` (its generated entries
    write ``month = jan`` for BibTeX's own).
    """

    def __init__(self, texts: Iterable[str | None]) -> None:
        """Read ``texts`` in order, as one text joining them by line breaks would be
        read (each is whole ``@string`` blocks); ``starts`` says how many blocks come
        before each one's first."""
        self.definitions: list[_Definition] = []
        #: For each of ``texts``, the number of blocks before its first.
        self.starts: list[int] = []
        reader = Reader("<strings>", checks=False, fixed_months=True)
        line = 0
        for text in texts:
            self.starts.append(len(reader.definitions))
            for piece, offset, last in batches(text or ""):
                for _ in reader.feed(piece, line + offset, last):
                    pass
            line += (text or "").count("\n") + 1
        self.definitions = [_Definition(*item) for item in reader.definitions]
        #: Macro name -> the indices of its definitions, ascending (no months).
        self.indices: dict[str, list[int]] = {}
        for index, definition in enumerate(self.definitions):
            if definition.name not in MONTH_MACROS:
                self.indices.setdefault(definition.name, []).append(index)

    def index_at(self, name: str, read: int) -> int | None:
        """The index of the definition of ``name`` in effect after the first ``read``
        blocks, None when none defines it by then (or it is a month)."""
        indices = self.indices.get(name)
        if not indices:
            return None
        before = bisect_left(indices, read)
        return indices[before - 1] if before else None

    def env(self, read: int) -> dict[str, str]:
        """Every macro in effect after the first ``read`` blocks (no months)."""
        env: dict[str, str] = {}
        for name in self.indices:
            index = self.index_at(name, read)
            if index is not None:
                env[name] = self.definitions[index].value
        return env


def string_offsets(parts: Iterable[tuple[int, str]]) -> dict[int, int]:
    """For ``@string`` texts ``(id, text)`` that a writer gets joined by line breaks in
    this order, return how many blocks come before each one's first: what to add to
    the ``strings_read`` of an entry read with it (``PaperRecord.strings_read``)."""
    parts = list(parts)
    starts = _Strings(text for _, text in parts).starts
    return {part_id: start for (part_id, _), start in zip(parts, starts, strict=True)}


def entry_order(
    citekey: str | None, index: int, parents: Collection[str] = ()
) -> tuple[bool, bool, str, str, int]:
    """Return the sort key of the entry at ``index`` (input order) with ``citekey``:
    the writer's order, by key case-insensitively, then case-sensitively, no key last,
    ties in input order; entries another entry names in ``crossref`` (``parents``,
    case-folded keys: :func:`crossref_parents`) after all others, as BibTeX needs them
    ("A bad cross reference" otherwise). An exporter that writes in chunks sorts by
    it first."""
    key = citekey or ""
    return (key.casefold() in parents, not key, key.casefold(), key, index)


def crossref_parents(crossrefs: Iterable[str | None]) -> frozenset[str]:
    """The case-folded keys named by ``crossref`` values (for :func:`entry_order`)."""
    return frozenset(value.strip().casefold() for value in crossrefs if value and value.strip())


class Writer:
    """A ``.bib`` text written in pieces: entries chunk after chunk, then the header.

    ``Writer(...).entries(records)`` formats a chunk of records (see :func:`write`
    for what is copied and what is generated) and remembers which ``@string`` macros
    the copied entries use; :meth:`head` then gives the ``@preamble`` and the
    definitions of those macros, which belong before every entry. An exporter that
    streams a large library writes the chunks somewhere, then puts :meth:`head`
    first (``readinglist.pipelines.exporting``); :func:`write` does both in one call.

    Args:
        dialect, keywords, annote, strings, preamble: as for :func:`write`.
        parents: the case-folded keys of the entries others name in ``crossref``
            (:func:`crossref_parents`), written after the others.
        string_parts: the ``(id, text)`` pairs ``strings`` joins by line breaks
            (``library.bibtex_context``): given, they are read instead of ``strings``,
            and :attr:`string_offsets` is :func:`string_offsets` of them, so the
            ``@string`` text is parsed once, not twice (issue 17).
    """

    def __init__(
        self,
        *,
        dialect: Dialect = "bibtex",
        keywords: bool = False,
        annote: bool = False,
        strings: str | None = None,
        preamble: str | None = None,
        parents: Collection[str] = (),
        string_parts: Sequence[tuple[int, str]] = (),
    ) -> None:
        self.dialect: Dialect = dialect
        self.parents = parents
        self.keywords = keywords
        self.annote = annote
        self.preamble = preamble
        self.strings = _Strings([strings] if not string_parts else [t for _, t in string_parts])
        #: For ``string_parts``, :func:`string_offsets` of them (read once, not twice).
        self.string_offsets = (
            {
                part_id: start
                for (part_id, _), start in zip(string_parts, self.strings.starts, strict=True)
            }
            if string_parts
            else {}
        )
        #: Macro name -> the value the output defines at the point written so far.
        self._out: dict[str, str] = {}
        #: Macro name -> the indices of its definitions in the head, ascending.
        self._head: dict[str, list[int]] = {}
        #: The largest index in the head (-1: none).
        self._head_end = -1
        #: Macros defined between entries; macros an entry written took the value of.
        self._inline: set[str] = set()
        self._relied: set[str] = set()
        #: The macro halves of :func:`source_check` by the values they cover.
        self._checks: dict[tuple[tuple[str, str | None], ...], str] = {}
        #: :meth:`_copy_plan`'s ``needed`` and macro half by macro names and blocks read.
        self._plans: dict[
            tuple[tuple[str, ...], int], tuple[list[tuple[str, int]] | None, str]
        ] = {}
        #: :meth:`_copy_plan`'s plan (``needed``, plan key) by stored macro half and
        #: blocks read, for the plans it accepted.
        self._accepted: dict[
            tuple[str, int], tuple[list[tuple[str, int]], tuple[tuple[str, ...], int]]
        ] = {}
        #: :meth:`_deps` by definition index.
        self._dep_lists: dict[int, list[str]] = {}
        #: Definitions given for an entry that was generated after all (:meth:`_copy`).
        self._leftover: list[str] = []
        #: Bumped whenever :attr:`_out` changes; :meth:`entries` remembers, per copy
        #: plan, the version at which the output last gave every macro of the plan its
        #: value, so the entries sharing a plan skip the check while nothing changed.
        self._version = 0
        self._settled: dict[tuple[tuple[str, ...], int], int] = {}
        #: What the export should say: a ``@preamble`` left out (:meth:`head`).
        self.warnings: list[str] = []

    @property
    def rule_fields(self) -> tuple[str, ...]:
        """The fields whose values this writer's rules for copying a text read
        (:meth:`_stale`: ``annote`` with ``annote``, ``ids`` for biblatex,
        :data:`BIBLATEX_FOR_BIBTEX` for bibtex): all of ``fields`` an
        :class:`~readinglist.records.IntactEntry` given to :meth:`entries` must hold."""
        names = ["ids"] if self.dialect == "biblatex" else list(BIBLATEX_FOR_BIBTEX)
        return (*(["annote"] if self.annote else []), *names)

    @property
    def reads_aliases(self) -> bool:
        """Whether this writer prints a paper's old keys (``aliases``): biblatex's
        ``ids`` field does (``generate._EntryFields.marks_and_ids``), classic BibTeX has no
        such field, so a ``bibtex`` export need not read them."""
        return self.dialect == "biblatex"

    def _stale(self, record: Facts) -> bool:
        """True when ``record`` needs more than its source says: tags or notes to merge
        (``keywords``/``annote``), other provisional marks or old keys, or (bibtex)
        classic fields for biblatex ones."""
        return (
            (
                (self.keywords or self.annote)
                and needs_user_state(record, self.keywords, self.annote)
            )
            or marks_or_ids_differ(record, self.dialect)
            or biblatex_in_bibtex(record, self.dialect)
        )

    def _read(self, record: Facts) -> int:
        """How many ``strings`` blocks were read before ``record``: its ``strings_read``,
        all of them when unknown (the last definition of each macro wins)."""
        end = len(self.strings.definitions)
        return end if record.strings_read is None else min(record.strings_read, end)

    def _macros_of(
        self, names: Sequence[str], read: int
    ) -> tuple[dict[str, str], list[tuple[str, int]] | None]:
        """For a text that may use the macros ``names`` (:func:`macro_names`), read after
        ``read`` blocks: the values they had (months included, for :func:`source_check`)
        and the definitions an output must give them, or None for the latter when one
        of them was undefined there but ``strings`` defines it elsewhere (the output
        may define it, so the text cannot be copied)."""
        table: dict[str, str] = {}
        needed: list[tuple[str, int]] | None = []
        for name in names:
            if name in MONTH_MACROS:
                table[name] = MONTH_MACROS[name]
                continue
            index = self.strings.index_at(name, read)
            if index is not None:
                table[name] = self.strings.definitions[index].value
                if needed is not None:
                    needed.append((name, index))
            elif name in self.strings.indices:
                needed = None
        return table, needed

    def _provide(self, name: str, index: int, pending: list[str] | None) -> bool:
        """Make the output give ``name`` the value of definition ``index`` from here on.

        Nothing to write when it does already. Else the definition goes to the head
        when it can (:meth:`_to_head`), or, the macros it used given the values they
        had when it was read (recursively), it is appended to ``pending``, which the
        caller writes just before the entry that needs it: BibTeX and biber read
        ``@string`` blocks in order, and an entry takes the values in effect where it
        stands. ``pending`` None: the head only. Returns False when the definition
        could not be given.
        """
        definition = self.strings.definitions[index]
        if self._out.get(name) == definition.value:
            return True
        if self._to_head(name, index):
            return True
        if pending is None:
            return False
        for dep in self._deps(index):
            dep_index = self.strings.index_at(dep, index)
            if dep_index is not None and not self._provide(dep, dep_index, pending):
                return False
        pending.append(definition.raw)
        self._out[name] = definition.value
        self._version += 1
        self._inline.add(name)
        return True

    def _deps(self, index: int) -> list[str]:
        """The macros definition ``index`` uses, months aside, sorted: computed once per
        definition (Beebe's ``ack-nhfb`` is given again before ~45,000 entries)."""
        found = self._dep_lists.get(index)
        if found is None:
            deps = self.strings.definitions[index].deps - MONTH_MACROS.keys()
            found = self._dep_lists[index] = sorted(deps)
        return found

    def _head_value(self, name: str, index: int) -> str | None:
        """The value the head gives ``name`` where definition ``index`` would stand."""
        indices = self._head.get(name, [])
        before = bisect_left(indices, index)
        return self.strings.definitions[indices[before - 1]].value if before else None

    def _to_head(self, name: str, index: int) -> bool:
        """Put definition ``index`` in the head (its blocks in the order of ``strings``,
        before every entry) when that changes nothing written so far: ``name`` is
        defined nowhere yet, or the definition comes after every one in the head and
        no entry written took ``name``'s value from the head; and the head gives the
        macros it used their values at its place (adding their definitions when it
        can). Returns True when it is there."""
        if name in self._inline:
            return False
        if name in self._head and (name in self._relied or index <= self._head_end):
            return False
        definition = self.strings.definitions[index]
        for dep in self._deps(index):
            dep_index = self.strings.index_at(dep, index)
            if dep_index is None:
                continue
            value = self.strings.definitions[dep_index].value
            if self._head_value(dep, index) != value and (
                not self._to_head(dep, dep_index) or self._head_value(dep, index) != value
            ):
                return False
        insort(self._head.setdefault(name, []), index)
        self._head_end = max(self._head_end, index)
        self._out[name] = definition.value
        self._version += 1
        return True

    def _copy(self, text: str, needed: list[tuple[str, int]]) -> str | None:
        """``text`` (an entry copied as written) with the ``@string`` blocks the output
        must give first for its macros ``needed`` (name, definition index) to mean
        what they meant when it was read; None when that cannot be arranged (a
        definition needing other values of macros the entry uses too: then any
        definitions already given are written as a block of their own by
        :meth:`entries`), or when ``text`` or a macro value it needs is not inert
        markup (:func:`~.inert.is_inert`), or its ``#`` joins may build a command
        (:func:`~.inert.join_may_build_command`)."""
        definitions = self.strings.definitions
        values = [definitions[i].value for _, i in needed]
        if (
            not is_inert(text)
            or not all(is_inert(value) for value in values)
            or join_may_build_command(text, values)
        ):
            return None  # LaTeX that is not inert markup: the entry is generated
        out = self._out
        if all(out.get(name) == definitions[i].value for name, i in needed):
            # The output gives every macro its value already (nearly every entry of a
            # large export): what the loop below would find without changing anything.
            self._relied.update(name for name, _ in needed)
            return text
        pending: list[str] = []
        needed = sorted(needed, key=lambda item: item[1])
        for _ in range(3):
            for name, index in needed:
                self._provide(name, index, pending)
            if all(self._out.get(name) == definitions[i].value for name, i in needed):
                self._relied.update(name for name, _ in needed)
                return "\n".join([*pending, ""]) + "\n" + text if pending else text
        self._leftover.extend(pending)
        return None

    def entries(
        self,
        records: Sequence[PaperRecord | IntactEntry],
        complete: Callable[[Sequence[IntactEntry]], Sequence[PaperRecord]] | None = None,
        *,
        ordered: bool = False,
    ) -> str:
        """Return the entries of ``records``, ordered by citation key case-insensitively
        (no key last, ties in input order), separated by one blank line, without a
        final newline; empty for no records. A copied entry is preceded by the
        ``@string`` blocks that give its macros the values it was read with, when the
        output has given them other values before (see :meth:`_provide`).

        An :class:`~readinglist.records.IntactEntry` is written as its whole record
        would be, the data half of its ``source_check`` taken as holding (not
        recomputed): copied when the macro half and the other copy rules allow, else
        from its whole record, which ``complete`` gives (the whole records of the
        entries passed, in that order; called once for those whose copy the rules
        refuse, and once for each whose definitions could not be arranged). Raises
        ValueError for an IntactEntry without ``complete``.

        ``ordered``: the caller gives ``records`` in that order already (an exporter
        that sorted the whole selection by :func:`entry_order` and passes it a chunk
        at a time), so they are not sorted again.
        """
        blocks: list[str] = []
        order: Iterable[PaperRecord | IntactEntry] = (
            records
            if ordered
            else [
                item
                for _, item in sorted(
                    enumerate(records),
                    key=lambda pair: entry_order(pair[1].citekey, pair[0], self.parents),
                )
            ]
        )
        intact = [item for item in order if isinstance(item, IntactEntry)]
        if intact and complete is None:
            raise ValueError("an IntactEntry needs complete= to give its whole record")
        plans: dict[int, tuple[int, list[tuple[str, int]], tuple[tuple[str, ...], int]]] = {}
        refused: list[IntactEntry] = []
        for entry in intact:
            plan = self._copy_plan(entry)
            if plan is None:
                refused.append(entry)
            else:
                plans[id(entry)] = plan
        # The entries the rules refuse to copy are completed at once, not one by one.
        whole: dict[int, PaperRecord] = {}
        if refused and complete is not None:
            whole = dict(zip(map(id, refused), complete(refused), strict=True))
        for item in order:
            self._leftover = []
            if not isinstance(item, IntactEntry):
                text = self._entry(item)
            elif id(item) in whole:
                text = self._entry(whole[id(item)])
            else:
                assert complete is not None
                read, needed, shared = plans[id(item)]
                if self._settled.get(shared) == self._version:
                    # Nothing changed in the output since an entry of the same plan
                    # was copied: what :meth:`_copy` would find without writing anything.
                    blocks.append(item.source_text)
                    continue
                copied = self._copy(item.source_text, needed)
                if copied is not None:
                    self._settled[shared] = self._version
                    text = copied
                else:  # as _entry goes on after a failed copy, with the whole record
                    whole_record = complete([item])[0]
                    text = self._reread_entry(whole_record, item.source_text, read, needed, False)
            if self._leftover:
                blocks.append("\n".join(self._leftover))
            blocks.append(text)
        return "\n\n".join(blocks)

    def _copy_plan(
        self, record: IntactEntry
    ) -> tuple[int, list[tuple[str, int]], tuple[tuple[str, ...], int]] | None:
        """For an IntactEntry (the data half of its ``source_check`` holds): ``(read,
        needed, plan key)`` as :meth:`_entry` computes ``read`` and ``needed`` when it
        would try to copy the text (every macro the text may use means what it meant
        when read, nothing else is asked of it), else None. The plan key (macro names,
        blocks read) is shared by the entries whose macros mean the same."""
        source, check = record.source_text, record.source_check
        if not source or not is_inert(source) or keys_break_rule(record, self.dialect):
            return None
        read = self._read(record)
        # The macro half of ``source_check`` is a digest of the macro names the text
        # may use and the values it was read with. An entry whose stored half is that
        # of an entry already found copyable after the same blocks was read with the
        # same names, which mean here what they meant then: the same plan, without
        # scanning its text for names again (100,000 Beebe entries: ~0.4 s).
        accepted = self._accepted.get((check[32:], read))
        if accepted is None:
            names = macro_names(source)
            # Entries read after the same blocks with the same macro names (most of a
            # large export) share what their macros mean: computed once per pair.
            known = self._plans.get((names, read))
            if known is None:
                table, needed = self._macros_of(names, read)
                known = self._plans[names, read] = (
                    needed,
                    macro_check(table, names, self._checks),
                )
            needed, half = known
            if needed is None or half != check[32:]:
                return None
            accepted = self._accepted[check[32:], read] = (needed, (names, read))
        if self._stale(record):
            return None
        needed, key = accepted
        return read, needed, key

    def _entry(self, record: PaperRecord) -> str:
        """One entry: copied (with the definitions it needs first) or generated (always
        when a key breaks the key rule, :func:`~.copying.keys_break_rule`)."""
        source = record.source_text
        if not source or keys_break_rule(record, self.dialect):
            return format_entry(record, self.dialect, self.keywords, self.annote)
        read = self._read(record)
        names = macro_names(source)
        table, needed = self._macros_of(names, read)
        stale = self._stale(record)
        if record.source_check is not None:
            check = source_check(record, table, names, self._checks)
            if check == record.source_check and not stale and needed is not None:
                # Unchanged since it was read, and every macro it may use means what
                # it meant then: copy it without reading it again.
                copied = self._copy(source, needed)
                if copied is not None:
                    return copied
            elif (
                check is not None
                and check[:32] == record.source_check[:32]
                and record.source_check[32:] != UNCHECKED
                and (needed is None or check[32:] != record.source_check[32:])
            ):
                # The data is as read but a macro cannot be given its old meaning: the
                # record stands for its re-read, and unless tags or notes change its
                # keywords or annote, its raw values agree with its columns without
                # being decoded again. (Tags, notes and the other rules of
                # :meth:`_stale` replace their values in place: :meth:`_reread_entry`.)
                return format_entry(
                    record, self.dialect, self.keywords, self.annote, record, not stale
                )
        return self._reread_entry(record, source, read, needed, stale)

    def _reread_entry(
        self,
        record: PaperRecord,
        source: str,
        read: int,
        needed: list[tuple[str, int]] | None,
        stale: bool,
    ) -> str:
        """:meth:`_entry` when the check did not settle it: ``source`` read again with
        the macros of ``read``, copied when it reads to the record's data, else the
        entry generated."""
        env = self.strings.env(read)
        again = reread(source, env)
        if again is not None and needed is not None:
            # Copied as written when every value may be and the data is as read; else
            # only the values that must change are replaced in place (:mod:`.patch`).
            names = (
                stale_fields(record, self.dialect, self.keywords, self.annote) if stale else set()
            )
            patched = patch_entry(
                record,
                source,
                env,
                self.dialect,
                again.record,
                frozenset(names),
                (self.keywords, self.annote),
            )
            if patched is not None and patched.replaced:
                # Only the macros the kept values use need their definitions.
                needed = self._macros_of(macro_names(patched.text), read)[1]
            copied = (
                self._copy(patched.text, needed)
                if patched is not None and needed is not None
                else None
            )
            if copied is not None:
                return copied
        return format_entry(
            record,
            self.dialect,
            self.keywords,
            self.annote,
            again.record if again is not None else None,
        )

    def head(self) -> str:
        """Return the ``@preamble`` blocks and the ``@string`` definitions of the head
        (those the first entries needing each macro were read with, and those these
        use in turn, in the order of ``strings``; see :meth:`_to_head`), with those
        the preambles use (their last definitions, when the head can take them),
        separated by one blank line, without a final newline; empty when there is
        neither. The preambles come first unless they use a macro, which must be
        defined before them. A preamble that is not inert markup
        (:func:`~.inert.offending`: ``\\newcommand``, ``\\write`` ...) is left out,
        with a warning in :attr:`warnings`: LaTeX runs it before any entry."""
        preamble = (self.preamble or "").strip()
        end = len(self.strings.definitions)
        piece = preamble_offending(preamble, self.strings.env(end)) if preamble else None
        if piece is not None:
            self.warnings.append(
                f"@preamble left out: {piece} is not inert LaTeX markup (LaTeX would run it)"
            )
            preamble = ""
        names = dict.fromkeys(n.lower() for n in PREAMBLE_MACRO_USE.findall(preamble))
        for name in names:
            index = self.strings.index_at(name, end)
            value = None if index is None else self.strings.definitions[index].value
            if index is not None and self._head_value(name, end) != value:
                self._to_head(name, index)
        in_preamble = any(name in self._head for name in names)
        indices = sorted(index for group in self._head.values() for index in group)
        definitions = "\n".join(self.strings.definitions[index].raw for index in indices)
        parts = [definitions, preamble] if in_preamble else [preamble, definitions]
        return "\n\n".join(part for part in parts if part)


def write(
    records: Sequence[PaperRecord],
    *,
    dialect: Dialect = "bibtex",
    keywords: bool = False,
    annote: bool = False,
    strings: str | None = None,
    preamble: str | None = None,
) -> str:
    """Write records as a ``.bib`` text.

    Args:
        records: the records to write, in any order; they are written ordered by
            citation key, case-insensitively (no key last, ties in input order), the
            entries others name in ``crossref`` last (:func:`entry_order`).
        dialect: ``"bibtex"`` (ASCII, ``journal``, ``year``/``month``) or
            ``"biblatex"`` (UTF-8, ``journaltitle``, ``date``) for generated entries.
        keywords: add each record's tags to ``keywords`` (merged with the keywords it
            has, case-insensitively).
        annote: add each record's notes to ``annote`` (after an existing annote,
            separated by blank lines; notes already there are not repeated).
        strings: ``@string`` definitions as BibTeX text (``ParseResult.meta
            ["strings"]``); those used by entries copied as ``source_text`` are
            written first.
        preamble: ``@preamble`` blocks as BibTeX text, written first as they are.

    Returns:
        The text, blocks separated by one blank line, ending in a newline (empty
        for no records and nothing else). An entry whose bibliographic data is
        unchanged since it was read (see the module docstring) and that gets no
        tags or notes is its ``source_text``; any other entry is generated.
    """
    writer = Writer(
        dialect=dialect,
        keywords=keywords,
        annote=annote,
        strings=strings,
        preamble=preamble,
        parents=crossref_parents(r.fields.get("crossref") for r in records),
    )
    body = writer.entries(records)
    parts = [part for part in (writer.head(), body) if part]
    return "\n\n".join(parts) + "\n" if parts else ""
