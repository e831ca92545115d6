"""``readinglist serve`` over HTTP without a browser: the safety rules (token, Host header,
POST with the CSRF token, the Content-Security-Policy), ``--host``, a busy port, a missing
library, and what the page shows of an abstract. One server (a process of its own,
forked after its imports; the Ctrl-C test starts a new interpreter) for the module; the
browser tests are tests/test_serve_browser.py. The module is one
``xdist_group``: under ``pytest -n 2 --dist loadgroup`` one worker imports the example
list and starts that server once."""

from __future__ import annotations

import html
import json
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import Server
from click.testing import CliRunner
from helpers import EXAMPLES
from test_triage_scale import generated_bib, rows_read  # noqa: F401 - a fixture

from readinglist.cli import cli
from readinglist.web import present
from readinglist.web.security import CSP

pytestmark = pytest.mark.xdist_group("serve")

#: A first page builds the interest index: slow on a loaded machine.
TIMEOUT = 120


def get(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(url, timeout=TIMEOUT, **kwargs)


VENDOR = Path(present.__file__).resolve().parent / "static" / "vendor"


@pytest.fixture(scope="module")
def example_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite library of the example list, imported once for the module: a test
    serves a copy of it (:func:`example_copy`)."""
    path = tmp_path_factory.mktemp("example") / "library.db"
    result = CliRunner().invoke(
        cli, ["--db", str(path), "import", str(EXAMPLES / "icml2026-abstracts.txt")]
    )
    assert result.exit_code == 0, result.stderr
    return path


def example_copy(example_library: Path, folder: Path) -> str:
    """The URL of a copy of ``example_library`` in ``folder`` (SQLite's backup API)."""
    from readinglist import db

    return f"sqlite:///{db.backup_sqlite(example_library, folder / 'library.db')}"


@pytest.fixture(scope="module")
def server(example_library: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server on the example list (SQLite: nothing here depends on the database),
    forked after its imports: the process's own start and signals are those of
    :func:`test_ctrl_c_stops_with_one_line_even_twice_during_a_request`."""
    url = example_copy(example_library, tmp_path_factory.mktemp("serve"))
    running = Server(url, "--order", "added", forked=True)
    yield running
    code, err = running.stop()
    assert code == 0, err
    assert "Traceback" not in err


def host(server: Server) -> str:
    return server.base.removeprefix("http://").rstrip("/")


def test_the_token_is_checked_on_every_request(server: Server) -> None:
    assert get(server.base).status_code == 403
    assert get(server.base + "?token=wrong").status_code == 403
    assert get(server.base + "static/page.js").status_code == 403
    page = get(server.url)
    assert page.status_code == 200
    cookie = page.headers["set-cookie"]
    assert cookie.startswith(f"readinglist_token={server.token};")
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    with httpx.Client(base_url=server.base, cookies=page.cookies, timeout=TIMEOUT) as client:
        script = client.get("/static/page.js")
        assert script.status_code == 200
        # KaTeX bounds what an abstract's math may draw (\rule{3000em}{3000em}) and expand
        assert "maxSize: 10," in script.text
        assert "maxExpand: 100" in script.text
        # the page's files are kept and asked again (304, no body); the page never stored
        assert script.headers["cache-control"] == "no-cache"
        again = client.get("/static/page.js", headers={"If-None-Match": script.headers["etag"]})
        assert (again.status_code, again.content) == (304, b"")
        assert client.get("/").status_code == 200
        assert client.get("/").headers["cache-control"] == "no-store"


def test_a_foreign_host_header_is_refused(server: Server) -> None:
    # DNS rebinding: a page of evil.example whose name now points here
    answer = get(server.url, headers={"Host": "evil.example"})
    assert answer.status_code == 403
    assert "Host header" in answer.text
    port = host(server).split(":")[1]
    assert get(server.url, headers={"Host": f"localhost:{port}"}).status_code == 200


def test_changes_need_post_and_the_csrf_token(server: Server) -> None:
    page = get(server.url)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    view = re.search(r'data-view="([^"]+)"', page.text)
    assert csrf is not None
    assert view is not None
    form = {"view": view.group(1), "key": "t"}
    with httpx.Client(base_url=server.base, cookies=page.cookies, timeout=TIMEOUT) as client:
        assert client.post("/act", data=form).status_code == 403
        refused = client.post("/act", data=form, headers={"X-CSRF-Token": "guess"})
        assert refused.status_code == 403
        assert "CSRF" in refused.text
        assert client.put("/act", data=form).status_code == 403
        done = client.post("/act", data=form, headers={"X-CSRF-Token": csrf.group(1)})
        assert done.status_code == 200
        assert ": to-read" in done.text


def test_another_apps_unparseable_cookie_does_not_hide_the_token(server: Server) -> None:
    """Cookies are shared by every port of 127.0.0.1: one ``http.cookies`` cannot parse
    (JSON, a space, non-ASCII) must not lock the page out."""
    for other in ('prefs={"theme":"dark"}', "a b=1", "x=\u00e9"):
        header = f"{other}; readinglist_token={server.token}"
        answer = get(server.base, headers={"Cookie": header.encode("utf-8")})
        assert answer.status_code == 200, other
    assert get(server.base, headers={"Cookie": "readinglist_token=wrong"}).status_code == 403


def test_a_huge_post_body_is_refused_unread(server: Server) -> None:
    page = get(server.url)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert csrf is not None
    headers = {"X-CSRF-Token": csrf.group(1)}
    with httpx.Client(base_url=server.base, cookies=page.cookies, timeout=TIMEOUT) as client:
        big = client.post("/act", content=b"x" * (2 << 20), headers=headers)
        assert big.status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            for _ in range(40):
                yield b"y" * 65536

        assert client.post("/act", content=chunks(), headers=headers).status_code == 413


def test_every_answer_carries_the_policy(server: Server) -> None:
    page = get(server.url)
    assert page.headers["content-security-policy"] == CSP
    assert "script-src 'self';" in CSP
    assert "unsafe" not in CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    refused = get(server.base)
    assert refused.headers["content-security-policy"] == CSP
    # the page itself loads nothing from another host and runs no inline script
    assert not re.search(r'(src|href)="(https?:)?//', page.text)
    assert "<script>" not in page.text
    assert re.search(r"\son\w+=", page.text) is None


def test_host_option_warns(example_library: Path, tmp_path: Path) -> None:
    url = example_copy(example_library, tmp_path)
    # the order added: no interest model to fit for a page that only has to answer
    running = Server(url, "--host", "127.0.0.2", "--order", "added", forked=True)
    try:
        assert running.url.startswith("http://127.0.0.2:")
        assert get(running.url).status_code == 200
    finally:
        code, err = running.stop()
    assert code == 0
    assert "warning: listening on 127.0.0.2: other machines can reach this page" in err


def test_a_busy_port_and_a_missing_library_are_clear_errors(
    example_library: Path, tmp_path: Path
) -> None:
    url = example_copy(example_library, tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["--db", url, "serve", "--port", str(port)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: cannot listen on 127.0.0.1 port {port}:")
    assert "--port 0 picks a free port" in result.stderr
    missing = tmp_path / "none.db"
    result = CliRunner().invoke(cli, ["--db", str(missing), "serve", "--port", "0"])
    assert result.exit_code == 6
    assert not missing.exists()


def test_the_abstract_keeps_its_math_for_katex() -> None:
    text = r"With $\alpha_{i}$ and $$\sum_i x$$, na{\"\i}ve \emph{Sch{\"o}n} \(x^2\) 50\%"
    assert present.abstract_text(text) == (
        r"With $\alpha_{i}$ and $$\sum_i x$$, naïve Schön \(x^2\) 50%"
    )


def test_only_web_links_are_links() -> None:
    from readinglist.identifiers import is_web_link
    from readinglist.records import PaperRecord
    from readinglist.triage_view import links

    assert is_web_link("javascript:alert(1)") is False
    assert is_web_link(" FILE:///etc/passwd") is False
    assert is_web_link(None) is False
    assert is_web_link("HTTPS://arxiv.org/abs/2401.00001") is True
    record = PaperRecord(title="T", url="javascript:alert(1)", doi="10.1/x")
    assert links(record) == ["https://doi.org/10.1/x"]
    assert [label for label, _ in present.paper_view(record, 1)["links"]] == ["DOI"]


def test_the_vendored_files_are_the_pinned_releases() -> None:
    from readinglist.web.vendor import PINNED, sri_sha512

    record = json.loads((VENDOR / "VERSIONS.json").read_text(encoding="utf-8"))
    assert {name: entry["version"] for name, entry in record.items()} == {
        name: version for name, (version, _) in PINNED.items()
    }
    for name, entry in record.items():
        assert entry["integrity"].startswith("sha512-")
        assert "LICENSE" in entry["files"]
        for file in entry["files"]:
            assert (VENDOR / name / file).is_file(), file
    assert "2.0.11" in (VENDOR / "htmx.org" / "htmx.min.js").read_text(encoding="utf-8")
    assert sri_sha512(b"") == (
        "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="
    )


def _page_state(text: str) -> tuple[str, str, int]:
    """The CSRF secret, the tab's run and the paper shown, read from a page or fragment."""
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', text)
    view = re.search(r'data-view="([^"]+)"', text)
    paper = re.search(r'id="state"[^>]* data-paper="(\d+)"', text)
    assert csrf is not None
    assert view is not None
    assert paper is not None
    return csrf.group(1), view.group(1), int(paper.group(1))


def test_a_key_for_a_paper_outside_the_list_is_refused(server: Server) -> None:
    """A key names the paper it acts on: one the tab's list does not hold (decided before
    the page opened, or no paper at all) is refused with 409 and nothing is changed;
    the paper shown is never decided in its place. (The module's server: its page opened
    here, after the decision; the other tests' decisions are compared before and after.)"""
    from helpers import sql_values, statuses

    url = server.db_url
    keys = sql_values(url, "SELECT citekey FROM papers ORDER BY id")
    assert CliRunner().invoke(cli, ["--db", url, "mark", "to-read", keys[-1]]).exit_code == 0
    decided = sql_values(url, "SELECT id FROM papers WHERE citekey = :k", {"k": keys[-1]})[0]
    page = get(server.url)
    csrf, view, current = _page_state(page.text)
    before = statuses(url)
    assert before[current] == "new"
    with _client(server, page, csrf) as client:
        for paper in (str(decided), "999999", "abc", "\uff11", "9" * 30):
            answer = client.post("/act", data={"view": view, "key": "s", "paper": paper})
            assert answer.status_code == 409, paper
            assert "nothing done" in answer.text
        assert statuses(url) == before  # nothing changed by the refused keys
        done = client.post("/act", data={"view": view, "key": "s", "paper": str(current)})
        assert done.status_code == 200
    found = statuses(url)
    assert (found[decided], found[current]) == ("to-read", "skipped")
    assert found == {**before, current: "skipped"}


def test_similar_papers_come_with_their_own_request(server: Server) -> None:
    page = get(server.url)
    _, view, current = _page_state(page.text)
    assert f'<section id="similar" data-paper="{current}">' in page.text
    with httpx.Client(base_url=server.base, cookies=page.cookies, timeout=TIMEOUT) as client:
        found = client.get("/similar", params={"view": view, "paper": str(current)})
        assert found.status_code == 200
        assert "<h2>Similar papers</h2>" in found.text
        gone = client.get("/similar", params={"view": "gone", "paper": str(current)})
        assert gone.status_code == 409
        # Not a paper id: 409, never a server error (a 23-digit id overflowed the index).
        too_big = "0" * 20 + "99999999999999999999"  # a 20-digit id behind leading zeros
        for paper in ("99999999999999999999999", "\uff11", "\u0661", "1" * 5000, too_big):
            wrong = client.get("/similar", params={"view": view, "paper": paper})
            assert wrong.status_code == 409, paper


def test_a_wildcard_host_answers_the_machines_own_names(
    example_library: Path, tmp_path: Path
) -> None:
    """``--host 0.0.0.0`` listens on every interface: the page answers at the machine's
    host name and addresses, and still refuses any other name (DNS rebinding)."""
    from readinglist.web.security import allowed_hosts, interface_addresses

    url = example_copy(example_library, tmp_path)
    running = Server(url, "--host", "0.0.0.0", "--order", "added", forked=True)
    try:
        port = int(running.base.rstrip("/").rsplit(":", 1)[1])
        # The address printed is one the page answers at, not 0.0.0.0 (refused below).
        assert running.base == f"http://{socket.gethostname()}:{port}/"
        assert get(running.url).status_code == 200
        page = f"http://127.0.0.1:{port}/?token={running.token}"
        for name in (socket.gethostname(), socket.getfqdn(), "localhost"):
            assert get(page, headers={"Host": f"{name}:{port}"}).status_code == 200, name
        outside = sorted(a for a in interface_addresses() if "." in a and a != "127.0.0.1")
        for address in outside:  # reached over that interface, as another machine does
            answer = get(f"http://{address}:{port}/?token={running.token}")
            assert answer.status_code == 200, address
        for name in ("evil.example", f"evil.example:{port}", "0.0.0.0"):
            assert get(page, headers={"Host": name}).status_code == 403, name
    finally:
        code, err = running.stop()
    assert code == 0, err
    assert f"{socket.gethostname()}:8750" in allowed_hosts("0.0.0.0", 8750)
    assert f"{socket.gethostname()}:8750" not in allowed_hosts("127.0.0.1", 8750)
    assert "evil.example:8750" not in allowed_hosts("::", 8750)


def test_ctrl_c_stops_with_one_line_even_twice_during_a_request(
    example_library: Path, tmp_path: Path
) -> None:
    """Ctrl-C (SIGINT) stops the server with one line and exit 0: also a second one while
    a request is still open (it is cut short), without an error log or a traceback."""
    import signal
    import time

    url = example_copy(example_library, tmp_path)
    running = Server(url, "--order", "added")
    port = int(running.base.rstrip("/").rsplit(":", 1)[1])
    csrf = _page_state(get(running.url).text)[0]
    with socket.create_connection(("127.0.0.1", port)) as open_request:
        # a POST whose body never ends: the request stays open until the server stops
        open_request.sendall(
            f"POST /act HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Cookie: readinglist_token={running.token}\r\nX-CSRF-Token: {csrf}\r\n"
            "Content-Length: 100\r\n\r\nkey=".encode()
        )
        time.sleep(0.5)
        running.process.send_signal(signal.SIGINT)
        time.sleep(0.5)
        code, err = running.stop()  # the second SIGINT
    assert code == 0, err
    assert err.count("stopped the server") == 1, err
    assert "Traceback" not in err
    assert "ERROR" not in err


def test_a_poll_shows_the_new_order_and_the_last_message_again(server: Server) -> None:
    """The page asks again (``POST /poll``) while a fit runs: the answer is the desk with
    the order as it is now and the message of the last key, and it changes nothing."""
    page = get(server.url)
    csrf, view, current = _page_state(page.text)
    with httpx.Client(
        base_url=server.base, cookies=page.cookies, timeout=TIMEOUT, headers={"X-CSRF-Token": csrf}
    ) as client:
        done = client.post("/act", data={"view": view, "key": "s", "paper": str(current)})
        assert done.status_code == 200
        message = re.search(r'<p id="message" role="status">([^<]*)</p>', done.text)
        assert message is not None
        assert message.group(1).endswith(": skipped")
        again = client.post("/poll", data={"view": view})
        assert again.status_code == 200
        assert f'<p id="message" role="status">{message.group(1)}</p>' in again.text
        assert 'data-pending="' in again.text
        shown = r'id="state"[^>]* data-paper="(\d*)"'
        assert re.findall(shown, again.text) == re.findall(shown, done.text)


def _client(server: Server, page: httpx.Response, csrf: str) -> httpx.Client:
    return httpx.Client(
        base_url=server.base, cookies=page.cookies, timeout=TIMEOUT, headers={"X-CSRF-Token": csrf}
    )


def _seen(text: str) -> str:
    found = re.search(r'id="state"[^>]* data-seen="(\d+)"', text)
    assert found is not None
    return found.group(1)


def test_a_decision_made_elsewhere_meanwhile_is_not_overwritten(db_url: str) -> None:
    """The page's key carries the version of the status it showed: when the stored
    status changed since (``mark`` in a terminal, another tab), the key is refused with
    409 and the paper as it is now ("decided elsewhere as read"), nothing written; the
    key pressed again (with the new version) applies. A change elsewhere to the status
    the key sets loses nothing and passes."""
    from helpers import sql_values, statuses

    url = db_url
    CliRunner().invoke(cli, ["--db", url, "import", str(EXAMPLES / "icml2026-abstracts.txt")])
    running = Server(url, "--order", "added", forked=True)
    try:
        page = get(running.url)
        csrf, view, current = _page_state(page.text)
        assert _seen(page.text) == "0"
        key = sql_values(url, "SELECT citekey FROM papers WHERE id = :i", {"i": current})[0]
        with _client(running, page, csrf) as client:
            marked = CliRunner().invoke(cli, ["--db", url, "mark", "read", key])
            assert marked.exit_code == 0, marked.stderr
            form = {"view": view, "key": "s", "paper": str(current), "seen": "0"}
            refused = client.post("/act", data=form)
            assert refused.status_code == 409
            assert refused.headers["x-decided-elsewhere"] != ""
            assert "decided elsewhere as read: press s again to make it skipped" in refused.text
            shown = re.search(r'id="state"[^>]* data-paper="(\d+)"', refused.text)
            assert shown is not None
            assert int(shown.group(1)) == current  # the same paper, as it is now
            assert '<span id="status">read</span>' in refused.text
            assert statuses(url)[current] == "read"  # nothing written
            seen = _seen(refused.text)
            assert seen != "0"
            done = client.post("/act", data={**form, "seen": seen})  # pressed again
            assert done.status_code == 200
            assert statuses(url)[current] == "skipped"

            # decided elsewhere as the key decides: nothing to lose, it passes
            _, _, following = _page_state(_csrf_meta(csrf) + done.text)
            other = sql_values(url, "SELECT citekey FROM papers WHERE id = :i", {"i": following})
            assert (
                CliRunner().invoke(cli, ["--db", url, "mark", "to-read", other[0]]).exit_code == 0
            )
            form = {"view": view, "key": "t", "paper": str(following), "seen": _seen(done.text)}
            same = client.post("/act", data=form)
            assert same.status_code == 200
            assert statuses(url)[following] == "to-read"
    finally:
        code, err = running.stop()
    assert code == 0, err
    assert "Traceback" not in err


def _csrf_meta(csrf: str) -> str:
    return f'<meta name="csrf-token" content="{csrf}">'


def test_blind_hides_the_other_readers_decisions_until_decided(
    example_library: Path, tmp_path: Path
) -> None:
    """``serve --blind`` (``triage --blind``'s meaning): no "N others want it" on a paper
    the reader has not decided, in the list or the paper shown, on the first page and
    after a key; the header line says they are hidden. Once decided, the count shows."""
    url = example_copy(example_library, tmp_path)
    from helpers import sql_values

    keys = sql_values(url, "SELECT citekey FROM papers ORDER BY id")
    for reader in ("bo", "cy"):
        marked = CliRunner().invoke(
            cli, ["--db", url, "--reader", reader, "mark", "to-read", *keys]
        )
        assert marked.exit_code == 0, marked.stderr
    seeing = Server(url, "--order", "added", reader="ana", forked=True)
    try:
        assert "2 others want it" in get(seeing.url).text  # without --blind: shown
    finally:
        seeing.stop()
    running = Server(url, "--order", "added", "--blind", reader="ana", forked=True)
    try:
        page = get(running.url)
        assert "want it" not in page.text
        assert "others&#39; decisions hidden until you decide (--blind)" in page.text
        csrf, view, current = _page_state(page.text)
        with _client(running, page, csrf) as client:
            done = client.post("/act", data={"view": view, "key": "s", "paper": str(current)})
            assert done.status_code == 200
            polled = client.post("/poll", data={"view": view})
            # a search that would show the others' decisions is refused while blind
            for asked in ("status:to-read@bo", "wanted-by:2", "priority:high@cy"):
                searched = client.post("/act", data={"view": view, "key": "/", "answer": asked})
                assert "--blind: a search cannot ask what other readers decided" in (
                    html.unescape(searched.text)
                ), (asked, searched.status_code)
            mine = client.post("/act", data={"view": view, "key": "/", "answer": "status:new@ana"})
            assert "--blind: a search cannot" not in html.unescape(mine.text)
        for answer in (done.text, polled.text):
            # the paper just decided shows the others' decisions; no other paper does
            found = re.findall(r'<li data-paper="(\d+)"[^>]*>(.*?)</li>', answer, re.DOTALL)
            assert found
            for pid, row in found:
                assert ("want it" in row) == (int(pid) == current), (pid, row)
    finally:
        code, err = running.stop()
    assert code == 0, err


def test_the_first_page_reads_its_queue_once_not_the_library(
    sqlite_url: str,
    tmp_path: Path,
    rows_read: list[int],  # noqa: F811 - the fixture imported above
) -> None:
    """``GET /`` (:func:`open_desk` and the values of the page, as the route runs them)
    on 2,600 papers of which 400 are decided: the rows SQLite returns are the queue's
    ids (2,200 papers still new, each once), the decided papers of its import counted
    by the progress (400) and the papers shown: a bound, not a timing. The statuses of
    the queue come with its query; they were read again in a pass over every paper of
    the library (2,600 rows more)."""
    from readinglist.web import app as web
    from readinglist.web.desk import Options, open_desk

    runner = CliRunner()
    done = runner.invoke(
        cli, ["--db", sqlite_url, "import", str(generated_bib(tmp_path / "many.bib", 2_600))]
    )
    assert done.exit_code == 0, done.stderr
    keys = [f"p{i}" for i in range(400)]
    assert runner.invoke(cli, ["--db", sqlite_url, "mark", "skipped", *keys]).exit_code == 0
    options = Options(url=sqlite_url, reader="default", order="added")
    with served_in_process(sqlite_url, options) as served:
        rows_read[0] = 0
        desk = open_desk(served.write, served.read, options, served.said, served.desks.ranker)
        values = web.desk_values(served, "tab", desk)
        page = web.render(served, "page.html", {**values, "csrf": "x"})
        assert rows_read[0] <= 2_200 + 400 + 300, rows_read[0]
        assert values["progress"]["total"] == 2_600
        assert values["progress"]["left"] == 2_200
        assert len(values["listed"]) == 40
        assert b"p400" in page.body


def test_the_paper_shown_keeps_its_title_math_for_katex(sqlite_url: str, tmp_path: Path) -> None:
    """The paper pane of the served page gets a pasted title's formulas as written (the
    raw LaTeX form read with the paper), for KaTeX; the title key edits the stored one."""
    from test_pasted_math import LIST

    from readinglist.web import app as web
    from readinglist.web.desk import Options, open_desk

    listed = tmp_path / "list.md"
    listed.write_text(LIST, encoding="utf-8")
    done = CliRunner().invoke(cli, ["--db", sqlite_url, "import", str(listed)])
    assert done.exit_code == 0, done.stderr
    options = Options(url=sqlite_url, reader="default", query="title:Identifiability")
    with served_in_process(sqlite_url, options) as served:
        desk = open_desk(served.write, served.read, options, served.said, served.desks.ranker)
        paper = web.desk_values(served, "tab", desk)["paper"]
        assert paper["title"].startswith("Global Identifiability of $\\ell_1$-based")
        assert paper["plain_title"].startswith("Global Identifiability of ℓ_1-based")


@contextmanager
def served_in_process(url: str, options: Any) -> Iterator[Any]:
    """What ``serve`` holds for its routes (``web.Served``) on the library at ``url``,
    in this process, without a server; closed after."""
    from readinglist import db
    from readinglist.db_engine import session_scope
    from readinglist.web import app as web
    from readinglist.web.desk import Desks
    from readinglist.web.security import Secrets

    engine = db.make_engine(url)
    served = web.Served(
        lambda: session_scope(engine),
        lambda: session_scope(engine, write=False),
        options,
        Secrets(),
        Desks(),
        web.templates(),
        lambda said: None,
    )
    try:
        yield served
    finally:
        served.desks.close()
        engine.dispose()
