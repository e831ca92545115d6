"""Issue 18: is parsing one very long line linear? Time each reader on N and 2N MB.

Usage (from the project root)::

    .venv/bin/python benchmarks/long_line.py            # 50 and 100 MB
    .venv/bin/python benchmarks/long_line.py --mb 10    # 10 and 20 MB (a quick look)

For each format (BibTeX, RIS, CSL-JSON, a list of abstracts) it builds one entry whose
abstract is a single line of N MB of words, and times ``formats.read`` on it in a fresh
process (the text is built before the clock starts), then the same for 2N MB. Linear
parsing gives a ratio near 2; the issue measured 3.3 (200 MB 13.5 s, 400 MB 45 s). The
import command refuses a line past 16 MiB (README "Limits"); this measures the reader
itself, as if that limit were raised. Prints a Markdown table; writes nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, resource, sys, time
from readinglist import formats
fmt, size = sys.argv[1], int(sys.argv[2])
words = ("lorem ipsum dolor sit amet consectetur adipiscing elit " * (size // 56 + 1))[:size]
text = {
    "bibtex": "@article{k1, title={A long line}, author={Doe, Jane}, year={2020}, abstract={%s}}\\n",
    "ris": "TY  - JOUR\\nTI  - A long line\\nAU  - Doe, Jane\\nPY  - 2020\\nAB  - %s\\nER  - \\n",
    "csl-json": '[{"type": "article-journal", "title": "A long line", "abstract": "%s"}]\\n',
    "abstracts": "A long line\\n\\n%s\\n",
}[fmt] % words
del words
start = time.perf_counter()
result = formats.read(text, fmt, "long")
elapsed = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "records": len(result.records), "rss_mb": rss}))
"""

FORMATS = ("bibtex", "ris", "csl-json", "abstracts")


def measure(fmt: str, size: int) -> dict[str, float]:
    """Run the reader of ``fmt`` on a line of ``size`` bytes in a new process."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, fmt, str(size)],
        capture_output=True,
        text=True,
        check=True,
    )
    data: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    """Print one table row per format: N MB, 2N MB, the ratio, peak memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="the smaller size (default 50)")
    args = parser.parse_args()
    small, large = args.mb << 20, (2 * args.mb) << 20
    print(
        f"| format | {args.mb} MB (s) | {2 * args.mb} MB (s) | ratio | peak RSS at {2 * args.mb} MB |"
    )
    print("| --- | --- | --- | --- | --- |")
    for fmt in FORMATS:
        first = measure(fmt, small)
        second = measure(fmt, large)
        ratio = second["seconds"] / first["seconds"] if first["seconds"] else float("nan")
        print(
            f"| {fmt} | {first['seconds']:.2f} | {second['seconds']:.2f} | {ratio:.2f} "
            f"| {second['rss_mb']:.0f} MB |"
        )


if __name__ == "__main__":
    main()
