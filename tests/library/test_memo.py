"""fairstats._memo.remembered: the same answers, warnings and errors as the function itself, computed once."""

from __future__ import annotations

import warnings

import pytest

from fairstats import mde_rate_difference, rate_equivalence
from fairstats._memo import remembered
from fairstats.equivalence import EquivalenceUndefinedWarning


def test_answers_are_computed_once_and_warnings_raised_every_time():
    calls = []

    @remembered
    def half(x):
        calls.append(x)
        warnings.warn(f"halving {x}", UserWarning, stacklevel=2)
        return x / 2

    for _ in range(3):
        with pytest.warns(UserWarning, match="halving 3"):
            assert half(3) == 1.5
    assert calls == [3]
    with pytest.warns(UserWarning, match="halving 4"):
        assert half(4) == 2
    assert calls == [3, 4]


def test_errors_are_raised_again_without_a_new_call():
    calls = []

    @remembered
    def fail(x):
        calls.append(x)
        raise ValueError(f"no root for {x}")

    for _ in range(3):
        with pytest.raises(ValueError, match="no root for 7"):
            fail(7)
    assert calls == [7]


def test_remembered_library_answers_equal_fresh_ones():
    # rate_equivalence and the mde solve are remembered: a second call gives the first call's numbers, and
    # an undefined test warns every time (the audit's notes depend on it).
    first = rate_equivalence(3, 10, 40, 100, margin=0.1, alpha=0.025)
    again = rate_equivalence(3.0, 10.0, 40.0, 100.0, margin=0.1, alpha=0.025)
    assert first == again
    assert mde_rate_difference(10, 100, 0.4) == mde_rate_difference(10.0, 100.0, 0.4)
    for _ in range(2):
        with pytest.warns(EquivalenceUndefinedWarning, match="no case in the denominator"):
            assert rate_equivalence(0, 0, 4, 10).undefined
