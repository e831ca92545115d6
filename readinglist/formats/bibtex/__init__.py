"""BibTeX and biblatex: read ``.bib`` text into :class:`PaperRecord` values and write them back.

The public names below are the whole interface (``from readinglist.formats import
bibtex``; ``bibtex.read``, ``bibtex.write``, ``bibtex.Writer`` ...). The package is
built in floors, each module importing only the ones above it in this list, and only
these modules import bibtexparser::

    bibtex/
      values.py   BibTeX values: @string macros, # concatenation, months (imports nothing here)
      fields.py   raw field values <-> record columns, the ``fields`` contract
      digest.py   bibliographic_fingerprint, source_check, bibliographic_data
      reader.py   bibtexparser's splitter and everything after it: read, iter_read, read_aux
      inert.py    the allow-list of inert LaTeX markup: what an export may copy
      encode.py   columns and raw values as BibTeX text (escaping, names, citation keys)
      generate.py entries written anew, field by field, by provenance
      copying.py  the export's rules that ask for values anew (tags, notes, biblatex forms)
      patch.py    an entry's own text with only the values that must change replaced
      writer.py   Writer and write: copy unchanged entries byte for byte, patch or generate

LaTeX is decoded by :mod:`readinglist.text` (one fast decoder, then pylatexenc), DOIs
and arXiv ids are normalized by :mod:`readinglist.identifiers`.

Round trips: ``read(write(records))`` gives back each record's
:func:`bibliographic_data`, and an entry whose data is unchanged since it was read is
written as its own bytes (``source_text``); see :mod:`.writer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from readinglist._lazy import lazy_exports

if TYPE_CHECKING:
    from readinglist.formats.bibtex.digest import (
        bibliographic_data,
        bibliographic_fingerprint,
        source_check,
    )
    from readinglist.formats.bibtex.encode import VERBATIM_FIELDS, Dialect, valid_citekey
    from readinglist.formats.bibtex.generate import FIELD_ORDER
    from readinglist.formats.bibtex.reader import aux_inputs, iter_read, read, read_aux
    from readinglist.formats.bibtex.values import macro_names
    from readinglist.formats.bibtex.writer import (
        Writer,
        crossref_parents,
        entry_order,
        string_offsets,
        write,
    )
    from readinglist.identifiers import normalize_arxiv, normalize_doi

#: Where each public name lives; imported on first use (:mod:`readinglist._lazy`), so an
#: import loads the reader without the writer (issue 17 item 5).
_HOMES = {
    **dict.fromkeys(
        ("bibliographic_data", "bibliographic_fingerprint", "source_check"),
        "readinglist.formats.bibtex.digest",
    ),
    **dict.fromkeys(
        ("VERBATIM_FIELDS", "Dialect", "valid_citekey"), "readinglist.formats.bibtex.encode"
    ),
    **dict.fromkeys(
        ("aux_inputs", "iter_read", "read", "read_aux"), "readinglist.formats.bibtex.reader"
    ),
    "macro_names": "readinglist.formats.bibtex.values",
    "FIELD_ORDER": "readinglist.formats.bibtex.generate",
    **dict.fromkeys(
        ("Writer", "crossref_parents", "entry_order", "string_offsets", "write"),
        "readinglist.formats.bibtex.writer",
    ),
    **dict.fromkeys(("normalize_arxiv", "normalize_doi"), "readinglist.identifiers"),
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())

__all__ = [
    "FIELD_ORDER",
    "VERBATIM_FIELDS",
    "Dialect",
    "Writer",
    "aux_inputs",
    "bibliographic_data",
    "bibliographic_fingerprint",
    "crossref_parents",
    "entry_order",
    "iter_read",
    "macro_names",
    "normalize_arxiv",
    "normalize_doi",
    "read",
    "read_aux",
    "source_check",
    "string_offsets",
    "valid_citekey",
    "write",
]
