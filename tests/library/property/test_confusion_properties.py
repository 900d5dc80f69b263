"""Properties of the equal confusion test that must hold for any data (hypothesis, deterministic profile)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fairstats import ContingencyTable
from fairstats.confusion import SmallExpectedCountWarning, equal_confusion_test

GROUPS = ["a", "b", "c", "d"]


@st.composite
def datasets(draw, multiclass: bool = False) -> pd.DataFrame:
    n = draw(st.integers(min_value=8, max_value=60))
    labels = [0, 1, 2] if multiclass else [0, 1]
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from(GROUPS), st.sampled_from(labels), st.sampled_from(labels)),
            min_size=n,
            max_size=n,
        )
    )
    frame = pd.DataFrame(rows, columns=["g", "y", "p"])
    assume(frame["g"].nunique() >= 2)
    assume(frame.groupby(["y", "p"]).ngroups >= 2)
    return frame


def _test(frame: pd.DataFrame, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)
        return equal_confusion_test(frame, group="g", y_true="y", y_pred="p", **kwargs)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(frame=datasets(), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_invariant_to_row_order(frame, seed):
    shuffled = frame.sample(frac=1.0, random_state=seed % (2**32)).reset_index(drop=True)
    a, b = _test(frame, permutation="never"), _test(shuffled, permutation="never")
    assert a.statistic == b.statistic and a.df == b.df
    pd.testing.assert_frame_equal(a.observed, b.observed)
    pd.testing.assert_frame_equal(a.residuals, b.residuals)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(frame=datasets(multiclass=True), perm=st.permutations(GROUPS))
def test_invariant_to_group_relabelling(frame, perm):
    mapping = {old: f"g_{new}" for old, new in zip(GROUPS, perm, strict=True)}
    relabelled = frame.assign(g=frame["g"].map(mapping))
    a, b = _test(frame, permutation="never"), _test(relabelled, permutation="never")
    assert np.isclose(a.statistic, b.statistic, rtol=1e-12, atol=1e-12)
    assert np.isclose(a.cramers_v, b.cramers_v, rtol=1e-12, atol=1e-12)
    assert a.df == b.df
    back = b.residuals.rename(index={v: k for k, v in mapping.items()}).loc[a.residuals.index]
    np.testing.assert_allclose(back.to_numpy(), a.residuals.to_numpy(), rtol=1e-10, atol=1e-12)
    assert list(b.observed.index) == sorted(b.observed.index)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(frame=datasets(multiclass=True))
def test_pvalues_and_v_lie_in_unit_interval(frame):
    res = _test(frame, permutation="always", n_resamples=99, rng=1)
    assert 0.0 <= res.pvalue <= 1.0
    assert 1 / 100 <= res.pvalue_permutation <= 1.0
    assert 0.0 <= res.cramers_v <= 1.0 + 1e-12
    assert res.observed.to_numpy().sum() == len(frame)
    assert set(res.effect_size_thresholds) == {"small", "medium", "large"}


_SCRIPT = """
import json, warnings
import numpy as np, pandas as pd
from fairstats.confusion import equal_confusion_test
rng = np.random.default_rng(5)
n = 300
frame = pd.DataFrame({"s": rng.choice(["F", "M"], n), "r": rng.choice(["x", "yy", "zzz", "w"], n),
                      "y": rng.integers(0, 2, n)})
frame["p"] = np.where(rng.random(n) < 0.6, frame["y"], 1 - frame["y"])
warnings.simplefilter("ignore")
res = equal_confusion_test(frame, group=["r", "s"], y_true="y", y_pred="p", permutation="always",
                           n_resamples=499, rng=42)
print(json.dumps({"index": list(res.observed.index), "cells": list(res.observed.columns),
                  "statistic": repr(res.statistic), "p_perm": repr(res.pvalue_permutation),
                  "resid": [repr(v) for v in res.residuals.to_numpy().ravel()]}))
"""


def test_results_do_not_depend_on_pythonhashseed():
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0]["index"] == sorted(outputs[0]["index"])
    assert outputs[0]["cells"] == ["TP", "FN", "FP", "TN"]


def test_confusion_table_order_is_sorted_whatever_the_row_order():
    frame = pd.DataFrame(
        {"g": ["c", "a", "b", "a", "c", "b"], "y": [1, 0, 1, 1, 0, 0], "p": [0, 0, 1, 1, 1, 0]}
    )
    assert list(ContingencyTable.from_frame(frame, group="g", y_true="y", y_pred="p").frame().index) == [
        "a",
        "b",
        "c",
    ]
