#!/bin/sh
# The main job on the example input: abstracts -> database -> BibTeX, Markdown and CSL-JSON.
# Usage: sh examples/main-job.sh [OUTPUT_DIR]   (default: exports/ in this repository)
# Uses its own database file, OUTPUT_DIR/example.db (git-ignored), made anew on each run, so
# the outputs are repeatable and the user's own library is left alone.
set -eu
cd "$(dirname "$0")/.."
out=${1:-exports}
mkdir -p "$out"
db="$out/example.db"
rm -f "$db" "$db-wal" "$db-shm"
readinglist --db "$db" import examples/icml2026-abstracts.txt
readinglist --db "$db" export bibtex -o "$out/icml2026.bib"
readinglist --db "$db" export markdown --abstracts --title "ICML 2026 Papers" -o "$out/icml2026.md"
readinglist --db "$db" export csl-json -o "$out/icml2026.json"
