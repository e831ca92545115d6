"""``readinglist serve`` in a real headless Chromium (Debian's, driven by Playwright): the
example list triaged by keyboard with the database checked after each decision, undo
after a reload, search, a whole topic skipped, hostile titles shown as text, and the
token refused when missing. One browser for the module, and per database one library
with two servers: the example list in its interest order for the implicit reader, and
in the order added for reader ``ana`` (the second and third tests, in that order); the
SQLite run writes the README's screenshot (docs/serve.png). The readers' tabs and the
CLI deciding at once (the second test) run on SQLite and PostgreSQL; the keys, the page
and the decision refused when made elsewhere (:data:`SERVED_ON_SQLITE`) on SQLite: what
they write is what ``triage`` writes (test_triage_keys.py, on both, undo after a quit
too), test_serve.py's ``test_a_decision_made_elsewhere_meanwhile_is_not_overwritten``
serves PostgreSQL over HTTP, and the library reads the same on both
(test_databases_agree.py).
The module is one ``xdist_group``: under ``pytest -n 2 --dist loadgroup`` one worker
runs its tests one after the other, so the browser and the servers start once (spread
over two workers, each started its own browser, and each database's library was
imported and served on both).

Regenerate the screenshot: ``.venv/bin/pytest -p no:cacheprovider -n 0
tests/test_serve_browser.py -k sqlite``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import Server, launch
from click.testing import CliRunner
from conftest import make_database
from helpers import EXAMPLES, ROOT, sql_values, statuses
from test_hostile_cli import HOSTILE_RIS as HOSTILE_CONTROLS

from readinglist.cli import cli

pytestmark = [pytest.mark.tools("chromium"), pytest.mark.xdist_group("serve-browser")]

SCREENSHOT = ROOT / "docs" / "serve.png"
#: Titles and an abstract that would run script if the page did not escape them.
HOSTILE_RIS = (
    "TY  - JOUR\nTI  - <script>window.pwned=1</script>Script title\nAU  - Doe, Jane\n"
    "AB  - Math $\\href{javascript:window.pwned=3}{x}$ and </div><script>window.pwned=4</script>\n"
    "UR  - javascript:window.pwned=5\nPY  - 2026\nER  - \n"
    'TY  - JOUR\nTI  - <img src=x onerror="window.pwned=2"> Image title {{ 7*7 }}\n'
    "AU  - Roe, Rick\nPY  - 2026\nER  - \n"
)
DECISIONS = 20
#: Runs a test on the SQLite library of :func:`served` only (see the module docstring).
SERVED_ON_SQLITE = pytest.mark.parametrize("served", ["sqlite"], indirect=True)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless chromium for the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = launch(playwright, tmp_path_factory.mktemp("chromium"))
        yield context
        context.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Server]]:
    """The example list in a fresh library, and a server on it (the hostile papers are
    imported by the test while the server runs)."""
    folder = tmp_path_factory.mktemp("serve")
    databases = make_database(request.param, request, folder)
    url = next(databases)
    result = CliRunner().invoke(
        cli, ["--db", url, "import", str(EXAMPLES / "icml2026-abstracts.txt")]
    )
    assert result.exit_code == 0, result.stderr
    server = Server(url, "--stop-after", "3")
    try:
        yield url, server
    finally:
        code, err = server.stop()
    assert (code, err.splitlines()[-1]) == (0, "stopped the server")
    databases.close()


@pytest.fixture(scope="module")
def served_added(served: tuple[str, Server]) -> Iterator[Server]:
    """A second server on ``served``'s library: the order added, for reader ``ana``
    (none of the first test's decisions are hers); stopped with Ctrl-C at the end."""
    server = Server(served[0], "--order", "added", reader="ana")
    try:
        yield server
    finally:
        code, err = server.stop()
    assert code == 0, err


@pytest.fixture(autouse=True)
def server_errors(served: tuple[str, Server]) -> Iterator[None]:
    """Show what the server wrote on stderr when a test fails (it writes nothing else)."""
    yield
    said = served[1].errors()
    assert "Traceback" not in said, said[-2500:]


def swaps(page: Any) -> int:
    return int(page.get_attribute("body", "data-swaps") or 0)


def press(page: Any, key: str) -> None:
    """Press ``key`` and wait until the server's answer is shown."""
    before = swaps(page)
    page.keyboard.press(key)
    page.wait_for_selector(f'body[data-swaps="{before + 1}"]', state="attached")


def answer(page: Any, key: str, text: str) -> None:
    """Press a key that asks for text, type ``text`` and Enter; wait for the answer."""
    page.keyboard.press(key)
    page.wait_for_selector("#prompt-input", state="visible")
    page.keyboard.type(text)
    before = swaps(page)
    page.keyboard.press("Enter")
    page.wait_for_selector(f'body[data-swaps="{before + 1}"]', state="attached")


def shown(page: Any) -> int:
    return int(page.get_attribute("#state", "data-paper"))


def status_of(url: str, pid: int, reader: str | None = None) -> str:
    return statuses(url, reader)[pid]


def new_count(url: str) -> int:
    return sum(1 for status in statuses(url).values() if status == "new")


@SERVED_ON_SQLITE
def test_triage_by_keyboard_in_chromium(
    browser: Any, served: tuple[str, Server], tmp_path: Path
) -> None:
    url, server = served
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    assert page.inner_text("#counts") == "0 of 19 decided, 19 left"
    # the topics' buttons are in view in a 1300x850 window, above a full list
    page.set_viewport_size({"width": 1300, "height": 850})
    press(page, "g")
    for button in (page.locator("button[data-topic]").last, page.locator("[data-skip-topic]").last):
        box = button.bounding_box()
        assert box is not None
        assert box["y"] >= 0
        assert box["y"] + box["height"] <= 850
    page.reload()
    made: list[tuple[int, str]] = []
    expected = {"t": "to-read", "s": "skipped", "r": "reading", "d": "read"}
    for key in "ts":  # the first two decisions, then the README's screenshot
        pid = shown(page)
        press(page, key)
        assert status_of(url, pid) == expected[key]
        made.append((pid, expected[key]))
    # the similar papers of the paper shown come with their own request, after it
    page.wait_for_selector("#similar h2", state="attached")
    if "sqlite" in url:
        _screenshot(page)

    # hostile papers imported by the CLI while the page is open; a reload shows them
    hostile = tmp_path / "hostile.ris"
    hostile.write_text(HOSTILE_RIS + HOSTILE_CONTROLS, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--db", url, "import", str(hostile)])
    assert result.exit_code == 0, result.stderr
    page.reload()
    assert page.inner_text("#counts") == "2 of 22 decided, 20 left"

    # search: / and words go to the paper they select (one of the list still undecided:
    # which ones the first keys decided depends on the interest order)
    new = {pid for pid, status in statuses(url).items() if status == "new"}
    ids = sql_values(url, "SELECT id FROM papers ORDER BY id")
    keys = sql_values(url, "SELECT citekey FROM papers ORDER BY id")
    names = sql_values(url, "SELECT coalesce(short_name, '') FROM papers ORDER BY id")
    named = [
        {"key": key, "short_name": name}
        for pid, key, name in zip(ids, keys, names, strict=True)
        if pid in new and key == f"{name}2026".lower()
    ]
    target = max(named, key=lambda p: len(p["short_name"]))  # the most distinctive name
    answer(page, "/", target["short_name"])
    assert target["short_name"] in page.inner_text("#title")
    # why it has its interest: shown on w, hidden on w again
    press(page, "w")
    assert f"{target['key']}: interest " in page.inner_text("#why")
    press(page, "w")
    assert page.locator("#why").count() == 0

    # the hostile titles render as text, and nothing they carry runs
    answer(page, "/", "Script title")
    assert page.inner_text("#title") == "<script>window.pwned=1</script>Script title"
    assert page.locator("#paper script").count() == 0
    assert all(
        href.startswith(("http://", "https://"))
        for href in page.eval_on_selector_all("#paper a", "els => els.map(e => e.href)")
    )
    answer(page, "/", "Image title")
    assert page.inner_text("#title") == '<img src=x onerror="window.pwned=2"> Image title {{ 7*7 }}'
    assert page.locator("#paper img").count() == 0
    answer(page, "/", "Clear screen")
    assert "[bold]markup[/bold]" in page.inner_text("#title")
    assert page.evaluate("() => window.pwned") is None
    assert new_count(url) == 20

    # 20 decisions by keyboard only (2 above), the database checked after each
    for n, key in enumerate(("rdtst" * 4)[: DECISIONS - 2]):
        pid = shown(page)
        press(page, key)
        assert status_of(url, pid) == expected[key], (n, key)
        made.append((pid, expected[key]))
    assert page.inner_text("#counts").startswith(f"{DECISIONS} of 22 decided, 2 left")
    assert new_count(url) == 2

    # a tag and a note by keyboard, saved at once
    pid = shown(page)
    answer(page, "a", "later-maybe")
    assert "later-maybe" in sql_values(
        url,
        "SELECT t.name FROM tags t JOIN paper_tags pt ON pt.tag_id = t.id WHERE pt.paper_id = :id",
        {"id": pid},
    )
    answer(page, "n", "read the appendix")
    assert sql_values(url, "SELECT body FROM notes WHERE paper_id = :id", {"id": pid}) == [
        "read the appendix"
    ]

    # undo survives a reload: the last status decision goes back to new
    page.reload()
    last_pid, _ = made[-1]
    press(page, "u")
    assert status_of(url, last_pid) == "new"
    assert shown(page) == last_pid
    assert "undone" in page.inner_text("#message")

    # the address keeps no token once the page holds it as a cookie
    assert "token" not in page.url

    # topics: one chosen filters the list; a whole topic skipped with one confirmation
    press(page, "g")
    chosen = page.locator("button[data-topic]").nth(1)
    name = chosen.get_attribute("data-topic")
    before = swaps(page)
    chosen.click()
    page.wait_for_selector(f'body[data-swaps="{before + 1}"]', state="attached")
    assert page.inner_text("#list h2").endswith(f"topic {name}")
    first = page.locator("[data-skip-topic]").first
    label = first.get_attribute("data-skip-topic")
    new_before = new_count(url)
    before = swaps(page)
    first.click()
    page.wait_for_selector(f'body[data-swaps="{before + 1}"]', state="attached")
    assert dialogs == [f"Skip every new paper of topic {label}?"]
    message = page.inner_text("#message")
    assert message.startswith("skipped ")
    assert f"of topic {label}" in message
    skipped = int(message.split()[1])
    new_after = new_count(url)
    assert new_after == new_before - skipped
    assert errors == []

    # without the token (no cookie, no ?token=) the server refuses
    assert httpx.get(server.base, timeout=60).status_code == 403
    page.close()


def test_serve_acts_for_the_reader_it_names(
    browser: Any, served: tuple[str, Server], served_added: Server
) -> None:
    url, _ = served
    server = served_added
    key = sql_values(url, "SELECT citekey FROM papers ORDER BY id")[0]
    for reader in ("bo", "cy"):
        marked = CliRunner().invoke(cli, ["--db", url, "--reader", reader, "mark", "to-read", key])
        assert marked.exit_code == 0, marked.stderr
    total = len(sql_values(url, "SELECT id FROM papers"))
    page = browser.new_page()
    page.goto(server.url)
    assert page.inner_text("#reader") == "deciding: ana"
    assert page.inner_text("#counts") == f"0 of {total} decided, {total} left"
    # bo and cy want paper 1, and the implicit reader when the first test marked it
    wanting = 2 + (statuses(url)[1] in ("to-read", "reading", "read"))
    assert f"{wanting} others want it" in page.inner_text("#list li[data-paper='1']")
    pid = shown(page)
    mine = statuses(url)[pid]
    press(page, "t")
    assert status_of(url, pid, "ana") == "to-read"
    assert statuses(url)[pid] == mine  # the implicit reader's decision is theirs

    # two tabs and the CLI deciding at once: no decision is lost
    other = browser.new_page()
    other.goto(server.url)
    press(other, " ")  # later: the second tab moves on to another paper
    first, second = shown(page), shown(other)
    keys = sql_values(url, "SELECT citekey FROM papers ORDER BY id")
    third = next(i for i, k in enumerate(keys, start=1) if i not in (pid, first, second) and k)
    before = (swaps(page), swaps(other))
    page.keyboard.press("s")
    other.keyboard.press("r")
    marked = CliRunner().invoke(
        cli, ["--db", url, "--reader", "ana", "mark", "read", keys[third - 1]]
    )
    assert marked.exit_code == 0, marked.stderr
    page.wait_for_selector(f'body[data-swaps="{before[0] + 1}"]', state="attached")
    other.wait_for_selector(f'body[data-swaps="{before[1] + 1}"]', state="attached")
    found = statuses(url, "ana")
    assert (found[pid], found[first], found[second], found[third]) == (
        "to-read",
        "skipped",
        "reading",
        "read",
    )
    other.close()
    page.close()
    assert "new reader ana" in server.errors()


def _screenshot(page: Any) -> None:
    """Write the page as it is to docs/serve.png (temporary file, then rename)."""
    SCREENSHOT.parent.mkdir(exist_ok=True)
    temp = SCREENSHOT.with_name(".serve.png.tmp")
    temp.write_bytes(page.screenshot())
    os.replace(temp, SCREENSHOT)


@SERVED_ON_SQLITE
def test_a_decision_made_elsewhere_is_shown_not_overwritten(
    browser: Any, served: tuple[str, Server], served_added: Server
) -> None:
    """The paper shown is marked read by ``mark`` meanwhile: its key is refused, the page
    says "decided elsewhere as read" with the paper as it is now, and the key pressed
    again applies. A poll shows the same paper: its similar papers stay, not asked again.
    (Reader ``ana`` of the server the test above used: a new tab shows her first paper
    still new.)"""
    url, _ = served
    server = served_added
    page = browser.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/similar?" in r.url else None)
    page.goto(server.url)
    page.wait_for_selector("#similar h2", state="attached")
    pid = shown(page)
    assert len(asked) == 1
    page.evaluate(
        """() => htmx.ajax("POST", "/poll", {target: "#desk", swap: "innerHTML",
            values: {view: document.getElementById("state").dataset.view},
            headers: {"X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content}})"""
    )
    page.wait_for_timeout(500)  # past the page's wait before it asks (SIMILAR_MS)
    assert shown(page) == pid
    assert page.locator("#similar h2").count() == 1
    assert len(asked) == 1

    key = sql_values(url, "SELECT citekey FROM papers WHERE id = :i", {"i": pid})[0]
    marked = CliRunner().invoke(cli, ["--db", url, "--reader", "ana", "mark", "read", key])
    assert marked.exit_code == 0, marked.stderr
    press(page, "s")
    assert page.inner_text("#message") == (
        "decided elsewhere as read: press s again to make it skipped"
    )
    assert (shown(page), page.inner_text("#status")) == (pid, "read")
    assert status_of(url, pid, "ana") == "read"
    press(page, "s")
    assert status_of(url, pid, "ana") == "skipped"
    assert shown(page) != pid
    page.close()
