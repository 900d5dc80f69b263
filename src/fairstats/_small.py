"""The sizes below which a large-sample test is not done, and how its row says so (issue 39, item 4).

One home for the small-group rules of the tests whose size rests on a normal approximation; each rule was
set from a simulation of the test's size (the tests named below), and a row it stops is ``undefined`` with a
reason that names the group and quotes that group's own count:

- :data:`MIN_EXPECTED`: the score test of two proportions (outcome tests, rates). With fewer expected cases
  (Cochran's rule) its exact size reaches 0.07 to 0.10 at 5 % (a group of 2 to 10 people against 1,000;
  ``tests/library/test_outcomes.py``); its interval (Miettinen-Nurminen) keeps its coverage and is given.
- :data:`MIN_NORMAL`: tests of means and AUCs referred to the normal (DeLong's z, Welch's t on scores, the
  studentized regression tests): each group (each outcome class, for scores) needs this many people. DeLong's
  z with 3, 5, 10, 20 and 40 positives (four times as many negatives) against 200 and 800 rejects 18 %, 12 %,
  8.7 %, 6.9 % and 5.8 % of the time at 5 % (4,000 data sets each; ``tests/library/test_discrimination.py``
  checks 3 and 20); the regression tests with residuals 3 (Exp(1) - 1) in 10 people against N(0, 1) in 200,
  8 % (200 data sets), 5.7 % with 20 (3,000; ``tests/library/test_regression.py``).
"""

from __future__ import annotations

__all__ = ["MIN_EXPECTED", "MIN_NORMAL", "expected_reason", "size_reason"]

#: Fewest expected cases (and non-cases) per group, under the pooled rate, for the score test of two rates.
MIN_EXPECTED = 5
#: Fewest people per group (per outcome class) for a test of a mean or an AUC against the normal.
MIN_NORMAL = 20


def size_reason(count: float, what: str, group: object, why: str) -> str:
    """``"3 positives in group 'x', fewer than 20: <why>"`` (the group's own count)."""
    return f"{count:g} {what} in group {group!r}, fewer than {MIN_NORMAL}: {why}"


def expected_reason(nobs: float, expected: float, what: str, group: object) -> str:
    """The reason of a rate test stopped by :data:`MIN_EXPECTED`, with the group's own numbers."""
    return (f"{expected:.3g} {what} expected among the {nobs:g} of group {group!r} under the pooled rate, "
            f"fewer than {MIN_EXPECTED}: the score test does not hold its size (its interval is given)")
