"""The online sources' parsing and etiquette without a database (issue 13 item 4)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import respx

from readinglist.errors import SourceUnavailable
from readinglist.records import Person
from readinglist.sources import arxiv, crossref, dblp, http

API = Path(__file__).resolve().parent / "data" / "api"


def test_arxiv_feed_becomes_records() -> None:
    [record] = arxiv.parse_feed((API / "arxiv" / "1502.03167.xml").read_text(encoding="utf-8"))
    assert record.title == (
        "Batch Normalization: Accelerating Deep Network Training by Reducing Internal "
        "Covariate Shift"
    )
    assert record.authors == (
        Person(family="Ioffe", given="Sergey"),
        Person(family="Szegedy", given="Christian"),
    )
    assert (record.arxiv, record.year, record.month) == ("1502.03167", 2015, None)
    assert record.url == "https://arxiv.org/abs/1502.03167"
    assert record.fields["primaryclass"] == "cs.LG"


def test_arxiv_error_entry_is_refused() -> None:
    feed = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        "<id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id>"
        "<title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>"
    )
    with pytest.raises(SourceUnavailable, match="arXiv refused the query: incorrect id format"):
        arxiv.parse_feed(feed)


def test_distinctive_phrase_prefers_long_plain_words() -> None:
    text = (
        "We use $x$ here. Internal covariate shift hampers training of deep networks "
        "considerably, said they."
    )
    assert arxiv.distinctive_phrase(text) == (
        "covariate shift hampers training of deep networks considerably"
    )
    assert arxiv.distinctive_phrase("too short") is None


def test_dblp_hits_become_records() -> None:
    [record] = dblp.parse_hits(
        (API / "dblp" / "conf_icml_IoffeS15.json").read_text(encoding="utf-8")
    )
    assert record.title.endswith("Internal Covariate Shift")  # type: ignore[union-attr]
    assert record.entry_type == "inproceedings"
    assert record.fields["pages"] == "448--456"
    assert record.venue == "ICML"
    assert record.url == "http://proceedings.mlr.press/v37/ioffe15.html"


def test_dblp_single_author_and_homonym_number() -> None:
    answer = (
        '{"result": {"hits": {"hit": {"info": {"title": "A paper.", "year": "2015",'
        ' "authors": {"author": {"text": "Wei Wang 0001"}}}}}}}'
    )
    [record] = dblp.parse_hits(answer)
    assert record.authors == (Person(family="Wang", given="Wei"),)
    assert record.title == "A paper"


def test_crossref_work_becomes_a_record() -> None:
    import json

    data = json.loads((API / "crossref" / "10.1038_nature14539.json").read_text(encoding="utf-8"))
    record = crossref.work_record(data["message"])
    assert record is not None
    assert (record.entry_type, record.title, record.venue) == ("article", "Deep learning", "Nature")
    assert (record.year, record.month, record.doi) == (2015, 5, "10.1038/nature14539")
    assert record.fields == {
        "volume": "521",
        "number": "7553",
        "pages": "436--444",
        "publisher": "Springer Science and Business Media LLC",
        "issn": "0028-0836",
    }


@pytest.mark.parametrize(
    ("limit", "interval", "seconds"),
    [
        ("50", "1s", 0.02),
        ("5", "1s", 0.2),
        ("10", "500ms", 0.05),
        (None, "1s", None),
        ("x", "1s", None),
    ],
)
def test_crossref_rate_limit_headers(
    limit: str | None, interval: str, seconds: float | None
) -> None:
    assert http.parse_interval(limit, interval) == seconds


def test_client_keeps_arxiv_interval_and_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pauses: list[float] = []
    monkeypatch.setattr(http, "pause", pauses.append)
    now = [100.0]
    client = http.HttpClient("me@example.org", tmp_path, clock=lambda: now[0])
    with respx.mock() as mock:
        route = mock.get("https://export.arxiv.org/api/query").mock(
            return_value=httpx.Response(200, text="<feed/>")
        )
        client.get("arXiv", arxiv.API, {"id_list": "1"})
        now[0] += 1.0
        client.get("arXiv", arxiv.API, {"id_list": "2"})
        client.get("arXiv", arxiv.API, {"id_list": "1"})  # cached: no request, no pause
    assert route.call_count == 2
    assert pauses == [2.0]
    assert (
        route.calls[0].request.headers["user-agent"] == "readinglist/0.1.0 (mailto:me@example.org)"
    )


def test_client_learns_crossref_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []
    monkeypatch.setattr(http, "pause", pauses.append)
    client = http.HttpClient(None, None, clock=lambda: 0.0)
    with respx.mock() as mock:
        mock.get("https://api.crossref.org/works").mock(
            return_value=httpx.Response(
                200, text="{}", headers={"x-rate-limit-limit": "5", "x-rate-limit-interval": "1s"}
            )
        )
        client.get("Crossref", crossref.API, {"query.bibliographic": "a"})
        client.get("Crossref", crossref.API, {"query.bibliographic": "b"})
    assert pauses == [0.2]
    assert client.client.headers["user-agent"] == "readinglist/0.1.0"
