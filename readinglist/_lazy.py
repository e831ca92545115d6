"""Packages whose names are imported on first use (PEP 562), one rule for all of them.

A package lists where each public name lives (``{"parse": "readinglist.query.parser"}``)
and sets ``__getattr__, __dir__ = lazy_exports(__name__, homes, globals())``: a name is
imported from its module when first read and kept in the package's namespace, so a
command loads only the modules it uses (issue 17: ``show`` needs no importer, and shell
completion of a query needs the query vocabulary, not the compiler and SQLAlchemy).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any], *, first: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of package ``package``.

    ``homes`` maps each public name to the module that defines it; ``namespace`` is
    the package's ``globals()``, where a name is stored once imported. ``__getattr__``
    raises AttributeError for a name that is not in ``homes``. ``first``: a module
    imported before any name is served (``readinglist.library`` registers its ORM
    flush hooks so).
    """

    def get_attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if first is not None:
            importlib.import_module(first)
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*namespace, *homes})

    return get_attribute, names
