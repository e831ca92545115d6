"""Run the command-line interface with ``python -m readinglist``."""

from readinglist.cli import main

main()
