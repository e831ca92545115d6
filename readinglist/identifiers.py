"""Normalization of DOIs and arXiv ids, and classification of links.

Rules:
* DOI: the DOI Handbook (section 2.2, "DOI syntax") makes the prefix/suffix
  case-insensitive, so we store lower case, without ``doi:`` or a resolver URL
  (``https://doi.org/``, ``http://dx.doi.org/``), and without trailing punctuation.
* arXiv: identifiers as documented at https://info.arxiv.org/help/arxiv_identifier.html:
  new style ``YYMM.NNNN(N)`` and old style ``archive(.subject)/YYMMNNN``, stored
  without the ``vN`` version suffix, from bare ids, ``arXiv:`` ids or
  ``arxiv.org/abs|pdf/...`` URLs.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_DOI = re.compile(r"(10\.\d{4,9}/\S+)", re.IGNORECASE)
#: shortDOI (https://shortdoi.org): ``10/abc``; accepted only as a whole value, never in prose.
_SHORT_DOI = re.compile(r"10/[a-z0-9]+", re.IGNORECASE)
#: ``doi:`` and the resolvers people paste: doi.org with or without www./dx., ACM's and IEEE's.
_DOI_PREFIX = re.compile(
    r"^(?:doi:\s*|(?:(?:https?:)?//)?(?:(?:www\.|dx\.)?doi\.org|doi\.acm\.org"
    r"|(?:www\.)?doi\.ieeecomputersociety\.org)/)",
    re.IGNORECASE,
)
_LATEX_URL = re.compile(r"\\url\{([^}]*)\}")
_LATEX_ESCAPE = re.compile(r"\\([_&%#$])")
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#]+?)(?:\.pdf)?(?:[?#].*)?$", re.I)
#: The DOI arXiv registers for each paper (DataCite prefix 10.48550): ``10.48550/arXiv.<id>``.
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})", re.IGNORECASE)
_CODE_HOSTS = re.compile(
    r"^https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|"
    r"codeberg\.org|[a-z0-9-]+\.github\.io)/",
    re.IGNORECASE,
)
_TRAILING = ".,;:)]}>'\""


def normalize_doi(value: str | None) -> str | None:
    """Return the DOI that ``value`` holds, lower-cased without prefix, or None when it holds none.

    This is the only DOI rule of the project: every reader, the query language and the CLI
    call it. ``value`` is a field meant to hold a DOI, in any common form: ``10.1000/xyz``,
    ``doi:10.1000/XYZ``, resolver URLs (``https://doi.org/``, ``https://www.doi.org/``,
    ``http://dx.doi.org/``, ``https://doi.acm.org/``, protocol-relative ``//doi.org/``),
    percent-encoded (``10.1000/a%2Fb``), LaTeX-escaped (``10.1000/a\\_b``, ``\\url{...}``),
    the shortDOI form ``10/abc``, or a DOI inside other text. Trailing punctuation is dropped
    (``10.1000/x.`` is a pasted sentence end far more often than a DOI), but a closing bracket
    the DOI itself opened is kept (``10.1016/0370-2693(82)90``).
    Raises nothing.
    """
    if not value:
        return None
    text = value.strip()
    if "\\" in text or "{" in text:
        text = _LATEX_URL.sub(r"\1", text)
        text = _LATEX_ESCAPE.sub(r"\1", text).replace("{", "").replace("}", "")
    text = _strip_doi_prefixes(text)
    if "%" in text:
        text = unquote(text)
    text = text.strip()
    if _SHORT_DOI.fullmatch(text):
        return text.lower()
    return find_doi(text)


def _strip_doi_prefixes(text: str) -> str:
    """``text`` without any number of leading ``doi:`` / resolver prefixes."""
    previous = None
    while previous != text:
        previous = text
        text = _DOI_PREFIX.sub("", text.strip())
    return text


def doi_stem(value: str) -> str:
    """Return the start of a DOI typed for a prefix search (``doi:10.1145/*``), lower-cased.

    ``value`` without the ``doi:`` / resolver prefixes :func:`normalize_doi` strips; it need
    not be a whole DOI and may come back empty. Raises nothing.
    """
    return _strip_doi_prefixes(value).lower()


def find_doi(text: str | None) -> str | None:
    """Return the first DOI (``10.<registrant>/<suffix>``, DOI Handbook 2.2) inside free text.

    Lower-cased (DOIs are case-insensitive), without trailing punctuation; None when there is
    none. Use :func:`normalize_doi` for a field that is meant to hold a DOI.
    """
    if not text:
        return None
    match = _DOI.search(text)
    if not match:
        return None
    return _trim_trailing(match.group(1)).lower() or None


_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _trim_trailing(doi: str) -> str:
    """``doi`` without trailing punctuation; a closing bracket stays when the DOI opened it."""
    while doi and doi[-1] in _TRAILING:
        opener = _CLOSERS.get(doi[-1])
        if opener is not None and doi.count(opener) >= doi.count(doi[-1]):
            break
        doi = doi[:-1]
    return doi


def normalize_arxiv(value: str | None) -> str | None:
    """Return the arXiv id in ``value`` without version, or None when there is none.

    Accepts ``2401.01234v2``, ``arXiv:2401.01234``, ``https://arxiv.org/abs/2401.01234``,
    ``https://arxiv.org/pdf/2401.01234v1.pdf``, ``hep-th/9901001``. The only arXiv rule of
    the project (arXiv identifier scheme, https://info.arxiv.org/help/arxiv_identifier.html).
    """
    if not value:
        return None
    value = _arxiv_body(value)
    match = _ARXIV_NEW.search(value)
    if match:
        return match.group(1)
    match = _ARXIV_OLD.search(value)
    if match:
        return match.group(1)
    return None


def arxiv_year_month(arxiv_id: str | None) -> tuple[int, int] | None:
    """Year and month an arXiv id was first submitted, from the id itself, or None.

    ``arxiv_id`` as :func:`normalize_arxiv` returns it. New-style ids begin with YYMM
    (``2401.01234``: January 2024; the scheme began in April 2007), old-style ones carry
    YYMM after the archive (``hep-th/9901001``: January 1999; 91-99 are the 1990s), per
    arXiv's identifier scheme (https://info.arxiv.org/help/arxiv_identifier.html). None
    for anything else or a month outside 1-12.
    """
    if not arxiv_id:
        return None
    new = re.fullmatch(r"(\d{2})(\d{2})\.\d{4,5}", arxiv_id)
    old = re.fullmatch(r"[a-z-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}", arxiv_id)
    match = new or old
    if match is None:
        return None
    yy, month = int(match.group(1)), int(match.group(2))
    year = 1900 + yy if old and yy >= 91 else 2000 + yy
    return (year, month) if 1 <= month <= 12 else None


def _arxiv_body(value: str) -> str:
    """``value`` without an ``arxiv.org/abs|pdf|html/`` URL around it or an ``arXiv:`` prefix."""
    value = value.strip()
    url = _ARXIV_URL.search(value)
    if url:
        value = url.group(1)
    return re.sub(r"^arxiv:\s*", "", value, flags=re.IGNORECASE)


def arxiv_stem(value: str) -> str:
    """Return the start of an arXiv id typed for a prefix search (``arxiv:2401.*``), lower-cased.

    ``value`` without the ``arXiv:`` prefix or arxiv.org URL :func:`normalize_arxiv` strips;
    it need not be a whole id and may come back empty. Raises nothing.
    """
    return _arxiv_body(value).lower()


def arxiv_from_doi(doi: str | None) -> str | None:
    """Return the arXiv id of an arXiv DOI (``10.48550/arXiv.2401.01234``), else None.

    ``doi`` is a DOI without resolver prefix, as :func:`normalize_doi` returns it. arXiv
    registers one DOI per paper under the DataCite prefix 10.48550, the versionless id
    after ``arXiv.`` (https://info.arxiv.org/help/doi.html); other DOIs give None.
    """
    match = _ARXIV_DOI.fullmatch(doi.strip()) if doi else None
    return match.group(1) if match else None


def is_web_link(url: str | None) -> bool:
    """True for an ``http``/``https`` link, the only URLs read as a paper's location
    (RFC 3986 scheme, compared without case). A ``javascript:``, ``data:`` or
    ``file:`` URL, or text that is no URL, names no paper: it is never opened, shown as
    a link, or counted as an identifier."""
    return url is not None and url.strip().lower().startswith(("https://", "http://"))


def is_code_url(url: str) -> bool:
    """True for links to code hosts (GitHub, GitLab, Hugging Face, Bitbucket, Codeberg)."""
    return bool(_CODE_HOSTS.match(url))


def is_doi_url(url: str) -> bool:
    """True for DOI resolver links (the prefixes :func:`normalize_doi` strips) to a DOI."""
    url = url.strip()
    stripped = _strip_doi_prefixes(url)
    return "://" in url and stripped != url and stripped.startswith("10.")


def is_arxiv_url(url: str) -> bool:
    """True for ``arxiv.org`` abstract, PDF or HTML links."""
    return bool(_ARXIV_URL.search(url))


#: A venue that only says "arXiv preprint": ``arXiv preprint arXiv:2101.00001``
#: (Google Scholar), ``arXiv e-prints``-style ``arXiv:2101.00001``, DBLP's ``CoRR abs/2101.00001``.
_ARXIV_VENUE = re.compile(
    r"^\s*(?:arxiv\s+preprint\s+|arxiv\s+e-prints,?\s*|corr\s*,?\s*)?(?:arxiv:\s*|abs/)(\S+)\s*$",
    re.IGNORECASE,
)


def arxiv_from_venue(venue: str | None) -> str | None:
    """Return the arXiv id of a venue that names only an arXiv preprint, else None.

    ``arXiv preprint arXiv:2101.00001`` (Google Scholar's BibTeX), ``arXiv:hep-th/9901001``,
    ``CoRR abs/2101.00001`` (DBLP) give the id without version; any other venue gives None.
    """
    match = _ARXIV_VENUE.match(venue) if venue else None
    return normalize_arxiv(match.group(1)) if match else None
