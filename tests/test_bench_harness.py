"""The benchmark harness measures the command, not itself (benchmarks/run.py ``run``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _harness(work: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look the module up
    spec.loader.exec_module(module)
    module.WORK = work
    return module


def test_a_small_command_run_from_a_large_benchmark_process_reports_its_own_peak_rss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux keeps the RSS high-water mark across exec: a child forked straight from a
    300 MiB benchmark process reported 300+ MiB for `python -c pass` (every row of one
    run said 509 MiB, floors included). Run through the launcher it reports its own."""
    harness = _harness(tmp_path, monkeypatch)
    ballast = bytearray(300 * 2**20)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    small = harness.run([sys.executable, "-c", "pass"])
    grown = harness.run(
        [
            sys.executable,
            "-c",
            "x = bytearray(150 * 2**20)\nfor i in range(0, len(x), 4096): x[i] = 1",
        ]
    )
    del ballast
    assert small.rss_mib < 60
    assert 150 < grown.rss_mib < 250
    assert grown.cpu > small.cpu > 0


def test_a_failing_command_raises_with_its_exit_code_and_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = _harness(tmp_path, monkeypatch)
    with pytest.raises(subprocess.CalledProcessError) as caught:
        harness.run(
            [sys.executable, "-c", "import sys; print('bad', file=sys.stderr); sys.exit(3)"]
        )
    assert caught.value.returncode == 3
    assert "bad" in caught.value.stderr
