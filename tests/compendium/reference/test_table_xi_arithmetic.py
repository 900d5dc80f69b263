"""Table XI (treatment equality) cannot come from the authors' committed confusion counts, under any of the
conventions their files and the paper's text allow."""

import itertools

import numpy as np
import pandas as pd
from repo_paths import ROOT

RAW = ROOT / "data/raw/paper-b-authors"
# Paper B, Table XI as printed: (disparity, test statistic) per model; p-values 1, 0, 0, 0.
PRINTED = {"LR": (-0.139, 5.52), "LD": (0.296, -21.87), "RF": (0.579, -40.83), "XG": (0.187, -17.71)}
CONTINGENCY = {"LR": "LR", "LD": "LDA", "RF": "RF", "XG": "XG"}
# The conventions tried: FN/FP or FP/FN; counts or conditional rates (FNR/FPR); folds whose denominator is
# zero dropped, counted as ratio 0, or every count + 0.5.
CONVENTIONS = list(itertools.product(("FN/FP", "FP/FN"), ("counts", "rates"), ("drop", "zero", "half")))


def _per_fold(model: str, race: str, ratio: str, kind: str, zero: str) -> pd.Series:
    shares = pd.read_csv(RAW / "Confusion Distribution.csv", index_col=0)
    sizes = pd.read_csv(RAW / "Contingencies.csv", index_col=0)
    c = CONTINGENCY[model]
    n = sizes[f"{c} {race} Recidivism"] + sizes[f"{c} {race} No Recidivism"]
    # cells as shares of the group in the fold (compendium.paper_b.authors): White A, C, E, G; Black B, D, F,
    # H; favourable 0 "positive": A/B = tp, C/D = fp, E/F = tn, G/H = fn
    tp, fp, tn, fn = ((shares[model + x] * n) for x in (("A", "C", "E", "G") if race == "White" else "BDFH"))
    extra = 0.5 if zero == "half" else 0.0
    fn, fp = fn + extra, fp + extra
    if kind == "rates":
        fn, fp = fn / (tp + fn + 2 * extra), fp / (fp + tn + 2 * extra)
    num, den = (fn, fp) if ratio == "FN/FP" else (fp, fn)
    value = num / den.where(den > 1e-12)
    return value.fillna(0.0) if zero == "zero" else value.dropna()


def _paper_formula(white: pd.Series, black: pd.Series) -> tuple[float, float]:
    """Disparity Black - White and the paper's statistic (White - Black) / (s_p (1/K_W + 1/K_B))."""
    kw, kb = len(white), len(black)
    sp = np.sqrt(((kw - 1) * white.var() + (kb - 1) * black.var()) / (kw + kb - 2))
    return black.mean() - white.mean(), (white.mean() - black.mean()) / (sp * (1 / kw + 1 / kb))


def test_printed_table_xi_cannot_come_from_the_authors_confusion_counts():
    # The authors' Confusion Distribution.csv (per fold and race, the four cells as shares; times the group
    # sizes of Contingencies.csv they are counts) under each of the 12 conventions, through the paper's own
    # formula: no convention gives any model's printed disparity (3 decimals) or statistic (2 decimals),
    # either sign. LDA's and RF's predictions equal the authors' (Table I, 250 of 250 folds), so these are the
    # counts behind their Table XI: the printed numbers are not a function of them.
    near = []
    for model, (disparity, statistic) in PRINTED.items():
        for convention in CONVENTIONS:
            d, t = _paper_formula(
                _per_fold(model, "White", *convention), _per_fold(model, "Black", *convention)
            )
            assert min(abs(d - disparity), abs(d + disparity)) > 0.0005, (model, convention, d)
            assert min(abs(t - statistic), abs(t + statistic)) > 0.005, (model, convention, t)
            if abs(abs(d) - abs(disparity)) < 0.01 and abs(abs(t) - abs(statistic)) < 1:
                near.append((model, convention))
    # near both (disparity within 0.01, statistic within 1) only LDA with zero-false-positive folds counted as
    # ratio 0: 0.2875 and -22.73 for the printed 0.296 and -21.87; the closest disparity of all (XGBoost,
    # FP/FN with +0.5: |d| 0.1865 for 0.187) comes with a statistic of 49.07 for 17.71
    assert near == [("LD", ("FN/FP", "counts", "zero"))]


def test_the_convention_of_the_note_gives_the_committed_numbers():
    # compendium.paper_b.authors' Table XI note: FN/FP = G/C per fold, folds without a false positive dropped
    # (243 White and 247 Black folds for LR), disparity -0.058 and statistic 2.29 for LR
    white, black = (
        _per_fold("LR", "White", "FN/FP", "counts", "drop"),
        _per_fold("LR", "Black", "FN/FP", "counts", "drop"),
    )
    d, t = _paper_formula(white, black)
    assert (len(white), len(black)) == (243, 247)
    assert round(d, 3) == -0.058 and round(t, 2) == 2.29
