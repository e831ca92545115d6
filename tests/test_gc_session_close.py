"""No cyclic garbage collection runs while a session_scope Session commits and closes.

CPython 3.11 frees an object's inline attribute values while still using them when a
collection starts inside the allocation of that object's ``__dict__`` and a weakref
callback stores a new attribute on the same object. ``Session.close`` met it on
``InstanceState._strong_obj`` (``InstanceState._cleanup`` is the callback): the
duplicates report on a 2,508-paper library crashed with a segmentation fault in
``_detach_states``, or at exit. :func:`readinglist.db.session_scope` pauses the
collector for its teardown (``db_engine._collector_paused_at_exit``).
"""

from __future__ import annotations

import contextlib
import gc
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from sqlalchemy import event, insert, select

from readinglist import db, db_engine
from readinglist.models import Person

#: The interpreter defect alone: a collection started by the allocation of ``s.__dict__``
#: runs a weakref callback that stores a new attribute on ``s``. Exit 0 and "ok" on a
#: sound interpreter; on CPython 3.11 the callback's attribute is lost or it crashes.
_INTERPRETER_CASE = textwrap.dedent(
    """
    import gc, weakref
    class S: pass
    filler = S()
    for i in range(30):  # fill the type's shared keys
        setattr(filler, f"a{i}", i)
    s = S()
    for i in range(8):
        setattr(s, f"a{i}", i)  # s keeps inline values
    class Obj: pass
    def callback(ref):
        s.inner = None
    gc.collect(); gc.disable()
    o = Obj(); o.cycle = o
    refs = [weakref.ref(o, callback)]
    del o
    gc.set_threshold(1); gc.enable()
    s.outer = None  # not a shared key: allocates s.__dict__, which collects o
    gc.set_threshold(700); gc.collect()
    print("ok" if "inner" in vars(s) else "lost")
    """
)


def _person_row(url: str) -> Any:
    engine = db.make_engine(url)
    with engine.begin() as conn:
        conn.execute(insert(Person).values(id=1, name_key="Tseng|Bo|||", family="Tseng"))
    return engine


def _collector_during_close(engine: Any, *, fail: bool = False) -> list[bool]:
    seen: list[bool] = []
    enabled = gc.isenabled()

    def detached(session: Any, obj: Any) -> None:
        seen.append(gc.isenabled())

    expected = pytest.raises(RuntimeError) if fail else contextlib.nullcontext()
    with expected, db.session_scope(engine, write=False) as session:
        event.listen(session, "persistent_to_detached", detached)
        person = session.scalars(select(Person)).one()  # held: detached by close
        assert person.family == "Tseng"
        assert gc.isenabled() == enabled  # the body runs with the collector as it was
        if fail:
            raise RuntimeError("boom")
    return seen


@pytest.mark.parametrize("fail", [False, True], ids=["commit", "rollback"])
def test_session_teardown_runs_without_the_collector(sqlite_url: str, fail: bool) -> None:
    engine = _person_row(sqlite_url)
    try:
        assert gc.isenabled()
        seen = _collector_during_close(engine, fail=fail)
        assert seen == [sys.version_info >= (3, 12)]
        assert gc.isenabled()  # enabled again after the block
    finally:
        engine.dispose()


def test_a_disabled_collector_stays_disabled(sqlite_url: str) -> None:
    engine = _person_row(sqlite_url)
    gc.disable()
    try:
        assert _collector_during_close(engine) == [False]
        assert not gc.isenabled()
    finally:
        gc.enable()
        engine.dispose()


def test_the_pause_covers_every_interpreter_with_the_defect() -> None:
    """If this interpreter has the defect, ``db_engine._GC_IN_ALLOCATION`` must be true."""
    run = subprocess.run(
        [sys.executable, "-c", _INTERPRETER_CASE],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    sound = run.returncode == 0 and run.stdout.strip() == "ok"
    assert sound or db_engine._GC_IN_ALLOCATION, (run.returncode, run.stdout, run.stderr)


def test_expunge_all_in_a_session_pauses_the_collector(sqlite_url: str) -> None:
    """``db.expunge_all`` (used after a bulk delete and a reindex) empties the identity
    map with the collector paused on CPython < 3.12, and enables it again after."""
    engine = _person_row(sqlite_url)
    seen: list[bool] = []
    try:
        with db.session_scope(engine) as session:
            original = session.expunge_all

            def spy() -> None:
                seen.append(gc.isenabled())
                original()

            session.expunge_all = spy  # type: ignore[method-assign]
            db.expunge_all(session)
            assert gc.isenabled()
        # Once by db.expunge_all, once more by Session.close at the end of the scope.
        assert seen == [sys.version_info >= (3, 12)] * 2
    finally:
        engine.dispose()
