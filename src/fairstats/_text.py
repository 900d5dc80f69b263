"""Data strings as display text: one function that makes every hidden character visible, and lookalike checks.

Strings that come from the data (group values, column names, labels) reach Markdown, HTML, PDF, figures and
the
terminal. Each of those shows some characters as nothing (zero-width spaces, soft hyphens, variation
selectors),
reorders the text around bidirectional controls (a right-to-left override can make ``evil`` read as ``live``),
or acts on them (a carriage return or an ESC sequence in a terminal). :func:`display_text` is the one place
that
turns any value into text that shows what it is: line breaks as ``⏎``, every other control, format, separator,
private-use, unassigned or default-ignorable character as its Python escape (``\\x1b``, ``\\u202e``). Plain
text (letters, digits, punctuation, ordinary spaces, combining accents) is unchanged.

:func:`lookalike_pairs` finds distinct values that a reader cannot tell apart: the same after Unicode
compatibility normalisation (NFKC) with the invisible characters removed (``male`` and ``male`` + U+200B,
``José`` in NFC and NFD), or with the same confusable skeleton (UTS #39, from the ``confusable-homoglyphs``
package's table when it is installed: Latin ``a`` and Cyrillic ``а``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

__all__ = ["LINE_BREAKS", "display_text", "lookalike_pairs"]

#: Every character that some reader takes as the end of a line or record (``str.splitlines``' set): CSV
# writers
#: must quote a field holding one, and display text shows it as ``⏎``.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK_RUN = re.compile("\r\n|[" + re.escape(LINE_BREAKS) + "]")

# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, Unicode 15.1): characters that a
# renderer shows as nothing. Format characters (category Cf) are escaped whatever this table says.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# Categories shown as escapes: controls, format, surrogates, private use, unassigned, line/paragraph
# separators,
# and every space separator but the ASCII space (a no-break space looks like a space and is another value).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def _ignorable(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


@functools.lru_cache(maxsize=4096)
def _hidden(ch: str) -> bool:
    if ch == " ":
        return False
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES or _ignorable(ord(ch))


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def display_text(value: object) -> str:
    """``value`` as one line of text with every hidden character made visible.

    Line breaks (``\\r\\n``, and each of :data:`LINE_BREAKS`) become ``⏎``; every other control, format
    (bidirectional controls, zero-width characters), separator other than the ASCII space, private-use,
    surrogate, unassigned or default-ignorable character becomes its Python escape (``\\x1b``, ``\\u202e``,
    ``\\U000e0041``). Everything else is kept as it is, combining marks included.

    Examples
    --------
    >>> display_text("a\\rb")
    'a⏎b'
    >>> display_text("male\\u200b"), display_text("\\u202eevil")
    ('male\\\\u200b', '\\\\u202eevil')
    """
    text = str(value)
    if text.isascii() and text.isprintable():  # the common case: nothing hidden
        return text
    text = _BREAK_RUN.sub("\u23ce", text)
    return "".join(_escape(ch) if _hidden(ch) else ch for ch in text)


def _without_invisible(text: str) -> str:
    return "".join(ch for ch in text if not (_hidden(ch) and ch not in LINE_BREAKS and not ch.isspace()))


def _prototype_order(ch: str) -> tuple[bool, int]:
    return (not ch.isascii(), ord(ch))


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Character -> the prototype of its confusable set (ASCII first, then the lowest code point), from the
    ``confusable-homoglyphs`` table (Unicode's confusables.txt; a requirement of the ``fairstats[audit]``
    extra, whose audit is the one caller: without it the check would be NFKC only, so it is not optional)."""
    from confusable_homoglyphs import confusables

    table: dict[str, str] = {}
    for ch, glyphs in confusables.confusables_data.items():
        # the table wraps right-to-left glyphs in LEFT-TO-RIGHT MARKs; a glyph of several characters is
        # skipped
        members = {ch, *(g["c"].strip("\u200e\u200f") for g in glyphs)}
        members = {m for m in members if len(m) == 1}
        if not members:
            continue
        prototype = min(members, key=_prototype_order)
        for m in members:
            old = table.get(m)
            table[m] = prototype if old is None else min(old, prototype, key=_prototype_order)
    return table


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    folded = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(ch, ch) for ch in folded))


def lookalike_pairs(values: Iterable[object]) -> list[tuple[str, str, str]]:
    """Pairs of distinct values that display alike: ``(a, b, why)``, sorted, each pair once.

    ``why`` is ``"the same after NFKC normalisation without invisible characters"`` or ``"the same confusable
    skeleton (UTS #39)"``. Only text values are compared; two plain-ASCII values are never flagged (``0`` and
    ``O`` are confusable to UTS #39, but a reader of ASCII labels tells them apart by what was typed).
    """
    texts = sorted({str(v) for v in values if isinstance(v, str)})
    if all(t.isascii() for t in texts):
        return []  # only pairs with a non-ASCII value are flagged: no table to load
    found: dict[tuple[str, str], str] = {}
    for key, why in (
        (lambda t: unicodedata.normalize("NFKC", _without_invisible(t)),
         "the same after NFKC normalisation without invisible characters"),
        (lambda t: _skeleton(unicodedata.normalize("NFKC", _without_invisible(t))),
         "the same confusable skeleton (UTS #39)"),
    ):  # fmt: skip
        seen: dict[str, str] = {}
        for t in texts:
            k = key(t)
            if k in seen:
                pair = (seen[k], t)
                # two ASCII values (``0`` and ``O``, ``1`` and ``l``) are what the user typed: not flagged
                if not (pair[0].isascii() and pair[1].isascii()):
                    found.setdefault(pair, why)
            else:
                seen[k] = t
    return sorted((a, b, why) for (a, b), why in found.items())
