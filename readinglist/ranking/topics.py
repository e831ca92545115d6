"""Topics: the selected papers clustered into ``k`` groups, each labelled by top terms.

Rows of the library's tf-idf matrix, reduced by LSA (truncated SVD, at most 100
dimensions) and normalised, clustered by k-means (the numerical libraries on one thread
each, ``store.one_thread``); seeds are fixed, so the same papers give the same topics. A topic's label is its three most distinctive word terms: the
terms whose mean tf-idf weight inside the topic most exceeds their mean weight outside
it (the class-based tf-idf idea of BERTopic, which keeps words every paper of a small
list shares, "based", "self", out of the labels). Author and tag tokens, and terms made
only of abstract filler and function words (``citekeys.FILLER_WORDS``,
``naming.words.FUNCTION_WORDS``) or of split-off prefixes (``pre``, ``self``), are never
label words; nor are words of the papers' venues (``venue_words``: on the ACL
anthology the main conference's cluster was labelled
"association-computational-linguistics") nor terms in more than half of the selected
papers (:data:`SHARED`: they say what the selection is, not what a topic is). The
label is joined by ``-`` and at most :data:`MAX_LABEL` characters: a usable tag name
(``topic/<label>``, :mod:`readinglist.bounds`), however long the words of the papers are.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize

from readinglist.bounds import MAX_TAG
from readinglist.citekeys import FILLER_WORDS
from readinglist.naming.words import FUNCTION_WORDS
from readinglist.ranking import AUTHOR_TOKEN, TAG_TOKEN
from readinglist.ranking.store import Index, one_thread
from readinglist.text import latex_to_unicode

SEED = 14
#: The prefix of the tags ``topics --tag`` writes.
TAG_PREFIX = "topic/"
#: The longest label: ``topic/<label>`` with the ``-<n>`` of a repeated label (up to
#: 99,999 topics) is at most a tag's length.
MAX_LABEL = MAX_TAG - len(TAG_PREFIX) - 6
#: A term in more than this share of the selected papers labels no topic.
SHARED = 0.5


@dataclass(frozen=True)
class Topic:
    """One cluster: its label, its top terms and its papers (ids, in the given order)."""

    label: str
    terms: tuple[str, ...]
    paper_ids: tuple[int, ...]


def cluster(index: Index, pids: Sequence[int], k: int, venues: Collection[str] = ()) -> list[Topic]:
    """Cluster the papers ``pids`` into at most ``k`` topics, largest first.

    Fewer papers than ``k`` give one topic per paper. Papers missing from the index are
    left out. ``venues`` (the papers' venue names) give words that label no topic
    (:func:`venue_words`).
    """
    rows = [index.row[p] for p in pids if p in index.row]
    if not rows:
        return []
    k = max(1, min(k, len(rows)))
    matrix = index.matrix[rows]
    dims = min(100, len(rows) - 1, matrix.shape[1] - 1)
    # One thread each (store.one_thread): k-means' OpenMP threads waiting for each other
    # took 0.17 s of CPU a run for 12 papers on a busy 2-core machine, 0.011 s on one.
    with one_thread():
        if dims >= 2 and k > 1:
            reduced = TruncatedSVD(n_components=dims, random_state=SEED).fit_transform(matrix)
            reduced = normalize(reduced)
        else:
            reduced = matrix.toarray()
        if k > 1:
            assignment = KMeans(n_clusters=k, n_init=10, random_state=SEED).fit_predict(reduced)
        else:
            assignment = np.zeros(len(rows), dtype=int)
    present = np.asarray((matrix > 0).sum(axis=0)).ravel()
    shared = {index.vocabulary[i] for i in np.flatnonzero(present > SHARED * len(rows))}
    banned = venue_words(venues) | {term for term in shared if " " not in term}
    words = np.array([_is_label_word(t, banned) for t in index.vocabulary], dtype=bool)
    total = np.asarray(matrix.sum(axis=0)).ravel()
    topics = []
    for label in range(k):
        members = np.flatnonzero(assignment == label)
        if len(members) == 0:
            continue
        inside = np.asarray(matrix[members].sum(axis=0)).ravel()
        outside_count = len(rows) - len(members)
        centroid = inside / len(members)
        if outside_count:
            centroid = centroid - (total - inside) / outside_count
        centroid[~words] = 0.0
        best = [index.vocabulary[i] for i in np.argsort(-centroid)[:3] if centroid[i] > 0]
        ids = tuple(int(index.ids[rows[i]]) for i in members)
        topics.append(Topic(_label(best) or f"topic-{label + 1}", tuple(best), ids))
    topics.sort(key=lambda t: (-len(t.paper_ids), t.label))
    return _unique_labels(topics)


#: Halves of hyphenated words the tokenizer splits off ("pre-trained", "self-supervised"):
#: not a topic's name on their own.
_PREFIXES = frozenset(
    [
        "pre",
        "non",
        "self",
        "multi",
        "semi",
        "co",
        "re",
        "sub",
        "inter",
        "cross",
        "anti",
        "post",
        "de",
        "un",
    ]
)
_NOT_LABEL = FILLER_WORDS | FUNCTION_WORDS | _PREFIXES


def venue_words(venues: Collection[str]) -> frozenset[str]:
    """Return the lower-cased words of the venue names ``venues`` (LaTeX decoded as the
    features are), which label no topic."""
    words: set[str] = set()
    for venue in set(venues):
        if venue:
            words.update(re.findall(r"[^\W_]+", latex_to_unicode(venue).lower()))
    return frozenset(words)


def _is_label_word(term: str, banned: Collection[str] = frozenset()) -> bool:
    """True for a vocabulary term that may name a topic (see the module docstring)."""
    if term.startswith((AUTHOR_TOKEN, TAG_TOKEN)):
        return False
    parts = term.split()
    if any(word in banned for word in parts):
        return False
    return not all(word in _NOT_LABEL for word in parts)


def _label(terms: Sequence[str]) -> str:
    words: list[str] = []
    for term in terms:
        for word in term.split():
            if word not in words:
                words.append(word)
    label = "-".join(re.sub(r"[^0-9a-z]+", "", w.lower()) for w in words[:3] if w)
    return label[:MAX_LABEL].strip("-")


def _unique_labels(topics: list[Topic]) -> list[Topic]:
    seen: dict[str, int] = {}
    out = []
    for topic in topics:
        n = seen.get(topic.label, 0) + 1
        seen[topic.label] = n
        label = topic.label if n == 1 else f"{topic.label}-{n}"
        out.append(Topic(label, topic.terms, topic.paper_ids))
    return out
