"""Ranking by learned interest, similar papers and topics (issue 14).

Layout, each module importing only the ones above it:

* ``features``: the text of a paper and the tf-idf vectorizer (scikit-learn);
* ``model``: labels from decisions, the linear interest model, scores;
* ``fitted``: the library's change counter, where the cache files live, and the
  fitted interest of every paper kept under it (numpy alone: read without the rest);
* ``store``: the tf-idf matrix of the whole library, cached in a file and rebuilt when
  the library changed (a change counter), never a source of truth;
* ``select``: which of the two indexes' classifiers ranks for a reader (folds on their
  decisions, a prequential record kept per reader beside the cache);
* ``ranker``: the facade the commands use: interest scores and order, per-tag models,
  ``--like`` seeds, explanations (``show --why``), similar papers, topics.

Nothing leaves the machine: the model is computed from the library alone. This package
imports numpy, scipy and scikit-learn, so only commands that rank import it (the CLI
keeps ``--help`` light); this module itself imports none of them, so that the
explanation types below (:class:`Term`, :class:`Why`) and the token prefixes serve the
screens too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: Prefixes of the feature tokens that stand for a person and a tag
#: (``features.person_token``/``tag_token``); kept here, free of scikit-learn, so that
#: topic labels and the ``--why`` text (``triage_view.term_label``) read them too.
AUTHOR_TOKEN = "author_"
TAG_TOKEN = "tag_"
#: The name of the model of ``triage --like TEXT`` (``tag add`` refuses such a tag name);
#: ``""`` names the model of all decisions, any other name a tag's.
LIKE_MODEL = "--like text"


def model_label(name: str) -> str:
    """The words for the model ``name`` of a :class:`Why` in ``--why`` texts: "all your
    decisions", "your --like text" or "the model of tag NAME"."""
    if name == LIKE_MODEL:
        return "your --like text"
    return f"the model of tag {name}" if name else "all your decisions"


@dataclass(frozen=True)
class Term:
    """A term of an explanation and its contribution to the score."""

    term: str
    weight: float


@dataclass(frozen=True)
class Why:
    """Why a paper has its interest, in parts that add up to ``score``.

    ``model`` is the model giving the paper its interest (``""``: all decisions,
    :data:`LIKE_MODEL`: the ``--like`` text, else a tag's); ``up``/``down`` the terms that raised and lowered it most; ``other`` the
    sum of the remaining ``others`` terms; ``offset`` the library's average term score,
    subtracted (scores are standardised); ``topic`` the LSA half of the score (latent
    topics, not split into terms). ``sum(up) + sum(down) + other + offset + topic ==
    score`` (``ranking.model.Model.parts``); :meth:`rounded` keeps that true of the
    printed figures.
    """

    model: str
    score: float
    up: tuple[Term, ...]
    down: tuple[Term, ...]
    other: float
    others: int
    offset: float
    topic: float

    def rounded(self, digits: int) -> Why:
        """Return the parts rounded to ``digits`` decimals, the rounding remainder put in
        ``other`` (at most a few units of the last digit), so that the printed parts add
        up to the printed score (a fresh user's sum of the terms did not)."""
        up = tuple(Term(t.term, round(t.weight, digits)) for t in self.up)
        down = tuple(Term(t.term, round(t.weight, digits)) for t in self.down)
        score, offset, topic = (round(v, digits) for v in (self.score, self.offset, self.topic))
        listed = sum(t.weight for t in up + down) + offset + topic
        return replace(
            self,
            score=score,
            up=up,
            down=down,
            other=round(score - listed, digits),
            offset=offset,
            topic=topic,
        )
