"""Ranking by learned interest, similar papers and topics (issue 14).

Layout, each module importing only the ones above it:

* ``features``: the text of a paper and the tf-idf vectorizer (scikit-learn);
* ``model``: labels from decisions, the linear interest model, scores;
* ``store``: the tf-idf matrix of the whole library, cached in a file and rebuilt when
  the library changed (a change counter), never a source of truth;
* ``ranker``: the facade the commands use: interest scores and order, per-tag models,
  ``--like`` seeds, explanations (``show --why``), similar papers, topics.

Nothing leaves the machine: the model is computed from the library alone. This package
imports numpy, scipy and scikit-learn, so only commands that rank import it (the CLI
keeps ``--help`` light).
"""

#: Prefixes of the feature tokens that stand for a person and a tag
#: (``features.person_token``/``tag_token``); kept here, free of scikit-learn, so that
#: topic labels and the ``--why`` text (``triage_view.term_label``) read them too.
AUTHOR_TOKEN = "author_"
TAG_TOKEN = "tag_"
