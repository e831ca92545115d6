"""Cross-references: a child entry inherits fields from its ``crossref`` parent and its ``xdata`` blocks.

A floor beside :mod:`.fields` (imports nothing of the package). The rules are
biber's default inheritance (biblatex manual, section 2.4.1 "Cross-referencing"
and appendix B "Default Inheritance Setup"), which also covers classic BibTeX's
``crossref`` (a field missing in the child is taken from the parent):

* every field of the parent that the child lacks is copied, except the fields
  biber never inherits (:data:`NOT_INHERITED`);
* the parent's ``title`` becomes the child's ``booktitle`` for a book,
  collection or proceedings parent (``maintitle`` for their ``mv`` forms) and the
  child's ``journaltitle`` for a periodical parent; it is never the child's title;
* ``@xdata`` entries are data containers, not papers: a child's ``xdata = {a, b}``
  copies every field of those blocks the child lacks.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Fields biber does not inherit (biblatex manual, appendix B).
NOT_INHERITED = frozenset(
    {
        "ids",
        "crossref",
        "xref",
        "xdata",
        "entryset",
        "entrysubtype",
        "execute",
        "label",
        "options",
        "presort",
        "related",
        "relatedoptions",
        "relatedstring",
        "relatedtype",
        "shorthand",
        "shorthandintro",
        "sortkey",
    }
)
_BOOKISH = frozenset({"book", "collection", "proceedings", "reference"})
_MV = frozenset({"mvbook", "mvcollection", "mvproceedings", "mvreference"})


def parent_keys(value: str) -> list[str]:
    """The keys of a ``crossref`` or ``xdata`` value (comma-separated), stripped."""
    return [key.strip() for key in value.split(",") if key.strip()]


def inherit(
    child: Mapping[str, str], parent_type: str, parent: Mapping[str, str]
) -> dict[str, str]:
    """Return ``child``'s fields completed from a ``crossref`` parent of type ``parent_type``.

    Args:
        child: lower-case field name -> value of the child (not changed).
        parent_type: the parent's lower-case entry type.
        parent: the parent's fields.

    Returns:
        A new dict: the child's fields, then each parent field the child lacks
        (rules in the module docstring). Never raises.
    """
    merged = dict(child)
    title = parent.get("title")
    if title is not None:
        target = None
        if parent_type in _BOOKISH:
            target = "booktitle"
        elif parent_type in _MV:
            target = "maintitle"
        elif parent_type == "periodical":
            target = "journaltitle" if "journal" not in merged else None
        if target is not None and target not in merged:
            merged[target] = title
    for name, value in parent.items():
        if name == "title" or name in NOT_INHERITED or name in merged:
            continue
        merged[name] = value
    return merged


def add_xdata(child: Mapping[str, str], blocks: Mapping[str, str]) -> dict[str, str]:
    """Return ``child`` completed with the fields of one ``@xdata`` block it lacks."""
    merged = dict(child)
    for name, value in blocks.items():
        if name not in NOT_INHERITED and name not in merged:
            merged[name] = value
    return merged


#: Entry types that may be a ``crossref`` parent (kept while reading a file).
PARENT_TYPES = frozenset({*_BOOKISH, *_MV, "periodical", "inbook", "incollection"})
