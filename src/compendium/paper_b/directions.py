r"""Paper B's verdicts with their direction: against Black people, against White people, or none.

Paper B tests most definitions one-sided, in the direction it calls discrimination against Black people, and
reads a one-sided p-value near 1 as *reverse discrimination* (a violation unfair to White people:
Sections II-C and II-D). Its McNemar tables (XX, XXV) are two-sided and it reads their direction from the
discordant counts.
This module keeps the direction of every verdict:

* :data:`PRINTED_VERDICTS` — what the paper's text says for each (definition, model), with the sentence;
* :func:`row_directions` — for each row of an adjusted battery (``battery_adjusted.csv``): which way the
  difference leans, the paper's procedure's verdict (its p-value, its reading of p > 1 - alpha), the correct
  test's verdict **in both directions** (one-sided p-values made two-sided, ``2 min(p, 1 - p)``), and Holm's
  and Benjamini-Hochberg's adjustment of those two-sided p-values over the battery;
* :func:`printed_number_directions` — the paper's procedure applied to the printed numbers themselves;
* :func:`conclusions_by_model` — one row per (definition, model), every source side by side.

Directions. A one-sided row's ``alternative`` is the paper's "against Black" side of White - Black
(``greater``: White higher, e.g. the favourable prediction rate; ``less``: White lower, e.g. the false
negative rate). Overall accuracy (Table X) is two-sided: higher accuracy for White people is against Black
people. A McNemar row of group g counts K = (original 1, other 0), people of g predicted to reoffend whose
race-flipped self (XX) or other-race neighbour (XXV) is not, and N-K the reverse: K > N-K is against g.
Calibration's chi-squared tests (XII, XIII) have no direction (``undirected``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from fairstats.multiplicity import adjust_pvalues

__all__ = [
    "AGAINST_BLACK",
    "AGAINST_WHITE",
    "MIXED",
    "NONE",
    "PRINTED_VERDICTS",
    "UNDIRECTED",
    "combine_directions",
    "conclusions_by_model",
    "printed_number_directions",
    "procedure_rows",
    "row_directions",
    "survival",
]

AGAINST_BLACK = "against Black"
AGAINST_WHITE = "against White"
MIXED = "mixed"  # against Black in one part of the definition, against White in another
NONE = "none"
UNDIRECTED = "undirected"  # a significant test without a direction (chi-squared)

_ALL = ("lr", "lda", "rf", "xgb")
_B, _W = AGAINST_BLACK, AGAINST_WHITE


def _each(direction: str, where: str, models=_ALL) -> dict[str, tuple[str, str]]:
    return {m: (direction, where) for m in models}


#: The paper's verdict for each (definition, model) as its text states it: (direction, where it says so).
#: Source: ../shared/papers/significant-fairness-violations-nij.txt, Sections II-B to II-O and the Conclusion.
PRINTED_VERDICTS: dict[str, dict[str, tuple[str, str]]] = {
    "group_fairness": _each(
        _B, "II-B: 'All of the machine learning algorithms are therefore biased against black individuals'"
    ),
    "predictive_parity": _each(
        _W,
        "II-C: 'reverse discrimination, as there is a statistically significant violation of predictive "
        "parity "
        "in a manner that is unfair to white individuals' (all algorithms)",
    ),
    "predictive_equality": {
        "lr": (
            _W,
            "II-D: 'For logistic regression, there seems to be reverse discrimination ... this disparity is "
            "statistically significant'",
        ),
        **_each(
            _B,
            "II-D: 'All models, excluding logistic regression, exhibit significant bias against black "
            "individuals'",
            ("lda", "rf", "xgb"),
        ),
    },
    "equal_opportunity": _each(
        _B, "II-E: 'with all models, black individuals have a higher false negative rate'"
    ),
    "equalized_odds": _each(
        _B,
        "II-F: 'under all models, at least one of the hypotheses can be rejected' (both tails set against "
        "black "
        "individuals)",
    ),
    "conditional_use_accuracy_equality": {
        "lr": (NONE, "II-G: 'all models, except logistic regression, violate'"),
        **_each(
            _B,
            "II-G: 'all models, except logistic regression, violate' (NPV right-tailed against black "
            "individuals)",
            ("lda", "rf", "xgb"),
        ),
    },
    "overall_accuracy_equality": _each(
        _B, "II-H: 'The prediction accuracy for white individuals is higher ... under every model'"
    ),
    "treatment_equality": {
        "lr": (NONE, "II-I: 'All models, aside from logistic regression, exhibit a significant disparity'"),
        **_each(
            _B,
            "II-I: 'all models, except for logistic regression, significantly violate' (left tail: "
            "against black individuals)",
            ("lda", "rf", "xgb"),
        ),
    },
    "calibration": {
        **_each(
            UNDIRECTED,
            "II-J: 'the logistic regression, linear discriminant analysis, and random forest "
            "model are biased' (no direction)",
            ("lr", "lda", "rf"),
        ),
        "xgb": (NONE, "II-J: 'all models, except for gradient boosting'"),
    },
    "well_calibration": {
        **_each(
            UNDIRECTED,
            "II-K: 'the logistic regression, linear discriminant analysis, and random forest "
            "model are biased' (no direction)",
            ("lr", "lda", "rf"),
        ),
        "xgb": (NONE, "II-K: 'all models, except for gradient boosting'"),
    },
    "balance_positive_class": _each(
        _B,
        "II-L: 'for each model, there is a statistically significant disparity' (left tail: against black "
        "individuals; the sentence names no direction)",
    ),
    "balance_negative_class": _each(
        _B,
        "II-M: 'for each model, there is a statistically significant disparity' (left tail: against black "
        "individuals; the sentence names no direction)",
    ),
    "causal_discrimination": {
        **_each(NONE, "II-N: only 'linear discriminant analysis and gradient boosting' differ", ("lr", "rf")),
        **_each(
            _W,
            "II-N: 'these models are not discriminatory and instead may be practicing reverse "
            "discrimination'; Conclusion: 'some models showcased reverse discrimination'",
            ("lda", "xgb"),
        ),
    },
    "fairness_through_awareness": _each(
        _B,
        "II-O: 'all of the models are biased against black individuals'; Conclusion: 'black individuals were "
        "treated more negatively that their white counterpart with the most similar attributes'",
    ),
}

#: Two-sided t rows: the metrics where a higher value is better for a group (White higher = against Black).
_HIGHER_IS_BETTER = frozenset({"accuracy"})
_MCNEMAR_METRICS = frozenset({"prediction_vs_counterfactual", "prediction_vs_neighbor"})
_CHI2_TESTS = frozenset({"calibration", "well_calibration"})


def _lean_t(alternative: str, metric: str, estimate: float) -> str:
    if not np.isfinite(estimate) or estimate == 0:
        return NONE
    if alternative == "greater":
        return _B if estimate > 0 else _W
    if alternative == "less":
        return _B if estimate < 0 else _W
    if alternative == "two-sided" and metric in _HIGHER_IS_BETTER:
        return _B if estimate > 0 else _W
    raise ValueError(f"`adjusted`: no direction for alternative {alternative!r} of metric {metric!r}")


def _lean_counts(group: str, k: float, n_minus_k: float) -> str:
    if not (np.isfinite(k) and np.isfinite(n_minus_k)) or k == n_minus_k:
        return NONE
    if group not in ("White", "Black"):
        raise ValueError(
            f"`adjusted`: column 'group' must be 'White' or 'Black' in a McNemar row, got {group!r}"
        )
    against_own = k > n_minus_k
    return {("White", True): _W, ("White", False): _B, ("Black", True): _B, ("Black", False): _W}[
        (group, against_own)
    ]


def procedure_rows(tests: pd.DataFrame) -> pd.DataFrame:
    """Rows of a test table of the authors' procedure, in the columns :func:`row_directions` reads.

    Parameters
    ----------
    tests : pandas.DataFrame
        A McNemar table (``causal_mcnemar.csv``, ``awareness_mcnemar.csv``: ``group, k, n_minus_k, pvalue,
        pvalue_as_published``) or a fold t-test table (``balance_reading_tests.csv``: ``estimate,
        pvalue_paper_formula, pvalue_corrected``) of rule ``authors_procedure_tables``, with ``table, model,
        test, metric, alternative, alpha``.

    Returns
    -------
    pandas.DataFrame
        ``table, hypothesis, model, test, metric, alternative, alpha, estimate, group, k, n_minus_k,
        pvalue_paper, pvalue_correct``: the paper's procedure's p-value (the printed McNemar formula; the
        paper's fold t) and the correct test's (the mid-p of Eq. 3; the corrected resampled t), one
        ``hypothesis`` per table, model and group.
    """
    t = tests.reset_index(drop=True)
    mcnemar = "pvalue_as_published" in t  # the McNemar tables; else a fold t-test table
    group = t["group"].fillna("").astype(str) if "group" in t else pd.Series([""] * len(t))
    out = pd.DataFrame(
        {
            "table": t["table"],
            "hypothesis": (t["table"] + " " + t["model"] + (" " + group).str.rstrip()),
            "model": t["model"],
            "test": t["test"],
            "metric": t["metric"],
            "alternative": t["alternative"],
            "alpha": t["alpha"],
            "estimate": t["estimate"] if "estimate" in t else np.nan,
            "group": group,
            "k": t["k"] if mcnemar else np.nan,
            "n_minus_k": t["n_minus_k"] if mcnemar else np.nan,
            "pvalue_paper": t["pvalue_as_published"] if mcnemar else t["pvalue_paper_formula"],
            "pvalue_correct": t["pvalue"] if mcnemar else t["pvalue_corrected"],
        }
    )
    return out


def row_directions(adjusted: pd.DataFrame, *, alpha: float) -> pd.DataFrame:
    """The direction of every row of an adjusted battery under the paper's procedure and the correct test.

    Parameters
    ----------
    adjusted : pandas.DataFrame
        ``battery_adjusted.csv`` of one source (rule ``adjust_battery``): ``table, hypothesis, model, test,
        metric, alternative, alpha, estimate, pvalue_paper, pvalue_correct`` and, for the McNemar rows,
        ``group, k, n_minus_k``. Rows of another source (e.g. the authors' refits for Table XX) may be
        appended with the same columns.
    alpha : float, keyword-only
        Family level of Holm and BH (the row's own ``alpha`` is the level of the unadjusted verdicts).

    Returns
    -------
    pandas.DataFrame
        ``adjusted`` with ``lean`` (which way the difference goes, significant or not), ``pvalue_both``
        (the correct test's two-sided p-value: ``min(1, 2 min(p, 1 - p))`` for a one-sided row),
        ``pvalue_both_holm``, ``pvalue_both_bh`` (over all rows, one per ``hypothesis``), and the verdicts
        ``paper_procedure``, ``corrected``, ``holm``, ``bh`` (a direction, ``none``, ``undirected``, or ``""``
        where the row has no such p-value).
    """
    required = [
        "table",
        "hypothesis",
        "model",
        "test",
        "metric",
        "alternative",
        "alpha",
        "pvalue_paper",
        "pvalue_correct",
    ]
    missing = [c for c in required if c not in adjusted]
    if missing:
        raise ValueError(f"`adjusted` lacks column(s) {missing}")
    out = adjusted.copy().reset_index(drop=True)
    for column in ("estimate", "k", "n_minus_k"):
        out[column] = pd.to_numeric(out[column], errors="coerce") if column in out else np.nan
    out["group"] = out["group"].fillna("").astype(str) if "group" in out else ""
    lean, both = [], []
    for r in out.itertuples(index=False):
        p = float(r.pvalue_correct) if pd.notna(r.pvalue_correct) else np.nan
        if r.test in _CHI2_TESTS:
            lean.append(UNDIRECTED)
            both.append(p)
        elif r.metric in _MCNEMAR_METRICS:
            lean.append(_lean_counts(r.group, r.k, r.n_minus_k))
            both.append(p)  # the mid-p of Eq. 3 with k = min(K, N - K) is two-sided already
        else:
            lean.append(_lean_t(r.alternative, r.metric, r.estimate))
            both.append(p if r.alternative == "two-sided" or np.isnan(p) else min(1.0, 2 * min(p, 1 - p)))
    out["lean"] = lean
    out["pvalue_both"] = both
    for method, short in (("holm", "holm"), ("fdr_bh", "bh")):
        out = adjust_pvalues(
            out,
            method=method,
            pvalue="pvalue_both",
            alpha=alpha,
            suffix=f"both_{short}",
            hypothesis="hypothesis",
        )

    def verdict(p: pd.Series, level: pd.Series | float, *, paper: bool = False) -> list[str]:
        values = []
        for i, r in enumerate(out.itertuples(index=False)):
            pi = p.iloc[i]
            a = level.iloc[i] if isinstance(level, pd.Series) else level
            if pd.isna(pi):
                values.append("")
            elif paper and r.alternative in ("greater", "less") and r.test not in _CHI2_TESTS:
                # the paper's one-sided p: below alpha against Black, above 1 - alpha its "reverse" reading
                values.append(_B if pi < a else _W if pi > 1 - a else NONE)
            else:
                values.append(r.lean if pi < a else NONE)
        return values

    level = pd.to_numeric(out["alpha"])
    out["paper_procedure"] = verdict(pd.to_numeric(out["pvalue_paper"], errors="coerce"), level, paper=True)
    out["corrected"] = verdict(out["pvalue_both"], level)
    out["holm"] = verdict(out["pvalue_both_holm"], alpha)
    out["bh"] = verdict(out["pvalue_both_bh"], alpha)
    return out


def combine_directions(values) -> str:
    """One verdict for a definition from its parts (tables, groups): a direction, ``mixed``, ``none``, ...

    ``""`` parts (no p-value) are left out; all left out gives ``""``.
    """
    present = [v for v in values if v != ""]
    if not present:
        return ""
    found = set(present) - {NONE}
    if not found:
        return NONE
    if UNDIRECTED in found:
        return UNDIRECTED if found == {UNDIRECTED} else MIXED
    return found.pop() if len(found) == 1 else MIXED


def _contains(verdict: str, direction: str) -> bool:
    return verdict == direction or (verdict == MIXED and direction in (_B, _W))


def survival(printed: str, corrected: str, holm: str, bh: str) -> str:
    """What becomes of the paper's verdict (with its direction) under the correct test, Holm and BH."""
    if corrected == "":
        return "no valid test" if printed != NONE else "no valid test; none claimed"
    if printed == NONE:
        if holm != NONE:
            return f"not claimed; {holm} after Holm"
        if bh != NONE:
            return f"not claimed; {bh} after BH only"
        if corrected != NONE:
            return f"not claimed; {corrected} before multiplicity control only"
        return "not claimed, none found"
    both = " (mixed: the other direction too)"
    if _contains(holm, printed):
        return "survives Holm" + (both if holm == MIXED else "")
    if _contains(bh, printed):
        return "survives BH only" + (both if bh == MIXED else "")
    if _contains(corrected, printed):
        return "lost under multiplicity control"
    if corrected not in (NONE, UNDIRECTED):
        return f"reversed: {corrected} under the correct test"
    return "lost under the correct test"


def printed_number_directions(published: pd.DataFrame, alternatives: pd.DataFrame) -> pd.DataFrame:
    """The paper's own procedure applied to its printed numbers: one direction per printed table row.

    Parameters
    ----------
    published : pandas.DataFrame
        The transcription ``data/published/paper-b-tables.csv``: ``table, row, column, published`` (strings,
        "~0" for a printed "$~0$").
    alternatives : pandas.DataFrame
        ``table, test, metric, alternative, alpha`` per table (from a battery).

    Returns
    -------
    pandas.DataFrame
        ``table, row, test, model_label, direction``: a one-sided printed p below alpha is against Black,
        above 1 - alpha against White (the paper's reading); a two-sided row (X) takes the printed disparity's
        sign; Tables XX and XXV compare the printed K with N-K when the printed p is below alpha; XII and XIII
        are ``undirected`` when significant.
    """
    pub = published.copy()
    pub["value"] = pd.to_numeric(pub["published"].astype(str).str.lstrip("~"), errors="coerce")
    wide = pub.pivot_table(
        index=["table", "row"], columns="column", values="value", aggfunc="first", sort=False
    )
    alt = alternatives.drop_duplicates("table").set_index("table")
    rows = []
    for (table, row), r in wide.iterrows():
        if table not in alt.index or "P-Value" not in r or pd.isna(r["P-Value"]):
            continue
        a = alt.loc[table]
        p, level = float(r["P-Value"]), float(a["alpha"])
        group = "Black" if "(Protected)" in row else "White" if "(Unprotected)" in row else ""
        if a["test"] in _CHI2_TESTS:
            d = UNDIRECTED if p < level else NONE
        elif a["metric"] in _MCNEMAR_METRICS:
            d = _lean_counts(group, r["K"], r["N-K"]) if p < level else NONE
        elif a["alternative"] in ("greater", "less"):
            d = _B if p < level else _W if p > 1 - level else NONE
        else:
            d = _lean_t(a["alternative"], a["metric"], r.get("Disparity", np.nan)) if p < level else NONE
        label = row.replace(" (Unprotected)", "").replace(" (Protected)", "")
        rows.append({"table": table, "row": row, "test": a["test"], "model_label": label, "direction": d})
    return pd.DataFrame(rows, columns=["table", "row", "test", "model_label", "direction"])


def conclusions_by_model(
    directions: Mapping[str, pd.DataFrame],
    printed_numbers: pd.DataFrame,
    *,
    labels: Mapping[str, str],
    three_way: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """One row per (definition, model): the printed verdict with its direction, and every source's.

    Parameters
    ----------
    directions : mapping of source name to pandas.DataFrame
        :func:`row_directions` of each source (e.g. ``authors``, ``rerun``, ``clean``).
    printed_numbers : pandas.DataFrame
        :func:`printed_number_directions`.
    labels : mapping
        Model code to the paper's label (``lr`` -> "Logistic Regression").
    three_way : mapping of source name to pandas.DataFrame, optional
        ``three_way.csv`` of each source (``model, test, verdict``): its verdicts joined per (definition,
        model) in column ``<source>_three_way``.

    Returns
    -------
    pandas.DataFrame
        ``test, model, tables, printed, printed_direction, printed_numbers_direction, paper_says`` and per
        source ``<source>_paper_procedure, <source>_corrected, <source>_holm, <source>_bh, <source>_status``
        (and ``<source>_three_way``), in the paper's order of definitions and models.
    """
    label_of = dict(labels)
    rows = []
    for test, per_model in PRINTED_VERDICTS.items():
        for model, (direction, where) in per_model.items():
            nums = printed_numbers[
                (printed_numbers["test"] == test)
                & (printed_numbers["model_label"] == label_of.get(model, model))
            ]
            tables = list(dict.fromkeys(nums["table"]))
            row = {
                "test": test,
                "model": model,
                "tables": "+".join(tables),
                "printed": "violation" if direction != NONE else "no violation",
                "printed_direction": direction,
                "printed_numbers_direction": combine_directions(nums["direction"]),
                "paper_says": where,
            }
            for source, frame in directions.items():
                part = frame[(frame["test"] == test) & (frame["model"] == model)]
                verdicts = {
                    c: combine_directions(part[c]) if len(part) else ""
                    for c in ("paper_procedure", "corrected", "holm", "bh")
                }
                for c, v in verdicts.items():
                    row[f"{source}_{c}"] = v
                row[f"{source}_status"] = (
                    survival(direction, verdicts["corrected"], verdicts["holm"], verdicts["bh"])
                    if len(part)
                    else ""
                )
                if three_way is not None:
                    tw = three_way.get(source)
                    found = (
                        [] if tw is None else tw.loc[(tw["test"] == test) & (tw["model"] == model), "verdict"]
                    )
                    row[f"{source}_three_way"] = "; ".join(dict.fromkeys(map(str, found)))
            rows.append(row)
    return pd.DataFrame(rows)
