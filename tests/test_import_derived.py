"""Values an import derives once and reuses (issue 17 item 5): each must equal the value
computed afresh, and must not survive a change of the record it describes."""

from __future__ import annotations

import dataclasses
import gc
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from readinglist.formats.bibtex import bibliographic_fingerprint, read
from readinglist.formats.bibtex.fields import record_from_fields
from readinglist.formats.bibtex.repair import repair_name_list
from readinglist.library.importing import still_as_read

ENTRY = "@article{k1, title={One}, author={Doe, Jane and Roe, Richard}, year=2020, journal={J}}\n"


def test_the_readers_fingerprint_is_the_records_and_goes_with_any_change() -> None:
    (record,) = read(ENTRY).records
    assert record.fingerprint is not None
    fresh = dataclasses.replace(record)  # the same data, built anew: nothing kept
    assert fresh.fingerprint is None
    assert bibliographic_fingerprint(fresh) == record.fingerprint
    assert still_as_read(record)
    assert still_as_read(fresh)
    changed = dataclasses.replace(record, year=2021)  # e.g. import --year
    assert changed.fingerprint is None
    assert not still_as_read(changed)
    # A reader process hands records over pickled: the kept value travels with its data.
    assert pickle.loads(pickle.dumps(record)).fingerprint == record.fingerprint


def test_cached_name_rules_answer_each_list_as_written() -> None:
    """The name-list rules are cached by raw text; a list seen before gets the same
    answer, a list with a different spelling its own."""
    people = "Doe, Jane and Roe, Richard"
    for _ in range(2):  # the second time from the caches
        record = record_from_fields("k", "article", {"author": people}, "", 1)
        assert "author" not in record.fields  # the column gives the list back
        braced = record_from_fields("k", "article", {"author": "{Doe}, Jane"}, "", 1)
        assert braced.fields["author"] == "{Doe}, Jane"  # kept: the column loses the braces
        assert repair_name_list("Miller, D., Firby, J.") == "Miller, D. and Firby, J."
        assert repair_name_list(people) is None


def test_an_import_collects_young_garbage_rarely_and_restores_the_collector(
    invoke: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While records are imported the collector's young generation waits for
    IMPORT_THRESHOLD allocations; afterwards it is as it was."""
    from readinglist import library
    from readinglist.collector import IMPORT_THRESHOLD

    seen: list[int] = []
    add = library.Importer.add

    def spy(self: Any, records: Any) -> None:
        seen.append(gc.get_threshold()[0])
        add(self, records)

    monkeypatch.setattr(library.Importer, "add", spy)
    (tmp_path / "one.bib").write_text(ENTRY, encoding="utf-8")
    before = gc.get_threshold()
    assert invoke("import", str(tmp_path / "one.bib")).exit_code == 0
    assert set(seen) == {IMPORT_THRESHOLD}  # the import added records
    assert gc.get_threshold() == before
