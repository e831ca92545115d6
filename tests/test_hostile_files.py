"""Issue 18: killed exports leave no temporary files behind."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from readinglist.pipelines.atomic import open_atomically


def test_sigterm_during_a_write_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.bib"
    target.write_text("old\n")
    with pytest.raises(SystemExit) as stopped, open_atomically(target) as handle:
        handle.write("new, half written")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
    assert stopped.value.code == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bib"]
    assert target.read_text() == "old\n"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_stale_temporary_files_are_removed_by_the_next_export(invoke, tmp_path: Path) -> None:
    dead = tmp_path / ".out.bib.999999999.k2j3h4.tmp"  # above any pid_max: no such process
    live = tmp_path / f".out.bib.{os.getpid()}.a8b7c6.tmp"  # a write still under way
    legacy = tmp_path / ".out.bib.x9y8z7w6.tmp"  # before issue 18, no process id
    recent = tmp_path / ".out.bib.q1w2e3r4.tmp"
    other = tmp_path / ".other.bib.999999999.k2j3h4.tmp"
    # an old temporary file of out.bib.999 (not of out.bib with process id 999)
    sibling = tmp_path / ".out.bib.999.999999999.abcdefgh.tmp"
    for path in (dead, live, legacy, recent, other, sibling):
        path.write_text("partial")
    old = time.time() - 7200
    os.utime(legacy, (old, old))
    os.utime(sibling, (old, old))
    bib = tmp_path / "a.bib"
    bib.write_text("@article{ok1, title={Fine one}, year={2020}}\n")
    assert invoke("import", str(bib)).exit_code == 0
    result = invoke("export", "bibtex", "-o", str(tmp_path / "out.bib"))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted(
        p.name for p in (live, recent, other, sibling)
    )
