"""readinglist.jsontext: the text of ``json.dumps(..., ensure_ascii=False, indent=2)``
without the pure-Python encoder (issue 17), for any JSON value and one level deep."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from readinglist import jsontext

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.booleans())
def test_the_text_of_json_dumps_indent_2(value: Any, sort_keys: bool) -> None:
    expected = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=sort_keys)
    assert jsontext.dumps(value, sort_keys=sort_keys) == expected
    nested = json.dumps([value], ensure_ascii=False, indent=2, sort_keys=sort_keys)
    assert "[\n  " + jsontext.dumps(value, sort_keys=sort_keys, newline="\n  ") + "\n]" == nested


def test_values_json_writes_specially() -> None:
    """Empty containers, non-finite floats, control characters and non-ASCII text as
    ``json.dumps`` writes them; a non-string key and another type go to json.dumps."""
    value = {"a": [], "b": {}, "c": [math.inf, -math.inf, 1e16, 0.1], "d": 'é\x00\u2028"\\'}
    assert jsontext.dumps(value) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    Infinity,\n    -Infinity,\n    1e+16,\n'
        '    0.1\n  ],\n  "d": "é\\u0000\u2028\\"\\\\"\n}'
    )
    assert jsontext.dumps({1: [True, None]}) == '{\n  "1": [\n    true,\n    null\n  ]\n}'
    assert jsontext.dumps({1: 2}, newline="\n  ") == '{\n    "1": 2\n  }'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0xA5), max_size=12))
def test_json_escaped_is_the_translation_table(text: str) -> None:
    # render.json_escaped skips str.translate for text without DEL or C1 controls
    # (issue 17): the same text as the table applied to everything.
    from readinglist import render

    assert render.json_escaped(text) == text.translate(render._JSON_ESCAPES)
