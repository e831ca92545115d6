"""The one digest rule: SHA-256 over data written as JSON (stdlib only).

Every stored digest of the project is this function over a list of values: the BibTeX
reader's fingerprint and macro check (``formats.bibtex.digest``, kept in
``papers.source_check``) and the library's bibliographic digest of a record
(``library.rows.bibliographic_digest``, kept in ``papers.source_digest``). What each
digest covers differs by purpose; how it is computed lives here only.
"""

from __future__ import annotations

import hashlib
import json


def json_digest(data: object, *, compact: bool = False) -> str:
    """Return the SHA-256 hex digest of ``data`` written as JSON.

    Args:
        data: JSON-serializable values (lists, strings, numbers, None).
        compact: separators ``,`` and ``:`` instead of json's default ``, `` and
            ``: ``. Both forms are kept because the digests are stored in databases
            (``papers.source_check``): :func:`bibliographic_fingerprint` has always
            used the compact form, the macro half of :func:`source_check` the default.

    Returns:
        64 hex characters over the UTF-8 bytes of ``json.dumps(data,
        ensure_ascii=False)``. Raises TypeError for data JSON cannot write.
    """
    blob = _ENCODERS[compact](data)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


#: ``json.dumps(data, ensure_ascii=False, separators=...)`` for each ``compact``, built
#: once: ``json.dumps`` with options builds an encoder per call, a sixth of the cost
#: of a digest (the BibTeX export takes one per entry, issue 17). No cycle check:
#: digested data is plain values (a cycle raises RecursionError instead of ValueError).
_ENCODERS = {
    compact: json.JSONEncoder(
        ensure_ascii=False,
        check_circular=False,
        separators=(",", ":") if compact else (", ", ": "),
    ).encode
    for compact in (False, True)
}
