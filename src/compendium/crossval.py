"""Fold-based cross-validation: out-of-fold and counterfactual predictions, stored as tidy parquet.

For each test fold, :func:`fit_predict_folds` fits a fresh clone of the model on all other folds
(concatenated in fold order, as the NIJ paper's authors did) and predicts the test fold twice: as it is, and
with the sensitive attribute flipped (a ``counterfactual`` function, e.g.
:func:`compendium.data.nij.flip_race`). The result is one tidy long table (:data:`PREDICTION_COLUMNS`)::

    model, fold, ID, race, y_true, y_score, y_pred, y_score_flipped, y_pred_flipped

``y_score`` is the predicted probability of class 1 (recidivism) and ``y_pred`` the model's ``predict`` (1 =
recidivism). Which prediction is *favourable* is a setting (``favorable``; the NIJ paper: 0 = no recidivism),
stored with the predictions, never implied. Settings (seed, preset, package versions, estimator parameters,
folds whose fit did not converge) travel with the table as parquet metadata (:func:`write_predictions`,
:func:`read_predictions`).

Fold schemes (:func:`assign_folds`): ``paper`` keeps a given fold column (the authors' 250 folds);
``stratified`` is a seeded :class:`sklearn.model_selection.StratifiedKFold` stratified by outcome x group.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from sklearn.base import BaseEstimator, clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from compendium.models import MODEL_NAMES, fit_converged, model_settings, package_versions

__all__ = [
    "AUTHORS_ACCURACY_COLUMNS",
    "FOLD_SCHEMES",
    "METADATA_KEY",
    "PREDICTION_COLUMNS",
    "FoldAgreement",
    "FoldPredictions",
    "NotConvergedWarning",
    "assign_folds",
    "compare_fold_accuracy",
    "fit_predict_folds",
    "fold_accuracy",
    "gather_predictions",
    "read_authors_fold_accuracy",
    "read_predictions",
    "training_rows",
    "write_predictions",
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
#: Key of the settings (JSON) in a predictions parquet file's schema metadata.
METADATA_KEY = b"fairstats"
#: The NIJ paper authors' per-fold accuracy columns (``Fairness Metrics - All Predicted Outcome Binary Metrics
#: from Verma Paper.csv``; row i = test fold i).
AUTHORS_ACCURACY_COLUMNS: dict[str, str] = {
    "lr": "Accuracy of Logistic Regression Algorithm",
    "lda": "Accuracy of LDA Algorithm",
    "rf": "Accuracy of Random Forest",
    "xgb": "Accuracy of XgBoost",
}


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
    predictions: ``tests/unit/test_crossval.py``) about 20 % faster, the largest share of the workflow's CPU
    time being the forests. Other models keep the DataFrame (the logistic regression's unconverged stopping
    point depends on floating-point details, so its input is left exactly as it was).
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
    >>> from compendium.models import make_model
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


# ----------------------------------------------------------------------------------------------------------
# Storage
# ----------------------------------------------------------------------------------------------------------


def write_predictions(result: FoldPredictions | pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write predictions and their settings to a parquet file, atomically (temporary file, then rename).

    A ``DataFrame`` argument takes its settings from ``attrs["fairstats"]``. The file is byte-identical for
    identical inputs (no timestamps); settings go into the schema metadata under :data:`METADATA_KEY`.
    """
    if isinstance(result, FoldPredictions):
        frame, settings = result.predictions, result.settings
    elif isinstance(result, pd.DataFrame):
        frame, settings = result, result.attrs.get("fairstats", {})
    else:
        raise TypeError(f"`result` must be FoldPredictions or a DataFrame, got {type(result).__name__}")
    missing = [c for c in PREDICTION_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"`result` lacks prediction column(s) {missing}")
    frame = frame[list(PREDICTION_COLUMNS)].reset_index(drop=True)
    frame.attrs = {}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(settings, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; a results file is readable like any other
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_predictions(path: str | os.PathLike) -> pd.DataFrame:
    """Read a predictions parquet file; its settings come back as ``attrs["fairstats"]``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no predictions file {str(path)!r}")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{str(path)!r}: not a readable parquet file ({exc})") from exc
    missing = [c for c in PREDICTION_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"{str(path)!r}: not a predictions file, missing column(s) {missing}")
    frame = table.to_pandas()
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    frame.attrs["fairstats"] = json.loads(raw) if raw else {}
    return frame


def gather_predictions(
    parts: Sequence[FoldPredictions | pd.DataFrame | str | os.PathLike],
    *,
    models: Sequence[str] | None = None,
) -> FoldPredictions:
    """Concatenate chunks of predictions into one table, checked and sorted.

    Parameters
    ----------
    parts : sequence of FoldPredictions, DataFrame (with ``attrs["fairstats"]``) or parquet paths
        The chunks (any order).
    models : sequence of str, optional
        Order of the ``model`` categories (default: :data:`compendium.models.MODEL_NAMES` order, then others
        sorted).

    Returns
    -------
    FoldPredictions
        Rows sorted by model, fold, then the chunks' row order; settings merged: per model, the union of test
        folds and of unconverged folds; all other settings must agree across chunks.

    Raises
    ------
    ValueError
        No parts; a setting (e.g. versions, favourable outcome, seed) that differs between chunks; a
        (model, fold) present in two chunks.
    """
    if len(parts) == 0:
        raise ValueError("`parts` is empty")
    frames: list[pd.DataFrame] = []
    merged: dict[str, object] | None = None
    per_model: dict[str, dict[str, object]] = {}
    for i, part in enumerate(parts):
        label = str(part) if isinstance(part, str | os.PathLike) else f"part {i}"
        if isinstance(part, FoldPredictions):
            frame, settings = part.predictions, part.settings
        elif isinstance(part, pd.DataFrame):
            frame, settings = part, part.attrs.get("fairstats", {})
        else:
            frame = read_predictions(part)
            settings = frame.attrs["fairstats"]
        common = {k: v for k, v in settings.items() if k != "models"}
        if merged is None:
            merged = common
        elif common != merged:
            diff = sorted(k for k in set(common) | set(merged) if common.get(k) != merged.get(k))
            raise ValueError(
                f"{label}: settings differ from the first part's in {diff} "
                f"(e.g. {diff[0]!r}: {common.get(diff[0])!r} vs {merged.get(diff[0])!r})"
            )
        for name, info in settings.get("models", {}).items():
            entry = per_model.setdefault(
                name, {"estimator": info["estimator"], "test_folds": [], "not_converged": []}
            )
            if entry["estimator"] != info["estimator"]:
                raise ValueError(f"{label}: model {name!r} has other estimator settings than an earlier part")
            entry["test_folds"] = entry["test_folds"] + list(info["test_folds"])
            entry["not_converged"] = entry["not_converged"] + list(info["not_converged"])
        f = frame[list(PREDICTION_COLUMNS)].copy()
        f["model"] = f["model"].astype(str)
        f["race"] = f["race"].astype(str)
        frames.append(f.assign(_part=i, _row=np.arange(len(f))))
    out = pd.concat(frames, ignore_index=True)
    dup = out.drop_duplicates(["model", "fold", "_part"]).duplicated(["model", "fold"], keep=False)
    if dup.any():
        row = out.drop_duplicates(["model", "fold", "_part"]).loc[dup].iloc[0]
        raise ValueError(f"model {row['model']!r}, fold {int(row['fold'])} appears in more than one part")
    names = sorted(
        out["model"].unique(),
        key=lambda m: (m not in MODEL_NAMES, MODEL_NAMES.index(m) if m in MODEL_NAMES else 0, m),
    )
    if models is not None:
        names = list(models) + [m for m in names if m not in models]
    out["model"] = pd.Categorical(out["model"], categories=names)
    races = sorted(out["race"].unique())
    out["race"] = pd.Categorical(out["race"], categories=races)
    # within a fold, rows keep the order of the part that holds the fold
    out = out.sort_values(["model", "fold", "_row"], kind="stable").reset_index(drop=True)
    out = out[list(PREDICTION_COLUMNS)]
    for entry in per_model.values():
        entry["test_folds"] = sorted(int(t) for t in entry["test_folds"])
        entry["not_converged"] = sorted(int(t) for t in entry["not_converged"])
    settings = dict(merged or {})
    settings["models"] = {name: per_model[name] for name in names if name in per_model}
    return FoldPredictions(predictions=out, settings=settings)


# ----------------------------------------------------------------------------------------------------------
# Accuracy per fold, and agreement with the authors
# ----------------------------------------------------------------------------------------------------------


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
