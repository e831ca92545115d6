"""Preprints then the proceedings: does the published version supersede each preprint?

Usage (from the project root)::

    .venv/bin/python benchmarks/versions.py                      # PMLR v37 (ICML 2015)
    .venv/bin/python benchmarks/versions.py --bib ../shared/data/pmlr-v48-icml2016.bib
    .venv/bin/python benchmarks/versions.py --db postgresql+psycopg://postgres@127.0.0.1/test

What it does, in one run:

* **the proceedings**: every entry of ``--bib`` (a PMLR volume's BibTeX), as published.
* **the preprints**: one arXiv-style record per entry, built from it with ``--seed``, in
  the three forms users collect: Google Scholar's ``@article{..., journal = {arXiv preprint
  arXiv:ID}}`` (title in sentence case, given names cut to initials), arXiv's own
  ``@misc`` with ``eprint``/``archivePrefix``/``primaryClass``, and a DataCite record of
  the arXiv DOI (``@misc``, ``doi = {10.48550/ARXIV.ID}``, ``publisher = {arXiv}``). Each
  carries the abstract. One in five lists of four or more authors is cut after the
  third author (``and others``); one in three is dated a year earlier; one in five is
  *retitled*: the camera-ready's title differs by a word or two and its abstract by a
  word or two (the preprint has the other words).
* ``readinglist import PREPRINTS`` into a new library; ``--triage`` of them (default 30)
  are marked ``to-read`` with priority ``high`` and tag ``triaged``; then ``readinglist
  import BIB`` (timed: the whole process).
* per entry: **correct** when the preprint's key and the proceedings' key name one paper
  whose entry type, venue, year, pages, volume and authors (family and given names, in
  order) are the proceedings', and the triage is kept; **wrong** when a key names a
  paper holding another entry's key; **left over** when the two keys name two papers
  (with how many of them ``readinglist duplicates --json`` offers).
* the same import of the proceedings a second time must change nothing (``idempotent``).

Targets (issue 27): correct >= 98%, wrong = 0, retitled ones merged >= 90%.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"

_WORD = re.compile(r"\b[A-Za-z]{6,}\b")
#: Words a retitled camera-ready puts in place of one of the preprint's.
SWAPS = ("Efficient", "Scalable", "Provable", "Robust", "Fast", "Improved", "Practical")


@dataclass
class Entry:
    """One proceedings entry: its key and the fields the benchmark reads."""

    key: str
    fields: dict[str, str]


def read_entries(path: Path) -> list[Entry]:
    """The entries of a proceedings BibTeX file with a title, authors, year and venue
    (raw field values, read with bibtexparser)."""
    import bibtexparser

    found = []
    for entry in bibtexparser.parse_file(str(path)).entries:
        fields = {k.lower(): str(f.value) for k, f in entry.fields_dict.items()}
        if all(fields.get(n) for n in ("title", "author", "year", "booktitle", "pages")):
            found.append(Entry(entry.key, fields))
    return found


def initials(author: str) -> str:
    """``Family, Given Names`` with the given names cut to initials (``Family, G. N.``)."""
    out = []
    for name in author.split(" and "):
        family, _, given = name.partition(", ")
        short = " ".join(f"{part[0]}." for part in given.replace("-", " ").split() if part)
        out.append(f"{family}, {short}" if short else family)
    return " and ".join(out)


def sentence_case(title: str) -> str:
    """Google Scholar's title: the first letter kept, other words lower-cased unless
    they hold a capital after their first letter (acronyms, ``LSTM``, ``k-NN``)."""
    words = title.split()
    return " ".join(
        [words[0]]
        + [w if any(c.isupper() for c in w[1:]) or "{" in w else w.lower() for w in words[1:]]
    )


def retitle(title: str, rng: random.Random) -> str:
    """The preprint's title of a retitled paper: a word or two different."""
    words = title.split()
    long = [i for i, w in enumerate(words) if len(w) > 5 and w.isalpha()]
    if long and rng.random() < 0.5:
        words[rng.choice(long)] = rng.choice(SWAPS)
    else:
        words.insert(0, rng.choice(SWAPS))
    if rng.random() < 0.4 and len(words) > 4:
        del words[-1]
    return " ".join(words)


def change_words(text: str, rng: random.Random, count: int) -> str:
    """``text`` with ``count`` of its long words replaced by others of it."""
    words = _WORD.findall(text)
    for _ in range(count):
        if len(words) < 2:
            break
        old, new = rng.sample(words, 2)
        text = text.replace(old, new, 1)
    return text


def preprint(entry: Entry, index: int, rng: random.Random) -> tuple[str, str, dict[str, bool]]:
    """One arXiv-style entry for ``entry``: (key, BibTeX text, what was done to it)."""
    f = entry.fields
    arxiv = f"15{(index % 12) + 1:02d}.{index + 1000:05d}"
    authors = f["author"]
    names = authors.split(" and ")
    flags = {"truncated": False, "earlier": False, "retitled": False, "initials": False}
    if len(names) >= 4 and rng.random() < 0.2:
        authors = " and ".join([*names[:3], "others"])
        flags["truncated"] = True
    year = int(f["year"])
    if rng.random() < 1 / 3:
        year -= 1
        flags["earlier"] = True
    title, abstract = f["title"], f.get("abstract", "")
    if rng.random() < 0.2:
        title = retitle(title, rng)
        abstract = change_words(abstract, rng, 2)
        flags["retitled"] = True
    family = re.sub(r"[^a-z]", "", names[0].split(",")[0].lower())
    first = re.sub(r"[^a-z]", "", title.split()[0].lower()) or "paper"
    key = f"{family}{year}{first}{index}"
    form = index % 3
    if form == 0:  # Google Scholar "Cite"
        flags["initials"] = True
        text = (
            f"@article{{{key},\n  title={{{sentence_case(title)}}},\n"
            f"  author={{{initials(authors)}}},\n"
            f"  journal={{arXiv preprint arXiv:{arxiv}}},\n  year={{{year}}},\n"
            f"  abstract={{{abstract}}}\n}}\n"
        )
    elif form == 1:  # arXiv's own BibTeX
        text = (
            f"@misc{{{key},\n  title={{{title}}},\n  author={{{authors}}},\n"
            f"  year={{{year}}},\n  eprint={{{arxiv}}},\n  archivePrefix={{arXiv}},\n"
            f"  primaryClass={{cs.LG}},\n  abstract={{{abstract}}}\n}}\n"
        )
    else:  # DataCite's record of the arXiv DOI
        text = (
            f"@misc{{{key},\n  doi = {{10.48550/ARXIV.{arxiv}}},\n"
            f"  url = {{https://arxiv.org/abs/{arxiv}}},\n  author = {{{authors}}},\n"
            f"  keywords = {{Machine Learning (cs.LG)}},\n  title = {{{title}}},\n"
            f"  publisher = {{arXiv}},\n  year = {{{year}}},\n"
            f"  copyright = {{arXiv.org perpetual, non-exclusive license}},\n"
            f"  abstract = {{{abstract}}}\n}}\n"
        )
    return key, text, flags


def cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``readinglist --db DB ARGS`` in a new process of this interpreter."""
    command = [sys.executable, "-m", "readinglist", "--db", db, *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def fresh_database(base: str | None, workdir: Path) -> str:
    """An empty database: an SQLite file in ``workdir``, or a new PostgreSQL database."""
    if base is None:
        return str(workdir / "versions.db")
    from sqlalchemy import create_engine

    admin_url, _, _ = base.rpartition("/")
    database = f"rl_versions_{int(time.time())}"
    admin = create_engine(f"{admin_url}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    admin.dispose()
    return f"{admin_url}/{database}"


def people(author: str) -> list[tuple[str, str]]:
    """(family, given) of a BibTeX ``Family, Given and ...`` list, LaTeX decoded."""
    from readinglist.text import latex_to_unicode

    out = []
    for name in author.split(" and "):
        family, _, given = name.partition(", ")
        out.append((latex_to_unicode(family).strip(), latex_to_unicode(given).strip()))
    return out


def _exists(db: str, key: str) -> bool:
    """True when ``key`` names a paper (a preprint the reader rejected does not)."""
    from readinglist import config, library
    from readinglist import db as database

    engine = _ENGINES.get(db) or _ENGINES.setdefault(db, database.make_engine(config.to_url(db)))
    with database.session_scope(engine) as session:
        return library.find_paper(session, key) is not None


_ENGINES: dict[str, Any] = {}


def check(db: str, entries: list[Entry], keys: list[str], triaged: set[str]) -> dict[str, Any]:
    """Look every pair of keys up in the library and count correct, wrong, left over."""
    from readinglist import config, library
    from readinglist import db as database

    engine = database.make_engine(config.to_url(db))
    result: dict[str, Any] = {"correct": 0, "wrong": 0, "left": [], "faults": {}}
    owner = {}
    with database.session_scope(engine) as session:
        for entry, key in zip(entries, keys, strict=True):
            for k in (entry.key, key):
                paper = library.find_paper(session, k)
                owner[k] = paper.id if paper is not None else None
        for entry, key in zip(entries, keys, strict=True):
            if owner[key] != owner[entry.key]:
                result["left"].append((key, entry.key))
                continue
            paper = library.find_paper(session, key)
            assert paper is not None
            f = entry.fields
            have = [
                (pp.person.family, pp.person.given) for pp in paper.people if pp.role == "author"
            ]
            tags = {t.name for t in paper.tags}
            faults = [
                name
                for name, ok in (
                    ("type", paper.entry_type == "inproceedings"),
                    ("venue", paper.venue == f["booktitle"]),
                    ("year", paper.year == int(f["year"])),
                    ("pages", (paper.fields or {}).get("pages") == f["pages"]),
                    ("volume", (paper.fields or {}).get("volume") == f["volume"]),
                    ("authors", have == people(f["author"])),
                    (
                        "triage",
                        key not in triaged or (paper.status == "to-read" and "triaged" in tags),
                    ),
                )
                if not ok
            ]
            for name in faults:
                result["faults"][name] = result["faults"].get(name, 0) + 1
            if not faults:
                result["correct"] += 1
        # Wrong: a paper holding two entries' keys (proceedings or preprint).
        holders: dict[int | None, set[int]] = {}
        for index, (entry, key) in enumerate(zip(entries, keys, strict=True)):
            holders.setdefault(owner[entry.key], set()).add(index)
            holders.setdefault(owner[key], set()).add(index)
        result["wrong"] = sum(len(g) - 1 for pid, g in holders.items() if pid is not None)
    engine.dispose()
    return result


def main() -> None:
    """Build the preprints, run the imports, print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bib", type=Path, default=DATA / "pmlr-v37-icml2015.bib")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--triage", type=int, default=30)
    parser.add_argument("--db", default=None, help="PostgreSQL URL base (default: SQLite)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    entries = read_entries(args.bib)
    built = [preprint(e, i, rng) for i, e in enumerate(entries)]
    keys = [key for key, _, _ in built]
    workdir = Path(tempfile.mkdtemp(prefix="rl-versions-"))
    pre = workdir / "preprints.bib"
    pre.write_text("\n".join(text for _, text, _ in built), encoding="utf-8")
    db = fresh_database(args.db, workdir)
    done = cli(db, "import", str(pre))
    if done.returncode not in (0, 5):  # 5: some entries rejected (said on stderr)
        raise SystemExit(f"preprint import failed: {done.stderr}")
    kept = [i for i, key in enumerate(keys) if _exists(db, key)]
    entries, built = [entries[i] for i in kept], [built[i] for i in kept]
    keys = [key for key, _, _ in built]
    triaged = set(rng.sample(keys, min(args.triage, len(keys))))
    for command in (("mark", "to-read"), ("priority", "high"), ("tag", "add", "triaged")):
        done = cli(db, *command, *sorted(triaged))
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {done.stderr}")
    start = time.perf_counter()
    done = cli(db, "import", str(args.bib))
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"proceedings import failed: {done.stderr}")
    result = check(db, entries, keys, triaged)
    again = cli(db, "import", str(args.bib))
    idempotent = ": 0 added, 0 merged," in again.stderr and "merge history" not in again.stderr
    dups = cli(db, "duplicates", "--json")
    offered = 0
    if dups.returncode == 0:
        pairs = {
            frozenset(str(v) for v in p.values() if isinstance(v, str))
            for p in json.loads(dups.stdout)
        }
        for a, b in result["left"]:
            offered += any(a in p and b in p for p in pairs)
    n = len(entries)
    retitled = [k for k, _, flags in built if flags["retitled"]]
    left = {a for a, _ in result["left"]}
    merged_retitled = sum(1 for k in retitled if k not in left)
    print(f"proceedings: {args.bib.name}, {n} entries (with a preprint), seed {args.seed}")
    print(
        "forms: "
        + ", ".join(
            f"{name} {sum(1 for _, _, fl in built if fl[name])}"
            for name in ("initials", "truncated", "earlier", "retitled")
        )
    )
    print(
        f"correct published records: {result['correct']} of {n} ({100 * result['correct'] / n:.1f}%)"
    )
    print(f"faults among merged: {result['faults'] or 'none'}")
    print(f"wrong merges: {result['wrong']}")
    print(f"left-over pairs: {len(result['left'])} (offered by duplicates: {offered})")
    print(f"retitled merged: {merged_retitled} of {len(retitled)}")
    print(f"second import changes nothing: {idempotent}")
    print(f"proceedings import: {seconds:.2f} s")
    if result["left"]:
        print("left over:", ", ".join(f"{a}/{b}" for a, b in result["left"][:20]))
    if args.keep:
        print(f"work directory: {workdir}")


if __name__ == "__main__":
    main()
