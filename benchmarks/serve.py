"""``readinglist serve`` at conference scale: a decision's round trip and the first page,
measured by driving Debian's headless chromium (Playwright), as a person would.

Run: ``.venv/bin/python benchmarks/serve.py [--papers 10000] [--decisions 60] [--pause S]``
(writes the table to stdout; RESULTS.md keeps the last one). Needs chromium
(``sh tests/setup-tools.sh``) and ``../shared/data/acl-anthology-2021-06.bib.gz``.

Library: the first ``--papers`` entries of the ACL anthology (real titles, authors and
abstracts) imported into a new SQLite file under ``benchmarks/work/`` (kept and reused),
then 10 papers marked to-read and 10 skipped with ``mark`` so that the page ranks by
interest (the model is retrained and the rest re-ranked after every decision, as in
``triage``).

* **first page**: from ``page.goto`` of the printed address (the token) to the load
  event of the whole page (``performance`` navigation entry: ``loadEventEnd``), the
  first tab's run opened (the queue read and ranked); the server started just before,
  the interest index read from its cache. Three runs, each a new browser tab; and the
  server process's CPU time meanwhile (the first one starts the background ranker).
* **round trip**: key press -> decision saved -> next paper shown, timed in the page
  (``performance.now()`` at the key press and after htmx settled the answer:
  ``data-roundtrip``), ``t`` and ``s`` alternating; and the same seen from the driver
  (Playwright's key press to the answer's ``data-swaps``). p50 and p95 in ms.
* **server CPU per decision**: the server process's CPU time (``/proc/PID/stat``) spent
  from one key press to the answer shown: what a decision costs whatever the machine's
  load (wall-clock figures on a shared machine are not). It includes whatever ran in
  the background meanwhile (a fit of the interest order, the similar papers' request).

``--pause S`` waits S seconds before each key, as a reader does: the page's fits of the
interest order (started once decisions pause, ``web.desk.QUIET``) then run between the
keys and a key may arrive during one. Without it the keys come back to back and the
fits wait until they stop.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import Server, launch  # noqa: E402

WORK = ROOT / "benchmarks" / "work"
ACL = ROOT.parent / "shared" / "data" / "acl-anthology-2021-06.bib.gz"


def cut(source: Path, count: int, target: Path) -> Path:
    """Write the first ``count`` entries of the gzipped BibTeX ``source`` to ``target``
    (the text before the ``count``+1-th line starting with ``@``; @string lines kept)."""
    seen = 0
    with gzip.open(source, "rt", encoding="utf-8") as lines, target.open("w") as out:
        for line in lines:
            if line.startswith("@") and not line.lower().startswith("@string"):
                seen += 1
                if seen > count:
                    break
            out.write(line)
    return target


def library(papers: int) -> str:
    """The SQLite URL of the benchmark's library (built once)."""
    WORK.mkdir(exist_ok=True)
    path = WORK / f"serve-{papers}.db"
    if not path.exists():
        bib = cut(ACL, papers, WORK / f"acl-first-{papers}.bib")
        temp = path.with_name(path.name + ".tmp")
        temp.unlink(missing_ok=True)
        cli = [sys.executable, "-m", "readinglist", "--db", str(temp)]
        subprocess.run([*cli, "import", str(bib)], check=True, capture_output=True)
        keys = subprocess.run(
            [*cli, "list", "-k", "--limit", "400"], check=True, capture_output=True, text=True
        ).stdout.split()
        subprocess.run([*cli, "mark", "to-read", *keys[0:400:40]], check=True)
        subprocess.run([*cli, "mark", "skipped", *keys[20:400:40]], check=True)
        # the interest index, built once and cached (the first page then reads it)
        subprocess.run([*cli, "list", "--sort", "interest", "--limit", "1"], check=True)
        temp.rename(path)  # the index cache is per URL: build it again for the final name
        subprocess.run(
            [
                sys.executable,
                "-m",
                "readinglist",
                "--db",
                str(path),
                "list",
                "--sort",
                "interest",
                "--limit",
                "1",
            ],
            check=True,
        )
    return f"sqlite:///{path}"


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` so far, in ms (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measure(url: str, decisions: int, pause: float = 0.0) -> dict[str, list[float]]:
    """Drive the page: three first pages, then ``decisions`` decisions, ``pause`` seconds
    before each; the timings in ms."""
    from playwright.sync_api import sync_playwright

    server = Server(url)
    found: dict[str, list[float]] = {
        "first page": [],
        "server CPU per first page": [],
        "round trip (page)": [],
        "round trip (driver)": [],
        "server CPU per decision": [],
    }
    try:
        with sync_playwright() as playwright, tempfile.TemporaryDirectory() as data:
            context = launch(playwright, Path(data))
            for _ in range(3):
                page = context.new_page()
                spent = cpu_ms(server.process.pid)
                page.goto(server.url, wait_until="load", timeout=120_000)
                found["server CPU per first page"].append(cpu_ms(server.process.pid) - spent)
                found["first page"].append(
                    page.evaluate(
                        "() => performance.getEntriesByType('navigation')[0].loadEventEnd"
                    )
                )
                page.close()
            page = context.new_page()
            page.goto(server.url, wait_until="load", timeout=120_000)
            for n in range(decisions):
                time.sleep(pause)
                spent = cpu_ms(server.process.pid)
                before = int(page.get_attribute("body", "data-swaps") or 0)
                start = time.perf_counter()
                page.keyboard.press("ts"[n % 2])
                page.wait_for_selector(f'body[data-swaps="{before + 1}"]', state="attached")
                found["round trip (driver)"].append((time.perf_counter() - start) * 1000)
                found["round trip (page)"].append(
                    float(page.get_attribute("body", "data-roundtrip"))
                )
                found["server CPU per decision"].append(cpu_ms(server.process.pid) - spent)
            context.close()
    finally:
        code, err = server.stop()
        if code != 0 or "Traceback" in err:
            print(err, file=sys.stderr)
    return found


def main() -> int:
    """Build the library, measure, print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds before each key")
    args = parser.parse_args()
    url = library(args.papers)
    load = os.getloadavg()[0]
    found = measure(url, args.decisions, args.pause)
    print(
        f"serve on {args.papers:,} papers (ACL anthology), {args.decisions} decisions, "
        f"{args.pause:g} s before each key; load average {load:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after:\n"
    )
    print("| measure | n | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for name, values in found.items():
        print(
            f"| {name} | {len(values)} | {statistics.median(values):.0f} "
            f"| {percentile(values, 0.95):.0f} | {max(values):.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
