"""Multiplicity control: how many tests were run?

A battery of a dozen fairness definitions times four models is a family of some fifty tests; at α = 0.05 a
few "violations" are expected by chance alone. :func:`adjust_pvalues` applies Holm's step-down (family-wise
error) or Benjamini–Hochberg's step-up (false discovery rate) adjustment over a whole battery table, per
family (``by``), through :func:`statsmodels.stats.multitest.multipletests`; :func:`verdict_table` sets the
paper's verdict beside the corrected t and both adjustments, one row per model and fairness definition.
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
    "verdict_table",
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
            adjusted[rows] = multipletests(p[rows], alpha=alpha, method=method)[1]
    adjusted = adjusted[first]
    out = table.copy()
    if len(columns) > 1:
        out["pvalue_source"] = source
    out[f"pvalue_{suffix}"] = adjusted
    out[f"significant_{suffix}"] = adjusted < alpha
    out[f"family_size_{suffix}"] = size
    return out


_TRUE = frozenset({"true", "yes", "1", "1.0"})
_FALSE = frozenset({"false", "no", "0", "0.0"})


def _as_bool(values: pd.Series, *, column: str) -> np.ndarray:
    """True/False from booleans, the numbers 0/1, or the text True/False, yes/no, 1/0 (any case, CSV round
    trip); anything else (NaN, 2, "maybe") raises ValueError naming the column, the row and the value."""
    out = np.empty(len(values), dtype=bool)
    for i, v in enumerate(values.to_numpy(dtype=object)):
        if isinstance(v, bool | np.bool_):
            out[i] = bool(v)
            continue
        if isinstance(v, int | np.integer | float | np.floating) and not isinstance(v, bool) and v in (0, 1):
            out[i] = bool(v)
            continue
        text = v.strip().lower() if isinstance(v, str) else None
        if text in _TRUE or text in _FALSE:
            out[i] = text in _TRUE
            continue
        raise ValueError(
            f"`battery` column {column!r}, row {values.index[i]!r}: {v!r} is not a verdict; use True/False, "
            "yes/no or 1/0"
        )
    return out


def verdict_table(
    battery: pd.DataFrame,
    *,
    alpha: float = 0.05,
    by: str | Sequence[str] = ("model",),
    test: str = "test",
    pvalue: str | Sequence[str] = "pvalue",
    paper: str = "significant_paper",
    family: str | Sequence[str] | None = None,
    hypothesis: str | None = None,
) -> pd.DataFrame:
    """Which of a battery's violations survive: the paper's verdict, the corrected t, Holm and BH.

    Parameters
    ----------
    battery : pandas.DataFrame
        One row per test, e.g. paper B's ``battery.csv`` (``table, model, test, metric, alternative, alpha,
        ..., pvalue_corrected, significant_paper, significant_corrected, source``).
    alpha : float, default 0.05
        Family level of the Holm and BH verdicts (and the corrected t's level when the battery has no
        ``alpha`` column).
    by : str or list of str, default ("model",)
        Columns that, with ``test``, make one row of the verdict table.
    test : str, default "test"
        Column naming the fairness definition; a definition with several rows (e.g. equalized odds: TPR and
        FPR) is violated when any of its rows is.
    pvalue : str or list of str, default "pvalue"
        p-value column(s) of the corrected verdicts (a list: first non-NaN per row, see
        :func:`adjust_pvalues`).
    paper : str, default "significant_paper"
        Column of the paper's verdict per row: booleans, the numbers 0/1, or the text True/False, yes/no,
        1/0 (any case); any other value is refused.
    family : str or list of str, optional
        Families of the multiplicity adjustment (default: the whole battery is one family; ``"model"``: each
        model's tests).
    hypothesis : str, optional
        Column naming the hypothesis each row tests; rows with the same one count once in the family (see
        :func:`adjust_pvalues`).

    Returns
    -------
    pandas.DataFrame
        One row per (``by``, ``test``) in the battery's order: ``*by, test, n_tests, n_tested`` (rows with a
        p-value), ``paper`` (any row significant as published), ``corrected`` (any row with
        ``pvalue < alpha`` of that row, i.e. the paper's α and its Bonferroni α / 2), ``holm``, ``bh`` (any
        row with adjusted p < ``alpha``), ``pvalue_min`` (smallest corrected p), ``pvalue_holm_min``,
        ``pvalue_bh_min`` and ``verdict``, one of: ``"violation survives"`` (paper and Holm),
        ``"survives FDR (BH) only"``, ``"lost under multiplicity control"`` (corrected t but neither
        adjustment), ``"lost under the corrected t"``, ``"violation the paper did not report"``,
        ``"no violation (as the paper)"`` and ``"no p-value"``.

    Raises
    ------
    ValueError, TypeError
        As :func:`adjust_pvalues`; a missing ``test``, ``by`` or ``paper`` column; a ``paper`` value that is
        not one of the verdict spellings above.

    Notes
    -----
    The corrected verdict keeps the paper's per-test level (Bonferroni alpha / 2 for two-test definitions);
    Holm and BH replace it by one adjustment over the family, so the two-test definitions are not penalised
    twice.

    References
    ----------
    See :func:`adjust_pvalues`; paper B, Sections II-B to II-O (the verdicts).

    Examples
    --------
    >>> import pandas as pd
    >>> b = pd.DataFrame({"model": "lr", "test": ["a", "b", "c"], "pvalue_corrected": [0.001, 0.045, 0.2],
    ...                   "significant_paper": True})
    >>> verdict_table(b, pvalue="pvalue_corrected")["verdict"].tolist()
    ['violation survives', 'lost under multiplicity control', 'lost under the corrected t']
    """
    battery = require_frame(battery, name="battery")
    by_columns = as_list(by, name="by")
    if not isinstance(test, str) or not isinstance(paper, str):
        raise TypeError("`test` and `paper` must be column names")
    require_columns(battery, [*by_columns, test, paper], where="`battery`")
    require_no_nan(battery, [*by_columns, test], where="`battery`")
    alpha = level_iv(alpha, "alpha")
    columns = _pvalue_columns_iv(battery, pvalue)
    adjusted = adjust_pvalues(
        battery, method="holm", by=family, pvalue=columns, alpha=alpha, suffix="holm", hypothesis=hypothesis
    )
    adjusted = adjust_pvalues(
        adjusted, method="fdr_bh", by=family, pvalue=columns, alpha=alpha, suffix="bh", hypothesis=hypothesis
    )
    p, _ = _coalesce(battery, columns)
    row_alpha = (
        pd.to_numeric(battery["alpha"], errors="coerce").fillna(alpha).to_numpy(dtype=float)
        if "alpha" in battery.columns
        else np.full(len(battery), alpha)
    )
    frame = pd.DataFrame(
        {
            **{c: battery[c].to_numpy() for c in by_columns},
            test: battery[test].to_numpy(),
            "_tested": ~np.isnan(p),
            "_paper": _as_bool(battery[paper], column=paper),
            "_corrected": p < row_alpha,
            "_holm": adjusted["significant_holm"].to_numpy(),
            "_bh": adjusted["significant_bh"].to_numpy(),
            "_p": p,
            "_p_holm": adjusted["pvalue_holm"].to_numpy(),
            "_p_bh": adjusted["pvalue_bh"].to_numpy(),
        }
    )
    out = (
        frame.groupby([*by_columns, test], sort=False)
        .agg(
            n_tests=("_tested", "size"),
            n_tested=("_tested", "sum"),
            paper=("_paper", "any"),
            corrected=("_corrected", "any"),
            holm=("_holm", "any"),
            bh=("_bh", "any"),
            pvalue_min=("_p", "min"),
            pvalue_holm_min=("_p_holm", "min"),
            pvalue_bh_min=("_p_bh", "min"),
        )
        .reset_index()
    )
    out["n_tested"] = out["n_tested"].astype(np.int64)

    def verdict(row) -> str:
        if row["n_tested"] == 0:
            return "no p-value"
        if row["paper"]:
            if row["holm"]:
                return "violation survives"
            if row["bh"]:
                return "survives FDR (BH) only"
            if row["corrected"]:
                return "lost under multiplicity control"
            return "lost under the corrected t"
        if row["holm"] or row["bh"] or row["corrected"]:
            return "violation the paper did not report"
        return "no violation (as the paper)"

    out["verdict"] = out.apply(verdict, axis=1) if len(out) else pd.Series(dtype=object)
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
