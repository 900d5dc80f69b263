"""Paper B's four models against each other: which is fairer than which, beyond chance (issue 42).

Paper B reports each model's violations separately; its four models were fitted on the same 250 folds and
scored the same people, so each pair can be compared with a paired test. :func:`model_comparison` runs
:func:`fairstats.disparity_change` for every pair of the four models (the baseline the earlier in Table I's
order, LR, LDA, RF, XGBoost), on every outcome-based definition of the paper (one row per metric: a definition
with two metrics is two rows, and equal opportunity's FNR is 1 - TPR, whose change on the difference scale is
TPR's with the sign flipped), by race (Black against White):

* ``source="rerun", inference="folds"``: the rerun's out-of-fold predictions, the corrected resampled t over
  the 250 shared folds (the two learning procedures);
* ``source="rerun", inference="people"``: the same predictions, the paired delta method over the 25,750
  people (these predictions as given: it ignores that each fold's models were trained on different data, so
  it is shown beside the fold version, not instead of it);
* ``source="authors", inference="folds"``: the authors' committed per-fold rates of each model and race
  (:func:`compendium.paper_b.authors.authors_fold_metrics`) and per-fold accuracies, through
  :func:`fairstats.fold_disparity_change` (no scores: no mean score or AUC rows).

Holm's and Benjamini-Hochberg's adjustments run over all six pairs at once, one family per source, inference
and family (:func:`fairstats.disparity_change_verdicts`), so that "fairer beyond chance" holds for the whole
table. :func:`fairer_pairs` lists the pairs the table finds fairer or less fair (:func:`fairer_text` in
words), :func:`verdict_counts` counts the verdicts (rule ``summarise_model_comparison`` writes both);
:func:`comparison_figure` draws the changes with their intervals.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.paper_b.authors import authors_fold_metrics
from compendium.paper_b.fold_accuracy import read_authors_fold_accuracy
from compendium.paper_b.models import MODEL_NAMES
from fairstats import (
    DISPARITY_CHANGE_COLUMNS,
    disparity_change,
    disparity_change_verdicts,
    fold_disparity_change,
)

__all__ = [
    "COMPARISON_COLUMNS",
    "DEFINITIONS",
    "RERUN_METRICS",
    "AUTHORS_METRICS",
    "comparison_figure",
    "fairer_pairs",
    "fairer_text",
    "model_comparison",
    "model_pairs",
    "verdict_counts",
]

#: The rerun's metrics (each once; with the scores, the mean scores and the AUC).
RERUN_METRICS = (
    "ppr",
    "tpr",
    "fpr",
    "ppv",
    "npv",
    "accuracy",
    "fn_fp_ratio",
    "mean_score_pos",
    "mean_score_neg",
    "auc",
)
#: The metrics of the authors' per-fold files (no scores).
AUTHORS_METRICS = ("ppr", "tpr", "fpr", "ppv", "npv", "accuracy", "fn_fp_ratio")
#: Paper B's definitions (Sections II-B to II-M) each metric's row answers; ``auc`` is beyond the paper.
DEFINITIONS = {
    "ppr": "group fairness (II-B)",
    "tpr": "equal opportunity (II-E, FNR = 1 - TPR); equalized odds (II-F)",
    "fpr": "predictive equality (II-D); equalized odds (II-F)",
    "ppv": "predictive parity (II-C); conditional use accuracy equality (II-G)",
    "npv": "conditional use accuracy equality (II-G)",
    "accuracy": "overall accuracy equality (II-H)",
    "fn_fp_ratio": "treatment equality (II-I)",
    "mean_score_pos": "balance for the positive class (II-L)",
    "mean_score_neg": "balance for the negative class (II-M)",
    "auc": "beyond the paper: discrimination (AUC) by race",
}
#: Columns of the table: the comparison's keys, the library's columns, and the definitions.
COMPARISON_COLUMNS = ("source", "inference", "baseline", "model", *DISPARITY_CHANGE_COLUMNS, "definitions")
#: The race labels of the rerun's predictions; the authors' files say ``White``/``Black``.
REFERENCE = "WHITE"


def model_pairs(models=MODEL_NAMES) -> list[tuple[str, str]]:
    """Every (baseline, model) pair, the baseline the earlier in ``models``' order (Table I's)."""
    return list(itertools.combinations(models, 2))


def _wide(predictions: pd.DataFrame, baseline: str, model: str) -> pd.DataFrame:
    """One row per person with both models' decisions and scores (the same people, folds and outcome)."""
    keys = ["ID", "fold", "race", "y_true"]
    parts = []
    for name, tag in ((baseline, "baseline"), (model, "model")):
        part = predictions.loc[predictions["model"] == name, [*keys, "y_pred", "y_score"]]
        parts.append(part.rename(columns={"y_pred": f"y_pred_{tag}", "y_score": f"y_score_{tag}"}))
    wide = parts[0].merge(parts[1], on=keys, how="outer", validate="one_to_one", indicator=True)
    if (wide["_merge"] != "both").any():
        raise ValueError(
            f"predictions of {baseline!r} and {model!r} are not of the same people, folds and outcomes"
        )
    wide = wide.drop(columns="_merge")
    wide["race"] = wide["race"].astype(str)
    return wide


def _rerun(predictions, pairs, *, favorable, alpha, margin, inference) -> list[pd.DataFrame]:
    parts = []
    for baseline, model in pairs:
        res = disparity_change(
            _wide(predictions, baseline, model),
            group="race",
            y_true="y_true",
            y_pred="y_pred_model",
            y_pred_baseline="y_pred_baseline",
            y_score="y_score_model",
            y_score_baseline="y_score_baseline",
            fold="fold" if inference == "folds" else None,
            reference=REFERENCE,
            metrics=RERUN_METRICS,
            favorable=favorable,
            alpha=alpha,
            margin=margin,
        )
        parts.append(res.table.assign(source="rerun", inference=inference, baseline=baseline, model=model))
    return parts


def _authors(raw_dir, pairs, *, alpha, margin) -> list[pd.DataFrame]:
    rates = authors_fold_metrics(raw_dir)
    rates = rates[rates["metric"].isin(AUTHORS_METRICS)].assign(group=lambda f: f["group"].str.upper())
    accuracy = read_authors_fold_accuracy(Path(raw_dir) / _AUTHORS_FAIRNESS_FILE)
    parts = []
    for baseline, model in pairs:
        keys = ["fold", "group", "metric"]
        per_fold = rates.loc[rates["model"] == model, [*keys, "value"]].merge(
            rates.loc[rates["model"] == baseline, [*keys, "value"]].rename(
                columns={"value": "value_baseline"}
            ),
            on=keys,
            validate="one_to_one",
        )
        overall = (
            accuracy.loc[accuracy["model"] == model, ["fold", "accuracy"]]
            .rename(columns={"accuracy": "value"})
            .merge(
                accuracy.loc[accuracy["model"] == baseline, ["fold", "accuracy"]].rename(
                    columns={"accuracy": "value_baseline"}
                ),
                on="fold",
                validate="one_to_one",
            )
            .assign(metric="accuracy")
        )
        res = fold_disparity_change(
            per_fold, reference=REFERENCE, grouping="race", overall=overall, alpha=alpha, margin=margin
        )
        parts.append(res.table.assign(source="authors", inference="folds", baseline=baseline, model=model))
    return parts


#: The authors' file with the per-fold accuracies (its ``Accuracy of ...`` columns).
_AUTHORS_FAIRNESS_FILE = "Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"


def model_comparison(
    predictions: pd.DataFrame,
    authors_raw_dir: str | os.PathLike | None,
    *,
    favorable: int = 0,
    alpha: float = 0.05,
    margin: float = 0.1,
    models=MODEL_NAMES,
) -> pd.DataFrame:
    """Every pair of paper B's models compared on every outcome definition (see the module's docstring).

    Parameters
    ----------
    predictions : pandas.DataFrame
        The rerun's out-of-fold predictions (``compendium.paper_b.predictions``' columns: ``model, fold, ID,
        race, y_true, y_score, y_pred``), every model for the same people.
    authors_raw_dir : str or path-like or None
        The authors' committed files (``data/raw/paper-b-authors``); None leaves the authors' source out.
    favorable : {0, 1}, default 0
        The favourable outcome and decision (paper B: 0, no recidivism); the score is P(y = 1), recidivism.
    alpha : float, default 0.05
        Family-wise level (Holm over all pairs, per source, inference and family).
    margin : float, default 0.1
        Equivalence margin of a change of disparity (and of accuracy, AUC): the experiment's
        ``inference.margin``.
    models : sequence of str
        The models, in the order that makes the baseline of a pair (default Table I's).

    Returns
    -------
    pandas.DataFrame
        :data:`COMPARISON_COLUMNS`, sorted by source (rerun, authors), inference (folds, people), pair (Table
        I's order), family (fairness first) and metric (:data:`RERUN_METRICS`' order). ``estimate`` is the
        change of the disparity Black - White from ``baseline`` to ``model`` (accuracy family: ``model``'s
        accuracy or AUC minus ``baseline``'s); ``verdict`` says whether ``model`` is fairer than ``baseline``.
    """
    pairs = model_pairs(models)
    parts = []
    for inference in ("folds", "people"):
        parts += _rerun(
            predictions, pairs, favorable=favorable, alpha=alpha, margin=margin, inference=inference
        )
    if authors_raw_dir is not None:
        parts += _authors(authors_raw_dir, pairs, alpha=alpha, margin=margin)
    table = pd.concat(parts, ignore_index=True)
    table = disparity_change_verdicts(table, alpha=alpha, by=["source", "inference"])
    table["definitions"] = table["metric"].map(DEFINITIONS).where(table["family"] == "fairness", "")
    order = {
        "source": {"rerun": 0, "authors": 1},
        "inference": {"folds": 0, "people": 1},
        "baseline": {m: i for i, m in enumerate(models)},
        "model": {m: i for i, m in enumerate(models)},
        "family": {"fairness": 0, "accuracy": 1},
        "metric": {m: i for i, m in enumerate(RERUN_METRICS)},
    }
    table = table.sort_values(list(order), key=lambda s: s.map(order[s.name]), kind="stable")
    return table[list(COMPARISON_COLUMNS)].reset_index(drop=True)


def fairer_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """The rows whose verdict is ``fairer`` or ``less fair``, or whose change is significant after Holm but
    within the margin (``equivalent``, "real but within the margin"), as ``source, inference, fairer,
    than, metric, estimate, pvalue_adj, verdict``: ``fairer`` names the model whose disparity is smaller."""
    fair = table[table["family"] == "fairness"]
    real = fair["verdict"].isin(["fairer", "less fair"]) | (
        (fair["verdict"] == "equivalent") & fair["verdict_note"].str.startswith("real")
    )
    rows = fair[real]
    better = rows["pvalue_better"] < rows["pvalue_worse"]
    return pd.DataFrame(
        {
            "source": rows["source"],
            "inference": rows["inference"],
            "fairer": np.where(better, rows["model"], rows["baseline"]),
            "than": np.where(better, rows["baseline"], rows["model"]),
            "metric": rows["metric"],
            "estimate": rows["estimate"],
            "pvalue_adj": rows["pvalue_adj"],
            "verdict": rows["verdict"],
        }
    ).reset_index(drop=True)


def fairer_text(found: pd.DataFrame, readings) -> str:
    """:func:`fairer_pairs`' rows in words, a Markdown item per reading ``(source, inference)`` of
    ``readings`` ("no pair differs beyond chance" where it has none)."""
    lines = []
    for source, inference in readings:
        g = found[(found["source"] == source) & (found["inference"] == inference)]
        items = "; ".join(f"{r.fairer.upper()} than {r.than.upper()} on {r.metric}" for r in g.itertuples())
        lines.append(f"- **{source}, {inference}**: {items or 'no pair differs beyond chance'}")
    return "\n".join(lines)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """How many comparisons of :func:`model_comparison`'s table reach each verdict, as ``source, inference,
    family, verdict, comparisons`` (readings and families in the table's order, verdicts sorted)."""
    keys = ["source", "inference", "family"]
    order = table[keys].drop_duplicates().reset_index(drop=True).reset_index(names="_order")
    counts = table.groupby([*keys, "verdict"]).size().rename("comparisons").reset_index()
    counts = counts.merge(order, on=keys).sort_values(["_order", "verdict"], kind="stable")
    return counts.drop(columns="_order").reset_index(drop=True)


def comparison_figure(table: pd.DataFrame, *, source: str = "rerun", inference: str = "folds"):
    """The change of each disparity (and of accuracy) for every pair, with its interval: one panel per
    metric, one line per pair; filled markers where one model is fairer (more accurate) than the other after
    Holm (``pvalue_adj`` < 0.05). Returns the figure."""
    import matplotlib.pyplot as plt

    from fairstats.plotting import set_style

    set_style()
    rows = table[(table["source"] == source) & (table["inference"] == inference)]
    panels = list(dict.fromkeys(zip(rows["family"], rows["metric"], strict=True)))
    pairs = list(dict.fromkeys(zip(rows["baseline"], rows["model"], strict=True)))
    ncols = 4
    nrows = int(np.ceil(len(panels) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(13, 2.6 * nrows), sharey=True, squeeze=False)
    labels = [f"{m.upper()} vs {b.upper()}" for b, m in pairs]  # the model, then its baseline
    for ax, (family, metric) in zip(axes.flat, panels, strict=False):
        part = rows[(rows["family"] == family) & (rows["metric"] == metric)].set_index(["baseline", "model"])
        for y, pair in enumerate(pairs):
            r = part.loc[pair]
            filled = r["pvalue_adj"] < 0.05
            ax.errorbar(
                r["estimate"],
                y,
                xerr=[[r["estimate"] - r["ci_low"]], [r["ci_high"] - r["estimate"]]],
                fmt="o",
                color="C0" if family == "fairness" else "C2",
                mfc="C0" if filled and family == "fairness" else "C2" if filled else "white",
            )
        ax.axvline(0, color="0.4", lw=0.8)
        what = (
            "accuracy change"
            if family == "accuracy" and metric == "accuracy"
            else ("AUC change" if family == "accuracy" else f"{metric}: change of disparity")
        )
        ax.set_title(what, fontsize=9)
        ax.set_yticks(range(len(pairs)), labels)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle(
        f"Paper B's models pairwise ({source}, {inference}): change of the disparity Black - White from the "
        "baseline (second of a label) to the model (first), 95% interval;\nfilled = one model's disparity "
        "smaller in size (accuracy higher) than the other's after Holm over all pairs",
        fontsize=10,
    )
    fig.tight_layout()
    return fig
