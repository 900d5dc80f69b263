"""Multiplicity control: how many tests were run?

A battery of a dozen fairness definitions times four models is a family of some fifty tests; at α = 0.05 a
few "violations" are expected by chance alone. :func:`adjust_pvalues` applies Holm's step-down (family-wise
error) or Benjamini–Hochberg's step-up (false discovery rate) adjustment over a whole battery table, per
family (``by``), through :func:`statsmodels.stats.multitest.multipletests` (Holm's by the same formula
here: :func:`_holm`); :func:`three_way_verdicts` sets a difference test beside an equivalence test after Holm.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from fairstats._format import plain as _plain
from fairstats._validation import as_list, level_iv, require_columns, require_frame, require_no_nan

__all__ = [
    "ADJUST_METHODS",
    "REAL_WITHIN_MARGIN",
    "VERDICTS",
    "adjust_pvalues",
    "three_way_verdicts",
]

#: statsmodels ``multipletests`` methods accepted by :func:`adjust_pvalues`, with their column suffix.
ADJUST_METHODS: dict[str, str] = {"holm": "holm", "fdr_bh": "bh", "bonferroni": "bonferroni", "fdr_by": "by"}


def _pvalue_columns_iv(table: pd.DataFrame, pvalue: object) -> list[str]:
    columns = as_list(pvalue, name="pvalue")
    require_columns(table, columns, where="`table`")
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce")
        bad = table[c].notna() & values.isna()
        if bad.any():
            raise ValueError(
                f"`table`: column {c!r} has a non-numeric p-value {_plain(table.loc[bad, c].iloc[0])!r}"
            )
        out = values.notna() & ((values < 0) | (values > 1))
        if out.any():
            raise ValueError(
                f"`table`: column {c!r} has p-value {_plain(values[out].iloc[0])!r} outside [0, 1]"
            )
    return columns


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's adjusted p-values of ``p`` (1-D, no NaN), as ``multipletests(p, method="holm")[1]`` computes
    them: sorted, times m, m - 1, ..., 1, running maximum, capped at 1 (the same operations, so the same
    numbers; tested). Not through statsmodels because its Holm branch runs a full garbage collection
    (``gc.collect()``) at every call, 0.05 to 0.2 s in a process that holds an audit's imports, and an audit
    adjusts five families."""
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
    out = np.empty(p.size)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _coalesce(table: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """First non-NaN p-value among ``columns`` per row, and the column it came from ("" when none)."""
    p = np.full(len(table), np.nan)
    source = np.full(len(table), "", dtype=object)
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
        take = np.isnan(p) & ~np.isnan(values)
        p[take] = values[take]
        source[take] = c
    return p, source


def adjust_pvalues(
    table: pd.DataFrame,
    *,
    method: str = "holm",
    by: str | Sequence[str] | None = None,
    pvalue: str | Sequence[str] = "pvalue",
    alpha: float = 0.05,
    suffix: str | None = None,
    hypothesis: str | None = None,
) -> pd.DataFrame:
    r"""Multiplicity-adjusted p-values over a battery of tests, overall or per family.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per test (e.g. paper B's ``battery.csv``: one row per model, definition and metric).
    method : {"holm", "fdr_bh", "bonferroni", "fdr_by"}, default "holm"
        ``"holm"``: Holm's step-down, family-wise error rate; ``"fdr_bh"``: Benjamini–Hochberg step-up,
        false discovery rate (statsmodels ``multipletests`` names).
    by : str or list of str, optional
        Columns whose values define separate families (e.g. ``"model"``: each model's tests are one family).
        Default: the whole table is one family.
    pvalue : str or list of str, default "pvalue"
        Column of the p-values. A list takes, per row, the first non-NaN value (e.g.
        ``["pvalue_corrected", "pvalue"]`` for a battery whose χ² and McNemar rows have no corrected t).
    alpha : float, default 0.05
        Family level of the ``significant_<suffix>`` verdict.
    suffix : str, optional
        Names of the added columns (default: ``"holm"``, ``"bh"``, ``"bonferroni"`` or ``"by"``).
    hypothesis : str, optional
        Column naming the hypothesis each row tests. Rows of one family with the same hypothesis (e.g. paper
        B's Table VI, which repeats Table IV's test) enter the family once, with their first row's p-value,
        and all get its adjusted p-value. Default: every row is its own hypothesis.

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` in the same row order with added columns ``pvalue_<suffix>`` (adjusted, NaN where
        the row has no p-value), ``significant_<suffix>`` (``pvalue_<suffix> < alpha``),
        ``family_size_<suffix>`` (tests in the row's family with a p-value) and, when ``pvalue`` is a list,
        ``pvalue_source``.

    Raises
    ------
    ValueError
        Missing column, NaN in a ``by`` column, a p-value outside [0, 1] or not numeric, unknown ``method``,
        ``alpha`` outside (0, 1).
    TypeError
        ``table`` not a DataFrame, column names not strings.

    Notes
    -----
    With the m p-values of a family sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`, Holm's adjusted p-values
    are :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})` and Benjamini–Hochberg's
    :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m p_{(j)} / j)`; a test is significant when
    :math:`\tilde p < \alpha`. Holm controls the probability of any false violation in the family under any
    dependence; BH controls the expected share of false violations among those reported, under independence
    or positive dependence (which tests on the same predictions plausibly have). Rows without a p-value (NaN)
    are left out of the family and stay NaN.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6, 1979;
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B 57, 1995;
    statsmodels ``statsmodels.stats.multitest.multipletests``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["lr", "lr", "rf"], "pvalue": [0.01, 0.04, 0.03]})
    >>> adjust_pvalues(t, pvalue="pvalue")["pvalue_holm"].round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues(t, pvalue="pvalue", by="model")["pvalue_holm"].round(4).tolist()
    [0.02, 0.04, 0.03]
    """
    table = require_frame(table, name="table")
    if method not in ADJUST_METHODS:
        raise ValueError(f"`method` must be one of {list(ADJUST_METHODS)}, got {method!r}")
    alpha = level_iv(alpha, "alpha")
    columns = _pvalue_columns_iv(table, pvalue)
    by_columns = [] if by is None else as_list(by, name="by")
    require_columns(table, by_columns, where="`table`")
    require_no_nan(table, by_columns, where="`table`")
    if suffix is None:
        suffix = ADJUST_METHODS[method]
    if not isinstance(suffix, str) or not suffix:
        raise TypeError(f"`suffix` must be a non-empty string, got {suffix!r}")

    p, source = _coalesce(table, columns)
    if by_columns:
        family = table.groupby(by_columns, sort=False, dropna=False).ngroup().to_numpy()
    else:
        family = np.zeros(len(table), dtype=np.int64)
    if hypothesis is None:
        first = np.arange(len(table))
    else:
        require_columns(table, [hypothesis], where="`table`")
        require_no_nan(table, [hypothesis], where="`table`")
        keys = pd.DataFrame(
            {"row": np.arange(len(table)), "family": family, "hypothesis": table[hypothesis].to_numpy()}
        )
        first = keys.groupby(["family", "hypothesis"], sort=False)["row"].transform("first").to_numpy()
    distinct = first == np.arange(len(table))
    adjusted = np.full(len(table), np.nan)
    size = np.zeros(len(table), dtype=np.int64)
    for f in np.unique(family):
        rows = np.flatnonzero((family == f) & ~np.isnan(p) & distinct)
        size[family == f] = rows.size
        if rows.size:
            adjusted[rows] = (
                _holm(p[rows]) if method == "holm" else multipletests(p[rows], alpha=alpha, method=method)[1]
            )
    adjusted = adjusted[first]
    out = table.copy()
    if len(columns) > 1:
        out["pvalue_source"] = source
    out[f"pvalue_{suffix}"] = adjusted
    out[f"significant_{suffix}"] = adjusted < alpha
    out[f"family_size_{suffix}"] = size
    return out


#: The verdicts of :func:`three_way_verdicts`.
VERDICTS = ("disparity", "equivalent", "inconclusive", "undefined")
#: Note of the case "the difference is real but inside the margin" (verdict ``equivalent``).
REAL_WITHIN_MARGIN = "real but within the margin"


def three_way_verdicts(
    table: pd.DataFrame,
    *,
    pvalue: str = "pvalue",
    equivalence_pvalue: str = "equivalence_pvalue",
    alpha: float = 0.05,
    by: str | Sequence[str] | None = None,
    reason: str | None = None,
) -> pd.DataFrame:
    r"""``disparity`` / ``equivalent`` / ``inconclusive`` / ``undefined`` per comparison, after Holm.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per comparison, with the difference test's p-value and the equivalence test's
        (:mod:`fairstats.equivalence`).
    pvalue, equivalence_pvalue : str
        The two p-value columns (NaN: that test is undefined or does not exist).
    alpha : float, default 0.05
        Family-wise level of both families.
    by : str or list of str, optional
        Families (as :func:`adjust_pvalues`); default the whole table.
    reason : str, optional
        Column with why a row's difference test is undefined (copied into ``verdict_note``).

    Returns
    -------
    pandas.DataFrame
        A copy with ``pvalue_holm_difference``, ``pvalue_holm_equivalence`` (Holm-adjusted), ``verdict`` and
        ``verdict_note``.

    Notes
    -----
    Difference tests: Holm over the family. Equivalence tests: each is a TOST, an intersection–union test
    (both one-sided tests must reject, no adjustment within it, Berger & Hsu 1996); over the family the TOST
    p-values are adjusted by Holm as well, so that the chance of declaring *any* disparity equivalent while it
    is at least the margin stays below α. Then, per row:

    * difference p-value NaN → ``undefined`` (with ``reason``);
    * difference significant and equivalence significant → ``equivalent``, note
      ``"real but within the margin"`` (decided once: the difference is real, but smaller than what the
      auditor called relevant; with huge groups any difference becomes significant);
    * difference significant only → ``disparity``;
    * equivalence significant only → ``equivalent``;
    * neither → ``inconclusive`` (note when no equivalence test exists for the row).

    The two families are tested on the same data; a row cannot be ``disparity`` and ``equivalent`` at once
    by construction.

    References
    ----------
    S. Holm, Scand. J. Statist. 6, 1979; R. L. Berger and J. C. Hsu, "Bioequivalence trials,
    intersection-union tests and equivalence confidence sets", Statistical Science 11(4), 1996.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"pvalue": [1e-6, 1e-6, 0.5, 0.5, float("nan")],
    ...                   "equivalence_pvalue": [0.5, 1e-6, 1e-6, 0.5, 0.5]})
    >>> three_way_verdicts(t)["verdict"].tolist()
    ['disparity', 'equivalent', 'equivalent', 'inconclusive', 'undefined']
    """
    table = require_frame(table, name="table")
    alpha = level_iv(alpha, "alpha")
    _pvalue_columns_iv(table, [pvalue, equivalence_pvalue])
    if reason is not None:
        require_columns(table, [reason], where="`table`")
    out = adjust_pvalues(table, method="holm", by=by, pvalue=pvalue, alpha=alpha, suffix="holm_difference")
    out = adjust_pvalues(
        out, method="holm", by=by, pvalue=equivalence_pvalue, alpha=alpha, suffix="holm_equivalence"
    )
    p_diff = out["pvalue_holm_difference"].to_numpy(dtype=float)
    p_eq = out["pvalue_holm_equivalence"].to_numpy(dtype=float)
    verdicts, notes = [], []
    for i in range(len(out)):
        if np.isnan(p_diff[i]):
            why = str(out[reason].iloc[i]) if reason is not None and pd.notna(out[reason].iloc[i]) else ""
            verdicts.append("undefined")
            notes.append(f"difference test undefined{': ' + why if why else ''}")
        elif p_diff[i] < alpha and p_eq[i] < alpha:
            verdicts.append("equivalent")
            notes.append(REAL_WITHIN_MARGIN)
        elif p_diff[i] < alpha:
            verdicts.append("disparity")
            notes.append("")
        elif p_eq[i] < alpha:
            verdicts.append("equivalent")
            notes.append("")
        else:
            verdicts.append("inconclusive")
            notes.append("no equivalence test for this comparison" if np.isnan(p_eq[i]) else "")
    for c in ("significant_holm_difference", "significant_holm_equivalence", "family_size_holm_difference",
              "family_size_holm_equivalence"):
        del out[c]
    out["verdict"] = verdicts
    out["verdict_note"] = notes
    return out
