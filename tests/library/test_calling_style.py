"""One calling style (issue 38, item 1): a public function that names columns takes the data first and the
column names as keywords, ``f(data, *, group=, y_true=, y_pred=, ...)``; the functions that took arrays keep
that call, with a DeprecationWarning, until 0.4 (``fairstats._deprecation.ARRAY_CALLS``)."""

from __future__ import annotations

import inspect

import pytest

import fairstats
from fairstats._deprecation import ARRAY_CALLS

COLUMNS = ("group", "y_true", "y_pred", "y_score", "fold", "features", "strata")
# functions whose column-like parameters are arrays on purpose, and why
ARRAYS = {
    "nearest_other_group": "a step of fairness_through_awareness (the frame call): features and labels",
    "mahalanobis_whitening": "a step of fairness_through_awareness: a feature matrix and labels",
    "awareness_test": "a step of fairness_through_awareness: predictions and the Neighbours found",
    "undefined_counts": "takes group_metrics' frame (`metrics`) and the names of its columns",
}


def _functions():
    for name in fairstats.__all__:
        obj = getattr(fairstats, name)
        if inspect.isfunction(obj):
            yield name, list(inspect.signature(obj).parameters.values())


def test_a_function_that_names_columns_takes_the_data_first_and_the_names_as_keywords():
    wrong = {}
    for name, parameters in _functions():
        named = [p for p in parameters if p.name in COLUMNS]
        if not named or name in ARRAYS:
            continue
        if parameters[0].name != "data" or any(p.kind is not p.KEYWORD_ONLY for p in named):
            wrong[name] = [str(p) for p in parameters[:4]]
    assert not wrong, f"not data first and columns by keyword: {wrong}"


@pytest.mark.parametrize("where", sorted(ARRAY_CALLS))
def test_a_function_that_took_arrays_is_public_and_documents_its_frame_call(where):
    func = getattr(fairstats, where.rpartition(".")[2])
    assert list(inspect.signature(func).parameters)[0] == "data"
    assert "DeprecationWarning" in inspect.getdoc(func)
    assert ARRAY_CALLS[where].startswith(f"{func.__name__}(data, ")
