"""The suite's own scheduling: the two database runs of a test whose module caches real
programs' results by input bytes go to one xdist worker (``--dist loadgroup``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import SHARED_BY_DATABASES, _database_pair
from xdist.scheduler.loadgroup import LoadGroupScheduling


def scope(nodeid: str, group: str) -> str:
    """The work unit xdist's loadgroup scheduler makes of ``nodeid`` once the worker has
    added the group to it (``remote.py``: ``nodeid@group``)."""
    return LoadGroupScheduling._split_scope(
        object.__new__(LoadGroupScheduling), f"{nodeid}@{group}"
    )


@pytest.mark.parametrize(
    "params",
    [("sqlite", "postgresql"), ("sqlite-exact", "postgresql-exact"), ("a-sqlite", "a-postgresql")],
)
def test_both_database_runs_of_a_test_share_one_work_unit(params: tuple[str, str]) -> None:
    units = set()
    for param in params:
        nodeid = f"tests/{SHARED_BY_DATABASES[0]}::test_x[{param}]"
        item = SimpleNamespace(path=Path(SHARED_BY_DATABASES[0]), nodeid=nodeid)
        group = _database_pair(item)  # type: ignore[arg-type]
        assert group is not None
        units.add(scope(nodeid, group))
    # one unit, and it is the group (a "]" in the name would make each id its own unit)
    assert len(units) == 1, units
    assert units.pop().startswith(f"tests/{SHARED_BY_DATABASES[0]}::test_x(")


def test_pytest_is_one_whose_ids_xdist_can_group() -> None:
    """pytest 9.2 builds ids from a field pytest-xdist 3.8 does not set, so every
    ``xdist_group`` was ignored (pytest-xdist issue 1386); pyproject.toml keeps pytest
    below 9.2 until an xdist release sets it."""
    assert pytest.version_tuple < (9, 2), pytest.__version__
