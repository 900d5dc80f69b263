"""The three-way verdicts of ``fairstats audit`` in plain words: one sentence per comparison.

Kept apart from :mod:`fairstats.auditing.report` (which lays out the report) so that the report's layout can
change without touching the wording: :func:`verdict_sentences` returns one plain-text sentence and the verdict
per comparison, which the report's templates escape (Markdown and HTML) like every other data string, and
:func:`verdict_counts` the terminal summary's line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairstats._format import pvalue_relation
from fairstats.auditing.writing import one_line

__all__ = ["VERDICT_INTRO", "verdict_counts", "verdict_sentence", "verdict_sentences"]

#: The report's explanation of the verdicts, above the sentences.
VERDICT_INTRO = (
    "A comparison that is not significant is not thereby fair: the test may have been too weak to see a "
    "difference. Each comparison therefore gets one of four verdicts: disparity (the difference test is "
    "significant after Holm's adjustment), equivalent (an equivalence test shows the difference is inside "
    "the margin, also after Holm), inconclusive (neither: the data cannot tell) or undefined (a test could "
    "not be computed; the reason is given). A difference that is real but smaller than the margin counts as "
    "equivalent, with a note. The mde column of tests.csv is the smallest difference the test detects with "
    "80 % power."
)

_SCORE = ("mean_score_pos", "mean_score_neg")
_NAMES = {
    "ppr": "shares predicted {fav}",
    "tpr": "true positive rates",
    "fpr": "false positive rates",
    "fnr": "false negative rates",
    "ppv": "positive predictive values",
    "npv": "negative predictive values",
    "accuracy": "accuracies",
    "fn_fp_ratio": "ratios of false negatives to false positives",
    "mean_score_pos": "mean scores of people with actual {fav}",
    "mean_score_neg": "mean scores of people with actual {other}",
    "calibration": "outcome rates within score bins",
}


def _text(value: object) -> str:
    """A data string on one line (the report's templates escape the whole sentence)."""
    return one_line(value)


def _size(value: float, metric: str) -> str:
    """A difference in words: points for rates, score units for mean scores."""
    if metric in _SCORE:
        return f"{abs(value):.3f} on the score scale"
    points = 100 * abs(value)
    return f"{points:.1f} points" if points < 10 else f"{points:.0f} points"


def verdict_sentence(row: dict, *, labels: tuple[str, str] = ("1", "0"), confidence: float = 0.95) -> str:
    """One comparison of ``tests.csv`` (a row as a dict) in plain words (the verdict is shown beside it).

    The "at most" bound is the larger absolute end of the equivalence test's :math:`1 - 2\\alpha` interval,
    which with 0 added is a :math:`1 - \\alpha` confidence set (Hsu, Hwang, Liu and Ruberg, Biometrika 81,
    1994); hence "95 % confidence" at α = 0.05.
    """
    fav, other = labels
    metric = str(row["metric"])
    what = _NAMES.get(metric, metric).format(fav=_text(fav), other=_text(other))
    who = f"{_text(row['grouping'])} = {_text(row['group'])} vs {_text(row['reference'])}"
    verdict = row["verdict"]
    level = f"{100 * confidence:.0f} % confidence"
    ratio = row.get("margin_low", 0) > 0 and metric not in _SCORE
    if ratio:
        margin = f"margin {row['margin_low']:.2f} to {row['margin_high']:.2f} for the ratio"
    elif np.isfinite(row.get("margin_high", np.nan)):
        margin = f"margin ±{_size(row['margin_high'], metric)}"
    else:
        margin = "no equivalence test"
    if verdict == "undefined":
        return f"{who}: the {what} could not be compared: {_text(row['verdict_note'])} ."
    if verdict == "disparity":
        p = row["pvalue_adj"]
        size = "" if metric == "fn_fp_ratio" else f", a difference of {_size(row['estimate'], metric)}"
        return (
            f"{who}: the {what} differ: {row['value_group']:.3f} vs {row['value_reference']:.3f}{size} "
            f"(Holm-adjusted p {pvalue_relation(p)}; {margin})."
        )
    if metric == "fn_fp_ratio":  # tested (and bounded) as the share FN / (FN + FP)
        what = "shares of false negatives among the errors (FN / (FN + FP))"
    if verdict == "equivalent":
        low, high = row["equivalence_ci_low"], row["equivalence_ci_high"]
        if ratio:
            bound = f"their ratio lies between {min(low, 1):.2f} and {max(high, 1):.2f} ({level})"
        elif np.isfinite(low) and np.isfinite(high):
            bound = f"differ by at most {_size(max(abs(low), abs(high)), metric)} ({level})"
        else:
            bound = "differ by less than the margin"
        real = ""
        if row.get("verdict_note") and metric != "fn_fp_ratio":
            real = f"; the difference of {_size(row['estimate'], metric)} is real, but within the margin"
        return f"{who}: the {what} {bound}; {margin}{real}."
    mde = row.get("mde", np.nan)
    n = int(min(row["n_group"], row["n_reference"])) if np.isfinite(row["n_group"]) else 0
    smaller = _text(row["group"]) if row["n_group"] <= row["n_reference"] else _text(row["reference"])
    if not np.isfinite(row.get("equivalence_pvalue", np.nan)):
        tail = "there is no equivalence test for this comparison"
    elif np.isfinite(mde) and mde > row.get("margin_high", np.inf) and not ratio:
        few = "too few folds or people" if "folds" in str(row.get("method", "")) else "too few people"
        tail = (
            f"{few} ({n:,} in group {smaller}) to tell either way: a difference below "
            f"{_size(mde, metric)} would go unseen (80 % power)"
        )
    else:
        tail = "the data cannot tell whether the difference is within the margin"
        if np.isfinite(mde):
            tail += f" (a difference below {_size(mde, metric)} could go unseen, 80 % power)"
    return f"{who}: the {what}: {tail}; {margin}."


def verdict_sentences(
    tests: pd.DataFrame,
    equal: pd.DataFrame,
    *,
    labels: tuple[str, str],
    alpha: float,
) -> list[dict[str, str]]:
    """The report's three-way verdicts: ``{"text": sentence, "verdict": verdict}`` for each equal confusion
    test, then each comparison (plain text; the templates escape it)."""
    out = []
    confidence = 1 - alpha
    for row in equal.to_dict(orient="records"):
        name = _text(row["grouping"])
        v, upper, margin = row["verdict"], row["cramers_v_upper"], row["cramers_v_margin"]
        if v == "equivalent":
            text = f"Cramér's V is at most {upper:.3f} ({100 * confidence:.0f} % confidence), "
            text += f"below {margin:g}"
        elif v == "disparity":
            text = f"the confusion matrices differ (V = {row['cramers_v']:.3f})"
        else:
            text = (
                f"cannot tell whether V is below {margin:g} (upper bound {upper:.3f}; a V below "
                f"{row['mde']:.3f} could go unseen)"
            )
        note = row.get("verdict_note")
        note = f"; {note}" if isinstance(note, str) and note else ""
        out.append({"text": f"equal confusion by {name}: {text}{note}.", "verdict": v})
    for row in tests.to_dict(orient="records"):
        text = verdict_sentence(row, labels=labels, confidence=confidence)
        out.append({"text": text, "verdict": row["verdict"]})
    return out


def verdict_counts(tests: pd.DataFrame) -> str:
    """``"3 disparity, 5 equivalent, 10 inconclusive, 0 undefined"`` for the terminal summary."""
    counts = tests["verdict"].value_counts() if len(tests) else pd.Series(dtype=int)
    return ", ".join(
        f"{int(counts.get(v, 0))} {v}" for v in ("disparity", "equivalent", "inconclusive", "undefined")
    )
