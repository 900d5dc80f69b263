"""The authors' "Mahalanobis" distance is sqrt(2) for every pair (compendium.paper_b.authors_awareness)."""

import numpy as np
import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.data.nij import read_paper_folds
from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors import read_published_b
from compendium.paper_b.authors_awareness import (
    authors_distance,
    authors_neighbours,
    awareness_matrix,
    awareness_mcnemar,
    compare_setups,
    exact_search_chunk,
    exact_search_counts,
    printed_awareness_cells,
    random_neighbour_counts,
    setup_gaps,
    setup_gaps_summary,
    setup_sensitivity,
)
from fairstats.mcnemar import mcnemar_midp

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


def test_exact_search_chunk_is_the_authors_setup_and_the_counts_add_up(fold0):
    X, black = fold0
    n = 16
    matrix = pd.DataFrame(X[:n], columns=[f"x{j}" for j in range(X.shape[1])])
    matrix.insert(0, "ID", np.arange(100, 100 + n))
    matrix.insert(0, "black", black[:n])
    matrix.insert(0, "fold", 7)
    got = exact_search_chunk(matrix, [7])
    nb, dist = authors_neighbours(matrix.drop(columns=["fold", "black"]).to_numpy(), black[:n])
    np.testing.assert_array_equal(got["neighbour_ID"], 100 + nb)  # stack (person, candidate), one thread
    np.testing.assert_array_equal(got["distance"], dist)
    with pytest.raises(ValueError, match="fold 8"):
        exact_search_chunk(matrix, [8])
    preds = np.arange(n) % 2
    refits = pd.concat(
        [
            pd.DataFrame(
                {
                    "model": m,
                    "ID": matrix["ID"],
                    "race": np.where(black[:n] == 1, "BLACK", "WHITE"),
                    "y_pred": preds,
                }
            )
            for m in ("lda", "rf")
        ],
        ignore_index=True,
    )
    printed = printed_awareness_cells(read_published_b(ROOT / "data/published/paper-b-tables.csv"))
    totals = printed.groupby(["table", "group"])["published"].sum()
    # paper B: Table XXII's blocks add up to the 10,949 White and 14,801 Black people; XXIV's White block to
    # 13,374 (a misprint, erratum "inconsistent: printed counts")
    assert len(printed) == 32 and totals[("XXII", "White")] == 10949 and totals[("XXII", "Black")] == 14801
    assert totals[("XXIV", "White")] == 13374
    counts = exact_search_counts(got, refits, printed)
    assert set(counts["table"]) == {"XXII", "XXIII"}
    per_group = counts.groupby(["model", "group"])["n"].sum().unstack()
    assert (per_group["Black"] == int(black[:n].sum())).all()
    # paper B, Table XXII, protected block: printed row "0" (neighbour 0), column "1" (own 1) is 3723, Table
    # XXV's K for LDA (Protected)
    row = counts[
        (counts["table"] == "XXII")
        & (counts["group"] == "Black")
        & (counts["original"] == 1)
        & (counts["neighbor"] == 0)
    ]
    assert row["published"].item() == 3723


def test_setup_sensitivity_counts_the_changed_neighbours_and_cells(fold0):
    X, black = fold0
    n = 16
    matrix = pd.DataFrame(X[:n], columns=[f"x{j}" for j in range(X.shape[1])])
    matrix.insert(0, "ID", np.arange(100, 100 + n))
    matrix.insert(0, "black", black[:n])
    matrix.insert(0, "fold", 7)
    setups = compare_setups(matrix, [7], setups=(("xy", 1), ("yx", 1)))
    every_fold = exact_search_chunk(matrix, [7])
    preds = np.arange(n) % 2
    refits = pd.DataFrame(
        {
            "model": "lda",
            "ID": matrix["ID"],
            "race": np.where(black[:n] == 1, "BLACK", "WHITE"),
            "y_pred": preds,
        }
    )
    summary, counts = setup_sensitivity(setups, every_fold, refits, n_folds_total=250)
    first, other = summary.iloc[0], summary.iloc[1]
    # the first set-up is the every-fold run's: the same neighbour for everyone
    assert first["same_as_every_fold_run"] == n and first["share_changed"] == 0
    changed = int((~setups.loc[setups["setup"] == other["setup"], "same_as_first"]).sum())
    assert other["people"] - other["same_neighbour_as_first"] == changed
    # each set-up's cells add up to the people of each group
    per = counts.groupby(["setup", "group"])["n"].sum().unstack()
    assert (per["Black"] == int(black[:n].sum())).all()
    np.testing.assert_array_equal(counts["change"], counts["n"] - counts["n_first"])
    # one fold: no spread, so the projection over 250 folds is 250 times the change
    np.testing.assert_array_equal(counts["projected_change_low"], 250 * counts["change"])
    np.testing.assert_array_equal(counts["projected_change_high"], 250 * counts["change"])
    assert (counts.loc[counts["setup"] == first["setup"], "change"] == 0).all()
    with pytest.raises(ValueError, match="fold 7"):
        setup_sensitivity(setups, every_fold.assign(fold=8), refits)


def _cells(values, published):
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    return pd.DataFrame(
        [["lr", "XXI", "White", x, y, n, p] for (x, y), n, p in zip(keys, values, published, strict=True)],
        columns=["model", "table", "group", "original", "neighbor", "n", "published"],
    )


def test_setup_gaps_set_each_gap_against_each_other_setup_and_its_direction():
    exact = _cells([100, 200, 300, 400], [90, 230, 300, 380])  # gaps -10, +30, 0, -20
    rows = []
    for setup, ranges in (
        ("first", [(0, 0)] * 4),
        ("other", [(5, 40), (-50, 50), (-3, 3), (0, 0)]),
        ("third", [(-15, -5), (10, 20), (0, 0), (-30, 10)]),
    ):
        for (x, y), (lo, hi) in zip([(0, 0), (0, 1), (1, 0), (1, 1)], ranges, strict=True):
            rows.append(["lr", "XXI", "White", x, y, setup, lo, hi])
    counts = pd.DataFrame(
        rows,
        columns=[
            "model",
            "table",
            "group",
            "original",
            "neighbor",
            "setup",
            "projected_change_low",
            "projected_change_high",
        ],
    )
    gaps = setup_gaps(exact, counts)
    assert set(gaps["setup"]) == {"other", "third"} and len(gaps) == 8  # the first set-up is the authors'
    g = gaps.set_index(["original", "neighbor", "setup"])
    assert g["gap"].xs("other", level="setup").tolist() == [-10, 30, 0, -20]
    # (0, 0): gap -10; "other" moves ours by +5..+40 (away), "third" by -15..-5 (towards, holds it)
    assert g.loc[(0, 0, "other"), ["gap_in_range", "direction"]].tolist() == [False, "away"]
    assert g.loc[(0, 0, "third"), ["gap_in_range", "direction"]].tolist() == [True, "towards"]
    assert g.loc[(1, 0, "other"), "direction"] == "no gap"
    assert g.loc[(1, 1, "other"), ["gap_in_range", "direction"]].tolist() == [False, "still"]
    assert g.loc[(0, 1, "third"), ["gap_in_range", "direction"]].tolist() == [False, "towards"]
    summary = setup_gaps_summary(gaps).set_index(["original", "neighbor"])
    assert summary.loc[(0, 0), ["in_range_of", "no_setup_towards"]].tolist() == ["third", False]
    assert summary.loc[(0, 1), ["in_range_of", "no_setup_towards"]].tolist() == ["other", False]
    assert summary.loc[(1, 0), "no_setup_towards"] == False  # noqa: E712 (no gap)
    assert summary.loc[(1, 1), ["in_range_of", "no_setup_towards"]].tolist() == ["third", False]
    moved_away = setup_gaps(exact, counts[counts["setup"] != "third"])
    assert setup_gaps_summary(moved_away).set_index(["original", "neighbor"]).loc[(0, 0), "no_setup_towards"]


def test_awareness_mcnemar_takes_k_and_n_minus_k_from_the_discordant_cells():
    exact = pd.concat(
        [_cells([100, 200, 300, 400], [0] * 4), _cells([50, 60, 70, 80], [0] * 4).assign(group="Black")],
        ignore_index=True,
    )
    out = awareness_mcnemar(exact, alpha=0.05).set_index("group")
    # K = own 1, neighbour 0 (300); N-K = own 0, neighbour 1 (200)
    assert out.loc["White", ["k", "n_minus_k", "n"]].tolist() == [300, 200, 1000]
    assert out.loc["Black", ["k", "n_minus_k", "n"]].tolist() == [70, 60, 260]
    assert out.loc["White", "pvalue"] == mcnemar_midp(300, 200).pvalue
    assert out.loc["White", "pvalue_as_published"] == mcnemar_midp_as_published(300, 200).pvalue
    assert set(out["table"]) == {"XXV"} and set(out["metric"]) == {"prediction_vs_neighbor"}
    assert awareness_mcnemar(exact.iloc[0:0]).empty
