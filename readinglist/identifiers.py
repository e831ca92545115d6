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

_DOI = re.compile(r"(10\.\d{4,9}/\S+)", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#]+?)(?:\.pdf)?(?:[?#].*)?$", re.I)
_CODE_HOSTS = re.compile(
    r"^https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|"
    r"codeberg\.org|[a-z0-9-]+\.github\.io)/",
    re.IGNORECASE,
)
_TRAILING = ".,;:)]}>'\""


def normalize_doi(value: str | None) -> str | None:
    """Return the DOI in ``value`` lower-cased without prefix, or None when there is none.

    Accepts ``10.1000/xyz``, ``doi:10.1000/XYZ``, ``https://doi.org/10.1000/xyz``.
    """
    if not value:
        return None
    value = _DOI_PREFIX.sub("", value.strip())
    match = _DOI.search(value)
    if not match:
        return None
    return match.group(1).rstrip(_TRAILING).lower() or None


def normalize_arxiv(value: str | None) -> str | None:
    """Return the arXiv id in ``value`` without version, or None when there is none.

    Accepts ``2401.01234v2``, ``arXiv:2401.01234``, ``https://arxiv.org/abs/2401.01234``,
    ``https://arxiv.org/pdf/2401.01234v1.pdf``, ``hep-th/9901001``.
    """
    if not value:
        return None
    value = value.strip()
    url = _ARXIV_URL.search(value)
    if url:
        value = url.group(1)
    value = re.sub(r"^arxiv:\s*", "", value, flags=re.IGNORECASE)
    match = _ARXIV_NEW.search(value)
    if match:
        return match.group(1)
    match = _ARXIV_OLD.search(value)
    if match:
        return match.group(1)
    return None


def is_code_url(url: str) -> bool:
    """True for links to code hosts (GitHub, GitLab, Hugging Face, Bitbucket, Codeberg)."""
    return bool(_CODE_HOSTS.match(url))


def is_doi_url(url: str) -> bool:
    """True for ``doi.org`` resolver links."""
    return bool(re.match(r"^https?://(?:dx\.)?doi\.org/10\.", url, re.IGNORECASE))


def is_arxiv_url(url: str) -> bool:
    """True for ``arxiv.org`` abstract, PDF or HTML links."""
    return bool(_ARXIV_URL.search(url))
