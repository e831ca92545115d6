"""``readinglist resolve`` (issue 13 item 4): completing provisional papers from a
bibliography (--from) and from online sources (--online, replayed with respx).

What resolve selects, merges, writes, locks and undoes runs on SQLite and PostgreSQL
(the online answers written too: ``test_resolve_online_holds_no_lock_while_a_source_answers``
and ``test_resolve_from_a_file_then_online``); how the online sources are asked and their
answers or failures read (``helpers.SQLITE_SUFFICES``: pacing, headers, the answers'
fields, the errors, all before any transaction opens) on SQLite."""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import Result

from tests.helpers import SQLITE_ONLY, SQLITE_SUFFICES, shared_data, statements_to

API = Path(__file__).resolve().parent / "data" / "api"
ICML = "pmlr-v37-icml2015.bib"
Invoke = Callable[..., Result]


def _bib_entries(path: Path) -> dict[str, dict[str, str]]:
    import bibtexparser

    library = bibtexparser.parse_file(str(path))
    return {e.key: {k: f.value for k, f in e.fields_dict.items()} for e in library.entries}


def _expected() -> dict[str, tuple[str, list[str]]]:
    """Key -> (title, authors as "Family, Given") of the ICML 2015 bib as our reader
    decodes it (``bib_records``: read once per test process)."""
    from test_merge_completion import bib_records

    return {
        r.citekey or "": (r.title or "", [p.display() for p in r.authors]) for r in bib_records()
    }


def _abstracts_list(entries: dict[str, dict[str, str]], keys: list[str] | None = None) -> str:
    """The user's pasted list: a header line, then one abstract per paragraph."""
    chosen = keys or list(entries)
    return "ICML 2015 Papers\n\n" + "\n\n".join(
        " ".join(entries[k]["abstract"].split()) for k in chosen
    )


def _json(invoke: Invoke, *args: str) -> Any:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _state(invoke: Invoke) -> Any:
    return _json(invoke, "list", "--json")


@pytest.fixture
def icml(tmp_path: Path, invoke: Invoke) -> tuple[Path, dict[str, dict[str, str]]]:
    """The ICML 2015 abstracts list imported (270 provisional papers)."""
    bib = shared_data(ICML)
    entries = _bib_entries(bib)
    listing = tmp_path / "icml2015.txt"
    listing.write_text(_abstracts_list(entries), encoding="utf-8")
    result = invoke("import", str(listing))
    assert result.exit_code == 0, result.output
    return bib, entries


def test_resolve_from_bib_completes_the_icml_list(
    invoke: Invoke, icml: tuple[Path, dict[str, dict[str, str]]]
) -> None:
    bib, entries = icml
    before = _state(invoke)
    assert len(before) == 270
    assert all(p["title_provisional"] and not p["authors"] for p in before)
    triaged = [p["key"] for p in before[:10]]
    # the ten triaged as a user would, one command for all the papers it treats alike
    assert invoke("mark", "read", *triaged[0::2]).exit_code == 0
    assert invoke("mark", "to-read", *triaged[1::2]).exit_code == 0
    assert invoke("priority", "high", *triaged).exit_code == 0
    for i, key in enumerate(triaged):
        assert invoke("tag", "add", f"t{i}", key).exit_code == 0
        assert invoke("note", "add", key, "-m", f"note {i}").exit_code == 0
    old = {p["abstract"]: p["key"] for p in before}

    result = invoke("resolve", "--from", str(bib))
    assert result.exit_code == 0, result.output
    assert "270 of 270 incomplete papers completed, 0 not found" in result.stderr

    after = {p["key"]: p for p in _state(invoke)}
    assert len(after) == 270
    assert set(after) == set(entries)  # every key is the bib's
    for key, (title, authors) in _expected().items():
        paper = after[key]
        assert paper["authors"] == authors, key
        assert paper["title"] == title
        assert paper["title_provisional"] is False
    shown = _json(invoke, "show", "pmlr-v37-ioffe15", "--json")
    assert shown["fields"]["pages"] == "448--456"
    assert shown["fields"]["volume"] == "37"
    assert shown["fields"]["publisher"] == "PMLR"
    # Fresh-user check: the bib's full booktitle replaces the list header's "ICML".
    full = "Proceedings of the 32nd International Conference on Machine Learning"
    assert shown["venue"] == full
    assert shown["fields"]["booktitle"] == full
    assert {p["venue"] for p in after.values()} == {full}
    assert "month" in result.stdout
    for line in result.stdout.splitlines():  # each name listed once ("month" was twice)
        names = line.rsplit("; filled ", 1)[1].split(", ")
        assert len(names) == len(set(names)), line
    # The made-up key stays an alias; the triage state of the ten is kept exactly (the
    # pasted abstract yields to the bibliography's: the paper is found by its old key).
    assert len(old) == 270
    for i, key in enumerate(triaged):
        paper = after[_json(invoke, "show", key, "--json")["key"]]
        assert paper["status"] == ("to-read" if i % 2 else "read")
        assert paper["priority"] == "high"
        assert paper["tags"] == [f"t{i}"]
        detail = _json(invoke, "show", key, "--json")  # the old key still resolves
        assert detail["key"] == paper["key"]
        assert [n["text"] for n in detail["notes"]] == [f"note {i}"]


def test_resolve_dry_run_writes_nothing(
    invoke: Invoke, icml: tuple[Path, dict[str, dict[str, str]]]
) -> None:
    bib, _ = icml
    before = _state(invoke)
    batches = _json(invoke, "import", "--list-batches", "--json")
    # The 20 papers whose abstract says "deep" (a real run's 270 are the test above's).
    result = invoke("resolve", "deep", "--from", str(bib), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "20 of 20 incomplete papers would be completed" in result.stderr
    assert "nothing written (--dry-run)" in result.stderr
    line = next(x for x in result.stdout.splitlines() if "-> pmlr-v37-ioffe15:" in x)
    assert "same abstract, 100% similar" in line
    assert "would fill title" in line
    assert "authors" in line
    assert _state(invoke) == before
    assert _json(invoke, "import", "--list-batches", "--json") == batches


def test_resolve_only_completes_what_the_query_selects(
    invoke: Invoke, icml: tuple[Path, dict[str, dict[str, str]]]
) -> None:
    bib, _ = icml
    result = invoke("resolve", "normalization", "covariate", "--from", str(bib))
    assert result.exit_code == 0, result.output
    assert "1 of 1 incomplete paper completed" in result.stderr
    keys = [p["key"] for p in _state(invoke) if not p["title_provisional"]]
    assert keys == ["pmlr-v37-ioffe15"]
    assert len(_state(invoke)) == 270  # nothing added


def _statements(invoke: Invoke, db_url: str, *args: str) -> tuple[Result, int]:
    """Run ``readinglist ARGS`` and count the SQL statements it sends to the library at
    ``db_url`` (an executemany counts once; :func:`helpers.statements_to`)."""
    with statements_to(db_url) as sent:
        result = invoke(*args)
    return result, len(sent)


def test_resolve_sends_no_statements_per_paper(tmp_path: Path, invoke: Invoke, db_url: str) -> None:
    """Completing 40 papers costs no more statements than completing 5: the look-ups and
    the writes are batched (no query, flush or search-text update per paper)."""
    text = shared_data(ICML).read_text(encoding="utf-8")
    blocks = [b for b in re.split(r"(?m)^(?=@)", text) if b.startswith("@")][:45]
    entries = _bib_entries(shared_data(ICML))
    keys = list(entries)[:45]
    listing = tmp_path / "list.txt"
    listing.write_text(_abstracts_list(entries, keys), encoding="utf-8")
    assert invoke("import", str(listing)).exit_code == 0
    few, many = tmp_path / "few.bib", tmp_path / "many.bib"
    few.write_text("".join(blocks[:5]), encoding="utf-8")
    many.write_text("".join(blocks[5:]), encoding="utf-8")
    result, for_few = _statements(invoke, db_url, "resolve", "--from", str(few))
    assert "5 of 45 incomplete papers completed, 40 not found" in result.stderr
    result, for_many = _statements(invoke, db_url, "resolve", "--from", str(many))
    assert "40 of 45 incomplete papers completed, 5 not found" in result.stderr
    assert result.stdout.count(" -> pmlr-v37-") == 40
    # Per paper this was 37 statements (1,500 for 40 papers on SQLite).
    assert for_many <= for_few + 5, (for_few, for_many)


@SQLITE_ONLY
def test_resolve_needs_a_source(invoke: Invoke) -> None:
    result = invoke("resolve")
    assert result.exit_code == 2
    assert "give --from FILE... or --online" in result.output


# --- online, replayed ---------------------------------------------------------------------

SAMPLE = {
    "pmlr-v37-ioffe15": ("1502.03167", "conf_icml_IoffeS15"),
    "pmlr-v37-xuc15": ("1502.03044", "conf_icml_XuBKCCSZB15"),
    "pmlr-v37-schulman15": ("1502.05477", "conf_icml_SchulmanLAJM15"),
    "pmlr-v37-gregor15": ("1502.04623", "conf_icml_GregorDGRW15"),
    "pmlr-v37-blundell15": ("1505.05424", "conf_icml_BlundellCKW15"),
    "pmlr-v37-germain15": ("1502.03509", "conf_icml_GermainGML15"),
}
#: On no preprint server: DBLP and Crossref cannot search abstracts, so it stays.
NOT_ON_ARXIV = "pmlr-v37-kusnerb15"


def _folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _arxiv_answer(request: httpx.Request) -> httpx.Response:
    """arXiv's API replayed: ``abs:"phrase"`` / ``ti:"words"`` / ``id_list`` over the
    recorded feeds; no match is an empty feed."""
    query = request.url.params.get("search_query", "")
    ident = request.url.params.get("id_list", "")
    for path in sorted((API / "arxiv").glob("*.xml")):
        text = path.read_text(encoding="utf-8")
        summary = _folded(re.search(r"<summary>(.*?)</summary>", text, re.S)[1])  # type: ignore[index]
        title = _folded(re.search(r"<entry>.*?<title>(.*?)</title>", text, re.S)[1])  # type: ignore[index]
        phrase = re.fullmatch(r'(abs|ti):"(.*)"', query)
        if ident == path.stem or (
            phrase and _folded(phrase[2]) in (summary if phrase[1] == "abs" else title)
        ):
            return httpx.Response(200, text=text)
    empty = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        "<title>ArXiv Query</title><id>http://arxiv.org/api/x</id></feed>"
    )
    return httpx.Response(200, text=empty)


def _dblp_answer(request: httpx.Request) -> httpx.Response:
    query = _folded(request.url.params.get("q", ""))
    for path in sorted((API / "dblp").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if _folded(data["result"]["query"]) == query:
            return httpx.Response(200, json=data)
    return httpx.Response(200, json={"result": {"hits": {"@total": "0"}}})


class FakeTime:
    """Pauses recorded instead of slept, on a clock that only they advance."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: list[float] = []
        self.arxiv_at: list[float] = []

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeTime:
    """Fake time; a fresh cache and a contact address."""
    from readinglist.sources import http

    fake = FakeTime()
    monkeypatch.setattr(http, "pause", fake.pause)
    monkeypatch.setattr(http, "now", lambda: fake.now)
    monkeypatch.setenv("READINGLIST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("READINGLIST_CONTACT", "tester@example.org")
    return fake


@pytest.fixture
def replay(fake_time: FakeTime) -> Any:
    def arxiv(request: httpx.Request) -> httpx.Response:
        fake_time.arxiv_at.append(fake_time.now)
        return _arxiv_answer(request)

    with respx.mock(assert_all_called=False) as mock:
        mock.get("https://export.arxiv.org/api/query").mock(side_effect=arxiv)
        mock.get("https://dblp.org/search/publ/api").mock(side_effect=_dblp_answer)
        mock.get(url__regex=r"https://api\.crossref\.org/works\?").mock(
            return_value=httpx.Response(
                200, text=(API / "crossref" / "empty-list.json").read_text(encoding="utf-8")
            )
        )
        yield mock


def _sample_list(tmp_path: Path, invoke: Invoke) -> dict[str, dict[str, str]]:
    entries = _bib_entries(shared_data(ICML))
    listing = tmp_path / "sample.txt"
    listing.write_text(_abstracts_list(entries, [*SAMPLE, NOT_ON_ARXIV]), encoding="utf-8")
    assert invoke("import", str(listing)).exit_code == 0
    return entries


@SQLITE_SUFFICES
def test_resolve_online_completes_a_sample(
    tmp_path: Path, invoke: Invoke, replay: Any, fake_time: FakeTime
) -> None:
    entries = _sample_list(tmp_path, invoke)
    expected = _expected()
    result = invoke("resolve", "--online")
    assert result.exit_code == 0, result.output
    assert "6 of 7 incomplete papers completed, 1 not found" in result.stderr
    papers = {p["title"]: p for p in _state(invoke)}
    for key, (arxiv_id, _) in SAMPLE.items():
        entry = entries[key]
        paper = papers[entry["title"]]
        assert paper["arxiv"] == arxiv_id
        assert paper["title_provisional"] is False
        assert paper["authors"] == expected[key][1]
        shown = _json(invoke, "show", paper["key"], "--json")
        assert shown["fields"]["pages"] == entry["pages"]  # from DBLP
        assert shown["entry_type"] == "inproceedings"
    assert "ioffe2015batch" in papers[entries["pmlr-v37-ioffe15"]["title"]]["key"]
    assert sum(1 for p in papers.values() if p["title_provisional"]) == 1
    # arXiv's limit: three seconds between requests.
    times = fake_time.arxiv_at
    assert len(times) == 7
    assert min(b - a for a, b in itertools.pairwise(times)) == pytest.approx(3.0)
    agents = {c.request.headers["user-agent"] for c in replay.calls}
    assert agents == {"readinglist/0.1.0 (mailto:tester@example.org)"}
    # A second run asks nothing: answers are cached, completed papers not selected.
    before = len(replay.calls)
    again = invoke("resolve", "--online", "--service", "arxiv")
    assert again.exit_code == 0, again.output
    assert len(replay.calls) == before + 0 or all(
        c.request.url.host == "export.arxiv.org" for c in replay.calls[before:]
    )


@SQLITE_SUFFICES
def test_resolve_online_crossref_by_doi(tmp_path: Path, invoke: Invoke, replay: Any) -> None:
    replay.get("https://api.crossref.org/works/10.1038/nature14539").mock(
        return_value=httpx.Response(
            200,
            text=(API / "crossref" / "10.1038_nature14539.json").read_text(encoding="utf-8"),
            headers={"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"},
        )
    )
    bib = tmp_path / "a.bib"
    bib.write_text(
        "@article{dl, title={Deep learning}, doi={10.1038/nature14539}, year={2015}}\n",
        encoding="utf-8",
    )
    assert invoke("import", str(bib)).exit_code == 0
    result = invoke("resolve", "--online", "--service", "crossref")
    assert result.exit_code == 0, result.output
    assert "dl: Crossref 10.1038/nature14539 (same DOI); filled" in result.stdout
    shown = _json(invoke, "show", "dl", "--json")
    assert shown["authors"] == ["LeCun, Yann", "Bengio, Yoshua", "Hinton, Geoffrey"]
    assert shown["venue"] == "Nature"
    assert shown["fields"]["pages"] == "436--444"
    assert shown["fields"]["volume"] == "521"
    assert shown["fields"]["number"] == "7553"
    assert shown["fields"]["publisher"] == "Springer Science and Business Media LLC"


@SQLITE_SUFFICES
@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            httpx.Response(429, headers={"retry-after": "5"}),
            "arXiv answered 429 Too Many Requests after 3 retries",
        ),
        (httpx.Response(503), "arXiv answered 503 Service Unavailable after 3 retries"),
        (
            httpx.Response(200, text="<html>maintenance</html"),
            "arXiv sent an answer that is not Atom XML",
        ),
        (httpx.Response(200, text=""), "arXiv sent an answer that is not Atom XML"),
        (httpx.ConnectError("Name or service not known"), "cannot reach arXiv (export.arxiv.org)"),
        (httpx.ReadTimeout("timed out"), "arXiv (export.arxiv.org) did not answer within 20 s"),
    ],
    ids=["429", "503", "garbage", "nothing", "no-network", "timeout"],
)
def test_a_failing_source_changes_nothing(
    tmp_path: Path,
    invoke: Invoke,
    fake_time: FakeTime,
    answer: httpx.Response | Exception,
    message: str,
) -> None:
    entries = _bib_entries(shared_data(ICML))
    listing = tmp_path / "sample.txt"
    listing.write_text(_abstracts_list(entries, list(SAMPLE)), encoding="utf-8")
    assert invoke("import", str(listing)).exit_code == 0
    before = _state(invoke)
    batches = _json(invoke, "import", "--list-batches", "--json")
    with respx.mock() as mock:
        route = mock.get("https://export.arxiv.org/api/query")
        if isinstance(answer, Exception):
            route.mock(side_effect=answer)
        else:
            route.mock(return_value=answer)
        result = invoke("resolve", "--online", "--service", "arxiv")
    assert result.exit_code == 6, result.output
    assert f"Error: {message}" in result.stderr
    assert "Traceback" not in result.output
    assert _state(invoke) == before
    assert _json(invoke, "import", "--list-batches", "--json") == batches
    if "429" in message:
        assert fake_time.pauses == [5.0, 5.0, 5.0]  # Retry-After honoured
    if "503" in message:
        assert fake_time.pauses == [3.0, 4.0, 8.0]  # exponential back-off, never under arXiv's 3 s


def test_resolve_online_holds_no_lock_while_a_source_answers(
    tmp_path: Path, invoke: Invoke, db_url: str, replay: Any, fake_time: FakeTime
) -> None:
    """Fresh-user find: ``resolve --online`` held SQLite's write lock (and, on
    PostgreSQL, the rows it had completed) while it waited for arXiv, so a ``mark``
    in another terminal failed as "busy". The services are asked first, with no
    transaction open; the answers are written in one short transaction after."""
    import os
    import subprocess
    import sys

    _sample_list(tmp_path, invoke)
    first = _state(invoke)[0]
    marks: list[tuple[int, str]] = []

    def slow_arxiv(request: httpx.Request) -> httpx.Response:
        fake_time.arxiv_at.append(fake_time.now)
        if len(fake_time.arxiv_at) == 2:  # asking about the second paper
            done = subprocess.run(
                [sys.executable, "-m", "readinglist", "--db", db_url, "mark", "read", first["key"]],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, "READINGLIST_BUSY_TIMEOUT": "2"},
                check=False,
            )
            marks.append((done.returncode, done.stderr))
        return _arxiv_answer(request)

    replay.get("https://export.arxiv.org/api/query").mock(side_effect=slow_arxiv)
    result = invoke("resolve", "--online")
    assert result.exit_code == 0, result.output
    assert marks == [(0, "marked 1 paper read\n")]
    assert "6 of 7 incomplete papers completed, 1 not found" in result.stderr
    paper = next(p for p in _state(invoke) if p["abstract"] == first["abstract"])
    assert paper["status"] == "read"  # the mark made while arXiv answered
    assert paper["title_provisional"] is False  # and the completion written after it


def test_resolve_from_a_file_then_online(tmp_path: Path, invoke: Invoke, replay: Any) -> None:
    """``--from`` and ``--online`` together: the services are asked about what the file
    leaves incomplete, as the file completed it (by the real title it brought, not by a
    phrase of the abstract), and both write in the same run."""
    entries = _sample_list(tmp_path, invoke)
    bib = shared_data(ICML).read_text(encoding="utf-8")
    start = bib.index("@InProceedings{pmlr-v37-ioffe15,")
    one = tmp_path / "one.bib"
    one.write_text(bib[start : bib.index("\n}\n", start) + 3], encoding="utf-8")
    result = invoke("resolve", "--from", str(one), "--online", "--service", "arxiv")
    assert result.exit_code == 0, result.output
    lines = [x for x in result.stdout.splitlines() if "pmlr-v37-ioffe15" in x]
    assert len(lines) == 2
    assert lines[0].startswith("normalizing2015 -> pmlr-v37-ioffe15: resolve --from ")
    assert lines[1] == (
        "pmlr-v37-ioffe15: arXiv 1502.03167 (same abstract, 100% similar); filled arxiv"
    )
    asked = [c.request.url.params["search_query"] for c in replay.calls]
    title = entries["pmlr-v37-ioffe15"]["title"]
    assert sum(1 for q in asked if q.startswith("ti:")) == 1
    assert any(q.startswith("ti:") and _folded(title)[:30] in _folded(q) for q in asked)
    shown = _json(invoke, "show", "pmlr-v37-ioffe15", "--json")
    assert shown["arxiv"] == "1502.03167"
    assert shown["fields"]["pages"] == "448--456"


def _preprints_of_icml(count: int) -> str:
    """Preprint records of the first ``count`` ICML 2015 entries, as users collect them
    (``benchmarks/versions.py``: Google Scholar's, arXiv's and DataCite's forms, given
    names cut to initials, some author lists cut short)."""
    import importlib.util
    import random

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "versions.py"
    spec = importlib.util.spec_from_file_location("bench_versions", path)
    assert spec is not None
    assert spec.loader is not None
    versions = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_versions", versions)  # its dataclasses look it up
    spec.loader.exec_module(versions)
    entries = versions.read_entries(shared_data(ICML))[:count]
    rng = random.Random(27)
    return "\n".join(versions.preprint(e, i, rng)[1] for i, e in enumerate(entries))


@SQLITE_ONLY
def test_undo_of_resolve_restores_every_superseded_preprint(tmp_path: Path, invoke: Invoke) -> None:
    """The state a completion left is read back from the database for undo: a preprint
    whose initials the proceedings' full names replaced is not "changed since resolve"
    (the digest was taken from a stale people link: 3 of 270 papers were kept). SQLite
    only: the stale link was the ORM session's, whatever the database (30 s a run, and it
    takes all 270 papers to show)."""
    pre = tmp_path / "pre.bib"
    pre.write_text(_preprints_of_icml(270), encoding="utf-8")
    assert invoke("import", str(pre)).exit_code == 0
    before = _state(invoke)
    result = invoke("resolve", "--from", str(shared_data(ICML)))
    assert "270 of 270 incomplete papers completed" in result.stderr, result.output
    result = invoke("import", "--undo", "2")
    assert result.exit_code == 0, result.output
    assert "kept" not in result.stderr
    assert "restored 270 papers" in result.stderr
    assert _state(invoke) == before


def test_undo_of_resolve_writes_the_search_text_once_for_all_papers(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undoing a resolve recomputes the search text of the papers it put back once, all
    together (it did so again for each paper at each flush), and the text is the one
    ``db check`` expects: the words of the provisional papers are found again."""
    from test_merge_completion import abstracts_list, bib_records

    from readinglist.formats import bibtex
    from readinglist.library import search

    records = bib_records()[:6]
    listed = tmp_path / "icml.txt"
    listed.write_text(abstracts_list(records, "exact"), encoding="utf-8")
    assert invoke("import", str(listed)).exit_code == 0
    keys = invoke("list", "-k").stdout.split()
    proceedings = tmp_path / "icml.bib"
    proceedings.write_text(bibtex.write(records), encoding="utf-8")
    assert invoke("resolve", "--from", str(proceedings)).exit_code == 0
    written: list[list[int]] = []
    real = search.write_search_text

    def counted(session: Any, ids: Any) -> Any:
        written.append(list(ids))
        return real(session, ids)

    monkeypatch.setattr(search, "write_search_text", counted)
    result = invoke("import", "--undo", "2")
    assert result.exit_code == 0, result.output
    assert "restored 6 papers" in result.stderr
    assert len(written) == 1
    assert len(written[0]) == 6
    monkeypatch.undo()
    assert invoke("db", "check").exit_code == 0
    assert invoke("list", "-k").stdout.split() == keys
