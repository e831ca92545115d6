"""The abstracts reader's links: URLs found in pasted text and sorted by kind (:func:`extract_links`).

Finding a URL in prose and trimming the sentence punctuation after it is this
module's job; the DOI and arXiv rules are :mod:`readinglist.identifiers`'
(:func:`~readinglist.identifiers.normalize_doi`, :func:`~readinglist.identifiers.normalize_arxiv`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from readinglist.identifiers import normalize_arxiv, normalize_doi

#: A URL in pasted text; the one non-empty group is the address.
URL = re.compile(
    r"\[[^\[\]\n]{0,300}\]\(\s*<?((?:https?|ftp)://[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*)>?\s*\)"  # [text](url)
    r"|\\(?:url|href)\{([^{}\s]+)\}"  # \url{...} / \href{...}
    r"|<((?:https?|ftp)://[^<>\s]+)>"  # <https://...>
    r"|\b((?:https?://|www\.)[^\s<>\"'`{}|\\^\[\]]+(?:\\[_%#&~][^\s<>\"'`{}|\\^\[\]]*)*)"
    r"|(?<![\w@/.])((?:github\.com|gitlab\.com|huggingface\.co|arxiv\.org|doi\.org)/[^\s<>\"'`{}|\\^\[\]()]+)",
    re.I,
)

_URL_HINTS = (
    "://",
    "www.",
    "\\url",
    "\\href",
    "github.com",
    "gitlab.com",
    "huggingface.co",
    "arxiv.org",
    "doi.org",
)

_URL_TRAIL = ".,;:!?'\"*_>}`\u2019\u201d"


@dataclass(frozen=True)
class Links:
    """Identifiers and links found in a paper's text.

    ``code_url``: first GitHub/GitLab/Hugging Face/Bitbucket/Codeberg link;
    ``url``: first other web link; ``arxiv``: arXiv id without version;
    ``doi``: DOI lower-cased without resolver prefix. Missing ones are None.
    """

    url: str | None = None
    code_url: str | None = None
    arxiv: str | None = None
    doi: str | None = None

    def merged(self, other: Links) -> Links:
        """Return these links with the gaps filled from ``other``."""
        return Links(
            self.url or other.url,
            self.code_url or other.code_url,
            self.arxiv or other.arxiv,
            self.doi or other.doi,
        )


def extract_links(text: str) -> Links:
    """Find links and identifiers in ``text`` (plain URLs, ``\\url{}``, ``<...>``, Markdown links).

    Trailing sentence punctuation, braces and unbalanced closing brackets are
    stripped from each URL; ``\\_`` style escapes inside ``\\url{}`` are undone.
    GitHub, GitLab, Hugging Face, Bitbucket and Codeberg links become
    ``code_url``; arxiv.org links the arXiv id (no version); doi.org links the
    DOI (lower case, no resolver prefix); the first other link ``url``.
    """
    links = Links()
    for url in find_urls(text):
        links = links.merged(_classify_url(url))
    return links


def find_urls(text: str) -> Iterator[str]:
    """Yield each URL in ``text`` in order: trailing punctuation trimmed, escapes undone.

    Plain URLs, ``\\url{}``/``\\href{}``, ``<...>``, Markdown links and bare
    ``github.com/...``-style addresses; an address without a scheme gets ``https://``.
    """
    for _start, _end, url, _label in url_spans(text):
        yield url


def url_spans(text: str) -> Iterator[tuple[int, int, str, str | None]]:
    """Yield ``(start, end, url, label)`` for each URL in ``text``, in order.

    ``text[start:end]`` is what the URL takes in the text: a whole Markdown link,
    ``\\url{}`` or ``<...>``, or a bare address without the sentence punctuation
    after it. ``url`` is as :func:`find_urls` gives it; ``label`` is a Markdown
    link's text, else None. Used to keep links links when text is re-written
    (:mod:`readinglist.formats.markdown`).
    """
    lowered = text.lower()
    if not any(hint in lowered for hint in _URL_HINTS):
        return
    for match in URL.finditer(text):
        group = next(i for i, g in enumerate(match.groups(), start=1) if g)
        raw = match.group(group)
        url = _trim_url(re.sub(r"\\([_%#&~])", r"\1", raw))
        if not url:
            continue
        end = match.end()
        if group >= 4:  # a bare address: its trimmed punctuation stays text
            end = match.start(group) + len(_trim_url(raw))
        if not re.match(r"(?i)[a-z][a-z0-9+.-]*://", url):
            url = "https://" + url
        label = match.group(0)[1 : match.group(0).index("](")] if group == 1 else None
        yield match.start(), end, url, label


def _trim_url(url: str) -> str:
    """``url`` without trailing sentence punctuation and unbalanced closing brackets."""
    while url:
        last = url[-1]
        if (
            last in _URL_TRAIL
            or (last == ")" and url.count("(") < url.count(")"))
            or (last == "]" and url.count("[") < url.count("]"))
        ):
            url = url[:-1]
        else:
            break
    return url


def _classify_url(url: str) -> Links:
    """Sort one URL: a code host's repository, an arXiv id, a DOI, or any other link."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return Links()
    host = (parts.hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    path = parts.path.strip("/")
    if host in (
        "github.com",
        "gitlab.com",
        "huggingface.co",
        "hf.co",
        "bitbucket.org",
        "codeberg.org",
    ):
        return Links(code_url=url) if path else Links(url=url)
    if host.endswith("arxiv.org"):
        ident = normalize_arxiv(path)
        return Links(arxiv=ident) if ident else Links(url=url)
    if host in ("doi.org", "dx.doi.org"):
        doi = normalize_doi(path)
        return Links(doi=doi) if doi else Links(url=url)
    return Links(url=url)
