"""Model presets of the NIJ paper (``paper``) and their cleaned-up counterparts (``clean``).

:func:`make_model` returns an unfitted scikit-learn estimator for a model name (``lr``, ``lda``, ``rf``,
``xgb``) and a preset:

``paper``
    Exactly the NIJ paper's estimators (script ``Get Big Metric CSV.py``): ``LogisticRegression()`` and
    ``LinearDiscriminantAnalysis()`` with scikit-learn's defaults, ``RandomForestClassifier(n_estimators=100,
    random_state=22)``, ``XGBClassifier(n_estimators=100, max_depth=2, learning_rate=1,
    objective="binary:logistic", random_state=22)``. They are meant for the ``paper`` design matrix (ID and
    the original row position among the features, unscaled), on which the logistic regression does not
    converge in its default 100 L-BFGS iterations.
``clean``
    For the ``clean`` design matrix (no ID): logistic regression and LDA on standardised inputs
    (``StandardScaler`` in a pipeline), the logistic regression with ``max_iter=10_000`` so that it converges
    (checked by :func:`fit_converged`); random forest and XGBoost with the paper's hyper-parameters and a
    seed derived from the experiment's master seed by :func:`model_seed`.

Every estimator is single-threaded (``n_jobs=1``) so that one Snakemake job uses one core; the fan-out over
folds gives the parallelism.
"""

from __future__ import annotations

import importlib.metadata
import platform
from typing import Literal

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

__all__ = [
    "MODEL_LABELS",
    "MODEL_NAMES",
    "PAPER_RANDOM_STATE",
    "PRESETS",
    "PRESET_FEATURES",
    "fit_converged",
    "make_model",
    "model_seed",
    "model_settings",
    "package_versions",
]

#: Model names, in the order of the NIJ paper's Table I.
MODEL_NAMES: tuple[str, ...] = ("lr", "lda", "rf", "xgb")
#: Names as the paper prints them (Table I).
MODEL_LABELS: dict[str, str] = {
    "lr": "Logistic Regression",
    "lda": "Linear Discriminant Analysis",
    "rf": "Random Forest",
    "xgb": "Gradient Boosting",
}
#: Model presets.
PRESETS: tuple[str, ...] = ("paper", "clean")
#: The design matrix (``compendium.data.nij.design_matrix(features=...)``) each preset is meant for.
PRESET_FEATURES: dict[str, str] = {"paper": "paper", "clean": "clean"}
#: The seed the NIJ paper gives its random forest and XGBoost.
PAPER_RANDOM_STATE = 22
#: Iteration cap of the clean preset's logistic regression (it converges in far fewer).
CLEAN_LR_MAX_ITER = 10_000
#: Packages whose versions decide the fitted models (recorded with every set of predictions).
_VERSIONED_PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "xgboost", "pyarrow", "fairstats")


def _make_model_iv(name: object, preset: object, seed: object) -> None:
    if name not in MODEL_NAMES:
        raise ValueError(f"`name` must be one of {list(MODEL_NAMES)}, got {name!r}")
    if preset not in PRESETS:
        raise ValueError(f"`preset` must be one of {list(PRESETS)}, got {preset!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
        raise TypeError(f"`seed` must be an integer or None, got {type(seed).__name__} {seed!r}")
    if seed is not None and seed < 0:
        raise ValueError(f"`seed` must be >= 0, got {seed!r}")
    if preset == "clean" and name in ("rf", "xgb") and seed is None:
        raise ValueError(
            f"`seed` is required for preset 'clean' and model {name!r} (the config's master seed)"
        )


def model_seed(name: str, *, seed: int) -> int:
    """Seed of model ``name`` in the ``clean`` preset, derived from the master ``seed``.

    Parameters
    ----------
    name : {"lr", "lda", "rf", "xgb"}
        The model.
    seed : int
        The experiment's master seed (``config["seed"]``).

    Returns
    -------
    int
        A seed in ``[0, 2**31 - 1)``, the same for every fold, different per model; it depends only on
        ``seed`` and the model's position in :data:`MODEL_NAMES` (never on hashing or dict order).

    Notes
    -----
    ``numpy.random.SeedSequence([seed, i]).generate_state(1)[0] % (2**31 - 1)`` with ``i`` the model's index.

    Examples
    --------
    >>> model_seed("rf", seed=20240607) == model_seed("rf", seed=20240607)
    True
    """
    if seed is None:
        raise ValueError("`seed` is required (the config's master seed), got None")
    _make_model_iv(name, "paper", seed)
    index = MODEL_NAMES.index(name)
    state = np.random.SeedSequence([int(seed), index]).generate_state(1, dtype=np.uint32)[0]
    return int(state) % (2**31 - 1)


def make_model(
    name: Literal["lr", "lda", "rf", "xgb"],
    *,
    preset: Literal["paper", "clean"] = "paper",
    seed: int | None = None,
) -> BaseEstimator:
    """Return an unfitted estimator of model ``name`` in ``preset``.

    Parameters
    ----------
    name : {"lr", "lda", "rf", "xgb"}
        Logistic regression, linear discriminant analysis, random forest, XGBoost.
    preset : {"paper", "clean"}
        ``paper``: the NIJ paper's estimators exactly (``seed`` ignored: the paper fixes ``random_state=22``).
        ``clean``: standardised and converged LR, standardised LDA, RF and XGB seeded from ``seed``.
    seed : int, optional
        The experiment's master seed; required for ``clean`` RF and XGB (see :func:`model_seed`).

    Returns
    -------
    sklearn.base.BaseEstimator
        Unfitted; ``predict_proba(X)[:, 1]`` is P(recidivism) and ``predict`` the 0/1 class.

    Raises
    ------
    ValueError
        Unknown ``name`` or ``preset``; ``seed`` missing or negative where it is needed.
    TypeError
        ``seed`` not an integer.

    Notes
    -----
    The ``paper`` LR minimises the L2-penalised log-loss (C = 1) with L-BFGS capped at 100 iterations; on the
    unscaled paper matrix (``ID`` up to about 2.6e4) it stops before converging, so its coefficients depend on
    floating-point details (BLAS build and thread count, SciPy's L-BFGS-B) and reproduce the authors' only in
    part.

    References
    ----------
    The NIJ paper (significant fairness violations in recidivism forecasting), Section I-A, and its script
    ``Get Big Metric CSV.py`` (repository
    animeshjoshi/Algorithmic-Fairness-in-Recidivism-Forecasting-Algorithms, commit f53b889).

    Examples
    --------
    >>> make_model("rf", preset="paper").get_params()["random_state"]
    22
    """
    _make_model_iv(name, preset, seed)
    if name == "xgb":
        # imported here: xgboost takes ~1.5 s to import, which every training job of another model would pay
        from xgboost import XGBClassifier
    if preset == "paper":
        if name == "lr":
            return LogisticRegression()
        if name == "lda":
            return LinearDiscriminantAnalysis()
        if name == "rf":
            return RandomForestClassifier(n_estimators=100, random_state=PAPER_RANDOM_STATE, n_jobs=1)
        return XGBClassifier(
            n_estimators=100,
            max_depth=2,
            learning_rate=1,
            objective="binary:logistic",
            random_state=PAPER_RANDOM_STATE,
            n_jobs=1,
        )
    if name == "lr":
        return Pipeline(
            [("scale", StandardScaler()), ("model", LogisticRegression(max_iter=CLEAN_LR_MAX_ITER))]
        )
    if name == "lda":
        return Pipeline([("scale", StandardScaler()), ("model", LinearDiscriminantAnalysis())])
    derived = model_seed(name, seed=seed)
    if name == "rf":
        return RandomForestClassifier(n_estimators=100, random_state=derived, n_jobs=1)
    return XGBClassifier(
        n_estimators=100,
        max_depth=2,
        learning_rate=1,
        objective="binary:logistic",
        random_state=derived,
        n_jobs=1,
    )


def fit_converged(model: BaseEstimator) -> bool | None:
    """Whether a fitted iterative model stopped before its iteration cap.

    Returns ``True``/``False`` for a (possibly pipelined) ``LogisticRegression`` (``n_iter_ < max_iter``) and
    ``None`` for models without an iteration cap (LDA, random forest, XGBoost with a fixed number of trees).
    """
    final = model.steps[-1][1] if isinstance(model, Pipeline) else model
    if isinstance(final, LogisticRegression):
        if not hasattr(final, "n_iter_"):
            raise ValueError("`model` is not fitted (no `n_iter_`)")
        return bool(np.max(final.n_iter_) < final.max_iter)
    return None


def _jsonable(value: object) -> object:
    if isinstance(value, float | np.floating) and not np.isfinite(value):
        return repr(float(value))
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def model_settings(model: BaseEstimator) -> dict[str, object]:
    """The estimator's class and parameters (``get_params(deep=True)``), JSON-serialisable, sorted by key."""
    params = model.get_params(deep=True)
    out: dict[str, object] = {"class": f"{type(model).__module__}.{type(model).__qualname__}"}
    for key in sorted(params):
        value = params[key]
        if isinstance(value, BaseEstimator):
            out[key] = f"{type(value).__module__}.{type(value).__qualname__}"
        elif key == "steps":
            out[key] = [step for step, _ in value]
        else:
            out[key] = _jsonable(value)
    return out


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide the fitted models, sorted by name."""
    out = {"python": platform.python_version()}
    for pkg in _VERSIONED_PACKAGES:
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover - fairstats not installed
            out[pkg] = "not installed"
    return dict(sorted(out.items()))
