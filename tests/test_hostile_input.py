"""Issue 18: decompression and one-line bombs, endless standard input, bad UTF-8 bytes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from readinglist import formats
from readinglist.cli import cli


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_one_line_gzip_bomb_fails_at_the_line_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READINGLIST_MAX_LINE_BYTES", str(1 << 20))
    bomb = tmp_path / "bomb.bib.gz"
    bomb.write_bytes(gzip.compress(b"@misc{a,\n title={" + b"A" * (40 << 20)))  # 40 KiB stored
    db = tmp_path / "lib.db"
    code, out, err = _run("--db", str(db), "import", str(bomb))
    assert (code, out) == (5, "")
    assert err == (
        f"Error: {bomb}:2: line longer than 1 MiB (the longest line readinglist reads); "
        "is this a bibliography?\n"
    )
    assert _run("--db", str(db), "list", "-k")[1] == ""


def test_gzip_inside_a_ris_file_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READINGLIST_MAX_INPUT_BYTES", str(2 << 20))
    ris = tmp_path / "refs.ris"
    ris.write_bytes(gzip.compress(b"TY  - JOUR\nTI  - A title\nER  - \n" * 100_000))
    code, out, err = _run("--db", str(tmp_path / "lib.db"), "import", str(ris))
    assert (code, out) == (5, "")
    assert err == (
        f"Error: {ris}: more than 2 MiB of text to read at once (the most readinglist reads "
        "of a file that is not BibTeX, or of standard input); split it into smaller files\n"
    )


def test_endless_standard_input_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READINGLIST_MAX_INPUT_BYTES", str(1 << 20))
    code, out, err = _run("--db", str(tmp_path / "lib.db"), "import", "-", stdin=b"y\n" * (1 << 20))
    assert (code, out) == (5, "")
    assert err == (
        "Error: <stdin>: more than 1 MiB of text to read at once (the most readinglist reads "
        "of a file that is not BibTeX, or of standard input); split it into smaller files\n"
    )


def test_a_long_csl_json_line_is_not_a_line_bomb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READINGLIST_MAX_LINE_BYTES", "100")
    data = b'[{"id": "a", "type": "article", "title": "' + b"x" * 500 + b'"}]'
    sniffed = formats.sniff([data], "a.json")
    assert (sniffed.encoding, sniffed.size) == ("utf-8", len(data))


def _bib(bad: int | None) -> bytes:
    lines = [
        f"@article{{k{i}, title={{Paper {i} by Jäger}}, year={{2020}}}}\n".encode()
        for i in range(30)
    ]
    if bad is not None:
        lines[bad] = lines[bad].replace("Jäger".encode(), b"J\xe4ger")
    return b"".join(lines)


def test_one_bad_byte_keeps_utf8_and_names_the_line(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_bytes(_bib(5))
    db = str(tmp_path / "lib.db")
    code, _, err = _run("--db", db, "import", str(bib))
    assert code == 0
    assert err == (
        f"created a new library at {db}\n"
        f"warning: {bib}:6: not valid UTF-8: the bad bytes of this line were replaced by "
        f"U+FFFD\n{bib} (bibtex): 30 added, 0 merged, 0 already present, 0 rejected\n"
    )
    assert _run("--db", db, "show", "k4")[1].splitlines()[0] == "Paper 4 by Jäger"
    assert _run("--db", db, "show", "k5")[1].splitlines()[0] == "Paper 5 by J\ufffdger"


def test_one_bad_byte_with_strict_imports_nothing(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_bytes(_bib(5))
    db = str(tmp_path / "lib.db")
    code, _, err = _run("--db", db, "import", "--strict", str(bib))
    assert code == 5
    assert err.splitlines()[-1] == "Error: 1 line not valid UTF-8; nothing imported (--strict)"
    assert _run("--db", db, "list", "-k")[1] == ""


def test_a_latin1_file_is_still_read_as_latin1() -> None:
    data = b"@article{k1, title={Caf\xe9}, year={2020}}\n@article{k2, title={Na\xefve}}\n"
    text, warnings = formats.decode(data, "lat.bib")
    assert text.splitlines()[0] == "@article{k1, title={Café}, year={2020}}"
    assert [str(w) for w in warnings] == [
        "lat.bib:1: not valid UTF-8 (first bad byte here); decoded as Windows-1252"
    ]


def test_many_bad_lines_are_counted_after_ten() -> None:
    good = "é" * 50 + "\n"
    data = (good * 5).encode() + b"bad \xff\n" * 13
    text, warnings = formats.decode(data, "x.txt")
    assert text.count("\ufffd") == 13
    assert [str(w) for w in warnings][-2:] == [
        "x.txt:15: not valid UTF-8: the bad bytes of this line were replaced by U+FFFD",
        "x.txt: and 3 more lines with bytes that are not UTF-8, replaced by U+FFFD",
    ]
    assert len(warnings) == 11


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    bomb = tmp_path / "bomb.bib.gz"
    # Level 1: 1.1 MB (level 9: 0.26 MB, 0.9 s more CPU to write); the same 256 MiB text.
    with gzip.open(bomb, "wb", compresslevel=1) as handle:
        handle.write(b"@misc{a,\n title={")
        for _ in range(256):  # 256 MiB on one line
            handle.write(b"A" * (1 << 20))
    # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across execve, so it would report the
    # peak of the (large) pytest process this one was forked from.
    code = (
        "import sys\n"
        "from readinglist.cli import main\n"
        "try:\n    main()\n"
        "finally:\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
        "    print(status, file=sys.stderr)\n"
    )
    env = {**os.environ, "READINGLIST_MAX_LINE_BYTES": str(4 << 20)}
    result = subprocess.run(
        [sys.executable, "-c", code, "--db", str(tmp_path / "l.db"), "import", str(bomb)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    message, peak_kib = result.stderr.splitlines()
    assert result.returncode == 5
    assert message == (
        f"Error: {bomb}:2: line longer than 4 MiB (the longest line readinglist reads); "
        "is this a bibliography?"
    )
    assert int(peak_kib) < 200_000  # the whole line would be 256 MiB


def test_a_named_pipe_is_imported_once_read(tmp_path: Path) -> None:
    """A named pipe (``import <(zcat refs.bib.gz)`` in bash, a FIFO) can be read only once,
    while an import reads a file several times (sniffed, then parsed): it is read whole
    once. It failed with "cannot write the output: File or stream is not seekable"
    (exit 1), naming neither the input nor reading. A real process, bounded in time (a
    second open of the pipe waits for a writer for ever); SQLite only: the rule is about
    reading the input, before any database."""
    import os
    import subprocess
    import sys
    import threading

    fifo = tmp_path / "refs.bib"
    os.mkfifo(fifo)
    text = (
        "@article{a1, title={One}, author={Roe, Ann}, year={2020}}\n"
        "@article{b2, title={Two}, author={Doe, Bo}, year={2021}}\n"
    )

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as out:
            out.write(text)

    threading.Thread(target=feed, daemon=True).start()
    db = str(tmp_path / "lib.db")
    done = subprocess.run(
        [sys.executable, "-m", "readinglist", "--db", db, "import", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"{fifo} (bibtex): 2 added, 0 merged, 0 already present, 0 rejected" in done.stderr
    listed = _run("--db", db, "list", "-k", "--sort", "key")  # what it imported
    assert listed[1].split() == ["a1", "b2"]


def test_a_lone_surrogate_escape_in_csl_json_is_replaced_and_named(invoke, tmp_path: Path) -> None:
    """JSON may escape half of a UTF-16 pair (``\\ud800``, RFC 8259 8.2), which decodes
    to no character and which no UTF-8 file or database holds: it is U+FFFD, with a
    warning naming the file and line. The import stopped with "an argument is not valid
    UTF-8 text" (exit 2), naming no file."""
    source = tmp_path / "s.json"
    source.write_text(
        '[\n{"id": "a", "type": "book", "title": "ok"},\n'
        '{"id": "b", "type": "book", "title": "bad \\ud800 x", "author": [{"family": "X"}]}\n]\n',
        encoding="utf-8",
    )
    result = invoke("import", str(source))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"warning: {source}:3: a lone surrogate escape such as \\ud800 (half of a UTF-16 "
        "pair, no character) replaced by U+FFFD"
    )
    (paper,) = [p for p in json.loads(invoke("list", "--json").stdout) if p["key"] == "b"]
    assert paper["title"] == "bad \ufffd x"


def test_export_to_dev_stdout_writes_into_the_pipe(tmp_path: Path) -> None:
    """``-o /dev/stdout`` (a link to the pipe the shell made) is written to, not renamed
    over: its real path (``/proc/PID/fd/pipe:[N]``) names no file, and the export failed
    with "cannot write /dev/stdout: No such file or directory". A real process (the
    pipe is the point); SQLite only: the rule is about the output file."""
    import subprocess
    import sys

    bib = tmp_path / "a.bib"
    bib.write_text("@article{a1, title={One}, author={Roe, Ann}, year={2020}}\n", encoding="utf-8")
    db = str(tmp_path / "lib.db")
    assert _run("--db", db, "import", str(bib))[0] == 0  # the library the export reads
    done = subprocess.run(
        [sys.executable, "-m", "readinglist", "--db", db, "export", "bibtex", "-o", "/dev/stdout"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "@article{a1, title={One}, author={Roe, Ann}, year={2020}}\n"
    assert done.stderr == "exported 1 paper to /dev/stdout (bibtex)\n"
