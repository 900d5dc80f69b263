"""The authors' "Mahalanobis" distance is sqrt(2) for every pair (compendium.authors_awareness)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.authors_awareness import (
    authors_distance,
    authors_neighbours,
    awareness_matrix,
    random_neighbour_counts,
)
from compendium.data.nij import read_paper_folds

ROOT = Path(__file__).resolve().parents[2]
SQRT2 = np.sqrt(2.0)


@pytest.fixture(scope="module")
def fold0():
    table = read_paper_folds(ROOT / "data/raw/nij-paper-folds")
    m = awareness_matrix(table[table["fold"] == 0])
    return m.drop(columns=["fold", "black"]).to_numpy(), m["black"].to_numpy()


def test_the_covariance_of_two_stacked_vectors_is_rank_one_and_every_distance_is_sqrt2():
    # Identity: cov([x; y]) = e e^T / 2 (e = x - y), pinv = 2 e e^T / |e|^4, so e^T pinv e = 2.
    rng = np.random.default_rng(1)
    for _ in range(20):
        x, y = rng.integers(-5, 6, size=6).astype(float), rng.integers(-5, 6, size=6).astype(float)
        if np.array_equal(x, y):
            continue
        e = x - y
        v = np.cov(np.vstack([x, y]).T)
        np.testing.assert_allclose(v, np.outer(e, e) / 2, atol=1e-12)
        assert np.linalg.matrix_rank(v) == 1
        assert authors_distance(x, y) == pytest.approx(SQRT2, abs=1e-12)
        assert authors_distance(x, 3 * y - 7) == pytest.approx(SQRT2, abs=1e-12)  # however far apart
    assert authors_distance(np.ones(4), np.ones(4)) == 0.0


def test_real_pairs_spread_around_sqrt2_by_rounding_only(fold0):
    X, black = fold0
    i = int(np.flatnonzero(black == 1)[0])
    others = np.flatnonzero(black == 0)
    d = np.array([authors_distance(X[i], X[j]) for j in others])
    # the computed distances are spread around sqrt(2) ...
    assert np.abs(d - SQRT2).max() < 0.1
    assert np.unique(d).size > 1
    # ... and only by rounding: the same np.cov matrices, pseudo-inverted without their rounding-level
    # singular values (below 1e-10 of the largest; the exact matrix has one non-zero singular value), give
    # sqrt(2) to 1e-6 for every pair
    exact = []
    for j in others:
        e = X[i] - X[j]
        v = np.cov(np.vstack([X[i], X[j]]).T)
        s = np.linalg.svd(v, compute_uv=False)
        assert s[1] < 1e-12 * s[0]  # rank one up to rounding
        exact.append(np.sqrt(e @ np.linalg.pinv(v, rcond=1e-10) @ e))
    np.testing.assert_allclose(exact, SQRT2, atol=1e-6)
    euclid = np.linalg.norm(X[others] - X[i], axis=1)
    assert abs(np.corrcoef(euclid, d)[0, 1]) < 0.5


def test_the_search_pairs_everyone_with_the_other_race_and_is_deterministic_per_setup(fold0):
    X, black = fold0
    X, black = X[:20], black[:20]
    nb, dist = authors_neighbours(X, black)
    assert (black[nb] != black).all()
    assert np.abs(dist - SQRT2).max() < 0.1
    nb2, _ = authors_neighbours(X, black)
    np.testing.assert_array_equal(nb, nb2)


def test_random_neighbour_counts_are_seeded_and_add_up():
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(
        {
            "fold": np.repeat([0, 1, 2], n // 3),
            "ID": np.arange(n),
            "race": np.where(np.arange(n) % 3 == 0, "BLACK", "WHITE"),
            "y_pred": rng.integers(0, 2, n),
        }
    )
    refits = pd.concat([frame.assign(model=m) for m in ("lda", "rf")], ignore_index=True)
    a = random_neighbour_counts(refits, n_draws=5, seed=3)
    b = random_neighbour_counts(refits, n_draws=5, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(random_neighbour_counts(refits, n_draws=5, seed=4))
    per_draw = a.groupby(["draw", "model", "group"])["n"].sum().unstack("group")
    assert (per_draw["Black"] == 20).all() and (per_draw["White"] == 40).all()
    with pytest.raises(ValueError, match="n_draws"):
        random_neighbour_counts(refits, n_draws=0, seed=1)
