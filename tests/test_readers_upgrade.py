"""An old library upgraded to readers (migration 0008) shows a single reader exactly
what it showed before: the same bytes from list, show, stats, list --json, export
markdown and bibtex, note list and triage's first screen, on SQLite and PostgreSQL.

The golden file holds the outputs of the code of revision 0007 on the library that
``test_migrations_data.rows_0007`` makes (a paper decided, prioritised, noted, its
status history with an undo; a new one): written by ``tests/readers_upgrade.py`` run
with that code first on the path (see its docstring). Two outputs were corrected since:
``stats`` no longer counts in "Read per month" the read that the history's undo took
back (that code counted it), and the notice of a first interest index no longer says
the index is built "once" (an import or a text or tag change builds it again), and the
export's audit line says "1 of 2 exported entries is" (it said "entry").
"""

from __future__ import annotations

import json

from readers_upgrade import GOLDEN, outputs
from test_migrations_data import insert_rows

from readinglist import db


def test_an_upgraded_library_shows_one_reader_the_same_bytes(db_url) -> None:
    engine = db.make_engine(db_url)
    db.downgrade(engine, "0007")
    insert_rows(engine, "0007")
    engine.dispose()
    found = outputs(db_url)  # the first command upgrades the library
    engine = db.make_engine(db_url)
    with engine.connect() as conn:
        assert db.current_revision(conn) == db.HEAD
    engine.dispose()
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(found) == set(expected)
    for name, output in expected.items():
        assert found[name] == output, name
