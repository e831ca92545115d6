"""The fast paths of issue 9 give exactly what the plain paths give.

* ``formats.sniff`` + ``formats.iter_decode`` over bytes in any pieces == ``formats.decode``;
* ``text.simple_latex`` (the LaTeX fast path) == pylatexenc wherever it answers;
* ``text.fold`` (translate-based accent stripping) == the character-by-character definition;
* ``text.search_tokens`` of a long value (no white-space pass) == the words of its fold;
* ``needs_escaping``'s early answer and ``repair_name_list``'s comma count == their definitions;
* an import fed in small chunks (``library.Importer``) == one ``import_records`` call;
* ``library.iter_records`` == ``library.to_record`` over ORM papers;
* ``export bibtex`` written chunk by chunk == the writer called once with every record;
* ``readinglist import`` reading a file in small pieces == reading it in one piece.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from conftest import make_database, shared_data
from hypothesis import given, settings
from hypothesis import strategies as st

from readinglist import formats, library, text
from readinglist.errors import InvalidInput
from readinglist.records import PaperRecord, Person

HERE = Path(__file__).resolve().parent


# --- streaming decode ---------------------------------------------------------------------------


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    """Cut ``data`` at the given positions (taken modulo its length, sorted)."""
    if not data:
        return []
    points = sorted({c % len(data) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def decode_whole(data: bytes) -> Any:
    try:
        return formats.decode(data, "s")
    except InvalidInput as exc:
        return ("error", str(exc))


def decode_streamed(chunks: list[bytes]) -> Any:
    try:
        sniffed = formats.sniff(chunks, "s")
    except InvalidInput as exc:
        return ("error", str(exc))
    decoded = "".join(formats.iter_decode(chunks, sniffed.encoding))
    if sniffed.complete:
        assert sniffed.head == decoded
    return decoded, sniffed.warnings


BYTES = st.lists(
    st.sampled_from(
        [
            b"a",
            b" ",
            b"\n",
            b"\r",
            b"\r\n",
            b"\t",
            b"\xc3\xa9",
            b"\xe2\x82\xac",
            b"\xef\xbb\xbf",
            b"\xc3",
            b"\xa9",
            b"\x81",
            b"\xff",
            b"\x00",
            b"\x0b",
            b"@article{k,",
            b"}",
        ]
    ),
    max_size=40,
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=BYTES, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_streamed_decoding_equals_whole_decoding(data: bytes, cuts: list[int]) -> None:
    whole = decode_whole(data)
    streamed = decode_streamed(pieces(data, cuts))
    assert streamed == whole


def test_streamed_decoding_names_the_line_of_the_first_bad_byte() -> None:
    data = "line one é\nline two\n".encode() + b"caf\xe9\n"
    decoded, warnings = decode_streamed(pieces(data, [5, 11, 12, 13, 30]))
    assert decoded == data.decode("cp1252")
    assert [str(w) for w in warnings] == [
        "s:3: not valid UTF-8 (first bad byte here); decoded as Windows-1252"
    ]


# --- LaTeX fast path ----------------------------------------------------------------------------

SAMPLES = [
    r"Schr{\"o}dinger \'{e} {\ss} {\aa} \& {\L}ukasz \"{\i}",
    r"\c c \v{s} \u{g} \H{o} \k{a} \r{a} \={a} \.{z} \~n \^o \`a \AE{}r",
    r"\emph{Emphasis} and \textbf{bold} -- ``q'' ?` !` --- x",
    r"{B}ayesian {GPU} a~b {c}",
    r"OTG et ECOLE \ MASSY and a\ \ b",
    r"$O(n^{2})$ time, $F_1$ score, $n$-gram, $10^{-3}$, $ a  b $",
    r"C# and a_b and x^2 and {a}_{b}^{c}",
    r"50\% of \$5 and \#1 and \_x",
]


@pytest.mark.parametrize("raw", SAMPLES)
def test_latex_fast_path_agrees_with_pylatexenc(raw: str) -> None:
    fast = text.simple_latex(raw)
    assert fast is not None
    assert fast == text._converter("text").latex_to_text(raw)


@pytest.mark.parametrize(
    "raw",
    [
        r"$\alpha$",
        r"\url{x}",
        "a & b",
        r"a\ ",
        r"$a--b$",
        "a$$b$$c",
        "\x00{x}",
        "\\ss\n\nx",  # a blank line after a letter command is kept (hypothesis find)
        "${$ x",  # a brace without its partner in math (hypothesis find, issue 17)
    ],
)
def test_latex_fast_path_leaves_the_rest_to_pylatexenc(raw: str) -> None:
    assert text.simple_latex(raw) is None


def test_a_long_value_only_pylatexenc_decodes_is_decoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An abstract longer than the decoding cache's limit that the fast path leaves to
    pylatexenc (``\\url``) runs pylatexenc once however often an import decodes it (its
    matching key, merge and search text did, four or five times), with the same text."""
    raw = "An abstract about " + "salmon runs and fish ladders; " * 12 + r"see \url{x.org}."
    assert len(raw) > text.CACHED_LENGTH
    assert text.simple_latex(raw, formula=text._formula_text) is None
    expected = text._converter("text").latex_to_text(raw)
    converter = type(text._converter("text"))
    calls: list[str] = []

    def counted(self: Any, value: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(value)
        return real(self, value, *args, **kwargs)

    real = converter.latex_to_text
    monkeypatch.setattr(converter, "latex_to_text", counted)
    text._pylatexenc_text.cache_clear()
    decoded = {text.latex_to_unicode(raw) for _ in range(5)}
    assert decoded == {" ".join(expected.split())}
    assert len(calls) == 1
    # A value longer than the cache keeps is decoded each time (the cache stays bounded).
    huge = raw + " more words" * (text.SLOW_PATH_LONGEST // 10)
    calls.clear()
    assert len({text.latex_to_unicode(huge) for _ in range(2)}) == 1
    assert len(calls) == 2
    assert text._pylatexenc_text.cache_info().currsize == 1


LATEX_PIECES = st.sampled_from(
    [
        "a", "B", " ", "-", "--", "'", "''", "`", "``", "{", "}", "$", "~", "\\'", "\\\"",
        "\\c ", "\\v{", "\\ss", "\\o ", "\\&", "\\%", "\\_", "\\ ", "\\emph{", "\\textbf{",
        "^", "_", "#", "x", "1", "(", ")", "+", "=", "é", "\n", "?`", "!",
    ]
)  # fmt: skip


#: A letter command before a non-ASCII letter: BibTeX (and pdfTeX) end the command at
#: its last ASCII letter, pylatexenc reads one unknown command (``\\ssé``).
LETTER_COMMAND_BEFORE_LETTER = re.compile(
    r"(\\(?:ss|aa|AA|ae|AE|oe|OE|[oOlLij]))(?![A-Za-z])(?=[^\W\d_])"
)


@pytest.mark.parametrize("bibtex", [False, True], ids=["text", "bibtex"])
@settings(max_examples=400, deadline=None)
@given(st.lists(LATEX_PIECES, max_size=14).map("".join))
def test_latex_fast_path_never_disagrees_with_pylatexenc(bibtex: bool, raw: str) -> None:
    fast = text.simple_latex(raw, bibtex=bibtex)
    if fast is None:
        return
    if bibtex:  # what the BibTeX reader means by it, written so that pylatexenc agrees
        raw = LETTER_COMMAND_BEFORE_LETTER.sub(r"\1{}", text.bibtex_latex(raw))
    try:
        slow = text._converter("text").latex_to_text(raw)
    except Exception:  # pylatexenc refuses it: latex_to_unicode would return it as it is
        pytest.fail(f"the fast path decoded {raw!r}, which pylatexenc refuses")
    assert fast == slow


#: Inline formulas of ACL Anthology abstracts that pylatexenc decoded with the whole
#: abstract around them before issue 17 item 5, in a sentence.
FORMULAS = [
    r"find and parse $S'$ -- the largest subset such that $S' \in L(G)$. The",
    r"runs in $\Theta(n^3/p(n))$ time with $p(n) = O(n^2)$ processors",
    r"turns out to be $O(n^2\varepsilon^{-2})$, where $\varepsilon$ is the error",
    r"if and only if $\exists v,w: vsw \in L$. The \textit{parser}",
    r"$\rm{P}(\rm{Y})$ and $O(k^{\frac{m}{2}})$ and $N_\text{Petersen}$ vs. 96\%",
]


@pytest.mark.parametrize("raw", FORMULAS)
def test_latex_fast_path_decodes_formulas_with_pylatexenc_alone(raw: str) -> None:
    assert text.simple_latex(raw) is None  # no formula decoder: left to pylatexenc
    fast = text.simple_latex(raw, formula=text._formula_text)
    assert fast is not None
    assert fast == text._converter("text").latex_to_text(raw)
    assert text.latex_to_unicode(raw) == fast


def test_a_formula_whose_command_takes_the_closing_dollar_is_left_to_pylatexenc() -> None:
    # pylatexenc reads the $ as the second argument of \frac, and the text after it
    # decides what follows (hypothesis find, issue 17).
    assert text.simple_latex("$\\frac{}$ x", formula=text._formula_text) is None
    assert text.latex_to_unicode("$\\frac{}$ x") == text._converter("text").latex_to_text(
        "$\\frac{}$ x"
    )


FORMULA_PIECES = st.sampled_from(
    [
        "a", "S", " ", "-", "--", "'", "''", "`", "{", "}", "$", "$", "~", "\\in", "\\in ",
        "\\alpha", "\\text{", "\\rm", "\\frac{", "\\'", "\\ ", "\\\\", "\\&", "^", "_",
        "x", "1", "(", ")", "+", "=", ",", ":", "é", "\n", "%", "\\emph{", "\\Theta", "\\frac{}",
    ]
)  # fmt: skip


def _in_text(parts: tuple[str, str, str]) -> str:
    return f"{parts[0]}${parts[1]}${parts[2]}"


#: A formula (pieces without a ``$``, comment or line break) between two runs of pieces.
FORMULA_IN_TEXT = st.tuples(
    st.lists(FORMULA_PIECES, max_size=5).map("".join),
    st.lists(FORMULA_PIECES.filter(lambda p: p not in ("$", "%", "\n")), max_size=10).map("".join),
    st.lists(FORMULA_PIECES, max_size=5).map("".join),
).map(_in_text)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.lists(FORMULA_PIECES, max_size=16).map("".join), FORMULA_IN_TEXT))
def test_latex_fast_path_with_formulas_never_disagrees_with_pylatexenc(raw: str) -> None:
    raw = text._lone_dollar_escaped(text._BARE_PERCENT.sub(r"\\%", raw))  # as latex_to_unicode
    fast = text.simple_latex(raw, formula=text._formula_text)
    if fast is None:
        return
    try:
        slow = text._converter("text").latex_to_text(raw)
    except Exception:
        pytest.fail(f"the fast path decoded {raw!r}, which pylatexenc refuses")
    assert fast == slow


def old_fold(value: str) -> str:
    """The definition of ``text.fold`` before issue 9 (a join over every character)."""
    decoded = text.latex_to_unicode(value).translate(text._FOLD_TABLE)
    if not decoded.isascii():
        decoded = unicodedata.normalize("NFKD", decoded)
        decoded = "".join(ch for ch in decoded if not unicodedata.combining(ch))
        decoded = decoded.translate(text._FOLD_TABLE)
    return text._SPACE.sub(" ", decoded.casefold()).strip()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_fold_equals_its_plain_definition(value: str) -> None:
    assert text.fold(value) == old_fold(value)
    long = value * 20 + "Ünïcödé"  # past CACHED_LENGTH: the uncached path
    assert text.fold(long) == old_fold(long)


#: Text with the non-ASCII characters fold maps: its table, accents (precomposed and
#: combining), and characters NFKD turns into one of the table's (``ǿ`` -> ``ø`` + accent).
_FOLDED_CHARS = st.lists(
    st.sampled_from(
        [*"aZ 0-'\"", *(chr(code) for code in text._FOLD_TABLE), *"éÅçñüǿǾﬁ²\u0301\u0327ẞ‰"]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_FOLDED_CHARS)
def test_fold_replacing_characters_equals_translate(value: str) -> None:
    """``text._translated`` (one ``str.replace`` per distinct character, issue 17 item 5)
    gives what ``str.translate`` gives, for both of fold's tables; and fold, short and
    long, equals its plain definition on such text."""
    assert text._translated(value, text._FOLD_TABLE) == value.translate(text._FOLD_TABLE)
    decomposed = unicodedata.normalize("NFKD", value)
    assert text._translated(decomposed, text._UNMARK) == decomposed.translate(text._UNMARK)
    assert text.fold(value) == old_fold(value)
    long = value * 10 + " word" * 60
    assert text.fold(long) == old_fold(long)


#: Text with the characters the search-word, escaping and name-list shortcuts look at.
_TRICKY = st.lists(
    st.sampled_from([*"ab Zé0123e\t\n\u00a0\u2011{}\\$&%#_^~,.", " and ", "ß"]), max_size=60
).map("".join)


#: Name parts with letters, digits, accents, LaTeX markup and white space.
_NAME_PART = st.text(alphabet=st.sampled_from(list("aZ1e2 -'.{}\\~$éßΣ\u0301\u00a0")), max_size=8)
_PEOPLE = st.lists(
    st.builds(Person, family=_NAME_PART, given=_NAME_PART, von=_NAME_PART, literal=_NAME_PART),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(_PEOPLE)
def test_people_words_are_those_of_the_joined_names(people: list[Person]) -> None:
    """An import's search words of the people, each name folded once (issue 17 item 5),
    are those of their joined display forms, as a refresh of the search text takes them."""
    from readinglist.library.search import people_words

    joined = " ".join(p.display() for p in people)
    assert " ".join(people_words(people)) == " ".join(text.search_tokens(joined))


@settings(max_examples=300, deadline=None)
@given(_TRICKY)
def test_search_words_of_a_long_value_are_those_of_its_fold(value: str) -> None:
    """A value past CACHED_LENGTH (an abstract) is not white-space-collapsed before its
    words are taken, and the scientific-notation split runs only after a hint: the same
    words as the plain definition over :func:`fold`."""
    long = value * 8 + " 3868e8e0 7e0l" + " word" * 60
    assert len(long) > text.CACHED_LENGTH
    folded = text._SCI_PREFIX.sub(r"\1 ", old_fold(long))
    assert text.search_tokens(long) == text._WORD.findall(folded)
    assert text.search_tokens(value) == text._WORD.findall(
        text._SCI_PREFIX.sub(r"\1 ", old_fold(value))
    )


@settings(max_examples=300, deadline=None)
@given(_TRICKY)
def test_the_escaping_check_equals_its_definition(value: str) -> None:
    """``needs_escaping`` answers False without escaping when nothing could change: the
    same answer as its definition: markup that is not inert (``^^``, ``\\input``), or
    a value the escaping changes (bare specials, braces)."""
    from readinglist.formats.bibtex import encode
    from readinglist.formats.bibtex.inert import is_inert

    for extra in ("", "{", "}", "^^", "\\input x", "\\url{a_b}", "$x$"):
        raw = value + extra
        expected = not is_inert(raw) or encode.escape_raw(raw, "biblatex") != raw
        assert encode.needs_escaping(raw) == expected


@settings(max_examples=300, deadline=None)
@given(_TRICKY)
def test_name_list_repair_is_asked_exactly_when_a_name_has_too_many_commas(raw: str) -> None:
    """The names of fewer than three commas skip the brace-aware count: a list is
    repaired exactly when one name has more than two top-level commas or ends in one,
    and is not in biblatex's extended ``family=...`` form."""
    from readinglist.formats.bibtex import repair
    from readinglist.formats.bibtex.fields import extended_name_parts, split_names, top_level_commas

    def wrong(name: str) -> bool:
        parts = [part.strip() for part in top_level_commas(name)]
        too_many = len(parts) > 3 or (len(parts) > 1 and parts[-1] == "")
        return too_many and extended_name_parts(name) is None

    assert (repair.repair_name_list(raw) is not None) == any(map(wrong, split_names(raw)))


# --- chunked import -----------------------------------------------------------------------------


def sample_records() -> list[PaperRecord]:
    """Real BibTeX entries plus duplicates of each other, within and across chunks."""
    from readinglist.formats import bibtex

    raw = shared_data("pmlr-v260-acml2024.bib").read_text(encoding="utf-8")
    records = bibtex.read(raw, "acml.bib").records
    rng = random.Random(9)
    extra = []
    for record in rng.sample(records, 12):
        extra.append(  # the same paper again: merged, fills the abstract or a tag
            PaperRecord(
                title=record.title, authors=record.authors[:1], year=record.year, tags=("dup",)
            )
        )
    extra.append(PaperRecord(title="Attention", authors=(Person(family="Smith"),), year=2020))
    extra.append(PaperRecord(title="Attention Again", authors=(Person(family="Smith"),), year=2020))
    return records + extra


def library_state(session: Any) -> list[tuple[Any, ...]]:
    """Every paper's data as the library holds it, in order of addition."""
    return [
        (
            p.citekey,
            p.title,
            p.title_key,
            p.abstract_key,
            p.search_text,
            p.source_digest,
            json.dumps(p.fields, sort_keys=True),
            tuple((pp.role, pp.position, pp.person.name_key) for pp in p.people),
            tuple(sorted(t.name for t in p.tags)),
        )
        for p in library.all_papers(session)
    ]


def test_import_in_chunks_equals_one_import(engine: Any, tmp_path: Path) -> None:
    from readinglist import db

    records = sample_records()
    with db.session_scope(engine) as session:
        whole = library.import_records(session, records, source="s.bib", fmt="bibtex", tags=["t"])
        expected = library_state(session)
        session.rollback()
    with db.session_scope(engine) as session:
        importer = library.Importer(session, source="s.bib", fmt="bibtex", tags=["t"])
        for start in range(0, len(records), 7):
            importer.add(records[start : start + 7])
        chunked = importer.finish()
        assert library_state(session) == expected
    assert chunked.added == whole.added
    assert sorted(chunked.merged) == sorted(whole.merged)
    assert [str(p) for p in chunked.problems] == [str(p) for p in whole.problems]


def test_a_merge_within_one_chunk_equals_a_merge_across_chunks(engine: Any) -> None:
    """bbt-873's Lenat:1983d and Lenat:88 (one paper; the second brings ``crossref``):
    merged into a paper of the same chunk or of an earlier one, the paper ends the same,
    its source digest cleared either way (its data is no longer its source text's)."""
    from readinglist import db
    from readinglist.formats import bibtex

    text = (
        "@article{Lenat:1983d, author = {Douglas B. Lenat and John Seely Brown},\n"
        "  year = {1983}, journal = {Proc. AAAI}, pages = {236-240},\n"
        '  title = "Why AM and Eurisko appear to work", volume = {3}}\n\n'
        "@incollection{Lenat:88, author = {Douglas B. Lenat and John Seely Brown},\n"
        '  title = "Why {\\sc am} and {\\sc Eurisko} appear to work",\n'
        "  crossref = {EcologyOfComp}}\n"
    )
    records = bibtex.read(text, "l.bib").records
    states = []
    for size in (2, 1):
        with db.session_scope(engine) as session:
            importer = library.Importer(session, source="l.bib", fmt="bibtex")
            for start in range(0, len(records), size):
                importer.add(records[start : start + size])
            report = importer.finish()
            states.append(library_state(session))
            session.rollback()
        assert report.merged == [("Lenat:1983d", ["crossref"])]
    assert states[0] == states[1]
    assert [(s[0], s[5], s[6]) for s in states[0]] == [
        (
            "Lenat:1983d",
            None,
            '{"author": "Douglas B. Lenat and John Seely Brown", "crossref": "EcologyOfComp", '
            '"journal": "Proc. AAAI", "pages": "236-240", "volume": "3"}',
        )
    ]


# --- reading records back, exporting in chunks --------------------------------------------------


def test_iter_records_equals_to_record(session: Any) -> None:
    records = sample_records()
    library.import_records(session, records, source="s.bib", fmt="bibtex", tags=["b", "A"])
    papers = library.all_papers(session)
    library.add_note(session, papers[0], "first note")
    library.add_note(session, papers[0], "second note")
    library.set_status(session, papers[1:3], "read")
    library.set_priority(session, papers[3:4], "high")
    session.expire_all()
    papers = library.all_papers(session)
    ids = [p.id for p in papers]
    assert list(library.iter_records(session, ids, chunk=5)) == [
        library.to_record(p) for p in papers
    ]


def test_iter_bibtex_records_equals_iter_records_without_user_state(session: Any) -> None:
    """The BibTeX export's reader (issue 17 item 2) gives the records of
    ``iter_records(checked_source=True)``, less the user state no ``.bib`` entry
    holds; tags and notes only when ``--keywords``/``--annote`` ask for them."""
    from dataclasses import replace

    from readinglist.library.rows import bibtex_batch_ids

    library.import_records(session, sample_records(), source="s.bib", fmt="bibtex", tags=["b"])
    papers = library.all_papers(session)
    library.add_note(session, papers[0], "a note")
    library.set_status(session, papers[1:3], "read")
    library.set_priority(session, papers[3:4], "high")
    library.rekey(session, papers[4], "Renamed2024")  # an alias
    session.expire_all()
    ids = [*[p.id for p in library.all_papers(session)][::-1], 10**9]  # unknown: skipped
    offsets = dict.fromkeys(bibtex_batch_ids(session), 3)
    full = list(library.iter_records(session, ids, string_offsets=offsets, checked_source=True))
    assert any(r.source_check for r in full)
    assert any(r.aliases for r in full)
    assert any(r.notes for r in full)
    assert any(r.tags for r in full)
    assert any(r.strings_read is not None for r in full)
    unknown = dict.fromkeys(("short_name", "code_url", "status", "priority", "added", "read_at"))
    lean = [replace(r, **unknown) for r in full]  # type: ignore[arg-type]
    asked = list(
        library.iter_bibtex_records(
            session, ids, string_offsets=offsets, with_tags=True, with_notes=True, chunk=3
        )
    )
    assert asked == lean
    assert [r.strings_read for r in asked] == [r.strings_read for r in full]
    assert [r.latex_fields for r in asked] == [r.latex_fields for r in full]
    plain = list(library.iter_bibtex_records(session, ids, string_offsets=offsets, chunk=3))
    assert plain == [replace(r, tags=(), notes=()) for r in lean]


def test_writer_reads_string_parts_once_as_the_joined_text() -> None:
    """``Writer(string_parts=...)`` reads the ``@string`` texts of several imports once
    (issue 17): the definitions of their joined text, each macro evaluated with the
    earlier parts' values, and the offsets ``string_offsets`` gives."""
    from readinglist.formats import bibtex

    parts = [
        (4, '@string{pub = "ACM"}\n@string{ack = "Ack " # pub}'),
        (9, '@String{pub = "IEEE"}\n@string{both = pub # " and " # ack}\n@string{jan = "J"}'),
        (11, '@string{ack = "Other"}'),
    ]
    joined = "\n".join(text for _, text in parts)
    writer = bibtex.Writer(strings=joined, string_parts=parts)
    assert writer.string_offsets == {4: 0, 9: 2, 11: 5} == bibtex.string_offsets(parts)
    definitions = [(d.name, d.value) for d in writer.strings.definitions]
    assert definitions == [
        ("pub", "ACM"),
        ("ack", "Ack ACM"),
        ("pub", "IEEE"),
        ("both", "IEEE and Ack ACM"),
        ("jan", "J"),
        ("ack", "Other"),
    ]
    assert writer.strings.definitions == bibtex.Writer(strings=joined).strings.definitions
    assert bibtex.Writer(strings=joined).string_offsets == {}


def test_bibtex_export_in_chunks_equals_one_write(
    invoke: Any, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readinglist import db
    from readinglist.formats import bibtex

    source = shared_data("pmlr-v260-acml2024.bib")
    assert invoke("import", str(source), "--tag", "x").exit_code == 0
    monkeypatch.setattr(library, "RECORD_CHUNK", 7)
    result = invoke("export", "bibtex", "--keywords")
    assert result.exit_code == 0, result.stderr
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        records = [library.to_record(p) for p in library.all_papers(session)]
    engine.dispose()
    assert result.stdout == bibtex.write(records, dialect="bibtex", keywords=True)
    out = tmp_path / "out.bib"
    assert invoke("export", "bibtex", "--keywords", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8") == result.stdout


# --- the import command reading in pieces -------------------------------------------------------


def test_import_reading_small_pieces_equals_one_piece(
    runner: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The same file, gzip-compressed, read 4 KiB at a time in chunks of 9 records."""
    import gzip

    from readinglist import db, formats
    from readinglist.cli import cli
    from readinglist.pipelines import importing as import_cli

    source = shared_data("bbt-import-873-user-library.bib")
    packed = tmp_path / "lib.bib.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    states = []
    outputs = []
    for name, read_bytes, chunk in (("one", 1 << 30, 1 << 30), ("small", 4096, 9)):
        monkeypatch.setattr(formats, "READ_BYTES", read_bytes)
        monkeypatch.setattr(import_cli, "IMPORT_CHUNK", chunk)
        url = next(make_database("sqlite", request, tmp_path / name))
        result = runner.invoke(cli, ["--db", url, "import", str(packed)])
        outputs.append((result.exit_code, result.stderr))
        engine = db.make_engine(url)
        with db.session_scope(engine, write=False) as session:
            states.append(library_state(session))
        engine.dispose()
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 0, outputs[0][1]
    assert states[0] == states[1]
    assert len(states[0]) > 900


# --- the reader process (readinglist.pipelines.reader_process) ----------------------------------


def _import_both_ways(
    runner: Any, tmp_path: Path, request: pytest.FixtureRequest, source: Path, kind: str
) -> list[tuple[int, str, list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """Import ``source`` in process and through a reader process; return for each the
    exit code, stderr, the library and the batches' @string/@preamble text."""
    from readinglist import db
    from readinglist.cli import cli
    from readinglist.models import ImportBatch

    found = []
    databases = []  # keep the generators: a PostgreSQL database is dropped when one closes
    for mode in ("0", "1"):
        databases.append(make_database(kind, request, tmp_path / f"{kind}-{mode}"))
        url = next(databases[-1])
        result = runner.invoke(
            cli, ["--db", url, "import", str(source)], env={"READINGLIST_READER_PROCESS": mode}
        )
        engine = db.make_engine(url)
        with db.session_scope(engine, write=False) as session:
            batches = [
                (b.source, b.added, b.merged, b.rejected, b.bibtex_strings, b.bibtex_preamble)
                for b in session.query(ImportBatch).order_by(ImportBatch.id)
            ]
            found.append((result.exit_code, result.stderr, library_state(session), batches))
        engine.dispose()
    for database in databases:
        next(database, None)
    return found


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_reader_process_imports_what_the_import_reads_itself(
    runner: Any, tmp_path: Path, request: pytest.FixtureRequest, kind: str
) -> None:
    """A gzip file with @string macros, @preamble blocks, duplicates and one malformed
    entry: the same messages, exit code, papers and batch either way."""
    import gzip

    text = shared_data("bbt-import-873-user-library.bib").read_text(encoding="utf-8")
    bib = (
        '@preamble{"\\providecommand{\\noop}[1]{#1}"}\n@string{jt = "Journal of Tests"}\n'
        + text
        + "\n@article{broken,\n  title = {No end\n\n"
        + "@article{usesmacro,\n  title = {Macro},\n  journal = jt,\n}\n"
    )
    source = tmp_path / "lib.bib.gz"
    source.write_bytes(gzip.compress(bib.encode("utf-8")))
    serial, parallel = _import_both_ways(runner, tmp_path, request, source, kind)
    assert serial == parallel
    code, stderr, papers, batches = serial
    assert code == 5
    assert "1 entry rejected" in stderr
    assert len(papers) > 900
    assert batches[0][4] == '@string{jt = "Journal of Tests"}'


def test_reader_process_reports_corrupt_gzip_like_the_import(
    runner: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Corrupt data after a good start: exit 5, the same one-line message, nothing kept."""
    import gzip

    text = shared_data("pmlr-v48-icml2016.bib").read_bytes()
    packed = gzip.compress(text * 4)
    source = tmp_path / "cut.bib.gz"
    source.write_bytes(packed[: len(packed) // 2])
    serial, parallel = _import_both_ways(runner, tmp_path, request, source, "sqlite")
    assert serial == parallel
    assert serial[0] == 5
    assert (
        serial[1]
        .strip()
        .endswith(
            "cut.bib.gz: corrupt gzip data (Compressed file ended before the end-of-stream marker was reached)"
        )
    )
    assert serial[2] == []


def test_reader_process_stops_when_the_import_is_killed(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """SIGKILL the importing process: its reader process exits too (no orphan), and the
    library is unchanged (the transaction never committed). The kill comes once the
    reader is at work (it ignores SIGINT: ``/proc`` says so) and the import is inside its
    transaction (it holds the write lock of the library, made beforehand so that no
    migration holds it), with most of the 12 copies unread."""
    import signal
    import subprocess
    import sys
    import time

    from test_crash import sqlite_write_lock_held

    source = shared_data("acl-2020.bib")
    big = tmp_path / "big.bib"
    text = source.read_text(encoding="utf-8")
    big.write_text(
        "".join(text.replace("@inproceedings{", f"@inproceedings{{c{i}-") for i in range(12)),
        encoding="utf-8",
    )
    db_path = Path(
        next(make_database("sqlite", request, tmp_path / "db")).removeprefix("sqlite:///")
    )
    env = {**__import__("os").environ, "READINGLIST_READER_PROCESS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "readinglist", "--db", str(db_path), "import", str(big)],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    children = _child_processes(proc)
    deadline = time.monotonic() + 60
    at_work = False
    while not at_work and time.monotonic() < deadline:
        assert proc.poll() is None, "the import ended before the kill"
        time.sleep(0.005)
        at_work = all(_ignores_sigint(c) for c in children) and sqlite_write_lock_held(db_path)
    assert at_work, "the reader never started its work or the import its transaction"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 20
    alive = list(children)
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [c for c in alive if Path(f"/proc/{c}").exists() and _not_zombie(c)]
    assert alive == []
    # The library, opened afterwards (in this process: the claim is on the killed
    # processes, not on the one that reads the library after them), lists no paper.
    from click.testing import CliRunner

    from readinglist.cli import cli

    result = CliRunner().invoke(cli, ["--db", str(db_path), "list", "-k"])
    assert (result.exit_code, result.stdout) == (0, ""), result.output


def _child_processes(proc: Any) -> list[int]:
    """Wait (up to 60 s) until the process ``proc`` has children; return their pids."""
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        path = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        children = [int(c) for c in path.read_text().split()] if path.exists() else []
        if children:
            return children
        time.sleep(0.1)
    raise AssertionError("no reader process started")


def _not_zombie(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


# --- BibTeX export without parsing copied entries again (PaperRecord.source_check) ---------------


@pytest.mark.parametrize(
    "name",
    [
        "pmlr-v48-icml2016.bib",
        "bbt-import-mendeley-export.bib",
        "bbt-import-873-user-library.bib",
    ],
)
def test_checked_export_equals_the_export_that_reads_every_entry_again(name: str) -> None:
    """The writer's shortcuts (copy unread, regenerate from the record) give exactly
    the text of the path that parses each ``source_text`` again, also with tags."""
    from dataclasses import replace

    from readinglist.formats import bibtex

    result = bibtex.read(shared_data(name).read_text(encoding="utf-8"), name)
    checked = [
        replace(r, tags=("zz-tag",)) if i % 3 == 0 else r for i, r in enumerate(result.records)
    ]
    unchecked = [replace(r, source_check=None) for r in checked]
    # Every copyable entry has its check, but one that inherited from a crossref
    # parent: its text alone does not read to its data (test below).
    assert all(r.source_check or "crossref" in r.fields for r in checked if r.source_text)
    for options in ({}, {"keywords": True}, {"dialect": "biblatex"}):
        fast = bibtex.write(checked, strings=result.meta.get("strings"), **options)
        slow = bibtex.write(unchecked, strings=result.meta.get("strings"), **options)
        assert fast == slow


def test_a_crossref_child_is_copied_only_when_its_text_alone_reads_to_its_data() -> None:
    """bbt-873's ``aaai96-2*1215`` names a parent the file lacks: the check copied it,
    but re-reading its text gave nothing (the reader held it back for its parent), so
    the re-reading path generated it. Re-read now, it is copied by both paths. A child
    that did inherit (a ``booktitle`` from its parent) has no check and is written with
    what it inherited added in place, so an export without the parent still says it."""
    from dataclasses import replace

    from readinglist.formats import bibtex

    child = "@inproceedings{c1,\n  author = {A. Author},\n  title = {Child},\n  crossref = {P}\n}"
    orphan = "@inproceedings{c2,\n  author = {B. Author},\n  title = {Orphan},\n  crossref = {Q}\n}"
    parent = "@proceedings{P,\n  title = {The Proceedings},\n  year = 2000\n}"
    result = bibtex.read("\n\n".join([child, orphan, parent]) + "\n")
    by_key = {r.citekey: r for r in result.records}
    assert by_key["c1"].source_text == child
    assert by_key["c1"].source_check is None
    assert by_key["c2"].source_check is not None
    for records in ([by_key["c2"]], [replace(by_key["c2"], source_check=None)]):
        assert bibtex.write(records) == orphan + "\n"
    # Its text, with what it inherited added in place.
    assert bibtex.write([by_key["c1"]]) == (
        "@inproceedings{c1,\n  author = {A. Author},\n  title = {Child},\n"
        "  crossref = {P},\n  booktitle = {The Proceedings},\n  year = {2000}\n}\n"
    )


def test_a_changed_record_with_its_old_check_is_regenerated() -> None:
    """A caller that changes a record but keeps its source text and check (e.g. a
    venue given on the command line) gets the changed data written, not the old text."""
    from dataclasses import replace

    from readinglist.formats import bibtex

    text = "@article{k1,\n  title = {Old},\n  journal = jt,\n  year = 2020,\n}\n"
    record = bibtex.read('@string{jt = "J"}\n' + text).records[0]
    changed = replace(record, venue="New Venue")
    # Only the changed value is replaced (in place); the macro it used is not needed.
    assert bibtex.write([changed], strings='@string{jt = "J"}') == (
        "@article{k1,\n  title = {Old},\n  journal = {New Venue},\n  year = 2020,\n}\n"
    )
    # A macro that now means something else: regenerated with the value read.
    assert bibtex.write([record], strings='@string{jt = "Other"}') == (
        "@article{k1,\n  title = {Old},\n  journal = {J},\n  year = {2020}\n}\n"
    )
    assert bibtex.write([record], strings='@string{jt = "J"}') == '@string{jt = "J"}\n\n' + text


def _ignores_sigint(pid: int) -> bool:
    """True once process ``pid`` ignores SIGINT (bit SIGINT - 1 of ``SigIgn`` in its
    ``/proc/PID/status``, proc(5)); False while it does not, or is gone."""
    import signal

    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ignored = next(line for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(ignored.split()[1], 16) >> (signal.SIGINT - 1) & 1)


def test_reader_process_ignores_an_interrupt_meant_for_its_parent(tmp_path: Path) -> None:
    """SIGINT to the reader process alone (Ctrl-C goes to the parent, which stops it)
    does not end the import: it completes, exit 0 (hostile-input find: exit 5 with a
    KeyboardInterrupt traceback). The signal is sent once the reader has started its
    work (it ignores SIGINT: ``/proc`` says so), while it reads the 871 entries of
    acl-2020.bib (a second of reading; ``os.kill`` raises if it had already ended)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    big = tmp_path / "big.bib"
    big.write_bytes(shared_data("acl-2020.bib").read_bytes())
    env = {**os.environ, "READINGLIST_READER_PROCESS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "readinglist", "--db", str(tmp_path / "lib.db"), "import", str(big)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    children = _child_processes(proc)
    deadline = time.monotonic() + 60
    while not all(_ignores_sigint(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert all(_ignores_sigint(c) for c in children), "the reader never ignored SIGINT"
    for child in children:
        os.kill(child, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith(f"{big} (bibtex): ")


def test_bibtex_fast_decoder_keeps_a_blank_line_after_a_letter_command() -> None:
    """The twin of the text fast path's fix: ``\\ss`` before a blank line decodes as
    pylatexenc does (a space once white space is collapsed), not glued to the next word."""
    from readinglist.formats.bibtex import fields as bibtex_fields

    assert text.simple_latex("Stra\\ss\n\nx", bibtex=True) is None
    assert bibtex_fields.decode_text("Stra\\ss\n\nx") == "Straß x"
    assert bibtex_fields.decode_text("Stra\\ss x") == "Straßx"


def test_lean_reader_gives_the_records_of_iter_records(session: Any) -> None:
    """The reader of ``list`` and the text exports (``listing_rows.iter_listing_records`` with
    every record column, editors and notes; issue 17) gives what ``iter_records`` gives
    without source text, but for the aliases it does not read."""
    from dataclasses import replace

    from readinglist.library.listing_rows import (
        RECORD_COLUMNS,
        iter_listing_records,
        record_columns,
    )

    library.import_records(session, sample_records(), source="s.bib", fmt="bibtex", tags=["b"])
    papers = library.all_papers(session)
    library.add_note(session, papers[0], "a note")
    library.set_status(session, papers[1:3], "read")
    library.set_priority(session, papers[3:4], "high")
    ids = [p.id for p in papers][::-1]
    lean = [
        record
        for _, record in iter_listing_records(
            session, ids, chunk=4, columns=RECORD_COLUMNS, with_editors=True, with_notes=True
        )
    ]
    full = [
        replace(record, aliases=())
        for record in library.iter_records(session, ids, chunk=4, with_source=False)
    ]
    assert lean == full
    assert any(record.notes for record in lean)
    assert any(record.fields for record in lean)
    assert record_columns(["added", "authors", "title", "title"]) == ("id", "added_at", "title")
    with pytest.raises(KeyError):
        record_columns(["aliases"])


def test_markdown_export_reads_only_what_it_shows(
    invoke: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``export markdown`` reads the columns its writer names (``RECORD_FIELDS``) and the
    audit's, not the field map or the source (issue 17), and writes what ``write`` of the
    full records writes."""
    from readinglist import db
    from readinglist.formats import markdown
    from readinglist.library import listing_rows

    assert invoke("import", str(shared_data("pmlr-v260-acml2024.bib")), "--tag", "x").exit_code == 0
    read: list[tuple[str, ...]] = []
    original = listing_rows.iter_listing_records

    def spy(*args: Any, **kwargs: Any) -> Any:
        read.append(tuple(kwargs["columns"]))
        return original(*args, **kwargs)

    monkeypatch.setattr("readinglist.pipelines.exporting.iter_listing_records", spy)
    result = invoke("export", "markdown")
    assert result.exit_code == 0, result.stderr
    assert read
    assert all("fields" not in c and "source_text" not in c for c in read)
    engine = db.make_engine(db_url)
    with db.session_scope(engine, write=False) as session:
        ids = [p.id for p in library.all_papers(session)]
        records = list(library.iter_records(session, ids, with_source=False))
    engine.dispose()
    # The export names the library's newest status change in its marker (none here).
    assert result.stdout == markdown.write(records, decided="none")
