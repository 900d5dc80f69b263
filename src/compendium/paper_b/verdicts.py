"""Which of paper B's violations survive: the paper's verdict beside the corrected t, Holm and BH.

One row per model and fairness definition of a battery table (:mod:`compendium.paper_b.battery`), written on
the library's multiplicity adjustment (:func:`fairstats.adjust_pvalues`). Moved here from
``fairstats.multiplicity`` (issue 24): the verdict vocabulary ("no violation (as the paper)") is the
reproduction's, not the library's; the tables it writes are unchanged to the last bit.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairstats import adjust_pvalues

__all__ = ["PAPER_VERDICTS", "verdict_table"]

#: The verdicts of :func:`verdict_table`, from the strongest.
PAPER_VERDICTS = (
    "violation survives",
    "survives FDR (BH) only",
    "lost under multiplicity control",
    "lost under the corrected t",
    "violation the paper did not report",
    "no violation (as the paper)",
    "no p-value",
)

_TRUE = frozenset({"true", "yes", "1", "1.0"})
_FALSE = frozenset({"false", "no", "0", "0.0"})


def _names(value: object, *, name: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"`{name}` must be a column name or a non-empty list of column names, got {value!r}")


def _battery_iv(battery: object, by: list[str], test: str, paper: str) -> pd.DataFrame:
    if not isinstance(battery, pd.DataFrame):
        raise TypeError(f"`battery` must be a pandas DataFrame, got {type(battery).__name__}")
    if len(battery) == 0:
        raise ValueError("`battery` is empty (0 rows)")
    missing = [c for c in [*by, test, paper] if c not in battery.columns]
    if missing:
        hints = []
        for c in missing:
            close = difflib.get_close_matches(c, [str(x) for x in battery.columns], n=1)
            hints.append(f"{c!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ValueError(f"`battery`: missing column(s) {', '.join(hints)}")
    for c in [*by, test]:
        isna = battery[c].isna().to_numpy()
        if isna.any():
            first = battery.index[np.flatnonzero(isna)[0]]
            raise ValueError(
                f"`battery`: column {c!r} has {int(isna.sum())} missing value(s) (NaN), "
                f"first at row {first!r}"
            )
    return battery


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


def _first_pvalue(table: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """First non-NaN p-value among ``columns`` per row (as :func:`fairstats.adjust_pvalues` takes it)."""
    p = np.full(len(table), np.nan)
    for c in columns:
        values = pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
        take = np.isnan(p) & ~np.isnan(values)
        p[take] = values[take]
    return p


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
        :func:`fairstats.adjust_pvalues`).
    paper : str, default "significant_paper"
        Column of the paper's verdict per row: booleans, the numbers 0/1, or the text True/False, yes/no,
        1/0 (any case); any other value is refused.
    family : str or list of str, optional
        Families of the multiplicity adjustment (default: the whole battery is one family; ``"model"``: each
        model's tests).
    hypothesis : str, optional
        Column naming the hypothesis each row tests; rows with the same one count once in the family (see
        :func:`fairstats.adjust_pvalues`).

    Returns
    -------
    pandas.DataFrame
        One row per (``by``, ``test``) in the battery's order: ``*by, test, n_tests, n_tested`` (rows with a
        p-value), ``paper`` (any row significant as published), ``corrected`` (any row with
        ``pvalue < alpha`` of that row, i.e. the paper's α and its Bonferroni α / 2), ``holm``, ``bh`` (any
        row with adjusted p < ``alpha``), ``pvalue_min`` (smallest corrected p), ``pvalue_holm_min``,
        ``pvalue_bh_min`` and ``verdict``, one of :data:`PAPER_VERDICTS`: ``"violation survives"`` (paper and
        Holm), ``"survives FDR (BH) only"``, ``"lost under multiplicity control"`` (corrected t but neither
        adjustment), ``"lost under the corrected t"``, ``"violation the paper did not report"``,
        ``"no violation (as the paper)"`` and ``"no p-value"``.

    Raises
    ------
    ValueError, TypeError
        As :func:`fairstats.adjust_pvalues`; a missing ``test``, ``by`` or ``paper`` column; a ``paper``
        value that is not one of the verdict spellings above.

    Notes
    -----
    The corrected verdict keeps the paper's per-test level (Bonferroni alpha / 2 for two-test definitions);
    Holm and BH replace it by one adjustment over the family, so the two-test definitions are not penalised
    twice.

    References
    ----------
    See :func:`fairstats.adjust_pvalues`; paper B, Sections II-B to II-O (the verdicts).

    Examples
    --------
    >>> import pandas as pd
    >>> b = pd.DataFrame({"model": "lr", "test": ["a", "b", "c"], "pvalue_corrected": [0.001, 0.045, 0.2],
    ...                   "significant_paper": True})
    >>> verdict_table(b, pvalue="pvalue_corrected")["verdict"].tolist()
    ['violation survives', 'lost under multiplicity control', 'lost under the corrected t']
    """
    by_columns = _names(by, name="by")
    if not isinstance(test, str) or not isinstance(paper, str):
        raise TypeError("`test` and `paper` must be column names")
    battery = _battery_iv(battery, by_columns, test, paper)
    columns = _names(pvalue, name="pvalue")
    adjusted = adjust_pvalues(  # validates alpha, the p-value columns, family and hypothesis
        battery, method="holm", by=family, pvalue=columns, alpha=alpha, suffix="holm", hypothesis=hypothesis
    )
    adjusted = adjust_pvalues(
        adjusted, method="fdr_bh", by=family, pvalue=columns, alpha=alpha, suffix="bh", hypothesis=hypothesis
    )
    alpha = float(alpha)
    p = _first_pvalue(battery, columns)
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
