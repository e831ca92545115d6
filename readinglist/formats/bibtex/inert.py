"""Which LaTeX a ``.bib`` export may copy: the allow-list of inert markup, and the scanner.

Second floor of :mod:`readinglist.formats.bibtex` (imports :mod:`.values`, to evaluate
a ``@preamble``, and :mod:`readinglist.text`, whose decoder tables name the accents,
letters and font commands the display rule renders: one home for them).

A LaTeX value (read from BibTeX and unchanged since) is copied into an export only
when :func:`is_inert` holds: every control sequence TeX would see in it is on
:data:`INERT_COMMANDS` (accents, special letters, font and case commands, escaped
specials, typographic symbols, the math the display rule renders), every
``\\begin``/``\\end`` names an environment of :data:`INERT_ENVIRONMENTS`, and the
value holds no ``^^`` (TeX's superscript notation: ``^^5c`` is a backslash, read
before any command, so ``^^5cinput`` is ``\\input``; The TeXbook, chapter 8).
Everything else -- ``\\write``/``\\immediate`` (``\\write18`` runs a shell command
under ``-shell-escape``), ``\\input``, ``\\openin``, ``\\catcode``, ``\\csname``,
``\\UseName``, ``\\begin{write}`` (LaTeX's ``\\begin{x}`` runs ``\\x``), the pdfTeX
primitives (``\\pdfcatalog`` adds PDF objects such as an ``/OpenAction``,
``\\pdfmdfivesum file`` reads a file), ``\\directlua``, ``\\special`` -- is not on the
list, so a value holding it is written as the text it displays, escaped.

Why an allow-list: a block-list of dangerous names cannot be complete (LaTeX reaches
any primitive through ``\\UseName{...}``, ``\\csname ...\\endcsname``, ``\\begin{...}``
and ``\\@nameuse``; packages add more), while the markup bibliographies need is
small and known. Names are compared case-sensitively: BibTeX's ``change.case$`` can
lower ``\\INPUT`` in a title to ``\\input``, so only the exact allowed spellings pass
(and the case variants of allowed names are harmless names).

Tokenizing follows TeX's rules for the default category codes (The TeXbook, chapter
7): ``\\`` then a run of letters is a control word (a letter here is any Unicode
letter: under XeTeX and LuaTeX ``\\é...`` is one name too, so it is not mistaken for a
shorter allowed one), ``\\`` then any other character a control symbol; spaces after a
control word are skipped before its argument.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from readinglist.formats.bibtex.values import ValueSyntaxError, evaluate, matching_brace
from readinglist.latex_fast import TEXT_DECLARATIONS
from readinglist.text import CACHE_SIZE, FONT_COMMANDS, LATEX_ACCENTS, LATEX_LETTERS

#: Text-mode font, size and case commands beyond :data:`readinglist.text.FONT_COMMANDS`
#: (old-style declarations, biblatex's ``\\mkbib...`` wrappers, case protection).
_TEXT_MARKUP = frozenset(
    {
        *TEXT_DECLARATIONS,
        *("textsuperscript", "textsubscript", "underline", "uline"),
        *("mkbibemph", "mkbibitalic", "mkbibbold", "mkbibquote", "mkbibacro", "enquote"),
        *("mkbibsuperscript", "mkbibsubscript", "textcase", "NoCaseChange", "nocase"),
        *("MakeUppercase", "MakeLowercase", "MakeTextUppercase", "MakeTextLowercase"),
        *("hbox", "text", "ensuremath", "url", "nolinkurl", "doi"),
        *("emph", "hyphenation", "hspace", "vspace"),
        *("path", "cite", "citep", "citet", "citealp", "citeauthor", "citeyear", "item"),
        *("textcolor", "textrightarrow", "textleftarrow", "textuparrow", "textdownarrow"),
    }
)
#: Text symbols (LaTeX's text companion names and the logos).
_SYMBOLS = frozenset(
    {
        *("textendash", "textemdash", "ldots", "dots", "textellipsis", "dag", "ddag"),
        *("textbackslash", "textasciitilde", "textasciicircum", "textbraceleft"),
        *("textbraceright", "textquoteleft", "textquoteright", "textquotedblleft"),
        *("textquotedblright", "textquotesingle", "textquotedbl", "textregistered"),
        *("texttrademark", "textcopyright", "copyright", "S", "P", "pounds", "textdollar"),
        *("textunderscore", "textbar", "textless", "textgreater", "textperiodcentered"),
        *("textbullet", "textdegree", "textdagger", "textdaggerdbl", "guillemotleft"),
        *("guillemotright", "guillemetleft", "guillemetright", "quotedblbase"),
        *("quotesinglbase", "textsection", "textparagraph", "textexclamdown"),
        *("textquestiondown", "euro", "texteuro", "textmu", "textonehalf", "textpm"),
        *("texttimes", "textdiv", "textminus", "textnumero", "textasteriskcentered"),
        *("TeX", "LaTeX", "LaTeXe", "BibTeX", "AmS", "ng", "NG", "dh", "DH", "th", "TH"),
        *("dj", "DJ", "i", "j", "IJ", "ij", "SS", "textordfeminine", "textordmasculine"),
    }
)
#: The Greek letters of the LaTeX kernel's math ("The LaTeX Companion", table 8): the
#: math the display rule renders (:data:`_MATH`) and the kernel's symbols
#: (:data:`_KERNEL_SYMBOLS`) both hold them.
_GREEK = (
    *("alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta"),
    *("theta", "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi"),
    *("varpi", "rho", "varrho", "sigma", "varsigma", "tau", "upsilon", "phi"),
    *("varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi"),
    *("Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"),
)
#: Math the display rule renders (pylatexenc's text for each): Greek, operators,
#: relations, arrows, delimiters, math alphabets and accents.
_MATH = frozenset(
    {
        *_GREEK,
        *("varkappa", "digamma"),
        *("mathcal", "mathbb", "mathbf", "mathrm", "mathit", "mathsf", "mathtt"),
        *("mathfrak", "mathscr", "boldsymbol", "bm", "mathnormal", "operatorname"),
        *("frac", "dfrac", "tfrac", "sqrt", "binom", "log", "ln", "exp", "sin", "cos"),
        *("tan", "max", "min", "sup", "inf", "lim", "arg", "det", "dim", "argmax"),
        *("argmin", "Pr", "deg", "gcd", "sinh", "cosh", "tanh", "ker", "hom", "limsup"),
        *("liminf", "sum", "prod", "int", "oint", "iint", "coprod", "bigcup", "bigcap"),
        *("cdot", "cdots", "vdots", "ddots", "times", "div", "pm", "mp", "ast", "star"),
        *("circ", "bullet", "oplus", "otimes", "odot", "ominus", "wedge", "vee", "cap"),
        *("cup", "setminus", "leq", "geq", "le", "ge", "neq", "ne", "approx", "sim"),
        *("simeq", "cong", "equiv", "propto", "ll", "gg", "prec", "succ", "preceq"),
        *("succeq", "subset", "subseteq", "supset", "supseteq", "in", "notin", "ni"),
        *("infty", "partial", "nabla", "emptyset", "varnothing", "forall", "exists"),
        *("neg", "lnot", "land", "lor", "top", "bot", "perp", "parallel", "mid", "ell"),
        *("hbar", "Re", "Im", "aleph", "prime", "wp", "angle", "triangle", "Box"),
        *("to", "gets", "rightarrow", "leftarrow", "Rightarrow", "Leftarrow", "mapsto"),
        *("leftrightarrow", "Leftrightarrow", "longrightarrow", "Longrightarrow"),
        *("uparrow", "downarrow", "iff", "implies", "langle", "rangle", "lfloor"),
        *("rfloor", "lceil", "rceil", "lbrace", "rbrace", "vert", "Vert", "left"),
        *("right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"),
        *("hat", "tilde", "bar", "vec", "dot", "ddot", "check", "breve", "acute"),
        *("grave", "overline", "widehat", "widetilde", "overrightarrow", "mathring"),
        *("limits", "nolimits", "displaystyle", "textstyle", "scriptstyle", "pmod"),
        *("bmod", "mod", "dagger", "ddagger", "leqslant", "geqslant", "lesssim"),
        *("gtrsim", "models", "vdash", "dashv", "top", "square", "blacksquare"),
        *("colon", "lvert", "rvert", "lVert", "rVert", "backslash", "smallsetminus"),
        *("cal", "mathbbm", "not", "diamond", "Diamond", "sharp", "flat", "natural"),
        *("preccurlyeq", "succcurlyeq", "oslash", "smash", "Tilde", "Hat", "Bar", "Vec"),
        *("varpropto", "leftarrow", "hookrightarrow", "rightharpoonup", "ltimes", "rtimes"),
    }
)

#: Every control word a copied value may hold (names without the backslash).
INERT_COMMANDS: frozenset[str] = frozenset(
    {
        *LATEX_ACCENTS,
        "t",  # the tie accent over two letters (\t{oo})
        *LATEX_LETTERS,
        *FONT_COMMANDS,
        *_TEXT_MARKUP,
        *_SYMBOLS,
        *_MATH,
    }
)
#: Every control symbol (``\\`` and one non-letter) a copied value may hold: accents,
#: escaped specials, spacing, math shifts, ``\\\\`` (a line break).
INERT_SYMBOLS: frozenset[str] = frozenset("'`^\"~=.&%$#_{} ,;:!-/@()[]|\\\n\t<>*+")
#: The environments ``\\begin{...}``/``\\end{...}`` may name (math and lists; LaTeX runs
#: ``\\begin{x}`` as the command ``\\x``, so any other name could be a primitive).
INERT_ENVIRONMENTS: frozenset[str] = frozenset(
    {
        *("equation", "equation*", "align", "align*", "aligned", "gather", "gather*"),
        *("array", "matrix", "pmatrix", "bmatrix", "vmatrix", "Vmatrix", "cases"),
        *("itemize", "enumerate", "description", "quote", "quotation", "center"),
        *("math", "displaymath", "split", "subarray", "smallmatrix"),
    }
)

#: A control sequence: ``\\`` then a run of letters (Unicode letters too) or one character.
_CONTROL = re.compile(r"\\(?:([^\W\d_]+)|(.))", re.DOTALL)
#: The argument of ``\\begin``/``\\end``: optional spaces, then ``{name}``.
_ENVIRONMENT = re.compile(r"[ \t\n]*\{([^{}\\]*)\}")


def offending(value: str) -> str | None:
    """The first piece of ``value`` that is not inert LaTeX, None when it is inert.

    The piece is the control sequence as written (``\\write``, ``\\begin{input}``),
    ``^^`` for TeX's superscript notation, or ``\\`` for a trailing backslash.
    """
    if "^^" in value:
        return "^^"
    if "\\" not in value:
        return None
    return _offending(value) if len(value) > 300 else _offending_cached(value)


@lru_cache(maxsize=CACHE_SIZE)
def _offending_cached(value: str) -> str | None:
    return _offending(value)


def _offending(value: str) -> str | None:
    for match in _CONTROL.finditer(value):
        word, symbol = match.group(1), match.group(2)
        if symbol is not None:
            if symbol not in INERT_SYMBOLS:
                return match.group()
            continue
        if word in ("begin", "end"):
            env = _ENVIRONMENT.match(value, match.end())
            if env is None or env.group(1) not in INERT_ENVIRONMENTS:
                return value[match.start() : env.end() if env else match.end()]
            continue
        if word not in INERT_COMMANDS and word not in encoder_commands():
            return match.group()
    if value.endswith("\\") and (len(value) - len(value.rstrip("\\"))) % 2:
        return "\\"
    return None


@lru_cache(maxsize=1)
def encoder_commands() -> frozenset[str]:
    """The control words of pylatexenc's table of Unicode characters as LaTeX
    (``get_builtin_uni2latex_dict``: ``\\asymp``, ``\\textrightarrow``, ``\\cyrchar``
    ...), which the BibTeX writer uses to write characters in ASCII
    (:func:`~.encode.ascii_latex`): each names one character, and what the writer
    produces must be copied back unchanged. Loaded on first need (most values hold
    only the names of :data:`INERT_COMMANDS`)."""
    from pylatexenc.latexencode import get_builtin_uni2latex_dict

    names = set()
    for latex in get_builtin_uni2latex_dict().values():
        names.update(_WORD.findall(latex))
    return frozenset(names)


_WORD = re.compile(r"\\([A-Za-z]+)")


def is_inert(value: str) -> bool:
    """True when ``value`` is LaTeX that can only typeset text (see the module docstring):
    what an export copies as written."""
    return offending(value) is None


_PREAMBLE = re.compile(r"@preamble[ \t\r\n]*([{(])", re.IGNORECASE)


def preamble_offending(text: str, macros: Mapping[str, str]) -> str | None:
    """The first piece of ``@preamble`` blocks ``text`` that is not inert, None when
    every block is inert as written and the blocks are inert as BibTeX writes them into
    the ``.bbl``: each block's pieces joined by ``#``, its ``@string`` macros replaced by
    ``macros`` (``"\\i" # "nput"`` is ``\\input``), and every block joined to the next
    with nothing between (BibTeX's ``preamble$``: ``@preamble{"\\i"}`` then
    ``@preamble{"nput"}`` is ``\\input`` too). A block that cannot be evaluated gives
    ``@preamble``."""
    piece = offending(text)
    if piece is not None:
        return piece
    values: list[str] = []
    for match in _PREAMBLE.finditer(text):
        start = match.end()
        try:
            if match.group(1) == "{":
                end = matching_brace(text, start - 1)
            else:
                end = text.index(")", start)
            values.append(evaluate(text[start:end], macros)[0])
        except (ValueSyntaxError, ValueError):
            return "@preamble"
    return offending("".join(values))


#: A ``#`` join whose left piece ends in a control word, a lone backslash or ``^``: the
#: right piece may lengthen the command (``"\i" # "nput"`` is ``\input``; ``"^" #
#: "^5c..."`` is a backslash), which no check of the pieces alone sees.
_OPEN_JOIN = re.compile(r"(?:\\[^\W\d_]*|\^)[\"}][ \t\r\n]*#")
_OPEN_END = re.compile(r"(?:\\[^\W\d_]*|\^)\Z")


def join_may_build_command(text: str, macro_values: Iterable[str]) -> bool:
    """Whether the BibTeX ``text`` of an entry joins pieces with ``#`` (BibTeX manual,
    "concatenation") where a piece or a ``@string`` value it uses (``macro_values``)
    ends in a control word, a backslash or ``^``: the joined value may then hold a
    command its pieces do not (``"\\i" # "nput{x}"``). Such an entry is not copied as
    written; its joined values are generated under :func:`is_inert`."""
    if "#" not in text:
        return False
    return _OPEN_JOIN.search(text) is not None or any(
        _OPEN_END.search(value) is not None for value in macro_values
    )


#: Math commands of the LaTeX kernel (no package needed: "LaTeX2e font selection",
#: "The LaTeX Companion" table 8) that take no argument: what a formula of a plain-text
#: source (a pasted list) may hold to be copied as math (:func:`is_kernel_math`).
_KERNEL_SYMBOLS = frozenset(
    {
        *_GREEK,
        *("log", "ln", "exp", "sin", "cos", "tan", "max", "min", "sup", "inf", "lim"),
        *("arg", "det", "dim", "Pr", "deg", "gcd", "sinh", "cosh", "tanh", "ker", "hom"),
        *("limsup", "liminf", "sum", "prod", "int", "oint", "coprod", "bigcup", "bigcap"),
        *("cdot", "cdots", "vdots", "ddots", "ldots", "times", "div", "pm", "mp", "ast"),
        *("star", "circ", "bullet", "oplus", "otimes", "odot", "ominus", "wedge", "vee"),
        *("cap", "cup", "setminus", "leq", "geq", "le", "ge", "neq", "ne", "approx"),
        *("sim", "simeq", "cong", "equiv", "propto", "ll", "gg", "prec", "succ"),
        *("preceq", "succeq", "subset", "subseteq", "supset", "supseteq", "in", "notin"),
        *("ni", "infty", "partial", "nabla", "emptyset", "forall", "exists", "neg"),
        *("lnot", "land", "lor", "top", "bot", "perp", "parallel", "mid", "ell", "hbar"),
        *("Re", "Im", "aleph", "prime", "wp", "angle", "triangle", "to", "gets"),
        *("rightarrow", "leftarrow", "Rightarrow", "Leftarrow", "mapsto", "iff"),
        *("leftrightarrow", "Leftrightarrow", "longrightarrow", "Longrightarrow"),
        *("uparrow", "downarrow", "langle", "rangle", "lfloor", "rfloor", "lceil"),
        *("rceil", "lbrace", "rbrace", "vert", "Vert", "dagger", "ddagger", "models"),
        *("vdash", "dashv", "colon", "backslash", "diamond", "sharp", "flat", "natural"),
        *("oslash", "hookrightarrow", "rightharpoonup", "bmod", "displaystyle"),
        *("textstyle", "scriptstyle", "limits", "nolimits"),
        # amssymb and amsmath, which papers with math load (said in README.md)
        *("varnothing", "lesssim", "gtrsim", "leqslant", "geqslant", "implies", "iint"),
    }
)
#: Delimiter sizes: each takes the delimiter after it (``\bigl(``), so one must follow.
_KERNEL_SIZES = frozenset({"big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"})
#: Kernel math commands with their number of braced arguments (``\\frac{a}{b}``).
_KERNEL_ARGUMENTS: dict[str, int] = {
    **dict.fromkeys(("mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal"), 1),
    **dict.fromkeys(("mathnormal", "hat", "tilde", "bar", "vec", "dot", "ddot"), 1),
    **dict.fromkeys(("check", "breve", "acute", "grave", "overline", "widehat"), 1),
    **dict.fromkeys(("widetilde", "mathring", "sqrt", "overrightarrow"), 1),
    **dict.fromkeys(("textrm", "textit", "textbf", "texttt", "textsf", "mbox"), 1),
    **dict.fromkeys(("text", "mathbb", "operatorname", "boldsymbol"), 1),  # amsmath/amssymb
    **dict.fromkeys(("frac", "dfrac", "tfrac", "binom"), 2),
}
#: Control symbols that typeset in math mode: spacing and escaped specials.
_KERNEL_MATH_SYMBOLS = frozenset(",;:! {}|%_#&$")
#: A sub- or superscript with nothing after it, or two in a row (TeX stops: "Missing {
#: inserted", "Double superscript").
_BAD_SCRIPT = re.compile(r"[\^_]\s*(?:\Z|[\^_}])")


def is_kernel_math(formula: str) -> bool:
    """True when ``formula`` (``$...$``, from a plain-text source such as a pasted list)
    may be copied into a ``.bib`` file as math that LaTeX typesets without an error
    (with amsmath and amssymb for the few of theirs admitted): every control word is a
    math command (:data:`_KERNEL_SYMBOLS`, a delimiter size with a delimiter after it, or
    one of :data:`_KERNEL_ARGUMENTS` followed by its braced arguments), every control
    symbol is math spacing or an escaped special, and no sub- or superscript lacks its
    argument. Stricter than :func:`is_inert`, which admits markup a ``.bib`` file's
    author chose (``\\item``, ``\\cite``, package commands); here the text came from a
    web page, and a kept formula that does not compile, or that cites (``\\cite{*}``
    adds every entry to the bibliography), would change the user's document."""
    body = formula.strip("$")
    if "^^" in body or _BAD_SCRIPT.search(body):
        return False
    for match in _CONTROL.finditer(body):
        word, symbol = match.group(1), match.group(2)
        if symbol is not None:
            if symbol not in _KERNEL_MATH_SYMBOLS:
                return False
            continue
        if word in _KERNEL_SYMBOLS:
            continue
        if word in _KERNEL_SIZES:
            if not body[match.end() :].strip():
                return False
            continue
        count = _KERNEL_ARGUMENTS.get(word)
        if count is None:
            return False
        at = match.end()
        for _ in range(count):
            while at < len(body) and body[at].isspace():
                at += 1
            if at >= len(body) or body[at] != "{":
                return False
            try:
                at = matching_brace(body, at) + 1
            except ValueSyntaxError:
                return False
    return True
