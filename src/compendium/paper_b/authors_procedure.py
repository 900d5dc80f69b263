"""Paper B's causal-discrimination refits, as the authors ran them (Tables XVI-XXV).

The paper's Tables XVI-XX (causal discrimination) and XXI-XXV (fairness through awareness) do **not** use the
models of Table I. The authors' script ``Counterfactual Rater and Nearest Neighbor Rater.py`` (repository
animeshjoshi/Algorithmic-Fairness-in-Recidivism-Forecasting-Algorithms, commit f53b889; read, not copied)
refits the four models once more for every test fold:

1. training rows: the other 249 fold files, concatenated in fold order, with every column except the file's
   row number ``Unnamed: 0``, the target and ``Race_WHITE`` as features (so ``Unnamed: 0.1``, ``ID`` and
   ``Race_BLACK`` stay in);
2. the four estimators of Table I (``compendium.paper_b.models.make_model(..., preset="paper")``) fitted
   on them;
3. "original" prediction of a test row: the model's ``predict`` on the row as it is (without ``Race_WHITE``);
4. "counterfactual" prediction: the same row with ``Race_BLACK`` replaced by the fold's ``Race_WHITE`` column
   (for the NIJ data, whose race is BLACK or WHITE, that is the other race).

Dropping ``Race_WHITE`` changes the design, so the refits differ from the Table I fits: the printed
``original`` columns of Tables XVI-XIX are these refits' predictions, not Table I's. The random forest
(``random_state=22``) and LDA are deterministic, so for them this procedure gives the authors' predictions
exactly; the logistic regression (unconverged L-BFGS on unscaled inputs) and XGBoost depend on floating-point
details, as in Table I (where our fits agree with the authors' on 106 and 202 of 250 folds).

:func:`refit_matrix` builds the design, :func:`race_black_from_white` the counterfactual, and
:func:`refit_fold_chunk` runs one model on a chunk of test folds through
:func:`compendium.paper_b.crossval.fit_predict_folds`, so the refits are stored, gathered and read like every
other set of predictions (:data:`compendium.paper_b.crossval.PREDICTION_COLUMNS`: ``y_pred`` = original,
``y_pred_flipped`` = counterfactual).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from compendium.data.nij import DesignMatrix, design_matrix
from compendium.paper_b.crossval import FoldPredictions, fit_predict_folds
from compendium.paper_b.models import make_model

__all__ = [
    "REFIT_DROPPED",
    "REFIT_SWAPPED",
    "race_black_from_white",
    "refit_fold_chunk",
    "refit_matrix",
]

#: The feature the authors drop before refitting (their script drops it from training and test rows).
REFIT_DROPPED = "Race_WHITE"
#: The feature their counterfactual overwrites with the dropped one.
REFIT_SWAPPED = "Race_BLACK"


def refit_matrix(dm: DesignMatrix) -> pd.DataFrame:
    """The authors' refit design: the ``paper`` design matrix without ``Race_WHITE``, columns in file order.

    Parameters
    ----------
    dm : DesignMatrix
        :func:`compendium.data.nij.design_matrix` with ``features="paper"``.

    Returns
    -------
    pandas.DataFrame
        ``dm.X`` without :data:`REFIT_DROPPED` (``Unnamed: 0.1`` and ``ID`` kept, as in the authors' script).

    Raises
    ------
    ValueError
        ``dm`` is not the paper design (it lacks ``Race_WHITE``, ``Race_BLACK`` or ``ID``).
    """
    if not isinstance(dm, DesignMatrix):
        raise TypeError(f"`dm` must be a DesignMatrix, got {type(dm).__name__}")
    missing = [c for c in (REFIT_DROPPED, REFIT_SWAPPED, "ID") if c not in dm.X.columns]
    if missing or dm.features != "paper":
        raise ValueError(
            f"`dm`: the authors' refit needs the paper design matrix (features 'paper'), got features "
            f"{dm.features!r}" + (f" without column(s) {missing}" if missing else "")
        )
    return dm.X.drop(columns=[REFIT_DROPPED])


def race_black_from_white(white: pd.Series) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """The authors' counterfactual: ``Race_BLACK`` of each test row replaced by that row's ``Race_WHITE``.

    Parameters
    ----------
    white : pandas.Series
        ``Race_WHITE`` of every person, on the design matrix's index (it is not a feature of the refit).

    Returns
    -------
    callable
        ``X_test -> X_test`` copy with ``Race_BLACK`` = ``white.loc[X_test.index]`` (same columns, order,
        dtypes); raises ``ValueError`` for a row whose ``Race_WHITE`` is unknown.
    """
    if not isinstance(white, pd.Series):
        raise TypeError(f"`white` must be a pandas Series, got {type(white).__name__}")
    bad = ~white.isin([0, 1])
    if bad.any():
        raise ValueError(
            f"`white`: {REFIT_DROPPED} must be 0/1, got {white[bad].iloc[0].item()!r} at row "
            f"{white.index[bad][0].item() if hasattr(white.index[bad][0], 'item') else white.index[bad][0]!r}"
        )

    def swap(X_test: pd.DataFrame) -> pd.DataFrame:
        unknown = ~X_test.index.isin(white.index)
        if unknown.any():
            raise ValueError(f"`X_test`: row {X_test.index[unknown][0]!r} has no {REFIT_DROPPED} value")
        out = X_test.copy()
        out[REFIT_SWAPPED] = white.loc[X_test.index].to_numpy().astype(X_test[REFIT_SWAPPED].dtype)
        return out

    return swap


def refit_fold_chunk(
    table: pd.DataFrame,
    *,
    model: str,
    test_folds: Sequence[int] | None = None,
    favorable: int = 0,
    settings: Mapping[str, object] | None = None,
    progress: bool = True,
) -> FoldPredictions:
    """The authors' refit of one paper-preset model on a chunk of test folds.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy NIJ table of the authors' fold files (:func:`compendium.data.nij.read_paper_folds`).
    model : {"lr", "lda", "rf", "xgb"}, keyword-only
        The model (paper preset, as in Table I).
    test_folds : sequence of int, optional, keyword-only
        Test folds of this chunk (default: all). Each is fitted on all other folds, so chunks can run apart.
    favorable : {0, 1}, keyword-only
        The favourable prediction (paper: 0), stored in the settings.
    settings : mapping, optional, keyword-only
        Extra settings to store (e.g. the source of the data).
    progress : bool, keyword-only
        Show a progress bar on stderr.

    Returns
    -------
    FoldPredictions
        ``y_pred``/``y_score``: the "original" predictions of the refit; ``y_pred_flipped``/
        ``y_score_flipped``: the counterfactual (``Race_BLACK`` := ``Race_WHITE``); settings with
        ``procedure = "authors_refit"`` and the dropped feature.

    Notes
    -----
    For test fold :math:`t` the model is fitted on :math:`\\bigcup_{k \\ne t} T_k` with features
    :math:`x \\setminus \\{\\text{Race\\_WHITE}\\}` and predicts :math:`x_i` and :math:`x_i'`, where
    :math:`x_i'` equals :math:`x_i` except :math:`x'_{i,\\text{Race\\_BLACK}} = x_{i,\\text{Race\\_WHITE}}`.
    One thread (``n_threads=1``), as in the Table I fits.

    References
    ----------
    Paper B, Sections II-N and II-O; the authors' script ``Counterfactual Rater and Nearest Neighbor
    Rater.py`` (commit f53b889).
    """
    dm = design_matrix(table, features="paper")
    X = refit_matrix(dm)
    extra = {"procedure": "authors_refit", "dropped": REFIT_DROPPED, "swapped": REFIT_SWAPPED}
    return fit_predict_folds(
        X,
        dm.y_true,
        dm.fold.astype(np.int64),
        group=dm.group,
        ID=dm.ID,
        model=make_model(model, preset="paper"),
        name=model,
        test_folds=None if test_folds is None else [int(t) for t in test_folds],
        counterfactual=race_black_from_white(dm.X[REFIT_DROPPED]),
        favorable=favorable,
        settings={**dict(settings or {}), **extra},
        progress=progress,
    )
