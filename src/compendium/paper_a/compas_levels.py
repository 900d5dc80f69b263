"""COMPAS with its three-level decision (issue 17 A): the violent risk level Low / Medium / High against
two-year violent recidivism, instead of paper A's two levels (Medium and High counted as positive).

Only the library's public API is used (:func:`fairstats.decision_table`, :class:`fairstats.ContingencyTable`,
:func:`fairstats.equal_confusion_test`, :func:`fairstats.level_rate_tests`,
:func:`fairstats.ordinal_shift_tests`), as any user would; this module arranges the results as tidy tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

import fairstats

__all__ = ["three_level_tables"]


def three_level_tables(
    frame: pd.DataFrame,
    *,
    groupings: Mapping[str, Sequence[str]],
    decision: str,
    decision_levels: Sequence[str],
    ordered: bool = True,
    y_true: str = "y_true",
    alpha: float = 0.05,
    n_resamples: int = 9999,
    seed: int = 0,
) -> dict[str, pd.DataFrame]:
    """The multi-level audit of the filtered COMPAS data, one tidy table per kind.

    Parameters
    ----------
    frame : pandas.DataFrame
        Filtered COMPAS rows (:func:`compendium.data.compas.filter_compas`), with ``decision`` (e.g.
        ``score_level``, the text of ``v_score_text``) and ``y_true``.
    groupings : mapping name -> list of columns
        As ``compas.groupings`` of the configuration.
    decision, decision_levels, ordered
        The decision column and its levels, low to high when ``ordered``.
    alpha : float
        Family-wise level of the per-level and ordinal comparisons (Holm within each grouping).
    n_resamples, seed
        Of the permutation p-value of the equal confusion test (when Cochran's rule fails).

    Returns
    -------
    dict of str to pandas.DataFrame
        ``equal_confusion`` (one row per grouping), ``residuals`` (one row per grouping, group and cell),
        ``level_tests`` and, when ``ordered``, ``ordinal_tests`` (one row per comparison), each with a
        ``grouping`` column first.
    """
    equal, residuals, levels, ordinal = [], [], [], []
    for i, (name, columns) in enumerate(groupings.items()):
        table = fairstats.decision_table(
            frame, group=list(columns), y_true=y_true, y_pred=decision, decision_levels=list(decision_levels)
        )
        observed = fairstats.ContingencyTable.from_observed(table)
        res = fairstats.equal_confusion_test(observed, alpha=alpha, n_resamples=n_resamples, rng=seed + i)
        equal.append(
            {
                "grouping": name,
                "statistic": res.statistic,
                "df": res.df,
                "pvalue": res.pvalue,
                "pvalue_permutation": res.pvalue_permutation,
                "cramers_v": res.cramers_v,
                "effect_size": res.effect_size,
                "n": res.n,
                "n_groups": res.observed.shape[0],
                "n_cells": res.observed.shape[1],
                "cochran_ok": res.cochran_ok,
                "min_expected": res.cochran_min_expected,
                "notes": "; ".join(res.notes),
            }
        )
        residuals.append(res.to_frame().assign(grouping=name))
        rates = fairstats.level_rate_tests(table, alpha=alpha)
        levels.append(rates.table.assign(grouping=name))
        if ordered:
            shifts = fairstats.ordinal_shift_tests(table, reference=rates.reference, alpha=alpha).table
            ordinal.append(shifts.assign(grouping=name))
    out = {
        "equal_confusion": pd.DataFrame(equal),
        "residuals": pd.concat(residuals, ignore_index=True),
        "level_tests": pd.concat(levels, ignore_index=True),
    }
    if ordered:
        out["ordinal_tests"] = pd.concat(ordinal, ignore_index=True)
    return {k: v[["grouping", *[c for c in v.columns if c != "grouping"]]] for k, v in out.items()}
