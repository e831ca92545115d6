"""The one HTTP client of the online sources: identity, rate limits, retries, cache, timeouts.

Every request of :mod:`readinglist.sources` goes through :class:`HttpClient` (httpx):

* it sends an identifying ``User-Agent`` with the contact address of the config
  (``READINGLIST_CONTACT``), as arXiv's API terms and Crossref's etiquette ask;
* it keeps each host's published limit (:data:`MIN_INTERVAL`: arXiv one request per
  3 s; DBLP one per second; Crossref what its ``x-rate-limit-limit`` /
  ``x-rate-limit-interval`` headers say, read from every answer);
* it retries an answer 429 or 503 after the ``Retry-After`` the service sent (or an
  exponential back-off: 2, 4, 8 s), never sooner than the host's interval, at most
  :data:`RETRIES` times;
* it times out (:data:`TIMEOUT` per connection or read) and gives each request a
  total deadline (:data:`DEADLINE`, :func:`deadline`): httpx's timeouts are per read,
  so a server or proxy trickling a byte every 5 s kept ``resolve --online`` waiting
  for ever;
* it turns every failure (no network, a timeout, an error status, retries used up)
  into :class:`~readinglist.errors.SourceUnavailable` (exit 6) naming the service;
* it caches successful answers on disk (one JSON file per URL under the cache
  directory, :data:`CACHE_DAYS` days), so that running ``resolve`` again asks nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from readinglist import __version__
from readinglist.errors import SourceUnavailable

#: Seconds to wait for a connection or an answer.
TIMEOUT = 20.0
#: Seconds a whole request may take (connection, headers and body), however the
#: server trickles its answer.
DEADLINE = 60.0
#: Retries of an answer 429 (too many requests) or 503 (unavailable).
RETRIES = 3
#: Longest wait honoured from a ``Retry-After`` header, in seconds.
MAX_WAIT = 60.0
#: Days a cached answer is used.
CACHE_DAYS = 30
#: Seconds between two requests to a host. arXiv: "no more than one request every
#: three seconds" (https://info.arxiv.org/help/api/tou.html); DBLP asks for polite use
#: (https://dblp.org/faq/1474706.html), one per second here; Crossref's own headers
#: override its entry (https://www.crossref.org/documentation/retrieve-metadata/rest-api/).
MIN_INTERVAL: dict[str, float] = {
    "export.arxiv.org": 3.0,
    "dblp.org": 1.0,
    "api.crossref.org": 0.02,
}

#: Status codes retried after a pause.
RETRY_STATUS = frozenset({429, 503})


def pause(seconds: float) -> None:
    """Sleep ``seconds`` (a module function so that tests replace it)."""
    time.sleep(seconds)


def now() -> float:
    """A monotonic clock in seconds (a module function so that tests replace it)."""
    return time.monotonic()


def user_agent(contact: str | None) -> str:
    """The ``User-Agent`` sent: ``readinglist/VERSION (mailto:CONTACT)``."""
    suffix = f" (mailto:{contact})" if contact else ""
    return f"readinglist/{__version__}{suffix}"


def parse_interval(limit: str | None, interval: str | None) -> float | None:
    """Seconds between requests from Crossref's ``x-rate-limit-limit`` (requests) and
    ``x-rate-limit-interval`` (``"1s"``) headers; None when they are missing or odd."""
    if not limit or not interval:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|ms|m)?\s*", interval)
    try:
        count = float(limit)
    except ValueError:
        return None
    if match is None or count <= 0:
        return None
    seconds = float(match.group(1)) * {"s": 1.0, "ms": 0.001, "m": 60.0}[match.group(2) or "s"]
    return seconds / count


def retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): the ``Retry-After`` header
    in seconds when given (at most :data:`MAX_WAIT`), else 2, 4, 8 ... seconds."""
    if value and value.strip().isdigit():
        return min(float(value.strip()), MAX_WAIT)
    return float(2**attempt)


class _PastDeadline(BaseException):
    """Raised by the alarm of :func:`deadline` inside the blocked read (a BaseException,
    as KeyboardInterrupt, so that no ``except Exception`` of httpx or httpcore keeps it;
    they close the connection and let it through)."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`_PastDeadline` in the block once ``seconds`` have passed, even while
    a read waits on the network: a real-time alarm (``setitimer(ITIMER_REAL)``, POSIX)
    whose handler raises in the main thread, where a CLI command runs. Elsewhere (a
    thread, a system without ``setitimer``) only httpx's per-read timeout applies. A
    timer or handler already set is put back afterwards."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or seconds <= 0:
        yield
        return

    def alarm(_signum: int, _frame: object) -> None:
        raise _PastDeadline

    previous = signal.signal(signal.SIGALRM, alarm)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, outer)


class HttpClient:
    """GET with the etiquette above. ``service`` names in messages are the callers'.

    Args:
        contact: the e-mail address sent in the User-Agent (None: none sent).
        cache_dir: where answers are cached (None: no cache).
        timeout: seconds per connection or read.
        total: seconds per request in all (default :data:`DEADLINE`, read when the
            client is made).
        clock: a monotonic clock (default :func:`now`).
    """

    def __init__(
        self,
        contact: str | None,
        cache_dir: Path | None,
        *,
        timeout: float = TIMEOUT,
        total: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.cache_dir = cache_dir
        self.total = DEADLINE if total is None else total
        self.clock = clock or now
        self.intervals = dict(MIN_INTERVAL)
        self.last: dict[str, float] = {}
        self.requests = 0
        self.client = httpx.Client(
            headers={"User-Agent": user_agent(contact)},
            timeout=timeout,
            follow_redirects=True,
        )

    def close(self) -> None:
        """Close the connections."""
        self.client.close()

    def get(self, service: str, url: str, params: Mapping[str, str] | None = None) -> str:
        """Return the text of ``url`` with ``params`` (from the cache when there).

        Raises SourceUnavailable (exit 6) naming ``service`` when the host cannot be
        reached, times out, answers an error status, or keeps answering 429/503.
        """
        text = self.get_optional(service, url, params, missing_ok=False)
        assert text is not None
        return text

    def get_optional(
        self,
        service: str,
        url: str,
        params: Mapping[str, str] | None = None,
        *,
        missing_ok: bool = True,
    ) -> str | None:
        """Like :meth:`get`, but None when the service answers 404 (``missing_ok``)."""
        full = f"{url}?{urlencode(sorted((params or {}).items()))}" if params else url
        cached = self._cached(full)
        if cached is not None:
            return cached
        host = httpx.URL(url).host
        for attempt in range(1, RETRIES + 2):
            self._wait(host)
            response = self._send(service, host, full)
            self._learn(host, response.headers)
            if response.status_code in RETRY_STATUS and attempt <= RETRIES:
                wait = retry_after(response.headers.get("retry-after"), attempt)
                pause(max(wait, self.intervals.get(host, 1.0)))
                self.last.pop(host, None)  # the pause covered the host's interval
                continue
            if response.status_code == 404 and missing_ok:
                return None
            if response.status_code != 200:
                raise SourceUnavailable(
                    f"{service} answered {response.status_code} "
                    f"{response.reason_phrase or ''}".rstrip()
                    + (f" after {RETRIES} retries" if response.status_code in RETRY_STATUS else "")
                    + "; nothing changed, try again later"
                )
            text = response.text
            self._store(full, text)
            return text
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, service: str, host: str, url: str) -> httpx.Response:
        self.requests += 1
        try:
            with deadline(self.total):
                response = self.client.get(url)
            return response
        except _PastDeadline:
            raise SourceUnavailable(
                f"{service} ({host}) did not finish answering within {self.total:g} s; "
                "nothing changed"
            ) from None
        except httpx.TimeoutException:
            raise SourceUnavailable(
                f"{service} ({host}) did not answer within {self.client.timeout.read:g} s; "
                "nothing changed"
            ) from None
        except httpx.HTTPError as exc:
            raise SourceUnavailable(
                f"cannot reach {service} ({host}): {exc or type(exc).__name__}; "
                "no network? nothing changed"
            ) from None
        finally:
            self.last[host] = self.clock()

    def _wait(self, host: str) -> None:
        """Pause until the host's interval since its last request has passed."""
        if host in self.last:
            left = self.intervals.get(host, 1.0) - (self.clock() - self.last[host])
            if left > 0:
                pause(left)

    def _learn(self, host: str, headers: Mapping[str, str]) -> None:
        """Take a host's announced rate limit (Crossref's ``x-rate-limit-*``)."""
        interval = parse_interval(
            headers.get("x-rate-limit-limit"), headers.get("x-rate-limit-interval")
        )
        if interval is not None:
            self.intervals[host] = interval

    def _path(self, url: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.cache_dir / digest[:2] / f"{digest}.json"

    def _cached(self, url: str) -> str | None:
        path = self._path(url)
        if path is None or not path.is_file():
            return None
        try:
            entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if entry.get("url") != url or time.time() - float(entry.get("at", 0)) > CACHE_DAYS * 86400:
            return None
        text = entry.get("text")
        return text if isinstance(text, str) else None

    def _store(self, url: str, text: str) -> None:
        path = self._path(url)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"url": url, "at": time.time(), "text": text}), "utf-8")
            tmp.replace(path)
        except OSError:
            pass  # a cache that cannot be written only costs a request next time
