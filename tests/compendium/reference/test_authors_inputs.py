"""What the authors' committed files hold, so what their numbers alone cannot give (paper B, XII-XXV)."""


import pandas as pd
from repo_paths import ROOT

RAW = ROOT / "data/raw/paper-b-authors"


def _headers() -> dict[str, list[str]]:
    return {path.name: list(pd.read_csv(path, nrows=0).columns) for path in sorted(RAW.glob("*.csv"))}


def test_the_committed_probabilities_cover_fold_0_only():
    # Tables XII-XV need every person's predicted probability in every fold; the authors committed one frame
    # of probabilities, fold 0's (103 people of 25,750), and no other file has a probability column.
    frames = [name for name in _headers() if "Probabilit" in name]
    assert frames == ["Y Dataframe with Probabilities - Fold 0.csv"]
    assert len(pd.read_csv(RAW / frames[0])) == 103
    others = {n: c for n, c in _headers().items() if n not in frames}
    assert not [c for cols in others.values() for c in cols if "prob" in c.lower() or "score" in c.lower()]


def test_no_committed_file_holds_counterfactual_or_neighbour_predictions():
    # Tables XVI-XXV need each person's race-flipped (counterfactual) prediction and their nearest other-race
    # neighbour's: no committed file has such a column; the per-fold files have 250 rows (one per fold), not
    # one per person.
    words = ("flip", "counterfactual", "simulated", "neighbo", "swap")
    for name, columns in _headers().items():
        assert not [c for c in columns if any(w in c.lower() for w in words)], name
    per_person = {n for n in _headers() if len(pd.read_csv(RAW / n, usecols=[0])) > 250}
    assert per_person == {"Target Data.csv"}  # the outcome only
