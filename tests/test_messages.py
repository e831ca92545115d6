"""Messages count things in good English: one plural rule (``text.plural`` /
``text.counted``), used everywhere (fresh-user find: "exported 1 papers")."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from readinglist.text import counted, plural

PACKAGE = Path(__file__).resolve().parent.parent / "readinglist"
Invoke = Callable[..., Result]


def test_counted_and_plural() -> None:
    assert [counted(n, "paper") for n in (0, 1, 2)] == ["0 papers", "1 paper", "2 papers"]
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"
    assert counted(1, "incomplete paper") == "1 incomplete paper"
    assert [plural(n, "has", "have") for n in (1, 2)] == ["has", "have"]
    assert plural(2, "citation key") == "citation keys"


def test_no_message_makes_its_own_plural() -> None:
    """A hand-made singular/plural choice ("note" if n == 1 else "notes", "s" if n != 1)
    anywhere in the package is a second home of the rule."""
    hand_made = re.compile(
        r"""f?["'][^"'\n]*["']\s+if\s+[^\n]*[!=]=\s*1\s+else\s+f?["']"""
        r"""|["']s["']\s+if\s+[^\n]*[!=><]=?\s*1"""
    )
    found = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if hand_made.search(line)
    ]
    assert found == []


def _bib(tmp_path: Path, count: int) -> Path:
    path = tmp_path / f"{count}.bib"
    path.write_text(
        "".join(
            f"@article{{k{i}, title={{Paper number {i} on topic {i}}}, author={{Doe{i}, Jane}},"
            f" year={{2020}}}}\n"
            for i in range(count)
        ),
        encoding="utf-8",
    )
    return path


def test_export_rm_and_undo_say_1_paper(invoke: Invoke, tmp_path: Path) -> None:
    assert invoke("import", str(_bib(tmp_path, 2))).exit_code == 0
    out = tmp_path / "out.bib"
    one = invoke("export", "bibtex", "key:k0", "-o", str(out))
    assert one.exit_code == 0, one.output
    assert one.stderr == f"exported 1 paper to {out} (bibtex)\n"
    both = invoke("export", "bibtex", "-o", str(out))
    assert both.stderr == f"exported 2 papers to {out} (bibtex)\n"
    removed = invoke("rm", "k1", "--yes")
    assert removed.exit_code == 0, removed.output
    assert removed.stderr == "removed 1 paper: k1\n"
    batch = invoke("import", str(_bib(tmp_path, 1)))  # k0 again: merged, nothing added
    assert batch.exit_code == 0, batch.output
    assert invoke("mark", "read", "k0").stderr == "marked 1 paper read\n"
