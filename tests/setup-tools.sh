#!/bin/sh
# Set-up of the programs the test suite runs for real, on a fresh machine (README quick
# start, command 2; .ci/run calls it too): bibtex, biber, pdflatex and the LaTeX packages
# the tests load (biblatex, etoolbox), pandoc and mutool (mupdf-tools: a PDF's text and
# objects), chromium (Debian's headless browser: the browser tests of `readinglist serve`
# drive it through Playwright's Python package, never a browser of Playwright's own), and a running PostgreSQL at 127.0.0.1:5432 when one is installed. Installs with apt-get when a package is missing and the user is root;
# otherwise it says what is missing and goes on: the tests that need it then fail, each
# with one line naming it (tests/helpers.py, require_tools). Exits 0.
missing() {
  for tool in bibtex biber pdflatex kpsewhich pandoc mutool chromium; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool"; continue; }
  done
  if command -v kpsewhich >/dev/null 2>&1; then
    for sty in biblatex.sty etoolbox.sty; do
      [ -n "$(kpsewhich "$sty" 2>/dev/null)" ] || echo "$sty"
    done
  fi
}

need=$(missing)
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup-tools: installing the test tools (missing: $(echo $need))"
    # --no-install-recommends: the 54 recommended packages (ghostscript, lmodern, fonts,
    # perl mail and X11 modules, ~90 MB) are used by no test.
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends texlive-binaries texlive-base texlive-latex-base \
        texlive-latex-recommended texlive-bibtex-extra biber pandoc mupdf-tools chromium \
        fonts-dejavu-core; } >/dev/null 2>&1 \
      || echo "setup-tools: apt-get could not install them"
  fi
  need=$(missing)
  [ -z "$need" ] || echo "setup-tools: still missing: $(echo $need) (the tests that need them will fail)"
fi

if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      pg_ctlcluster --skip-systemctl-redirect "$version" main start >/dev/null 2>&1 || true
    done
  fi
fi
exit 0
