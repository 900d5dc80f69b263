"""Model presets: the NIJ paper's estimators exactly, the clean ones standardised, converged and seeded."""


import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from xgboost import XGBClassifier

from compendium.paper_b.models import (
    MODEL_NAMES,
    fit_converged,
    make_model,
    model_seed,
    model_settings,
    package_versions,
)


def _xy(n=400, p=6, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)) * scale, columns=[f"x{i}" for i in range(p)])
    y = (X["x0"] / scale + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_paper_preset_is_the_authors_estimators():
    # Get Big Metric CSV.py: LogisticRegression(), LinearDiscriminantAnalysis(),
    # RandomForestClassifier(n_estimators=100, random_state=22), XGBClassifier(n_estimators=100, max_depth=2,
    # learning_rate=1, objective='binary:logistic', random_state=22)
    lr = make_model("lr", preset="paper")
    assert type(lr) is LogisticRegression
    assert lr.get_params() == LogisticRegression().get_params()
    lda = make_model("lda", preset="paper")
    assert type(lda) is LinearDiscriminantAnalysis
    assert lda.get_params() == LinearDiscriminantAnalysis().get_params()
    rf = make_model("rf", preset="paper", seed=123)  # the paper fixes 22; the master seed is ignored
    assert type(rf) is RandomForestClassifier
    expected = RandomForestClassifier(n_estimators=100, random_state=22).get_params()
    got = rf.get_params()
    assert got.pop("n_jobs") == 1 and expected.pop("n_jobs") is None  # n_jobs=None means one core too
    assert got == expected
    xgb = make_model("xgb", preset="paper")
    assert type(xgb) is XGBClassifier
    p = xgb.get_params()
    assert (p["n_estimators"], p["max_depth"], p["learning_rate"], p["objective"], p["random_state"]) == (
        100,
        2,
        1,
        "binary:logistic",
        22,
    )
    assert p["n_jobs"] == 1


def test_clean_preset_standardises_lr_and_lda_and_seeds_trees_from_the_master_seed():
    for name in ("lr", "lda"):
        model = make_model(name, preset="clean", seed=5)
        assert isinstance(model, Pipeline)
        assert isinstance(model.steps[0][1], StandardScaler)
    assert make_model("lr", preset="clean", seed=5).steps[-1][1].max_iter >= 1000
    rf_a = make_model("rf", preset="clean", seed=5).get_params()["random_state"]
    rf_b = make_model("rf", preset="clean", seed=6).get_params()["random_state"]
    xgb_a = make_model("xgb", preset="clean", seed=5).get_params()["random_state"]
    assert rf_a == model_seed("rf", seed=5) and xgb_a == model_seed("xgb", seed=5)
    assert rf_a != rf_b  # another master seed, another forest
    assert rf_a != xgb_a  # one seed per model


def test_model_seed_is_a_pure_function_of_seed_and_model():
    seeds = {name: model_seed(name, seed=20240607) for name in MODEL_NAMES}
    assert seeds == {name: model_seed(name, seed=20240607) for name in MODEL_NAMES}
    assert len(set(seeds.values())) == len(MODEL_NAMES)
    assert all(0 <= s < 2**31 - 1 for s in seeds.values())


def test_clean_lr_converges_where_the_paper_lr_does_not():
    from sklearn.exceptions import ConvergenceWarning

    from compendium.data.nij import design_matrix, read_paper_folds

    table = read_paper_folds(ROOT / "data/raw/nij-paper-folds")
    table = table[table["fold"] < 4]  # 412 people: fast, and the paper LR still stops at its cap
    paper_dm = design_matrix(table, features="paper")
    paper = make_model("lr", preset="paper")
    with pytest.warns(ConvergenceWarning):
        paper.fit(paper_dm.X, paper_dm.y_true)
    assert fit_converged(paper) is False
    clean_dm = design_matrix(table, features="clean")
    clean = make_model("lr", preset="clean", seed=0).fit(clean_dm.X, clean_dm.y_true)
    assert fit_converged(clean) is True
    assert fit_converged(make_model("lda").fit(paper_dm.X, paper_dm.y_true)) is None


def test_fit_converged_refuses_an_unfitted_model():
    with pytest.raises(ValueError, match="not fitted"):
        fit_converged(make_model("lr"))


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("preset", ["paper", "clean"])
def test_every_model_fits_and_gives_probabilities_of_class_one(name, preset):
    X, y = _xy(n=200)
    model = make_model(name, preset=preset, seed=1).fit(X, y)
    proba = model.predict_proba(X)
    assert list(model.classes_) == [0, 1]
    assert proba.shape == (200, 2) and np.allclose(proba.sum(axis=1), 1.0, atol=1e-6)
    assert (model.predict(X) == y).mean() > 0.6  # x0 predicts y


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": "svm"}, ValueError, "`name` must be one of"),
        ({"name": "lr", "preset": "tuned"}, ValueError, "`preset` must be one of"),
        ({"name": "rf", "preset": "clean"}, ValueError, "`seed` is required"),
        ({"name": "rf", "preset": "clean", "seed": -1}, ValueError, "`seed` must be >= 0"),
        ({"name": "rf", "preset": "clean", "seed": 1.5}, TypeError, "`seed` must be an integer"),
    ],
)
def test_make_model_validation_names_the_parameter(kwargs, error, message):
    name = kwargs.pop("name")
    with pytest.raises(error, match=message):
        make_model(name, **kwargs)


def test_model_seed_requires_a_seed():
    with pytest.raises(ValueError, match="`seed` is required"):
        model_seed("rf", seed=None)


def test_settings_and_versions_are_json_ready_and_sorted():
    import json

    settings = model_settings(make_model("xgb"))
    assert settings["class"] == "xgboost.sklearn.XGBClassifier"
    assert settings["random_state"] == 22
    assert settings["missing"] == "nan"  # NaN stored as text, valid JSON
    json.loads(json.dumps(settings, allow_nan=False))
    pipe = model_settings(make_model("lr", preset="clean", seed=1))
    assert pipe["steps"] == ["scale", "model"]
    versions = package_versions()
    assert list(versions) == sorted(versions)
    assert versions["scikit-learn"] == "1.9.1" and versions["xgboost"] == "3.2.0"
