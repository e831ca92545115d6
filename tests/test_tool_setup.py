"""tests/setup-tools.sh --background: apt-get goes on beside the tests, which wait for it.

The script runs for real (``/bin/sh``) on a copy of itself, with a PATH holding only the
programs it uses and a stand-in ``apt-get`` that records its arguments and takes a while;
the lock is the copy's own (``tests/.setup-tools.lock`` beside it), so the suite's own
tests never see it held.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, run_nested_suite
from tool_setup import install_running, wait_for_install

#: Its install waits until the test creates ``go`` (at most 60 s): the test decides when
#: the installation ends, with no timing to guess.
FAKE_APT = """#!/bin/sh
echo "$@" >> "{calls}"
case "$*" in *install*)
  i=0; while [ ! -e "{go}" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done ;;
esac
exit 0
"""


def _setup_copy(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """A copy of setup-tools.sh in ``tmp_path/tests``, the environment to run it with (no
    test tool on PATH, a stand-in apt-get), and the file apt-get's arguments go to."""
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(ROOT / "tests" / "setup-tools.sh", tests / "setup-tools.sh")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for program in ("dirname", "id", "flock", "sleep", "cat", "chmod"):
        found = shutil.which(program)
        assert found is not None, program
        (bin_ / program).symlink_to(found)
    calls = tmp_path / "apt-calls.txt"
    apt = bin_ / "apt-get"
    apt.write_text(FAKE_APT.format(calls=calls, go=tmp_path / "go"), encoding="utf-8")
    apt.chmod(0o755)
    return tests, {**os.environ, "PATH": str(bin_)}, calls


def _run_setup(tests: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the copy of setup-tools.sh in ``tests`` with ``args`` (at most 60 s)."""
    return subprocess.run(
        ["/bin/sh", str(tests / "setup-tools.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_background_setup_returns_at_once_holding_the_lock_until_apt_get_ends(
    tmp_path: Path,
) -> None:
    tests, env, calls = _setup_copy(tmp_path)
    done = _run_setup(tests, env, "--background")
    lock = tests / ".setup-tools.lock"
    assert done.returncode == 0, done.stderr
    assert install_running(lock)  # the stand-in apt-get waits for "go"
    (tmp_path / "go").touch()
    assert "installing the test tools in the background (missing: bibtex biber" in done.stdout
    wait_for_install(limit=60, lock=lock)  # True, unless apt-get ended already
    assert not install_running(lock)
    said = calls.read_text(encoding="utf-8")
    assert said.startswith("update -qq\n")
    assert "-o Dpkg::Options::=--force-unsafe-io" in said
    assert "chromium" in said
    log = (tests / ".setup-tools.log").read_text(encoding="utf-8")
    assert "still missing: bibtex biber pdflatex kpsewhich pandoc mutool chromium" in log


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_setup_without_the_option_waits_for_apt_get(tmp_path: Path) -> None:
    tests, env, calls = _setup_copy(tmp_path)
    (tmp_path / "go").touch()
    done = _run_setup(tests, env)
    assert done.returncode == 0, done.stderr
    assert not install_running(tests / ".setup-tools.lock")
    assert "install" in calls.read_text(encoding="utf-8")
    assert "still missing: bibtex" in done.stdout


def test_tests_running_a_tool_start_last_and_wait_for_the_installation(tmp_path: Path) -> None:
    """A nested run of the suite's conftest.py while a process holds the set-up's lock
    until the plain test has run: the test of a module that runs a program is collected
    first but runs after the other module's, and only once the lock is free."""
    folder = tmp_path / "nested"
    folder.mkdir()
    stamps = tmp_path / "stamps.txt"
    # the module that runs a program comes first in collection order
    (folder / "test_a_tool.py").write_text(
        "import time, pytest\n"
        f"STAMPS = {str(stamps)!r}\n\n"
        "@pytest.mark.tools('sh')\ndef test_a():\n"
        "    open(STAMPS, 'a').write(f'a {time.time()}\\n')\n",
        encoding="utf-8",
    )
    (folder / "test_b_plain.py").write_text(
        "import time\n"
        f"STAMPS = {str(stamps)!r}\n\n"
        "def test_b():\n"
        "    open(STAMPS, 'a').write(f'b {time.time()}\\n')\n",
        encoding="utf-8",
    )
    lock = folder / ".setup-tools.lock"
    released = tmp_path / "released.txt"
    # the lock is held until test_b has run (at most 60 s): with no fixed wait, test_a
    # can only run after test_b if it waits for the lock
    hold = (
        f"i=0; while ! grep -q '^b' {stamps} 2>/dev/null && [ $i -lt 1200 ];"
        f" do sleep 0.05; i=$((i+1)); done; date +%s.%N > {released}"
    )
    holder = subprocess.Popen(["flock", "-x", str(lock), "sh", "-c", hold])
    try:
        for _ in range(200):
            if install_running(lock):
                break
            time.sleep(0.05)
        done = run_nested_suite(folder, dict(os.environ))
    finally:
        holder.wait(timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    order = [line.split() for line in stamps.read_text(encoding="utf-8").splitlines()]
    assert [name for name, _ in order] == ["b", "a"]
    assert float(order[1][1]) >= float(released.read_text(encoding="utf-8"))


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_a_second_background_setup_returns_at_once_while_the_first_installs(
    tmp_path: Path,
) -> None:
    """Two runs of the README's command 2 (or it and .ci/run) at once: the second finds the
    lock held, says so and returns, instead of waiting for the whole installation and
    then running apt-get again."""
    tests, env, calls = _setup_copy(tmp_path)
    command = ["/bin/sh", str(tests / "setup-tools.sh"), "--background"]
    first = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert first.returncode == 0, first.stderr
    try:
        started = time.monotonic()
        second = subprocess.run(command, capture_output=True, text=True, env=env, timeout=20)
        took = time.monotonic() - started
        assert install_running(tests / ".setup-tools.lock")  # the first's apt-get still runs
    finally:
        (tmp_path / "go").touch()
    assert second.returncode == 0, second.stderr
    assert took < 20  # the stand-in apt-get waits up to 60 s for "go"
    assert "already installing the test tools" in second.stdout
    wait_for_install(limit=60, lock=tests / ".setup-tools.lock")
    said = calls.read_text(encoding="utf-8").splitlines()
    assert [line.split()[0] for line in said] == ["update", "install"]


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_background_setup_with_cdpath_exported(tmp_path: Path) -> None:
    """``cd`` prints the folder it went to when CDPATH found it (POSIX cd): the script's
    own folder must not take that line too, or the lock's path is two lines and the
    script stops at its first redirection."""
    tests, env, calls = _setup_copy(tmp_path)
    (tmp_path / "go").touch()
    done = subprocess.run(
        ["/bin/sh", "tests/setup-tools.sh", "--background"],
        capture_output=True,
        text=True,
        env={**env, "CDPATH": str(tmp_path)},
        cwd=tmp_path,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "installing the test tools in the background" in done.stdout
    wait_for_install(limit=60, lock=tests / ".setup-tools.lock")
    assert "install" in calls.read_text(encoding="utf-8")


def test_an_installation_past_the_limit_fails_the_next_tests_at_once(tmp_path: Path) -> None:
    """An apt-get that hangs (a mirror that stopped answering) fails the first test that
    waits for it after the limit, and every later one at once: each waiting the whole
    limit again would make a run of a few hundred such tests last days."""
    lock = tmp_path / ".setup-tools.lock"
    hold = "import fcntl, os, sys, time\n"
    hold += "fcntl.flock(os.open(sys.argv[1], os.O_RDWR | os.O_CREAT), fcntl.LOCK_EX)\n"
    hold += "time.sleep(60)\n"
    holder = subprocess.Popen([sys.executable, "-c", hold, str(lock)])  # killed: lock freed
    try:
        for _ in range(200):
            if install_running(lock):
                break
            time.sleep(0.05)
        with pytest.raises(pytest.fail.Exception, match="still installing"):
            wait_for_install(limit=0.5, lock=lock)
        started = time.monotonic()
        with pytest.raises(pytest.fail.Exception, match="still installing"):
            wait_for_install(limit=10, lock=lock)
        assert time.monotonic() - started < 5
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert not wait_for_install(limit=10, lock=lock)  # it ended: nothing to wait for


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_a_package_an_interrupted_installation_left_half_installed_is_finished(
    tmp_path: Path,
) -> None:
    """An installation killed inside dpkg leaves pdflatex on PATH but its package only
    unpacked (no formats built): the run finds it, finishes dpkg's work first (apt-get
    refuses to install until ``dpkg --configure -a`` ran) and installs again."""
    tests, env, calls = _setup_copy(tmp_path)
    bin_ = Path(env["PATH"])
    for program in ("bibtex", "biber", "pdflatex", "pandoc", "mutool", "chromium"):
        (bin_ / program).write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_ / "kpsewhich").write_text('#!/bin/sh\necho "/texmf/$1"\n', encoding="utf-8")
    # dpkg-query: texlive-base unpacked, not configured; every other package installed
    (bin_ / "dpkg-query").write_text(
        '#!/bin/sh\neval "pkg=\\${$#}"\n'
        'if [ "$pkg" = texlive-base ]; then printf "iU "; else printf "ii "; fi\n',
        encoding="utf-8",
    )
    (bin_ / "dpkg").write_text(f'#!/bin/sh\necho "dpkg $*" >> "{calls}"\n', encoding="utf-8")
    for program in bin_.iterdir():
        if not program.is_symlink():
            program.chmod(0o755)
    (tmp_path / "go").touch()
    done = _run_setup(tests, env)
    assert done.returncode == 0, done.stderr
    assert "(missing: texlive-base(half-installed))" in done.stdout
    said = [line.split()[0:2] for line in calls.read_text(encoding="utf-8").splitlines()]
    assert said == [["dpkg", "--configure"], ["update", "-qq"], ["install", "-y"]]


@pytest.mark.skipif(os.geteuid() != 0, reason="setup-tools.sh installs only as root")
def test_the_lock_is_readable_by_every_user_whatever_the_umask(tmp_path: Path) -> None:
    """``sudo sh tests/setup-tools.sh --background`` under a umask of 077 made the lock
    readable by root only: the user's test run could not open it, so it saw no
    installation running and started the tests of the programs being installed."""
    tests, env, _ = _setup_copy(tmp_path)
    (tmp_path / "go").touch()
    done = subprocess.run(
        ["/bin/sh", "-c", 'umask 077; exec /bin/sh "$0" --background', tests / "setup-tools.sh"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lock = tests / ".setup-tools.lock"
    wait_for_install(limit=60, lock=lock)  # the stand-in apt-get ends at once
    assert lock.stat().st_mode & 0o444 == 0o444
