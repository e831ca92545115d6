"""Issue 13 benchmark: does a later bibliography complete a pasted list of abstracts?

Usage (from the project root)::

    .venv/bin/python benchmarks/match_quality.py                 # every noise variant
    .venv/bin/python benchmarks/match_quality.py --variant word  # one variant
    .venv/bin/python benchmarks/match_quality.py --db postgresql+psycopg://postgres@127.0.0.1/test

What it does, per noise variant, in one run:

* **data**: the entries of ``../shared/data/acl-anthology-2021-06.bib.gz`` of one year
  (``--year``, default 2020) with an abstract of 300 characters or more written with spaces
  between words (not the Chinese abstracts of CCL papers), in file order; the
  first ``--papers + --distractors`` of them (default 2,000 + 500), shuffled with ``--seed``.
* **the list**: the abstracts of the first ``--papers`` entries as a user pastes them from a
  conference site (a header line, then one abstract per paragraph, LaTeX decoded), each
  changed by the variant: ``exact`` (as is), ``word`` (one word replaced by another),
  ``drop`` (the last sentence dropped), ``typo`` (typographic quotes, dashes, ligatures,
  doubled spaces), ``mixed`` (the three in turn).
* **the bibliography**: all ``--papers + --distractors`` entries as written in the Anthology
  (the distractors are papers of the same year and venues that the list does not hold).
* ``readinglist import LIST`` into a new library, then ``readinglist import BIB`` (timed: the
  whole process, as a user sees it), then every list paper is looked up by the key it had
  (old keys stay aliases): **correct** when its provisional title was replaced by its own
  entry's title, **wrong** when by another entry's, **unmerged** when it is still provisional. Unmerged
  papers that ``readinglist duplicates --json`` offers with their entry count as
  **candidates** (when the command exists).

Targets (issue 13): correct >= 99%, wrong = 0, the bibliography import < 15 s (wall time;
its CPU time is shown too). Writes
``benchmarks/MATCH_QUALITY.md`` (with ``--write``) and prints the same table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"
ACL = DATA / "acl-anthology-2021-06.bib.gz"
VARIANTS = ("exact", "word", "drop", "typo", "mixed")

_ENTRY_START = re.compile(r"^@\w+\{", re.MULTILINE)
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", re.MULTILINE)
_WORD = re.compile(r"\b[A-Za-z]{5,}\b")


@dataclass(frozen=True)
class Entry:
    """One Anthology entry: its text as written, and the fields the benchmark needs."""

    text: str
    title: str
    abstract: str


def read_entries(year: int, count: int) -> list[Entry]:
    """Return the first ``count`` entries of ``year`` with an abstract of >= 300 characters."""
    text = gzip.decompress(ACL.read_bytes()).decode("utf-8")
    starts = [m.start() for m in _ENTRY_START.finditer(text)]
    found: list[Entry] = []
    for begin, end in zip(starts, [*starts[1:], len(text)], strict=True):
        chunk = text[begin:end].strip() + "\n"
        fields = {m.group(1).lower(): m.group(2) for m in _FIELD.finditer(chunk)}
        if fields.get("year") != str(year) or len(fields.get("abstract", "")) < 300:
            continue
        if fields["abstract"].count(" ") < 30:
            # An abstract without spaces between words (Chinese, in CCL papers) is a paper
            # of its own for no reader: the abstracts format takes it for a title.
            continue
        if "title" not in fields:
            continue
        found.append(Entry(chunk, title_key(fields["title"]), fields["abstract"]))
        if len(found) == count:
            break
    if len(found) < count:
        raise SystemExit(f"only {len(found)} entries of {year} with abstracts; asked {count}")
    return found


def title_key(title: str) -> str:
    """A title folded for comparison (LaTeX decoded, case, accents and punctuation gone)."""
    from readinglist.text import fold, latex_to_unicode

    return " ".join(re.findall(r"[0-9a-z]+", fold(latex_to_unicode(title))))


def plain(abstract: str) -> str:
    """The abstract as a conference site shows it: LaTeX decoded, one line."""
    from readinglist.text import latex_to_unicode

    return " ".join(latex_to_unicode(abstract).split())


def change_word(text: str, rng: random.Random, vocabulary: list[str]) -> str:
    """Replace one word of five letters or more (not the first) with another word."""
    words = list(_WORD.finditer(text))[1:]
    if not words:
        return text
    match = rng.choice(words)
    other = rng.choice([w for w in vocabulary if w.lower() != match.group(0).lower()])
    return text[: match.start()] + other + text[match.end() :]


def drop_last_sentence(text: str) -> str:
    """Drop the last sentence when there are two or more."""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)
    return " ".join(sentences[:-1]) if len(sentences) > 1 else text


def typography(text: str) -> str:
    """Typographic quotes and dashes, ligatures, doubled spaces: what web pages do to text."""
    text = re.sub(r'"([^"]*)"', "“\\1”", text).replace("'", "’")
    text = text.replace(" - ", " – ").replace("--", "—")
    text = text.replace("fi", "ﬁ").replace("fl", "ﬂ")
    return text.replace(". ", ".  ")


def noisy(variant: str, index: int, text: str, rng: random.Random, vocabulary: list[str]) -> str:
    """``text`` changed as ``variant`` says (``mixed`` takes word, drop, typo in turn)."""
    if variant == "mixed":
        variant = ("word", "drop", "typo")[index % 3]
    if variant == "word":
        return change_word(text, rng, vocabulary)
    if variant == "drop":
        return drop_last_sentence(text)
    if variant == "typo":
        return typography(text)
    return text


def cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``readinglist --db DB ARGS`` in a new process of this interpreter."""
    command = [sys.executable, "-m", "readinglist", "--db", db, *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def fresh_database(base: str | None, workdir: Path, name: str) -> str:
    """An empty database: an SQLite file in ``workdir``, or a new PostgreSQL database."""
    if base is None:
        return str(workdir / f"{name}.db")
    from sqlalchemy import create_engine

    admin_url, _, _ = base.rpartition("/")
    database = f"rl_match_{name}_{int(time.time())}"
    admin = create_engine(f"{admin_url}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    admin.dispose()
    return f"{admin_url}/{database}"


def run_variant(
    variant: str, entries: list[Entry], papers: int, args: argparse.Namespace, workdir: Path
) -> dict[str, Any]:
    """Import the noisy list, then the bibliography; count correct, wrong, unmerged."""
    rng = random.Random(args.seed)
    listed = entries[:papers]
    vocabulary = sorted({w.group(0) for e in entries for w in _WORD.finditer(plain(e.abstract))})
    abstracts = [
        noisy(variant, i, plain(e.abstract), rng, vocabulary) for i, e in enumerate(listed)
    ]
    list_path = workdir / f"list-{variant}.txt"
    list_path.write_text(
        f"ACL Anthology {args.year} Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8"
    )
    shuffled = entries[:]
    rng.shuffle(shuffled)
    bib_path = workdir / "part.bib"
    bib_path.write_text("\n".join(e.text for e in shuffled), encoding="utf-8")

    db = fresh_database(args.db, workdir, variant)
    done = cli(db, "import", str(list_path))
    if done.returncode != 0:
        raise SystemExit(f"list import failed: {done.stderr}")
    listing = json.loads(cli(db, "list", "--json").stdout)
    if len(listing) != papers:
        raise SystemExit(f"the list gave {len(listing)} papers, not {papers}")
    by_abstract = {" ".join((p["abstract"] or "").split()): p["key"] for p in listing}
    key_of = [by_abstract.get(" ".join(a.split())) for a in abstracts]

    started, used = time.perf_counter(), _children_cpu()
    done = cli(db, "import", str(bib_path))
    seconds, cpu = time.perf_counter() - started, _children_cpu() - used
    if done.returncode not in (0, 5):
        raise SystemExit(f"bibliography import failed: {done.stderr}")

    own_title = {e.title: i for i, e in enumerate(listed)}
    all_titles = {e.title for e in entries}
    correct = wrong = unmerged = 0
    unmerged_keys: list[str] = []
    for i, key in enumerate(key_of):
        if key is None:
            unmerged += 1
            continue
        title = lookup_title(db, key)
        if title is not None and own_title.get(title) == i:
            correct += 1
        elif title in all_titles:
            wrong += 1
        else:
            unmerged += 1
            unmerged_keys.append(key)
    total = len(json.loads(cli(db, "list", "--json").stdout))
    candidates = count_candidates(db, set(unmerged_keys))
    return {
        "variant": variant,
        "papers": papers,
        "entries": len(entries),
        "correct": correct,
        "wrong": wrong,
        "unmerged": unmerged,
        "candidates": candidates,
        "library": total,
        "seconds": round(seconds, 2),
        "cpu": round(cpu, 2),
    }


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the machine is
    shared: wall time alone says more about the other users than about the import)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def lookup_title(db: str, key: str) -> str | None:
    """The folded title of the paper ``key`` (or an old key kept as alias) names now.

    None while that title is still provisional (made up from the abstract).
    """
    from readinglist import config, library
    from readinglist import db as database

    engine = _ENGINES.get(db)
    if engine is None:
        engine = _ENGINES[db] = database.make_engine(config.to_url(db))
    with database.session_scope(engine) as session:
        paper = library.find_paper(session, key)
        if paper is None or paper.title_provisional or not paper.title:
            return None
        return title_key(paper.title)


_ENGINES: dict[str, Any] = {}


def count_candidates(db: str, unmerged: set[str]) -> int | None:
    """How many unmerged list papers ``readinglist duplicates --json`` offers (None: no command)."""
    done = cli(db, "duplicates", "--json")
    if done.returncode != 0:
        return None
    pairs = json.loads(done.stdout)
    offered = {key for pair in pairs for key in _pair_keys(pair)}
    return len(unmerged & offered)


def _pair_keys(pair: Any) -> list[str]:
    if isinstance(pair, dict):
        return [str(v) for k, v in pair.items() if k in ("a", "b", "keep", "other", "keys")]
    return [str(v) for v in pair]


def table(rows: list[dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| variant | list papers | entries | correct | wrong | unmerged | candidates | "
        "library after | bib import s | cpu s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        pct = 100 * r["correct"] / r["papers"]
        cand = "n/a" if r["candidates"] is None else str(r["candidates"])
        lines.append(
            f"| {r['variant']} | {r['papers']} | {r['entries']} | {r['correct']} ({pct:.1f}%) | "
            f"{r['wrong']} | {r['unmerged']} | {cand} | {r['library']} | {r['seconds']:.1f} | "
            f"{r['cpu']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, run the variants, print (and with ``--write`` save) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=[*VARIANTS, "all"], default="all")
    parser.add_argument("--year", type=int, default=2020)
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--distractors", type=int, default=500)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--db", help="a PostgreSQL URL (a new database per variant)")
    parser.add_argument("--write", action="store_true", help="write benchmarks/MATCH_QUALITY.md")
    args = parser.parse_args()
    entries = read_entries(args.year, args.papers + args.distractors)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    rows = []
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for variant in variants:
            rows.append(run_variant(variant, entries, args.papers, args, Path(tmp)))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    result = table(rows)
    print(result)
    if args.write:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        (HERE / "MATCH_QUALITY.md").write_text(
            f"# Match quality (issue 13)\n\n`benchmarks/match_quality.py` on {stamp}: ACL "
            f"Anthology {args.year}, {args.papers} list papers against {args.papers} entries "
            f"plus {args.distractors} distractors, seed {args.seed}, "
            f"{'PostgreSQL' if args.db else 'SQLite'}; load average at the start "
            f"{load[0]:.1f}, at the end {os.getloadavg()[0]:.1f} (2 cores, shared).\n\n"
            f"{result}\n\n"
            "Targets: correct >= 99%, wrong = 0, bibliography import < 15 s. `bib import s` "
            "is wall time, `cpu s` the import process's user + system CPU time.\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
