#!/bin/sh
# Set-up of the programs the test suite runs for real, on a fresh machine (README quick
# start, command 2; .ci/run calls it too): bibtex, biber, pdflatex and the LaTeX packages
# the tests load (biblatex, etoolbox), pandoc and mutool (mupdf-tools: a PDF's text and
# objects), chromium (Debian's headless browser: the browser tests of `readinglist serve`
# drive it through Playwright's Python package, never a browser of Playwright's own), and
# a running PostgreSQL at 127.0.0.1:5432 when one is installed. Installs with apt-get when
# a package is missing and the user is root; otherwise it says what is missing and goes
# on: the tests that need it then fail, each with one line naming it (tests/helpers.py,
# require_tools). Exits 0.
#
# --background: apt-get goes on in a process of its own, which holds an exclusive lock
# (flock) on tests/.setup-tools.lock until it ends, and the script returns at once: the
# test run starts the tests that run no real program first and the others wait for the
# lock (tests/tool_setup.py). Its output goes to tests/.setup-tools.log. Without flock
# (util-linux), or without the option, the script waits for apt-get.
# CDPATH= : cd prints the folder it went to when CDPATH found it, which would join `here`
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
lock="$here/.setup-tools.lock"
log="$here/.setup-tools.log"
background=
[ "${1:-}" = "--background" ] && command -v flock >/dev/null 2>&1 && background=1

packages="texlive-binaries texlive-base texlive-latex-base texlive-latex-recommended
  texlive-bibtex-extra biber pandoc mupdf-tools chromium fonts-dejavu-core"

# What is missing: a program, a LaTeX package, or one of `packages` that dpkg left half
# installed (an installation interrupted: unpacked but not configured, so pdflatex can be
# on PATH without its formats). dpkg-query's second status letter: H half-installed,
# U unpacked, F half-configured, W and t triggers not run (dpkg-query(1)).
missing() {
  for tool in bibtex biber pdflatex kpsewhich pandoc mutool chromium; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool"; continue; }
  done
  if command -v kpsewhich >/dev/null 2>&1; then
    for sty in biblatex.sty etoolbox.sty; do
      [ -n "$(kpsewhich "$sty" 2>/dev/null)" ] || echo "$sty"
    done
  fi
  if command -v dpkg-query >/dev/null 2>&1; then
    for pkg in $packages; do
      case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null)" in
        ?[HUFWt]*) echo "$pkg(half-installed)" ;;
      esac
    done
  fi
}

# --no-install-recommends: the 54 recommended packages (ghostscript, lmodern, fonts, perl
# mail and X11 modules, ~90 MB) are used by no test. --force-unsafe-io: dpkg does not wait
# for the disk after each file it unpacks (dpkg(1); what Debian's container images do),
# as a crash mid-install only means running this again: `dpkg --configure -a` first
# finishes what an interrupted dpkg left (apt-get refuses to install until it is run).
# DPkg::Lock::Timeout: another apt-get (another checkout's set-up) is waited for, not an
# error. apt-get does not get the lock's descriptor (9>&-): a daemon a package starts must
# not hold the lock forever.
install() {
  echo "setup-tools: installing the test tools (missing: $(echo $need))"
  { DEBIAN_FRONTEND=noninteractive dpkg --configure -a --force-unsafe-io
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-unsafe-io \
      --no-install-recommends $packages; } >/dev/null 2>&1 9>&- \
    || echo "setup-tools: apt-get could not install them"
  need=$(missing)
  [ -z "$need" ] || echo "setup-tools: still missing: $(echo $need) (the tests that need them will fail)"
}

need=$(missing)
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ -n "$background" ]; then
      # the lock is taken here, before the script returns, and the background process
      # inherits it (one open file, fd 9): a test starting right after this finds it held.
      # Held already: another run's installation goes on (README command 2 run twice, or
      # beside .ci/run); waiting for it here would not return at once, then run apt-get again
      exec 9>"$lock"
      # readable by all, whatever the umask: a test run of another user (the set-up run
      # with sudo) that cannot open it would not see the installation and not wait
      chmod a+r "$lock" 2>/dev/null
      if flock -xn 9; then
        echo "setup-tools: installing the test tools in the background (missing: $(echo $need));" \
          "the tests that run them wait for it (log: $log)"
        ( install ) >"$log" 2>&1 </dev/null &
      else
        echo "setup-tools: already installing the test tools in the background;" \
          "the tests that run them wait for it (log: $log)"
      fi
      exec 9>&-
    else
      install
    fi
  else
    echo "setup-tools: still missing: $(echo $need) (the tests that need them will fail)"
  fi
fi

if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
    done
  fi
fi
exit 0
