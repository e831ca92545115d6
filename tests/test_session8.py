"""Regression tests for session 8's changes (issue 17: whole-library reads at 500k)."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from readinglist import render
from readinglist.records import PaperRecord, Person


def _records(count: int, long_key_at: int | None = None) -> Iterator[PaperRecord]:
    for i in range(count):
        key = f"k{i:06d}" if i != long_key_at else "averyveryverylongcitationkey2026"
        yield PaperRecord(
            citekey=key,
            title=f"Title number {i} about salmon",
            year=2000 + i % 20,
            status="new",
            authors=(Person(family=f"Family{i}", given="Given"), Person(family="Other")),
        )


def test_a_table_of_many_papers_holds_one_sample_of_rows_not_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """paper_table writes rows as they come after its first TABLE_SAMPLE: 20,000 rows
    held at once took 7.8 MB here (0.4 MB now); streamed, the peak is that of the sample."""
    count = 20 * render.TABLE_SAMPLE
    out = tmp_path / "table.txt"
    with out.open("w", encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdout", stream)
        tracemalloc.start()
        try:
            render.paper_table(_records(count))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert len(out.read_text(encoding="utf-8").splitlines()) == count + 1
    assert peak < 1_500_000, peak


def test_a_longer_key_after_the_sample_is_written_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Widths come from the first rows; a later longer key shifts its row instead of
    being cut (a key is what a reader copies), and the sampled rows stay aligned."""
    late = render.TABLE_SAMPLE + 5
    render.paper_table(_records(render.TABLE_SAMPLE + 10, long_key_at=late))
    lines = capsys.readouterr().out.splitlines()
    header, first, row = lines[0], lines[1], lines[late + 1]
    assert row.startswith("averyveryverylongcitationkey2026 ")
    assert header.index("STATUS") == first.index("new") == len("k000000") + 2
    assert "…" not in row


def test_a_cache_member_that_runs_past_the_file_end_is_refused(tmp_path: Path) -> None:
    """stored.members checks each member against the file's size: a header claiming more
    elements than the file holds (a damaged or doctored cache) raises ValueError, which
    store._read takes as no cache (the index is rebuilt), instead of failing later
    while a listing is scored."""
    import numpy as np

    from readinglist.ranking import stored

    path = tmp_path / "cache.npz"
    np.savez(path, a=np.arange(10, dtype=np.int64), b=np.zeros((3, 2), dtype=np.float32))
    with path.open("rb") as handle:
        layout = stored.members(handle)
        assert layout["a"].shape == (10,)
        assert layout["b"].shape == (3, 2)
        assert list(stored.read(handle, layout["a"], 2, 5)) == [2, 3, 4]
    data = path.read_bytes()
    assert data.count(b"(10,)") == 1
    path.write_bytes(data.replace(b"(10,)", b"(99,)"))
    with path.open("rb") as handle, pytest.raises(ValueError, match="shorter than its index says"):
        stored.members(handle)
