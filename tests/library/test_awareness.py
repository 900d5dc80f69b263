"""Unit tests for fairstats.awareness: Mahalanobis neighbours vs brute force, ties, tables, validation."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

from fairstats.awareness import (
    Neighbours,
    SingularCovarianceWarning,
    awareness_test,
    fairness_through_awareness,
    mahalanobis_whitening,
    nearest_other_group,
)


def _pooled_cov(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    s = np.zeros((x.shape[1], x.shape[1]))
    for label in np.unique(g):
        r = x[g == label] - x[g == label].mean(axis=0)
        s += r.T @ r
    return s / (len(x) - len(np.unique(g)))


def _brute(x: np.ndarray, g: np.ndarray, vi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest other-group row by scipy's cdist(..., 'mahalanobis', VI=vi)."""
    idx = np.empty(len(x), dtype=int)
    dist = np.empty(len(x))
    for label in np.unique(g):
        q, r = np.flatnonzero(g == label), np.flatnonzero(g != label)
        d = cdist(x[q], x[r], "mahalanobis", VI=vi)
        j = d.argmin(axis=1)
        idx[q], dist[q] = r[j], d[np.arange(len(q)), j]
    return idx, dist


def _brute_exact(z: np.ndarray, g: np.ndarray, strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest other-group row (same stratum) by exact Σ (z_i − z_j)² over all pairs: lowest position among
    ties, and the number of ties."""
    idx = np.empty(len(z), dtype=int)
    ties = np.empty(len(z), dtype=int)
    for i in range(len(z)):
        others = np.flatnonzero((g != g[i]) & (strata == strata[i]))
        diff = z[others] - z[i]
        d2 = np.einsum("ij,ij->i", diff, diff)
        idx[i], ties[i] = others[np.argmin(d2)], int((d2 == d2.min()).sum())
    return idx, ties


@pytest.fixture
def small() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2024)
    n, p = 160, 6
    mix = rng.normal(size=(p, p))
    x = rng.normal(size=(n, p)) @ mix  # correlated features
    x[:, 0] *= 1000.0  # very different scales
    g = rng.choice(np.array(["BLACK", "WHITE"]), n)
    x[g == "BLACK", 1] += 3.0  # a group shift (between-group, not in the pooled covariance)
    return x, g


@pytest.mark.parametrize("block_rows", [7, None])
@pytest.mark.parametrize("covariance", ["pooled", "total"])
def test_neighbours_equal_brute_force(small, covariance, block_rows):
    x, g = small
    s = _pooled_cov(x, g) if covariance == "pooled" else np.cov(x, rowvar=False)
    vi = np.linalg.inv(s)
    expected_idx, expected_dist = _brute(x, g, vi)
    nb = nearest_other_group(x, g, covariance=covariance, block_rows=block_rows)
    np.testing.assert_array_equal(nb.neighbor, expected_idx)
    np.testing.assert_allclose(nb.distance, expected_dist, rtol=1e-9)
    assert (g[nb.neighbor] != g).all()
    np.testing.assert_allclose(nb.whitening.precision, vi, rtol=1e-8, atol=1e-14)
    assert nb.whitening.rank == x.shape[1]


def test_singular_covariance_pseudo_inverse(small):
    x, g = small
    race = (g == "BLACK").astype(float)
    # a collinear column (sum of two others) and race dummies (constant within each group)
    xs = np.column_stack([x, x[:, 2] + x[:, 3], race, 1.0 - race])
    frame = pd.DataFrame(
        xs, columns=[f"f{j}" for j in range(x.shape[1])] + ["sum23", "Race_BLACK", "Race_WHITE"]
    )
    with pytest.warns(
        SingularCovarianceWarning, match="2 zero-variance column.*Race_BLACK, Race_WHITE.*1 null"
    ):
        nb = nearest_other_group(frame, g)
    assert nb.whitening.dropped_columns == ("Race_BLACK", "Race_WHITE")
    assert nb.whitening.rank == x.shape[1]
    # brute force with the documented precision gives the same neighbours
    idx, dist = _brute(xs, g, nb.whitening.precision)
    np.testing.assert_array_equal(nb.neighbor, idx)
    np.testing.assert_allclose(nb.distance, dist, rtol=1e-8)
    # and the same neighbours as on the non-redundant features (the added columns carry no information)
    np.testing.assert_array_equal(nb.neighbor, nearest_other_group(x, g).neighbor)


def test_total_covariance_singular_equals_pinv(small):
    x, g = small
    xs = np.column_stack([x, x[:, 0] / 1000.0 - x[:, 4]])
    with pytest.warns(SingularCovarianceWarning):
        nb = nearest_other_group(xs, g, covariance="total")
    vi = np.linalg.pinv(np.cov(xs, rowvar=False), rcond=1e-12, hermitian=True)
    idx, dist = _brute(xs, g, vi)
    np.testing.assert_array_equal(nb.neighbor, idx)
    np.testing.assert_allclose(nb.distance, dist, rtol=1e-6)


def test_ties_go_to_lowest_position_and_are_counted():
    # 12 identical B rows at the minimum: all tied, the lowest position wins
    a = np.array([[0.0, 0.0]])
    b_far = np.array([[5.0, 5.0], [4.0, -4.0], [-3.0, 6.0]])
    b_near = np.tile([[1.0, 1.0]], (12, 1))
    x = np.vstack([a, b_far, b_near, [[2.0, -1.0], [-1.0, 2.0]]])
    g = np.array(["A"] + ["B"] * 15 + ["A", "A"])
    w = mahalanobis_whitening(x, covariance="total")
    nb = nearest_other_group(x, g, whitening=w)
    assert nb.neighbor[0] == 4 and nb.n_ties[0] == 12
    z = w.apply(x)
    exact = ((z[4:16] - z[0]) ** 2).sum(axis=1)
    assert nb.distance[0] == pytest.approx(np.sqrt(exact.min()))


@pytest.mark.parametrize("block_rows", [1, 7, None])
def test_many_ties_and_duplicates_equal_exact_brute_force(block_rows):
    rng = np.random.default_rng(31)
    n, p = 300, 5
    x = rng.integers(0, 3, size=(n, p)).astype(float)  # discrete: many exact ties and duplicates
    x[:, 4] = x[:, 0] + x[:, 1]  # a null direction: pseudo-inverse
    g = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])  # three groups: pairs merged
    strata = np.repeat(np.arange(3), n // 3)
    with pytest.warns(SingularCovarianceWarning):
        whitening = mahalanobis_whitening(x, group=g)
    z = whitening.apply(x)
    for s in (np.zeros(n, dtype=int), strata):
        nb = nearest_other_group(x, g, whitening=whitening, strata=s, block_rows=block_rows)
        idx, ties = _brute_exact(z, g, s)
        np.testing.assert_array_equal(nb.neighbor, idx)
        np.testing.assert_array_equal(nb.n_ties, ties)
        np.testing.assert_allclose(nb.distance**2, ((z - z[idx]) ** 2).sum(axis=1), rtol=1e-12, atol=1e-12)
        assert (nb.n_ties > 1).sum() > 20  # the case is really about ties


def test_strata_restrict_the_search(small):
    x, g = small
    strata = np.arange(len(x)) % 4
    nb = nearest_other_group(x, g, strata=strata)
    assert (strata[nb.neighbor] == strata).all()
    assert (g[nb.neighbor] != g).all()
    vi = np.linalg.inv(_pooled_cov(x, g))
    for s in range(4):
        m = np.flatnonzero(strata == s)
        idx, _ = _brute(x[m], g[m], vi)
        np.testing.assert_array_equal(nb.neighbor[m], m[idx])
    frame = nb.to_frame()
    assert list(frame.columns) == [
        "position",
        "stratum",
        "group",
        "neighbor",
        "neighbor_group",
        "distance",
        "n_ties",
    ]


def test_awareness_table_and_mcnemar():
    # 1-D features; A at 0, 10, 20, 30; B at 1, 11, 21: A's neighbours 4, 5, 6, 6; B's neighbours 0, 1, 2
    people = pd.DataFrame(
        {"x": [0.0, 10.0, 20.0, 30.0, 1.0, 11.0, 21.0], "g": list("AAAABBB"), "y": [0, 0, 1, 1, 1, 1, 0]}
    )
    r = fairness_through_awareness(people, features="x", group="g", y_pred="y")
    assert r.neighbours.neighbor.tolist() == [4, 5, 6, 6, 0, 1, 2]
    # group A pairs (own, neighbour): (0,1), (0,1), (1,0), (1,0) -> [[0, 2], [2, 0]]
    assert r.tables["A"].to_numpy().tolist() == [[0, 2], [2, 0]]
    assert r.tables["A"].index.name == "original" and r.tables["A"].columns.name == "neighbor"
    # group B pairs: (1,0), (1,0), (0,1) -> [[0, 1], [2, 0]]
    assert r.tables["B"].to_numpy().tolist() == [[0, 1], [2, 0]]
    tb = r.tests["B"]
    assert (tb.b, tb.c, tb.n) == (1, 2, 3)
    assert tb.pvalue == pytest.approx(5 / 8)  # 2·(1/8 + 3/8) − 3/8
    frame = r.to_frame()
    assert frame["group"].tolist() == ["A", "B"]
    assert frame[["n01", "n10"]].to_numpy().tolist() == [[2, 2], [1, 2]]
    assert frame.loc[1, "pvalue"] == pytest.approx(5 / 8)
    assert list(frame.columns) == ["group", "n", "n00", "n01", "n10", "n11", "b", "c", "statistic", "pvalue"]


def test_awareness_test_reuses_neighbours_for_several_models(small):
    x, g = small
    nb = nearest_other_group(x, g)
    rng = np.random.default_rng(5)
    for _ in range(2):
        y = rng.integers(0, 2, len(x))
        r = awareness_test(y, nb)
        total = sum(int(t.to_numpy().sum()) for t in r.tables.values())
        assert total == len(x)


def test_bad_input(small):
    x, g = small
    bad = x.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="column 'x2' has a non-finite value \\(nan\\) at row position 3"):
        nearest_other_group(bad, g)
    with pytest.raises(ValueError, match="`group` is required for covariance='pooled'"):
        mahalanobis_whitening(x)
    with pytest.raises(ValueError, match="`covariance` must be one of"):
        nearest_other_group(x, g, covariance="within")
    with pytest.raises(ValueError, match="`group` needs at least two groups"):
        nearest_other_group(x, np.array(["A"] * len(x)), covariance="total")
    with pytest.raises(ValueError, match="`group` must be 1-D with one entry per row"):
        nearest_other_group(x, g[:-1])
    strata = np.where(g == "BLACK", 0, 1)
    with pytest.raises(ValueError, match="no person of another group in stratum 0"):
        nearest_other_group(x, g, strata=strata)
    with pytest.raises(ValueError, match="`block_rows` must be a positive integer or None, got 0"):
        nearest_other_group(x, g, block_rows=0)
    nb = nearest_other_group(x, g)
    with pytest.raises(ValueError, match="`y_pred` must be 0/1, got 2 at position 0"):
        awareness_test(np.full(len(x), 2), nb)
    with pytest.raises(TypeError, match="`neighbours` must be a Neighbours result"):
        awareness_test(np.zeros(len(x)), "nb")
    with pytest.raises(TypeError, match="column 'name' must be numeric"):
        mahalanobis_whitening(
            pd.DataFrame({"a": [1.0, 2.0, 3.0], "name": ["p", "q", "r"]}), covariance="total"
        )


def test_no_warning_when_covariance_regular(small):
    x, g = small
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        nb = nearest_other_group(x, g)
    assert isinstance(nb, Neighbours)


def test_fairness_through_awareness_takes_columns_and_its_call_with_arrays_warns_until_0_4():
    rng = np.random.default_rng(8)
    people = pd.DataFrame(
        {
            "x1": rng.normal(size=60),
            "x2": rng.normal(size=60),
            "g": rng.choice(["A", "B"], 60),
            "fold": rng.integers(0, 2, 60),
            "y": rng.integers(0, 2, 60),
        }
    )
    cols = {"features": ["x1", "x2"], "group": "g", "y_pred": "y", "strata": "fold"}
    new = fairness_through_awareness(people, **cols)
    X, g, y, fold = (
        people[["x1", "x2"]].to_numpy(),
        people["g"].to_numpy(),
        people["y"].to_numpy(),
        people["fold"],
    )
    said = r"^fairstats\.fairness_through_awareness with arrays is deprecated since fairstats 0\.3 .* use "
    for call in (
        lambda: fairness_through_awareness(X, g, y, strata=fold.to_numpy()),
        lambda: fairness_through_awareness(X=X, group=g, y_pred=y, strata=fold.to_numpy()),
    ):
        with pytest.warns(DeprecationWarning, match=said) as caught:
            old = call()
        assert caught[0].filename == __file__
        pd.testing.assert_frame_equal(old.neighbours.to_frame(), new.neighbours.to_frame(), check_exact=True)
        pd.testing.assert_frame_equal(old.to_frame(), new.to_frame(), check_exact=True)
    with pytest.raises(ValueError, match=r"`data`: missing column\(s\) 'x3'"):
        fairness_through_awareness(people, **{**cols, "features": ["x1", "x3"]})
