"""One set of defaults: a parameter that several public functions share has one default everywhere.

The library's conventions (docs/defaults.rst): ``alpha=0.05``, ``favorable=1``, ``n_resamples=9999``,
``confidence_level=0.95``, no strata (``by=None``, ``fold=None``) and no default column names: ``group``,
``y_true``, ``y_pred`` are always named by the caller (the papers' columns are passed by the compendium). This
test walks ``fairstats.__all__`` and fails naming the parameter and the functions that disagree.
"""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import fairstats

# Parameters whose name means different things in different functions (not one option under one name).
DIFFERENT_MEANINGS = {
    "method": "a multiplicity procedure in adjust_pvalues, an interval method in the bootstraps",
    "metrics": "each function's own family of metrics",
}
# (function, parameter): a default kept apart from the convention, and why.
EXCEPTIONS = {
    ("audit", "favorable"): "None: the label 1 when the labels are 0/1 (the convention), and a message "
    "naming --favorable when they are text (the audit also reads labels such as 'yes'/'no')",
    ("impact_ratios", "reference"): "LL144's comparison category ('max': the most selected), not the audit's "
    "reference group; the rule names it so (issue 25)",
    ("recalibration_tests", "n_resamples"): "the ICI bootstrap refits a spline GLM per resample, group: 999",
    ("score_tests", "n_resamples"): "passed to recalibration_tests (the ICI's bootstrap): 999",
    ("roc_curves", "n_resamples"): "pointwise bands of a figure: 199",
    ("calibration_curves", "n_resamples"): "pointwise bands of a figure, a spline GLM per resample: 199",
    ("regression_tests", "margin"): "in the unit of the outcome, which the library cannot know: no default",
    **{("audit", name): "None: not given; the task's default is the declaration's (fairstats.auditing."
       "options.OPTIONS, docs/options.rst), and a task that does not take the option refuses it"
       for name in ("margin", "n_resamples", "min_size", "scoring_rate", "missing_as_unknown")},
}
COLUMN_PARAMETERS = ("group", "y_true", "y_pred", "y_score", "fold")
CONVENTIONS = {"alpha": 0.05, "favorable": 1, "n_resamples": 9999, "confidence_level": 0.95}


def _signatures():
    for name in sorted(fairstats.__all__):
        obj = getattr(fairstats, name)
        if inspect.isfunction(obj):
            yield name, inspect.signature(obj)


def _defaults() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for name, sig in _signatures():
        for p in sig.parameters.values():
            if p.default is inspect.Parameter.empty or (name, p.name) in EXCEPTIONS:
                continue
            out.setdefault(p.name, {})[name] = p.default
    return out


def test_a_shared_parameter_has_one_default():
    disagree = {}
    for parameter, by_function in _defaults().items():
        if parameter in DIFFERENT_MEANINGS:
            continue
        values = {repr(v) for v in by_function.values()}
        if len(values) > 1:
            disagree[parameter] = {f: v for f, v in by_function.items()}
    assert not disagree, f"parameters with disagreeing defaults: {disagree}"


@pytest.mark.parametrize("parameter,value", sorted(CONVENTIONS.items()))
def test_conventions(parameter, value):
    found = _defaults().get(parameter, {})
    assert found, f"no public function has a default for {parameter!r}"
    wrong = {f: v for f, v in found.items() if v != value}
    assert not wrong, f"{parameter} must default to {value!r}: {wrong}"


def test_no_default_column_names():
    named = {
        (name, p.name): p.default
        for name, sig in _signatures()
        for p in sig.parameters.values()
        if p.name in COLUMN_PARAMETERS
        and isinstance(p.default, str)
        and (name, p.name) not in EXCEPTIONS
    }
    assert not named, f"column parameters with a default column name: {named}"


def test_the_check_catches_a_disagreeing_default(monkeypatch):
    """The walk would fail on a function that defaults alpha to 0.01 (as equal_confusion_test once did)."""

    def odd(data, *, alpha=0.01):  # pragma: no cover - never called
        return data

    monkeypatch.setattr(fairstats, "odd", odd, raising=False)
    monkeypatch.setattr(fairstats, "__all__", [*fairstats.__all__, "odd"])
    with pytest.raises(AssertionError, match="alpha"):
        test_a_shared_parameter_has_one_default()


def test_adjust_pvalues_works_on_any_result_frame():
    """Every result's to_frame() names its p-value column ``pvalue``, the default of adjust_pvalues."""
    data = pd.DataFrame(
        {"g": ["a"] * 40 + ["b"] * 40, "y": [0, 1] * 40, "p": [0, 1, 1, 1] * 10 + [0, 0, 0, 1] * 10}
    )
    tests = fairstats.outcome_tests(data, group="g", y_true="y", y_pred="p", n_resamples=99, rng=1)
    adjusted = fairstats.adjust_pvalues(tests.to_frame())
    assert "pvalue_holm" in adjusted and adjusted["pvalue_holm"].notna().any()
