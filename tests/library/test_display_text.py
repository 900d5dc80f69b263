"""fairstats._text: every hidden character made visible, lookalike values found (issue 29)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairstats._text import LINE_BREAKS, display_text, lookalike_pairs


@pytest.mark.parametrize(
    "raw,shown",
    [
        ("plain text 1.5", "plain text 1.5"),
        ("a\r\nb\rc\nd\u2028e\u2029f\x85g\x0bh\x0ci", "a⏎b⏎c⏎d⏎e⏎f⏎g⏎h⏎i"),
        ("\x1b[31mred", "\\x1b[31mred"),  # an ANSI escape for the terminal
        ("nul\x00", "nul\\x00"),
        ("\u202eevil", "\\u202eevil"),  # right-to-left override
        ("male\u200b", "male\\u200b"),  # zero-width space
        ("a\u00adb", "a\\xadb"),  # soft hyphen
        ("x\ufe0f", "x\\ufe0f"),  # variation selector (default-ignorable)
        ("tag\U000e0041", "tag\\U000e0041"),  # tag character
        ("no\u00a0break", "no\\xa0break"),  # a space that is another value
        ("José", "José"),
        (unicodedata.normalize("NFD", "José"), unicodedata.normalize("NFD", "José")),  # combining mark kept
        ("中文 العربية", "中文 العربية"),  # letters of any script kept
        (3.25, "3.25"),
    ],
)
def test_display_text(raw, shown):
    assert display_text(raw) == shown


_HIDDEN = set(LINE_BREAKS) | set("\x00\x1b\x7f\u200b\u200d\u202a\u202e\u2066\ufeff")


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_no_hidden_character_survives(text):
    """For arbitrary Unicode: one line, and no control, format, bidi or invisible character left raw."""
    shown = display_text(text)
    assert not (set(shown) & _HIDDEN)
    assert all(unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} for ch in shown)
    assert len(shown.splitlines()) <= 1


def test_lookalikes():
    nfd = unicodedata.normalize("NFD", "José")
    values = ["male", "male\u200b", "José", nfd, "paypal", "p\u0430ypal", "0", "O"]
    pairs = {(a, b): why for a, b, why in lookalike_pairs(values)}
    nfc = "José"
    assert pairs[("male", "male\u200b")].startswith("the same after NFKC")
    assert pairs[tuple(sorted([nfc, nfd]))].startswith("the same after NFKC")
    assert pairs[("paypal", "p\u0430ypal")] == "the same confusable skeleton (UTS #39)"  # Cyrillic a
    assert ("0", "O") not in pairs  # two ASCII values: what the user typed
    assert len(pairs) == 3


def test_distinct_values_are_not_lookalikes():
    races = ["African-American", "Caucasian", "Hispanic", "Other", "Asian", "Native American"]
    assert lookalike_pairs(races) == []
    assert lookalike_pairs([f"group {i}" for i in range(500)]) == []
    assert lookalike_pairs([1, 1.0, True]) == []  # not text
