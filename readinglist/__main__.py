"""Run the command-line interface with ``python -m readinglist``."""

from readinglist.cli import main

if __name__ == "__main__":  # not when a reader process (spawn) imports this module
    main()
