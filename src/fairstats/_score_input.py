"""What the score tests share: the validated input (per group, the distinct scores with their positives and
negatives), the options check, DeLong's AUC of counts and the verdicts of a comparisons table.

The discrimination (:mod:`fairstats.discrimination`), recalibration (:mod:`fairstats.recalibration`) and
score-distribution (:mod:`fairstats.score_distributions`) tests depend on the people only through the counts
of (group, outcome, score): :func:`score_counts_iv` counts a frame of any engine (or takes a
:class:`fairstats.Counts`) once, checks the outcome and the score, and returns a :class:`ScoreCounts` that
each test reads. Its size is the number of distinct scores per group, not of people.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._format import plain as _plain
from fairstats._validation import CheckedFrame, alternative_iv, as_list, level_iv, positive_margin_iv
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.groups import intersection_label
from fairstats.multiplicity import three_way_verdicts

__all__ = [
    "ScoreCounts",
    "delong",
    "labels_iv",
    "reference_iv",
    "score_counts_iv",
    "score_options_iv",
    "score_verdicts",
]


@dataclass(frozen=True, eq=False)
class ScoreCounts:
    """Per group: the distinct scores (sorted) and how many people with each have the positive outcome.

    Attributes
    ----------
    grouping : str
        The group columns joined by ``" x "``.
    groups : tuple of str
        Group labels (:func:`fairstats.groups.intersection_label`), in the sorted order of the columns.
    score, pos, neg : dict of str to numpy.ndarray
        Per group label: distinct scores (increasing), people with ``y_true == pos_label`` and with the
        other outcome at each score (float counts).
    y_score : str
        Name of the score column, for messages.
    """

    grouping: str
    groups: tuple[str, ...]
    score: dict
    pos: dict
    neg: dict
    y_score: str

    def n(self, g: str) -> float:
        return float(self.pos[g].sum() + self.neg[g].sum())


def score_counts_iv(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    pos_label: object = None,
    where: str = "`data`",
) -> ScoreCounts:
    """Count ``data`` over (group, ``y_true``, ``y_score``) and check it; see :class:`ScoreCounts` (which is
    returned as it is when ``data`` is one already).

    Raises ``ValueError`` naming the parameter, the column and the value for a missing column, missing
    values, an outcome with more than two values (or a value other than 0, 1 and ``pos_label``), a score
    that is not a finite number, or fewer than two groups; ``TypeError`` for names that are not strings.
    """
    if isinstance(data, ScoreCounts):  # counted and checked by an outer call (fairstats.score_tests)
        return data
    if isinstance(data, CheckedFrame):  # a pandas frame checked by an outer call (the audit)
        data = data.frame
    columns = as_list(group, name="group")
    for name, value in (("y_true", y_true), ("y_score", y_score)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be one column name, got {value!r}")
    used = list(dict.fromkeys([*columns, y_true, y_score]))
    if len(used) != len(columns) + 2:
        raise ValueError(f"`group`, `y_true` and `y_score` must be different columns, got {used!r}")
    counts = Counts.from_frame(data, columns=used, where=where)
    table = counts.table
    outcome = table[y_true]
    labels = pd.unique(outcome)
    if len(labels) > 2:
        raise ValueError(
            f"`y_true`: column {y_true!r} must be binary, found {len(labels)} distinct values, "
            f"e.g. {sorted(map(str, labels))[:5]}"
        )
    pos_label = labels_iv(labels, pos_label, f"`y_true`: column {y_true!r}")
    scores = table[y_score]
    if pd.api.types.is_bool_dtype(scores) or not pd.api.types.is_numeric_dtype(scores):
        bad = next((v for v in scores if not isinstance(v, int | float | np.integer | np.floating)), None)
        raise ValueError(
            f"`y_score`: column {y_score!r} must hold numbers, got {scores.dtype}"
            + (f" (value {_plain(bad)!r})" if bad is not None else "")
        )
    values = scores.to_numpy(dtype=float)
    if not np.isfinite(values).all():
        bad = values[~np.isfinite(values)][0]
        raise ValueError(f"`y_score`: column {y_score!r} has a value that is not finite, {float(bad)!r}")
    is_pos = (outcome == pos_label).to_numpy()
    n = table[COUNT_COLUMN].to_numpy(dtype=float)
    combos = table[columns].drop_duplicates()
    try:
        combos = combos.sort_values(columns, kind="stable")
    except TypeError:
        raise TypeError(
            f"`group` {columns!r}: a column mixes values that cannot be sorted; use one type"
        ) from None
    code = table.groupby(columns, sort=False, dropna=False, observed=True).ngroup().to_numpy()
    first = np.unique(code, return_index=True)[1]
    code_label = _labels(table.iloc[first], columns)  # label of each code, one per distinct group
    order = list(dict.fromkeys(_labels(combos, columns)))
    if len(order) < 2:
        raise ValueError(
            f"`group` {columns!r} has {len(order)} group {order!r}; the tests compare at least 2"
        )
    # each group's rows, by one stable sort of the group codes (not one pass over all rows per group)
    label_index = {g: i for i, g in enumerate(order)}
    group_of_row = np.array([label_index[g] for g in code_label])[code]
    by_group = np.argsort(group_of_row, kind="stable")
    bounds = np.searchsorted(group_of_row[by_group], np.arange(len(order) + 1))
    score, pos, neg = {}, {}, {}
    for i, g in enumerate(order):
        rows = by_group[bounds[i]:bounds[i + 1]]
        s, inverse = np.unique(values[rows], return_inverse=True)
        score[g] = s
        pos[g] = np.bincount(inverse, weights=n[rows] * is_pos[rows], minlength=s.size)
        neg[g] = np.bincount(inverse, weights=n[rows] * ~is_pos[rows], minlength=s.size)
    return ScoreCounts(" x ".join(columns), tuple(order), score, pos, neg, y_score)


def _labels(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    if len(columns) == 1:
        return frame[columns[0]].astype(str).to_numpy(dtype=object)
    rows = zip(*(frame[c].to_numpy(dtype=object) for c in columns), strict=True)
    return np.array([intersection_label(row) for row in rows], dtype=object)


def labels_iv(labels, pos_label: object, where: str) -> object:
    """The outcome value the score predicts: 1 of 0/1 labels (``pos_label`` None), or ``pos_label``, which
    0/1 labels or two other labels must hold one of (as scikit-learn: other labels need it named)."""
    plain = all(label in {0, 1} for label in labels)
    if pos_label is None:
        if not plain:
            bad = next(label for label in sorted(labels, key=str) if label not in {0, 1})
            raise ValueError(f"{where} has value {_plain(bad)!r}; expected 0/1 labels, or name the outcome "
                             "the score predicts with `pos_label`")
        return 1
    if not plain and not any(label == pos_label for label in labels):
        raise ValueError(f"{where} has values {sorted(map(str, labels))!r}; `pos_label` {pos_label!r} is not "
                         "one of them")
    return pos_label


def reference_iv(counted: ScoreCounts, reference: object) -> str:
    """The reference group: the one named, or (``None``) the largest (the first in order among equals)."""
    if reference is None:
        sizes = [counted.n(g) for g in counted.groups]
        return counted.groups[int(np.argmax(sizes))]
    if str(reference) not in counted.groups:
        raise ValueError(
            f"`reference`: group {reference!r} does not occur in `group` {counted.grouping!r}; "
            f"groups: {list(counted.groups)!r}"
        )
    return str(reference)


def score_options_iv(alpha, confidence_level, margin, power, alternative):
    """The options the AUC and score-distribution tests share, checked: ``(alpha, confidence_level, margin,
    power)``."""
    alpha = level_iv(alpha, "alpha")
    confidence_level = level_iv(confidence_level, "confidence_level")
    power = level_iv(power, "power")
    margin = positive_margin_iv(margin, "margin")
    alternative_iv(alternative)
    return alpha, confidence_level, margin, power


def delong(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """AUC and DeLong's variance from the positives and negatives at each distinct score (increasing)."""
    m, n = float(pos.sum()), float(neg.sum())
    if m == 0 or n == 0:
        return float("nan"), float("nan")
    below_neg = np.cumsum(neg) - neg  # negatives with a lower score
    above_pos = pos.sum() - np.cumsum(pos)  # positives with a higher score
    v10 = (below_neg + 0.5 * neg) / n  # placement of each positive among the negatives
    v01 = (above_pos + 0.5 * pos) / m  # placement of each negative among the positives
    auc = float(pos @ v10 / m)
    if m < 2 or n < 2:
        return auc, float("nan")
    s10 = float(pos @ (v10 - auc) ** 2 / (m - 1))
    s01 = float(neg @ (v01 - auc) ** 2 / (n - 1))
    return auc, s10 / m + s01 / n


def score_verdicts(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """Holm's ``pvalue_adj`` and the three-way verdict of each row (``reason`` explains an undefined one)."""
    out = three_way_verdicts(table, alpha=alpha, reason="reason")
    out = out.rename(columns={"pvalue_holm_difference": "pvalue_adj"})
    return out
