"""Every warning class of fairstats, in one module (after scipy.stats' ``_warnings_errors.py``).

A warning says that a method could not be applied as asked; the result then says ``undefined`` (or NaN
with a reason) rather than a quiet substitute. Each class is re-exported from the module that documents it
(``from fairstats.confusion import SmallExpectedCountWarning`` and ``fairstats.SmallExpectedCountWarning``
both work) and its ``__module__`` names that module, so filters such as
``-W ignore::fairstats.confusion.SmallExpectedCountWarning``, pickling and the API reference find it where
they always have. ``tests/unit/test_one_definition.py`` fails on a warning class defined anywhere else.
"""

from __future__ import annotations

__all__ = [
    "BCaUndefinedWarning",
    "DuplicateColumnWarning",
    "EmptyConfidenceSequenceWarning",
    "EquivalenceUndefinedWarning",
    "GroupLookalikeWarning",
    "GroupWhitespaceWarning",
    "ImpactRatioUndefinedWarning",
    "SingularCovarianceWarning",
    "SmallExpectedCountWarning",
    "UndefinedMetricWarning",
    "UndefinedResampleWarning",
    "UndefinedTestWarning",
]


# --------------------------------------------------------------------------------------------------------
# the statistics
# --------------------------------------------------------------------------------------------------------


class SmallExpectedCountWarning(UserWarning):
    """Cochran's rule fails: some expected counts are small, so the chi-squared p-value is approximate.

    :func:`equal_confusion_test` then also reports a Monte-Carlo permutation p-value.
    """

    __module__ = "fairstats.confusion"


class UndefinedMetricWarning(UserWarning):
    """A metric's denominator is 0 in some stratum (e.g. a fold with no false positives); it is left NaN."""

    __module__ = "fairstats.metrics"


class UndefinedResampleWarning(UserWarning):
    """Some bootstrap resamples leave a statistic undefined (a zero denominator); the CI leaves them out."""

    __module__ = "fairstats.bootstrap"


class BCaUndefinedWarning(UserWarning):
    """BCa's bias correction or acceleration is undefined (e.g. every resample on one side of the estimate,
    or an undefined leave-one-out value); the interval is left undefined (NaN), never replaced by another
    method."""

    __module__ = "fairstats.bootstrap"


class UndefinedTestWarning(UserWarning):
    """A difference test could not be computed (empty denominator, too few scores, a statsmodels error): its
    p-value is NaN and the row's ``reason`` says why; it is never read as "not significant"."""

    __module__ = "fairstats.outcomes"


class EquivalenceUndefinedWarning(UserWarning):
    """An equivalence test could not be computed (empty denominator, zero spread, a statsmodels error); the
    result is ``undefined`` with its reason, never "equivalent" or "not equivalent"."""

    __module__ = "fairstats.equivalence"


class SingularCovarianceWarning(UserWarning):
    """The covariance has zero-variance columns or (near-)null directions; the pseudo-inverse is used."""

    __module__ = "fairstats.awareness"


class EmptyConfidenceSequenceWarning(UserWarning):
    """The running intersection of a confidence sequence became empty: the data contradict the model (rates
    constant over time, decisions independent); the comparison stays ``alarm`` and its bounds cross."""

    __module__ = "fairstats.monitor"


class ImpactRatioUndefinedWarning(UserWarning):
    """An impact ratio (or its z test) cannot be computed: the row says ``undefined`` and why, never a 0 or
    "not significant" in its place."""

    __module__ = "fairstats.impact"


# --------------------------------------------------------------------------------------------------------
# the audit's input (documented in fairstats.auditing.errors)
# --------------------------------------------------------------------------------------------------------


class GroupWhitespaceWarning(UserWarning):
    """Group values that differ only in surrounding white space (``" Male"``, ``"Male"``): separate groups."""

    __module__ = "fairstats.auditing.errors"


class GroupLookalikeWarning(UserWarning):
    """Group values that display alike (``male`` and ``male`` + U+200B, ``José`` in NFC and NFD, Latin ``a``
    and Cyrillic ``а``): separate groups, both named as escaped text
    (:func:`fairstats._text.lookalike_pairs`)."""

    __module__ = "fairstats.auditing.errors"


class DuplicateColumnWarning(UserWarning):
    """The input names a column more than once: identical copies (the first is used), or differing copies of
    a column the audit does not use. Differing copies of a used column are refused (:class:`AuditError`)."""

    __module__ = "fairstats.auditing.errors"
