"""Battery: all per-fold group metrics and tests, 4 models x 250 folds, vs fairlearn's MetricFrame.

Ours: :func:`compendium.paper_b.battery.battery_tables` without the awareness features (fairness through
awareness is the awareness benchmark): the eleven per-fold group metrics of
:func:`fairstats.metrics.group_metrics` (one
``np.bincount`` over combined model x fold x race x cell codes), the fold t-tests of Tables II-XI, XIV, XV
(paper formula, pooled, paired, corrected), calibration and well-calibration (XII, XIII) and the causal
discrimination McNemar tests (XX). Peer: the same eleven metrics computed fold by fold with
``fairlearn.metrics.MetricFrame`` (sklearn/fairlearn metric functions, ``pos_label=0``), then the same fold
t-tests (:func:`compendium.paper_b.as_published.fold_ttest_as_published`) -- the peer does less than ours (no
calibration, no McNemar). A second reference runs MetricFrame once per model with ``control_features=fold``.
The metrics plus fold t-tests alone (``group_metrics`` + ``fold_ttest_as_published``) are timed too, in
``details.csv``.

Input: the real out-of-fold predictions ``results/default/nij/paper/predictions/*.parquet`` when they exist,
otherwise a synthetic table of the same shape (25,750 people in 250 folds of 103, 14,801 Black and 10,949
White, base rate 0.58, four models' scores) drawn from the config seed.

Goal (issue 7): >= 20x faster than the fold-by-fold MetricFrame and <= 2 s; values must agree.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, best_time, config_seed, detail, emit, parser, row  # noqa: E402

from compendium.paper_b.as_published import fold_ttest_as_published  # noqa: E402
from compendium.paper_b.battery import battery_tables  # noqa: E402
from fairstats.metrics import METRICS, group_metrics  # noqa: E402

NAME = "battery"
MODELS = ("lr", "lda", "rf", "xgb")
REAL = ROOT / "results" / "default" / "nij" / "paper" / "predictions"
# paper B's tails (disparity oriented White minus Black); the timing does not depend on them
ALTERNATIVE = {
    "ppr": "greater",
    "tpr": "greater",
    "fpr": "less",
    "fnr": "less",
    "tnr": "two-sided",
    "ppv": "greater",
    "npv": "greater",
    "accuracy": "two-sided",
    "fn_fp_ratio": "two-sided",
    "mean_score_pos": "two-sided",
    "mean_score_neg": "two-sided",
}


def synthetic_predictions(seed: int, *, n_folds: int = 250, fold_size: int = 103) -> pd.DataFrame:
    """Out-of-fold predictions shaped like paper B's: 4 models x 25,750 people, race-dependent rates."""
    rng = np.random.default_rng(seed)
    n = n_folds * fold_size
    n_black = round(n * 14_801 / 25_750)
    race = rng.permutation(np.r_[np.full(n_black, "BLACK"), np.full(n - n_black, "WHITE")])
    black = race == "BLACK"
    y_true = (rng.random(n) < np.where(black, 0.61, 0.54)).astype(np.int64)
    frames = []
    for k, model in enumerate(MODELS):
        signal = 0.15 + 0.05 * k
        logit = signal * 6 * (y_true - 0.5) + 0.25 * black + rng.normal(0, 1.2, n)
        score = 1 / (1 + np.exp(-logit))
        flipped = 1 / (1 + np.exp(-(logit - 0.5 * black + 0.5 * ~black)))
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "fold": np.repeat(np.arange(n_folds), fold_size),
                    "ID": np.arange(n),
                    "race": race,
                    "y_true": y_true,
                    "y_score": score,
                    "y_pred": (score >= 0.5).astype(np.int64),
                    "y_score_flipped": flipped,
                    "y_pred_flipped": (flipped >= 0.5).astype(np.int64),
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out["model"] = pd.Categorical(out["model"], categories=list(MODELS))
    return out


def load_predictions(seed: int, *, quick: bool) -> tuple[pd.DataFrame, str]:
    files = sorted(REAL.glob("*.parquet")) if REAL.is_dir() else []
    if files and not quick:
        from compendium.paper_b.predictions import read_predictions

        frame = pd.concat([read_predictions(f) for f in files], ignore_index=True)
        return frame, f"real out-of-fold predictions ({', '.join(f.name for f in files)})"
    if quick:
        return synthetic_predictions(seed, n_folds=10), "synthetic (quick: 10 folds)"
    return synthetic_predictions(seed), "synthetic, seeded (real predictions not present)"


def ours_battery(data: pd.DataFrame):
    """The whole battery as the workflow runs it (without awareness), and its per-fold metrics, wide."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined per-fold metrics, small calibration bins: expected
        tables = battery_tables(data, features=None, favorable=0)
    long = tables.fold_metrics
    wide = long.pivot_table(index=["model", "fold", "group"], columns="metric", values="value", dropna=False)
    wide = wide.reset_index().rename(columns={"group": "race"})
    wide["race"] = wide["race"].str.upper()
    return tables.battery, wide


def ours(data: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    wide = group_metrics(
        data, y_true="y_true", y_pred="y_pred", y_score="y_score", group="race", fold="fold", by=("model",),
        favorable=0, form="wide", warn=False,
    )  # fmt: skip
    return wide, fold_tests(wide)


def fold_tests(wide: pd.DataFrame) -> list:
    results = []
    model = wide["model"].astype(str)
    for name in sorted(model.unique()):
        per_model = wide[model == name]
        white = per_model[per_model["race"] == "WHITE"].sort_values("fold")
        black = per_model[per_model["race"] == "BLACK"].sort_values("fold")
        for metric in METRICS:
            a, b = white[metric].to_numpy(), black[metric].to_numpy()
            results.append(fold_ttest_as_published(a, b, alternative=ALTERNATIVE[metric], alpha=0.05))
    return results


def _peer_metrics():
    from fairlearn.metrics import false_negative_rate, false_positive_rate, selection_rate, true_negative_rate
    from sklearn.metrics import accuracy_score, confusion_matrix, precision_score, recall_score

    def fn_fp_ratio(y, p):
        cm = confusion_matrix(y, p, labels=[0, 1])  # favourable 0: FN = (y 0, p 1), FP = (y 1, p 0)
        return cm[0, 1] / cm[1, 0] if cm[1, 0] else np.nan

    def mean_where(value):
        def metric(y, s):
            y = np.asarray(y)
            return np.asarray(s)[y == value].mean() if (y == value).any() else np.nan

        return metric

    labels = {
        "ppr": lambda y, p: selection_rate(y, p, pos_label=0),
        "tpr": lambda y, p: recall_score(y, p, pos_label=0, zero_division=np.nan),
        "fpr": lambda y, p: false_positive_rate(y, p, pos_label=0),
        "fnr": lambda y, p: false_negative_rate(y, p, pos_label=0),
        "tnr": lambda y, p: true_negative_rate(y, p, pos_label=0),
        "ppv": lambda y, p: precision_score(y, p, pos_label=0, zero_division=np.nan),
        "npv": lambda y, p: precision_score(y, p, pos_label=1, zero_division=np.nan),
        "accuracy": accuracy_score,
        "fn_fp_ratio": fn_fp_ratio,
    }
    scores = {"mean_score_pos": mean_where(0), "mean_score_neg": mean_where(1)}
    return labels, scores


def peer_fold_by_fold(data: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """What a user writes with fairlearn: one MetricFrame per model and fold (plus one for the scores)."""
    from fairlearn.metrics import MetricFrame

    labels, scores = _peer_metrics()
    parts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's zero-division warnings
        for (model, fold), sub in data.groupby(["model", "fold"], sort=True, observed=True):
            a = MetricFrame(
                metrics=labels, y_true=sub["y_true"], y_pred=sub["y_pred"], sensitive_features=sub["race"]
            ).by_group
            b = MetricFrame(
                metrics=scores, y_true=sub["y_true"], y_pred=sub["y_score"], sensitive_features=sub["race"]
            ).by_group
            part = pd.concat([a, b], axis=1).reset_index()
            part.insert(0, "fold", fold)
            part.insert(0, "model", model)
            parts.append(part)
    wide = pd.concat(parts, ignore_index=True)
    return wide, fold_tests(wide)


def peer_control_features(data: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """fairlearn's own stratification: one MetricFrame per model with ``control_features=fold``."""
    from fairlearn.metrics import MetricFrame

    labels, scores = _peer_metrics()
    parts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, sub in data.groupby("model", sort=True, observed=True):
            common = dict(y_true=sub["y_true"], sensitive_features=sub["race"], control_features=sub["fold"])
            a = MetricFrame(metrics=labels, y_pred=sub["y_pred"], **common).by_group
            b = MetricFrame(metrics=scores, y_pred=sub["y_score"], **common).by_group
            part = pd.concat([a, b], axis=1).reset_index()
            part.insert(0, "model", model)
            parts.append(part)
    wide = pd.concat(parts, ignore_index=True)
    return wide, fold_tests(wide)


def compare(ours_wide: pd.DataFrame, theirs_wide: pd.DataFrame) -> tuple[float, int, int]:
    """Largest absolute difference where both are defined; NaN positions that differ; values compared."""
    key = ["model", "fold", "race"]
    a = ours_wide.assign(model=ours_wide["model"].astype(str), race=ours_wide["race"].astype(str))
    b = theirs_wide.assign(model=theirs_wide["model"].astype(str), race=theirs_wide["race"].astype(str))
    a = a.set_index(key).sort_index()[list(METRICS)]
    b = b.set_index(key).sort_index().loc[a.index, list(METRICS)].astype(float)
    x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    both = ~np.isnan(x) & ~np.isnan(y)
    return float(np.max(np.abs(x[both] - y[both]))), int((np.isnan(x) != np.isnan(y)).sum()), int(x.size)


def main() -> None:
    args = parser(NAME, __doc__.splitlines()[0]).parse_args()
    seed = config_seed()
    data, source = load_predictions(seed, quick=args.quick)
    n_strata = data.groupby(["model", "fold"], observed=True).ngroups
    print(f"battery: {len(data):,} rows, {n_strata} model x fold strata, {source}")

    ours_s, (battery, battery_wide), ours_times = best_time(lambda: ours_battery(data), repeat=5)
    metrics_s, (ours_wide, ours_tests), metrics_times = best_time(lambda: ours(data), repeat=5)
    peer_s, (peer_wide, peer_tests), _ = best_time(lambda: peer_fold_by_fold(data), repeat=1)
    ctrl_s, (ctrl_wide, _), _ = best_time(lambda: peer_control_features(data), repeat=1)

    max_diff, nan_mismatch, n_values = compare(battery_wide, peer_wide)
    max_diff_ctrl, nan_mismatch_ctrl, _ = compare(battery_wide, ctrl_wide)
    max_diff_metrics, nan_mismatch_metrics, _ = compare(ours_wide, peer_wide)
    same_tests = all(
        np.allclose(
            [o.statistic_paper_formula, o.pvalue_corrected], [p.statistic_paper_formula, p.pvalue_corrected],
            rtol=1e-9, equal_nan=True,
        )
        for o, p in zip(ours_tests, peer_tests, strict=True)
    )  # fmt: skip
    agree = max_diff < 1e-12 and nan_mismatch == 0 and max_diff_metrics < 1e-12 and nan_mismatch_metrics == 0
    what = (
        f"{n_strata} model x fold strata, 11 metrics x 2 groups; battery of {len(battery)} tests "
        "(fold t-tests, calibration, well-calibration, causal McNemar); peer: metrics + "
        f"{len(peer_tests)} fold t-tests"
    )
    rows = [
        row(
            "battery: per-fold group metrics + all tests but awareness (battery_tables)",
            ours_s=ours_s,
            reference=f"fairlearn MetricFrame fold by fold ({n_strata} x 2 frames) + the fold t-tests",
            reference_s=peer_s,
            floor=False,
            goal=">= 20x faster and <= 2 s, same values",
            met=peer_s / ours_s >= 20 and ours_s <= 2 and agree,
        ),
        row(
            "battery: per-fold group metrics + all tests but awareness (battery_tables)",
            ours_s=ours_s,
            reference="fairlearn MetricFrame with control_features=fold (4 x 2 frames) + the fold t-tests",
            reference_s=ctrl_s,
            floor=False,
            goal=">= 20x faster and <= 2 s, same values",
            met=ctrl_s / ours_s >= 20 and ours_s <= 2 and max_diff_ctrl < 1e-12 and nan_mismatch_ctrl == 0,
        ),
    ]
    b = "battery"
    details = [
        detail(b, "input", source),
        detail(b, "rows", len(data), "rows"),
        detail(b, "work", what),
        detail(b, "ours_times", [round(t, 6) for t in ours_times], "s"),
        detail(b, "metrics_and_fold_ttests_only_s", metrics_s, "s"),
        detail(b, "metrics_and_fold_ttests_only_times", [round(t, 6) for t in metrics_times], "s"),
        detail(b, "max_abs_difference_group_metrics_vs_fold_by_fold", max_diff_metrics),
        detail(b, "nan_mismatches_group_metrics_vs_fold_by_fold", nan_mismatch_metrics, "values"),
        detail(b, "values_compared", n_values, "values"),
        detail(b, "max_abs_difference_vs_fold_by_fold", max_diff),
        detail(b, "nan_mismatches_vs_fold_by_fold", nan_mismatch, "values"),
        detail(b, "max_abs_difference_vs_control_features", max_diff_ctrl),
        detail(b, "nan_mismatches_vs_control_features", nan_mismatch_ctrl, "values"),
        detail(b, "undefined_values_ours", int(ours_wide[list(METRICS)].isna().to_numpy().sum()), "values"),
        detail(b, "t_tests_agree", bool(same_tests)),
    ]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
