"""Naming the contribution a paper introduces, from its title or its abstract's prose.

Text mining, not a file format: the abstracts reader (:mod:`readinglist.formats.abstracts`)
calls it for each pasted paper, and any other reader may. Public API:

* :func:`contribution_names` -- the names an abstract introduces ("we propose SPAR, ...");
* :func:`short_name_from_title` -- the name a title leads with ("FlowSketch: ...");
* :func:`provisional_title` -- a title for an abstract pasted without one;
* :class:`ContributionName` -- name, expansion, description, position.

Modules, each importing only those above it (none imports sqlalchemy, models or a
format):

* ``words``: the word lists (the knowledge; extend them, do not special-case);
* ``markup``: inline Markdown/HTML/LaTeX emphasis to plain Unicode (also used by the
  abstracts reader); LaTeX is decoded by :mod:`readinglist.text`;
* ``shapes``: :class:`ContributionName` and what a name looks like;
* ``scan``: an abstract prepared once: plain text, emphasis, sentences, verbs;
* ``phrases``: descriptions and title phrases cut to length;
* ``names``: the phrasing rules of :func:`contribution_names`;
* ``titles``: :func:`short_name_from_title` and :func:`provisional_title`.
"""

from __future__ import annotations

from readinglist.naming.names import contribution_names
from readinglist.naming.shapes import ContributionName
from readinglist.naming.titles import provisional_title, short_name_from_title

__all__ = ["ContributionName", "contribution_names", "provisional_title", "short_name_from_title"]
