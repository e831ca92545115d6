"""The round-trip fixpoint on every file of ``../shared/data/``, with the real tools.

Usage::

    .venv/bin/python benchmarks/fixpoint.py [--data DIR] [--only NAME ...] [--json FILE]

For each file (a ``.gz`` cut after its first :data:`SLICE` entries, as
``tests/test_real_tools.py`` does): import it into a fresh SQLite library, export it
in its own format (BibTeX for ``.bib`` and for the lists of abstracts, RIS for
``.ris``, CSL-JSON for ``.json``) and in BibTeX, import the export into another
fresh library and export again. The fixpoint holds when the two exports are the
same bytes. The BibTeX exports go through ``bibtex`` (style ``plain``, every entry
cited) and ``biber --tool --validate-datamodel``; errors are counted. For a BibTeX
source, the entries written byte for byte as in the source are counted too, and those
written byte for byte but for values replaced in place (:func:`copied_entries`).

Each step is a real ``readinglist`` process (``--db`` a temporary file); :func:`run`
takes another :data:`Runner` (``tests/test_s11_fidelity.py`` runs the commands in its own
process: the fixpoint does not depend on the process). Prints one line per file and
exits 1 when a fixpoint fails or a tool reports an error.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
SLICE = 2000
_ENTRY = re.compile(r"^@", re.MULTILINE)
NATIVE = {".bib": "bibtex", ".ris": "ris", ".json": "csl-json"}
SUFFIX = {"bibtex": ".bib", "ris": ".ris", "csl-json": ".json"}
#: How a ``readinglist`` command is run: its arguments in, its exit code and texts out.
Runner = Callable[..., subprocess.CompletedProcess[str]]


def readinglist(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``readinglist`` of this checkout's virtual environment."""
    exe = ROOT / ".venv" / "bin" / "readinglist"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=False)


def source(path: Path, work: Path) -> Path:
    """The file to import: ``path``, or its first :data:`SLICE` entries when gzipped."""
    if path.suffix != ".gz":
        return path
    text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    starts = [m.start() for m in _ENTRY.finditer(text)]
    cut = work / path.stem
    cut.write_text(text[: starts[SLICE]] if len(starts) > SLICE else text, encoding="utf-8")
    return cut


def cycle(path: Path, fmt: str, work: Path, name: str, cli: Runner = readinglist) -> Path:
    """Import ``path`` into a fresh library ``work/name.db`` and export it as ``fmt``
    (each command run by ``cli``). Raises RuntimeError naming the step that failed."""
    db = work / f"{name}.db"
    done = cli("--db", str(db), "import", str(path))
    if done.returncode not in (0, 5):
        raise RuntimeError(f"import {path.name}: {done.stderr[-500:]}")
    out = work / f"{name}{SUFFIX[fmt]}"
    done = cli("--db", str(db), "export", fmt, "-o", str(out))
    if done.returncode != 0:
        raise RuntimeError(f"export {fmt}: {done.stderr[-500:]}")
    return out


def bibtex_errors(bib: Path) -> int:
    """``bibtex``'s error count for ``bib`` (style plain, every entry cited)."""
    bib.with_suffix(".aux").write_text(
        f"\\citation{{*}}\n\\bibdata{{{bib.stem}}}\n\\bibstyle{{plain}}\n", encoding="utf-8"
    )
    subprocess.run(["bibtex", "-terse", bib.stem], cwd=bib.parent, capture_output=True)
    log = bib.with_suffix(".blg").read_text(encoding="utf-8", errors="replace")
    found = re.search(r"\(There (?:was|were) (\d+) error", log)
    return int(found.group(1)) if found else 0


def biber_errors(bib: Path) -> int:
    """The ``ERROR`` lines of ``biber --tool --validate-datamodel`` on ``bib``."""
    done = subprocess.run(
        ["biber", "--tool", "--validate-datamodel", f"--output-file={bib}.out", str(bib)],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=bib.parent,
    )
    return sum(1 for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line)


def copied_entries(src: Path, exported: Path) -> dict[str, int]:
    """How the source's entries (each as the reader cut it, ``source_text``) stand in
    the export: ``entries``; ``copied``, written byte for byte; ``patched``, byte for
    byte but for values replaced in place (the text outside the value spans, the field
    names and their order equal); ``replaced``, the values replaced in those."""
    from readinglist.formats import bibtex
    from readinglist.formats.bibtex.salvage import salvage
    from readinglist.formats.bibtex.values import ValueSyntaxError

    def cut(text: str) -> dict[str, str]:
        records = bibtex.read(text, src.name).records
        return {r.citekey: r.source_text for r in records if r.citekey and r.source_text}

    def masked(entry: str) -> tuple[list[str], list[str], list[str]] | None:
        try:
            parts = salvage(entry)
        except ValueSyntaxError:
            return None
        between, pos = [], 0
        for _, _, start, end in parts.spans:
            between.append(entry[pos:start])
            pos = end
        between.append(entry[pos:])
        return [n for n, _, _ in parts.fields], between, [v for _, v, _ in parts.fields]

    source = cut(src.read_text(encoding="utf-8", errors="replace"))
    out_text = exported.read_text(encoding="utf-8", errors="replace")
    out = cut(out_text)
    counts = {"entries": len(source), "copied": 0, "patched": 0, "replaced": 0}
    for key, text in source.items():
        if text in out_text:
            counts["copied"] += 1
            counts["patched"] += 1
            continue
        mine, theirs = masked(text), masked(out.get(key, ""))
        if mine is None or theirs is None or mine[:2] != theirs[:2]:
            continue
        counts["patched"] += 1
        counts["replaced"] += sum(a != b for a, b in zip(mine[2], theirs[2], strict=True))
    return counts


def run(path: Path, cli: Runner = readinglist) -> dict[str, object]:
    """The fixpoint and the tools' error counts for one data file, the ``readinglist``
    commands run by ``cli`` (a real process each by default). Raises RuntimeError when
    an import or export fails."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        src = source(path, work)
        fmt = NATIVE.get(src.suffix, "bibtex")
        first = cycle(src, fmt, work, "first", cli)
        second = cycle(first, fmt, work, "second", cli)
        result: dict[str, object] = {
            "file": path.name,
            "format": fmt,
            "fixpoint": first.read_bytes() == second.read_bytes(),
        }
        bib = first if fmt == "bibtex" else cycle(src, "bibtex", work, "bib", cli)
        if fmt != "bibtex":
            again = cycle(bib, "bibtex", work, "bib2", cli)
            result["bibtex_fixpoint"] = bib.read_bytes() == again.read_bytes()
        result["bibtex_errors"] = bibtex_errors(bib)
        result["biber_errors"] = biber_errors(bib)
        if src.suffix == ".bib" or path.name.endswith(".bib.gz"):
            result |= copied_entries(src, first)
        return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    files = sorted(p for p in args.data.iterdir() if p.is_file() and p.name != "SOURCES.md")
    if args.only:
        files = [p for p in files if p.name in args.only]
    failed = False
    results = []
    for path in files:
        try:
            result = run(path)
        except RuntimeError as exc:
            result = {"file": path.name, "error": str(exc)}
        results.append(result)
        failed |= bool(
            "error" in result
            or not result.get("fixpoint")
            or result.get("bibtex_fixpoint") is False
            or result.get("bibtex_errors")
            or result.get("biber_errors")
        )
        print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
