"""Faults found in session 7, each with the value it must have."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def test_show_listing_and_exports_order_a_papers_tags_alike(
    invoke: Callable[..., Any], tmp_path: Path
) -> None:
    """``show`` orders a paper's tags by folded name (the ORM relationship); the Core
    readers of listings and exports ordered them by raw name, upper case first, so
    ``ML``, ``Zeta`` came before ``deep``."""
    (tmp_path / "one.bib").write_text(
        "@article{a1, title={One}, author={Doe, Jane}, year=2020, journal={J}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(tmp_path / "one.bib")).exit_code == 0
    for tag in ("Zeta", "deep", "ML"):
        assert invoke("tag", "add", tag, "a1").exit_code == 0
    folded = ["deep", "ML", "Zeta"]
    assert json.loads(invoke("show", "--json", "a1").stdout)["tags"] == folded
    (listed,) = json.loads(invoke("list", "--json").stdout)
    assert listed["tags"] == folded
    (csl,) = json.loads(invoke("export", "csl-json").stdout)
    assert csl["keyword"] == ", ".join(folded)
