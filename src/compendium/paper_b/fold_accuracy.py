"""Table I per fold: our cross-validated accuracy of every (model, fold) beside the NIJ paper authors'.

:func:`fold_accuracy` counts the correct predictions of each (model, fold); :func:`read_authors_fold_accuracy`
reads the authors' per-fold accuracies from their committed file; :func:`compare_fold_accuracy` sets the two
side by side (:class:`FoldAgreement`: per fold, and per model how many folds agree exactly).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.paper_b.models import MODEL_NAMES

__all__ = [
    "AUTHORS_ACCURACY_COLUMNS",
    "FoldAgreement",
    "compare_fold_accuracy",
    "fold_accuracy",
    "read_authors_fold_accuracy",
]

#: The NIJ paper authors' per-fold accuracy columns (``Fairness Metrics - All Predicted Outcome Binary Metrics
#: from Verma Paper.csv``; row i = test fold i).
AUTHORS_ACCURACY_COLUMNS: dict[str, str] = {
    "lr": "Accuracy of Logistic Regression Algorithm",
    "lda": "Accuracy of LDA Algorithm",
    "rf": "Accuracy of Random Forest",
    "xgb": "Accuracy of XgBoost",
}


def fold_accuracy(predictions: pd.DataFrame, *, prediction: str = "y_pred") -> pd.DataFrame:
    """Accuracy of every (model, fold): the share of rows with ``prediction == y_true``.

    Parameters
    ----------
    predictions : pandas.DataFrame
        A predictions table (:data:`PREDICTION_COLUMNS`).
    prediction : str
        The prediction column (``y_pred`` or ``y_pred_flipped``).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, fold, n, n_correct, accuracy``, sorted by model then fold.

    Notes
    -----
    :math:`\\mathrm{acc}_{m,t} = \\frac{1}{|T_t|} \\sum_{i \\in T_t} [\\hat y_{m,i} = y_i]`, as
    ``sklearn.metrics.accuracy_score`` per fold (here one vectorised group-by).
    """
    missing = [c for c in ("model", "fold", "y_true", prediction) if c not in predictions.columns]
    if missing:
        raise ValueError(f"`predictions` lacks column(s) {missing}")
    correct = (predictions[prediction].to_numpy() == predictions["y_true"].to_numpy()).astype(np.int64)
    frame = pd.DataFrame(
        {"model": predictions["model"], "fold": predictions["fold"].astype(np.int64), "correct": correct}
    )
    out = (
        frame.groupby(["model", "fold"], observed=True, sort=True)["correct"]
        .agg(n="size", n_correct="sum")
        .reset_index()
    )
    out["n"] = out["n"].astype(np.int64)
    out["n_correct"] = out["n_correct"].astype(np.int64)
    out["accuracy"] = out["n_correct"] / out["n"]
    return out


def read_authors_fold_accuracy(path: str | os.PathLike) -> pd.DataFrame:
    """The NIJ paper authors' per-fold accuracies, long: ``model, fold, accuracy`` (file row i = fold i).

    ``path`` is ``Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv``; its accuracy
    columns are :data:`AUTHORS_ACCURACY_COLUMNS`.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no file {str(path)!r}")
    wide = pd.read_csv(path)
    missing = [c for c in AUTHORS_ACCURACY_COLUMNS.values() if c not in wide.columns]
    if missing:
        raise ValueError(f"{str(path)!r}: missing column(s) {missing}")
    if "Unnamed: 0" in wide.columns and not np.array_equal(
        wide["Unnamed: 0"].to_numpy(), np.arange(len(wide))
    ):
        raise ValueError(f"{str(path)!r}: first column is not the fold number 0..{len(wide) - 1}")
    frames = [
        pd.DataFrame(
            {"model": name, "fold": np.arange(len(wide), dtype=np.int64), "accuracy": wide[col].to_numpy()}
        )
        for name, col in AUTHORS_ACCURACY_COLUMNS.items()
    ]
    out = pd.concat(frames, ignore_index=True)
    out["model"] = pd.Categorical(out["model"], categories=list(MODEL_NAMES))
    return out.sort_values(["model", "fold"], kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class FoldAgreement:
    """Fold-by-fold agreement of our accuracies with the authors'.

    Attributes
    ----------
    per_fold : pandas.DataFrame
        ``model, fold, n, n_correct, accuracy, accuracy_authors, n_correct_authors, difference, exact``
        (``difference`` = ours - authors; ``exact`` = same number of correct predictions).
    summary : pandas.DataFrame
        Per model: ``model, n_folds, n_exact, agreement_rate, mean_accuracy, mean_accuracy_authors,
        mean_difference, max_abs_difference``.
    """

    per_fold: pd.DataFrame
    summary: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The per-model summary."""
        return self.summary.copy()


def compare_fold_accuracy(ours: pd.DataFrame, authors: pd.DataFrame) -> FoldAgreement:
    """Compare per-fold accuracies (ours from :func:`fold_accuracy`, the authors' from
    :func:`read_authors_fold_accuracy`), fold by fold.

    Notes
    -----
    With :math:`n_t` test rows, an accuracy is a multiple of :math:`1/n_t`; the authors' count of correct
    predictions is :math:`\\mathrm{round}(\\mathrm{acc} \\cdot n_t)` and a fold agrees *exactly* when it
    equals ours (a float comparison would depend on the division's rounding). Only folds present in both are
    compared.
    """
    for frame, label in ((ours, "ours"), (authors, "authors")):
        missing = [c for c in ("model", "fold", "accuracy") if c not in frame.columns]
        if missing:
            raise ValueError(f"`{label}` lacks column(s) {missing}")
    if "n" not in ours.columns or "n_correct" not in ours.columns:
        raise ValueError("`ours` lacks column(s) ['n', 'n_correct'] (use fold_accuracy)")
    a = authors[["model", "fold", "accuracy"]].rename(columns={"accuracy": "accuracy_authors"})
    a = a.assign(model=a["model"].astype(str))
    o = ours.assign(model=ours["model"].astype(str))
    per_fold = o.merge(a, on=["model", "fold"], how="inner", validate="one_to_one")
    if len(per_fold) == 0:
        raise ValueError("`ours` and `authors` have no (model, fold) in common")
    per_fold["n_correct_authors"] = np.rint(per_fold["accuracy_authors"] * per_fold["n"]).astype(np.int64)
    per_fold["difference"] = per_fold["accuracy"] - per_fold["accuracy_authors"]
    per_fold["exact"] = per_fold["n_correct"].to_numpy() == per_fold["n_correct_authors"].to_numpy()
    names = [m for m in MODEL_NAMES if m in set(per_fold["model"])] + sorted(
        set(per_fold["model"]) - set(MODEL_NAMES)
    )
    per_fold["model"] = pd.Categorical(per_fold["model"], categories=names)
    per_fold = per_fold.sort_values(["model", "fold"], kind="stable").reset_index(drop=True)
    per_fold = per_fold[
        [
            "model",
            "fold",
            "n",
            "n_correct",
            "accuracy",
            "accuracy_authors",
            "n_correct_authors",
            "difference",
            "exact",
        ]
    ]
    summary = (
        per_fold.groupby("model", observed=True, sort=True)
        .agg(
            n_folds=("fold", "size"),
            n_exact=("exact", "sum"),
            mean_accuracy=("accuracy", "mean"),
            mean_accuracy_authors=("accuracy_authors", "mean"),
            mean_difference=("difference", "mean"),
            max_abs_difference=("difference", lambda d: float(np.abs(d).max())),
        )
        .reset_index()
    )
    summary["n_exact"] = summary["n_exact"].astype(np.int64)
    summary.insert(3, "agreement_rate", summary["n_exact"] / summary["n_folds"])
    return FoldAgreement(per_fold=per_fold, summary=summary)
