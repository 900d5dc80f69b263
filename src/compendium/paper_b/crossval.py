"""Fold-based cross-validation: out-of-fold and counterfactual predictions, stored as tidy parquet.

For each test fold, :func:`fit_predict_folds` fits a fresh clone of the model on all other folds
(concatenated in fold order, as the NIJ paper's authors did) and predicts the test fold twice: as it is, and
with the sensitive attribute flipped (a ``counterfactual`` function, e.g.
:func:`compendium.data.nij.flip_race`). The result is one tidy long table (:data:`PREDICTION_COLUMNS`)::

    model, fold, ID, race, y_true, y_score, y_pred, y_score_flipped, y_pred_flipped

``y_score`` is the predicted probability of class 1 (recidivism) and ``y_pred`` the model's ``predict`` (1 =
recidivism). Which prediction is *favourable* is a setting (``favorable``; the NIJ paper: 0 = no recidivism),
stored with the predictions, never implied. Settings (seed, preset, package versions, estimator parameters,
folds whose fit did not converge) travel with the table as parquet metadata
(:mod:`compendium.paper_b.predictions`: written, read and gathered there; Table I's per-fold accuracy beside
the authors' in :mod:`compendium.paper_b.fold_accuracy`).

Fold schemes (:func:`assign_folds`): ``paper`` keeps a given fold column (the authors' 250 folds);
``stratified`` is a seeded :class:`sklearn.model_selection.StratifiedKFold` stratified by outcome x group.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from compendium.paper_b.models import fit_converged, model_settings, package_versions

__all__ = [
    "FOLD_SCHEMES",
    "PREDICTION_COLUMNS",
    "FoldPredictions",
    "NotConvergedWarning",
    "assign_folds",
    "fit_predict_folds",
    "training_rows",
]

#: Fold schemes of :func:`assign_folds`.
FOLD_SCHEMES: tuple[str, ...] = ("paper", "stratified")
#: Columns of a predictions table, in order.
PREDICTION_COLUMNS: tuple[str, ...] = (
    "model",
    "fold",
    "ID",
    "race",
    "y_true",
    "y_score",
    "y_pred",
    "y_score_flipped",
    "y_pred_flipped",
)


class NotConvergedWarning(UserWarning):
    """Some folds' fits stopped at the iteration cap (one warning per call, naming the folds)."""


# ----------------------------------------------------------------------------------------------------------
# Folds
# ----------------------------------------------------------------------------------------------------------


def _as_series(values: object, *, name: str, index: pd.Index | None = None) -> pd.Series:
    if isinstance(values, pd.Series):
        s = values
    elif isinstance(
        values, np.ndarray | list | tuple | pd.Index | pd.Categorical | pd.api.extensions.ExtensionArray
    ):
        if index is not None and len(values) != len(index):
            raise ValueError(f"`{name}` has {len(values)} values but `X` (or `y_true`) has {len(index)} rows")
        s = pd.Series(values, index=index)
    else:
        raise TypeError(f"`{name}` must be a pandas Series or an array, got {type(values).__name__}")
    if index is not None and len(s) != len(index):
        raise ValueError(f"`{name}` has {len(s)} values but `X` (or `y_true`) has {len(index)} rows")
    return s


def _check_binary(s: pd.Series, *, name: str) -> None:
    if s.isna().any():
        i = _py(s.index[np.flatnonzero(s.isna().to_numpy())[0]])
        raise ValueError(f"`{name}` has {int(s.isna().sum())} missing value(s), first at row {i!r}")
    bad = ~s.isin([0, 1])
    if bad.any():
        value, row = _py(s[bad].iloc[0]), _py(s.index[bad.to_numpy()][0])
        raise ValueError(f"`{name}` must be 0/1, got value {value!r} at row {row!r}")


def _py(value: object) -> object:
    """A numpy scalar as the Python scalar (for messages: ``2``, not ``np.int64(2)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_fold(s: pd.Series, *, name: str = "fold") -> np.ndarray:
    if s.isna().any():
        i = _py(s.index[np.flatnonzero(s.isna().to_numpy())[0]])
        raise ValueError(f"`{name}` has {int(s.isna().sum())} missing value(s), first at row {i!r}")
    if not pd.api.types.is_integer_dtype(s.dtype):
        raise TypeError(f"`{name}` must hold integer fold labels, got dtype {s.dtype}")
    values = s.to_numpy(dtype=np.int64)
    if len(np.unique(values)) < 2:
        raise ValueError(f"`{name}` has a single fold ({values[0]!r}); cross-validation needs at least 2")
    return values


def _assign_folds_iv(y_true, group, scheme, fold, n_splits, seed) -> tuple[pd.Series, pd.Series]:
    if scheme not in FOLD_SCHEMES:
        raise ValueError(f"`scheme` must be one of {list(FOLD_SCHEMES)}, got {scheme!r}")
    y = _as_series(y_true, name="y_true")
    g = _as_series(group, name="group", index=y.index)
    _check_binary(y, name="y_true")
    if g.isna().any():
        raise ValueError(f"`group` has {int(g.isna().sum())} missing value(s)")
    if scheme == "paper":
        if fold is None:
            raise ValueError(
                "`fold` is required for scheme 'paper' (the authors' fold of each row), got None"
            )
        _check_fold(_as_series(fold, name="fold", index=y.index))
    else:
        if isinstance(n_splits, bool) or not isinstance(n_splits, int | np.integer):
            raise TypeError(f"`n_splits` must be an integer, got {n_splits!r}")
        if n_splits < 2:
            raise ValueError(f"`n_splits` must be >= 2, got {n_splits!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"`seed` must be a non-negative integer for scheme 'stratified', got {seed!r}")
    return y, g


def assign_folds(
    y_true: pd.Series | np.ndarray,
    group: pd.Series | np.ndarray,
    *,
    scheme: Literal["paper", "stratified"] = "paper",
    fold: pd.Series | np.ndarray | None = None,
    n_splits: int = 10,
    seed: int | None = None,
) -> pd.Series:
    """Return the test fold of every row under a fold scheme.

    Parameters
    ----------
    y_true : Series or array of 0/1
        The outcome.
    group : Series or array
        The sensitive attribute (e.g. race).
    scheme : {"paper", "stratified"}
        ``paper``: ``fold`` as given (the NIJ paper's 250 folds). ``stratified``: seeded
        ``StratifiedKFold(n_splits, shuffle=True, random_state=seed)`` with strata outcome x group, so that
        every fold has about the same share of each (outcome, group) cell.
    fold : Series or array of int, optional
        The given folds (required for ``paper``).
    n_splits : int
        Number of folds of ``stratified`` (ignored for ``paper``).
    seed : int, optional
        Seed of ``stratified`` (the config's master seed).

    Returns
    -------
    pandas.Series
        ``int64`` fold labels ``0 .. K-1`` (``paper``: the given labels), named ``fold``, on ``y_true``'s
        index.

    Raises
    ------
    ValueError, TypeError
        Unknown scheme, missing ``fold`` for ``paper``, non-binary or missing ``y_true``, missing ``group``,
        ``n_splits < 2``, a stratum with fewer than ``n_splits`` rows (from scikit-learn), or a bad ``seed``.

    Examples
    --------
    >>> f = assign_folds([0, 1] * 10, ["a"] * 10 + ["b"] * 10, scheme="stratified", n_splits=2, seed=1)
    >>> sorted(f.value_counts().tolist())
    [10, 10]
    """
    y, g = _assign_folds_iv(y_true, group, scheme, fold, n_splits, seed)
    if scheme == "paper":
        f = _as_series(fold, name="fold", index=y.index)
        return pd.Series(f.to_numpy(dtype=np.int64), index=y.index, name="fold")
    strata = y.astype(np.int64).astype(str).to_numpy() + "|" + g.astype(str).to_numpy()
    splitter = StratifiedKFold(n_splits=int(n_splits), shuffle=True, random_state=int(seed) % (2**32))
    out = np.full(len(y), -1, dtype=np.int64)
    for k, (_, test) in enumerate(splitter.split(np.zeros((len(y), 1)), strata)):
        out[test] = k
    return pd.Series(out, index=y.index, name="fold")


def training_rows(fold: pd.Series | np.ndarray, test_fold: int) -> np.ndarray:
    """Positions of the training rows of ``test_fold``: every other fold, concatenated in fold order.

    Within a fold, rows keep their order in the table. On the NIJ paper's table (rows in fold, then file
    order) this is exactly the authors' ``pd.concat`` of the other 249 fold files.

    Parameters
    ----------
    fold : Series or array of int
        Fold of each row.
    test_fold : int
        The held-out fold.

    Returns
    -------
    numpy.ndarray
        ``int64`` row positions (``iloc``), training order.
    """
    f = np.asarray(fold, dtype=np.int64)
    if not (f == test_fold).any():
        seen = f"folds {f.min()}..{f.max()}" if f.size else "no rows"
        raise ValueError(f"`test_fold` {test_fold!r} does not occur in `fold` ({seen})")
    order = np.argsort(f, kind="stable")
    return order[f[order] != test_fold]


# ----------------------------------------------------------------------------------------------------------
# Fit and predict
# ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FoldPredictions:
    """Out-of-fold (and counterfactual) predictions of one or more models, with their settings.

    Attributes
    ----------
    predictions : pandas.DataFrame
        :data:`PREDICTION_COLUMNS`, sorted by model, fold, then the table's row order.
    settings : dict
        JSON-serialisable run settings: ``favorable``, ``models`` (per model: estimator parameters, test
        folds, folds whose fit did not converge), ``versions`` and whatever the caller passed (seed, preset,
        scheme...).
    """

    predictions: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """The predictions, with ``attrs["fairstats"]`` = the settings."""
        out = self.predictions.copy()
        out.attrs["fairstats"] = self.settings
        return out


def _fit_predict_folds_iv(X, y_true, fold, group, ID, model, name, test_folds, favorable, n_threads):
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"`X` must be a pandas DataFrame, got {type(X).__name__}")
    if len(X) == 0:
        raise ValueError("`X` is empty (0 rows)")
    if not isinstance(model, BaseEstimator):
        raise TypeError(f"`model` must be an unfitted scikit-learn estimator, got {type(model).__name__}")
    if not isinstance(name, str) or not name:
        raise TypeError(f"`name` must be a non-empty string (the model label), got {name!r}")
    if favorable not in (0, 1) or isinstance(favorable, bool):
        raise ValueError(f"`favorable` must be 0 or 1 (the favourable prediction), got {favorable!r}")
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
        raise ValueError(f"`n_threads` must be a positive integer, got {n_threads!r}")
    y = _as_series(y_true, name="y_true", index=X.index)
    _check_binary(y, name="y_true")
    f = _as_series(fold, name="fold", index=X.index)
    folds = _check_fold(f)
    g = _as_series(group, name="group", index=X.index)
    if g.isna().any():
        raise ValueError(f"`group` has {int(g.isna().sum())} missing value(s)")
    ids = _as_series(ID, name="ID", index=X.index)
    if ids.isna().any():
        raise ValueError(f"`ID` has {int(ids.isna().sum())} missing value(s)")
    present = np.unique(folds)
    if test_folds is None:
        tests = present
    else:
        tests = np.asarray(list(test_folds), dtype=np.int64)
        if len(tests) == 0:
            raise ValueError("`test_folds` is empty")
        missing = np.setdiff1d(tests, present)
        if len(missing):
            raise ValueError(
                f"`test_folds` has fold {int(missing[0])} which no row of `fold` has "
                f"(folds {int(present[0])}..{int(present[-1])})"
            )
        if len(np.unique(tests)) != len(tests):
            raise ValueError("`test_folds` has repeated folds")
    return y.to_numpy(dtype=np.int64), folds, g, ids, np.sort(tests)


def _positive_column(model: BaseEstimator) -> int:
    classes = list(getattr(model, "classes_", []))
    if [int(c) for c in classes] != [0, 1]:
        raise ValueError(f"fitted model has classes {classes}, expected [0, 1]")
    return 1


def _row_major(model: BaseEstimator) -> Callable[[pd.DataFrame], pd.DataFrame | np.ndarray]:
    """How rows reach ``model``: a random forest gets a C-contiguous float32 copy, other models the frame.

    scikit-learn's tree builder casts its input to float32 (``sklearn.tree._tree.DTYPE``) and keeps the
    layout it is given; a DataFrame's float64 blocks become a column-major copy, in which the splitter's
    per-row reads are strided. The same values row-major build the same trees (same splits, same
    predictions: ``tests/compendium/test_crossval.py``) about 20 % faster, the largest share of the workflow's
    CPU time being the forests. Other models keep the DataFrame (the logistic regression's unconverged
    stopping point depends on floating-point details, so its input is left exactly as it was).
    """
    if isinstance(model, RandomForestClassifier):
        return lambda frame: np.ascontiguousarray(frame.to_numpy(dtype=np.float32))
    return lambda frame: frame


def fit_predict_folds(
    X: pd.DataFrame,
    y_true: pd.Series | np.ndarray,
    fold: pd.Series | np.ndarray,
    *,
    group: pd.Series | np.ndarray,
    ID: pd.Series | np.ndarray,
    model: BaseEstimator,
    name: str,
    test_folds: Iterable[int] | None = None,
    counterfactual: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    favorable: int = 0,
    settings: Mapping[str, object] | None = None,
    n_threads: int = 1,
    progress: bool = True,
) -> FoldPredictions:
    """Fit ``model`` once per test fold on the other folds; predict the test fold, as is and counterfactually.

    Parameters
    ----------
    X : pandas.DataFrame
        Design matrix, one row per person (e.g. ``compendium.data.nij.design_matrix(...).X``).
    y_true : Series or array of 0/1
        Outcome (1 = recidivism).
    fold : Series or array of int
        Fold of each row (:func:`assign_folds`).
    group : Series or array
        Sensitive attribute, written to the ``race`` column.
    ID : Series or array
        Person identifier, written to the ``ID`` column.
    model : sklearn estimator
        Unfitted; cloned for every fold (so every fold starts from the same seed).
    name : str
        Model label for the ``model`` column (e.g. ``"rf"``).
    test_folds : iterable of int, optional
        Folds to hold out (default: all). Training always uses all other folds, so a subset gives the same
        predictions for its folds as a full run (what lets the workflow split the folds into chunks).
    counterfactual : callable, optional
        ``X_test -> X_test_flipped`` (e.g. ``functools.partial(flip_race, features="paper")``); the same
        fitted model predicts the flipped rows. Without it the ``*_flipped`` columns are missing
        (NaN / ``<NA>``).
    favorable : {0, 1}
        The favourable prediction (NIJ paper: 0 = no recidivism); stored in the settings.
    settings : mapping, optional
        Extra JSON-serialisable settings to store (seed, preset, fold scheme...).
    n_threads : int
        BLAS/OpenMP threads while fitting (default 1). Fixed so that results do not depend on the machine: the
        paper preset's unconverged logistic regression changes with the BLAS thread count.
    progress : bool
        Show a tqdm bar (one step per fold) on stderr.

    Returns
    -------
    FoldPredictions
        ``predictions`` (:data:`PREDICTION_COLUMNS`: ``model`` categorical, ``fold`` int32, ``ID`` int64,
        ``race`` categorical, ``y_true``/``y_pred``/``y_pred_flipped`` int8,
        ``y_score``/``y_score_flipped`` float32 = P(y = 1)), sorted by fold then row order; ``settings``
        (see :class:`FoldPredictions`).

    Raises
    ------
    ValueError, TypeError
        Bad ``X``, lengths that differ, non-binary ``y_true``, missing values, a single fold, unknown
        ``test_folds``, ``favorable`` not 0/1, or a fitted model whose classes are not ``[0, 1]``.

    Warns
    -----
    NotConvergedWarning
        Once, naming the folds whose fit stopped at the iteration cap (scikit-learn's per-fit
        ``ConvergenceWarning`` is recorded instead of repeated 250 times).

    Notes
    -----
    For test fold :math:`t` with rows :math:`T_t`, the model is fitted on
    :math:`\\bigcup_{k \\ne t} T_k` (in fold order, :func:`training_rows`) and predicts :math:`T_t`:
    :math:`\\hat p_i = \\hat P(y_i = 1 \\mid x_i)`, :math:`\\hat y_i` = the model's ``predict``;
    counterfactually, :math:`\\hat p_i'` and :math:`\\hat y_i'` on :math:`x_i'` = ``counterfactual(x_i)``.

    References
    ----------
    The NIJ paper, Section I-A (K-fold cross-validation, K = 250), and its script ``Get Big Metric CSV.py``.

    Examples
    --------
    >>> from compendium.paper_b.models import make_model
    >>> res = fit_predict_folds(
    ...     X, y, fold, group=race, ID=ids, model=make_model("lda"), name="lda"
    ... )  # doctest: +SKIP
    >>> res.predictions.columns.tolist()[:4]  # doctest: +SKIP
    ['model', 'fold', 'ID', 'race']
    """
    y, folds, g, ids, tests = _fit_predict_folds_iv(
        X, y_true, fold, group, ID, model, name, test_folds, favorable, n_threads
    )
    if settings is not None:
        json.dumps(dict(settings))  # fail early (TypeError) on settings that cannot be stored
    order = np.argsort(folds, kind="stable")
    sorted_folds = folds[order]
    parts: list[dict[str, np.ndarray]] = []
    not_converged: list[int] = []
    sklearn_messages: list[str] = []
    rows = _row_major(model)
    bar = tqdm(tests, desc=f"{name}: folds", unit="fold", disable=not progress, file=sys.stderr, leave=True)
    with threadpool_limits(limits=n_threads):
        for t in bar:
            t = int(t)
            train = order[sorted_folds != t]
            test = np.flatnonzero(folds == t)
            fitted = clone(model)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                fitted.fit(rows(X.iloc[train]), y[train])
            for w in caught:
                if issubclass(w.category, ConvergenceWarning):
                    sklearn_messages.append(str(w.message).splitlines()[0])
                else:  # pass other warnings on unchanged
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            if fit_converged(fitted) is False:
                not_converged.append(t)
            pos = _positive_column(fitted)
            X_test = X.iloc[test]
            score = fitted.predict_proba(rows(X_test))[:, pos]
            pred = fitted.predict(rows(X_test))
            part = {
                "fold": np.full(len(test), t, dtype=np.int32),
                "rows": test,
                "y_score": score,
                "y_pred": pred,
            }
            if counterfactual is not None:
                X_flip = counterfactual(X_test)
                if not isinstance(X_flip, pd.DataFrame) or X_flip.shape != X_test.shape:
                    raise ValueError(
                        f"`counterfactual` must return a DataFrame of shape {X_test.shape}, got "
                        f"{getattr(X_flip, 'shape', type(X_flip).__name__)}"
                    )
                part["y_score_flipped"] = fitted.predict_proba(rows(X_flip))[:, pos]
                part["y_pred_flipped"] = fitted.predict(rows(X_flip))
            parts.append(part)
    bar.close()
    if not_converged:
        first = sklearn_messages[0] if sklearn_messages else "iteration cap reached"
        warnings.warn(
            f"model {name!r}: the fit did not converge on {len(not_converged)} of {len(tests)} fold(s) "
            f"(first: fold {not_converged[0]}; {first})",
            NotConvergedWarning,
            stacklevel=2,
        )
    rows = np.concatenate([p["rows"] for p in parts])
    n = len(rows)

    def cat(key: str, dtype) -> np.ndarray:
        return np.concatenate([p[key] for p in parts]).astype(dtype)

    race = g.iloc[rows]
    race_cat = race.astype("category") if not isinstance(race.dtype, pd.CategoricalDtype) else race
    frame = pd.DataFrame(
        {
            "model": pd.Categorical([name] * n, categories=[name]),
            "fold": cat("fold", np.int32),
            "ID": ids.iloc[rows].to_numpy(dtype=np.int64),
            "race": race_cat.to_numpy(),
            "y_true": y[rows].astype(np.int8),
            "y_score": cat("y_score", np.float32),
            "y_pred": cat("y_pred", np.int8),
        }
    )
    frame["race"] = pd.Categorical(frame["race"], categories=race_cat.cat.categories)
    if counterfactual is not None:
        frame["y_score_flipped"] = cat("y_score_flipped", np.float32)
        frame["y_pred_flipped"] = cat("y_pred_flipped", np.int8)
    else:
        frame["y_score_flipped"] = np.full(n, np.nan, dtype=np.float32)
        frame["y_pred_flipped"] = pd.array([pd.NA] * n, dtype="Int8")
    frame = frame[list(PREDICTION_COLUMNS)]
    out_settings: dict[str, object] = dict(settings or {})
    out_settings.update(
        {
            "favorable": int(favorable),
            "counterfactual": counterfactual is not None,
            "n_threads": n_threads,
            "models": {
                name: {
                    "estimator": model_settings(model),
                    "test_folds": [int(t) for t in tests],
                    "not_converged": not_converged,
                }
            },
            "versions": package_versions(),
        }
    )
    return FoldPredictions(predictions=frame, settings=out_settings)
