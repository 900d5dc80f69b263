r"""Paper B's tables regenerated from the authors' own per-fold results, through the paper's own formula.

The authors of paper B committed, beside their code, the per-fold results behind Tables I-X (vendored in
``data/raw/paper-b-authors/``; row i of every file = test fold i of 250):

``Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv``
    Per fold: overall accuracy of each model (``Accuracy of ...``; Table I) and, per race, the positive
    (favourable, prediction 0) prediction rate ``White/Black PPR <model>`` (Table II). Its ``TPR/FPR/TNR/FNR``
    columns are *joint* shares of the group (the cells A, C, E, G below), not conditional rates.
``Confusion Distribution.csv``
    Per fold and race, the four confusion cells as shares of the group's people in that fold: columns
    ``<M>A ... <M>H`` for M in ``RF, LD, XG, LR``; A/B = (ŷ 0, y 0), C/D = (ŷ 0, y 1), E/F = (ŷ 1, y 1),
    G/H = (ŷ 1, y 0), first letter of each pair White, second Black. With the favourable outcome 0 (no
    recidivism) as "positive", A = tp, C = fp, E = tn, G = fn (:mod:`fairstats.metrics`), so
    TPR = A/(A+G), FPR = C/(C+E), FNR = G/(A+G), PPV = A/(A+C), NPV = E/(E+G), accuracy = A+E and
    FN/FP = G/C (Tables III-XI).
``Contingencies.csv``
    Per fold, the count of prediction 1 (``Recidivism``) and 0 (``No Recidivism``) per model and race: the
    group sizes (10,949 White and 14,801 Black over the 250 folds) and the column totals of Tables XVI-XXIV.

The printed test statistics of Tables II-X are the ``paper_formula`` of
:func:`~compendium.paper_b.as_published.fold_ttest_as_published`: the pooled t without the square root,
:math:`(\bar x_W - \bar x_B)/(s_p (1/250 + 1/250))`, p from t on 498 df,
the statistic always White minus Black; the printed disparity is White - Black for right-tailed tests,
Black - White for left-tailed ones and the absolute difference for the two-sided test (Table X).

What cannot be regenerated from these files (see :func:`published_vs_reproduced_authors` for the per-number
notes): Table XI (no ratio of the committed confusion shares gives the printed values), Tables XII-XV (they
need every person's predicted probability; only fold 0's was committed), Tables XVI-XIX and XXI-XXV (they
need the counterfactual and nearest-neighbour predictions, not committed). Table XX's p-values follow from its
printed K and N-K (:mod:`fairstats.mcnemar`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium._checks import require_table
from compendium.paper_b.as_published import fold_ttest_as_published, mcnemar_midp_as_published
from compendium.paper_b.printed_arithmetic import PAIR_TABLES, impossible_printed_numbers, printed_blocks
from compendium.publish.published import PVR_PIECE_COLUMNS, matches_printed
from fairstats.mcnemar import mcnemar_midp

__all__ = [
    "AUTHORS_FILES",
    "EVIDENCE",
    "AUTHORS_METRICS",
    "MODELS",
    "PAPER_B_TESTS",
    "PaperTest",
    "authors_battery",
    "authors_fold_metrics",
    "authors_table_i",
    "printed_count_checks",
    "published_vs_reproduced_authors",
    "read_published_b",
]

#: The authors' files used here (names inside ``raw_dir``).
AUTHORS_FILES = {
    "fairness": "Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv",
    "confusion": "Confusion Distribution.csv",
    "contingencies": "Contingencies.csv",
}

#: Model key -> (Confusion Distribution prefix, Fairness Metrics / Contingencies code, accuracy column,
#: name printed in paper B). Keys follow ``config["nij"]["models"]``; order = the paper's row order.
MODELS: dict[str, tuple[str, str, str, str]] = {
    "lr": ("LR", "LR", "Accuracy of Logistic Regression Algorithm", "Logistic Regression"),
    "lda": ("LD", "LDA", "Accuracy of LDA Algorithm", "Linear Discriminant Analysis"),
    "rf": ("RF", "RF", "Accuracy of Random Forest", "Random Forest"),
    "xgb": ("XG", "XG", "Accuracy of XgBoost", "Gradient Boosting"),
}

_GROUPS = ("White", "Black")
#: Confusion Distribution letter per (cell, group); cells as in fairstats.metrics (favourable = 0).
_CELL_LETTERS = {
    "tp": {"White": "A", "Black": "B"},
    "fp": {"White": "C", "Black": "D"},
    "tn": {"White": "E", "Black": "F"},
    "fn": {"White": "G", "Black": "H"},
}
#: Metrics computed from the authors' files, in output order.
AUTHORS_METRICS = ("ppr", "tpr", "fpr", "fnr", "ppv", "npv", "accuracy", "fn_fp_ratio")
#: The group sizes over the 250 folds (sum of Contingencies.csv), which every 2x2 table block must add up to.
_SHARE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class PaperTest:
    """One fold-based t-test of paper B as the paper runs it.

    Attributes
    ----------
    table : str
        Roman numeral of the paper's table.
    test : str
        Fairness definition (``group_fairness``, ``predictive_parity``, ...).
    metric : str
        Per-fold metric compared (:data:`AUTHORS_METRICS`, names of :mod:`fairstats.metrics`).
    alternative : str
        Tail about mean(White) - mean(Black), as the paper states it.
    n_tests : int
        Tests in the definition (2 for equalized odds and conditional use accuracy equality): the test's
        alpha is the family alpha divided by it (Bonferroni, as the paper does).
    """

    table: str
    test: str
    metric: str
    alternative: str
    n_tests: int = 1

    def disparity(self, mean_white: float, mean_black: float) -> float:
        """The paper's printed disparity: W - B (right tail), B - W (left tail), abs(W - B) (two-sided)."""
        if self.alternative == "greater":
            return mean_white - mean_black
        if self.alternative == "less":
            return mean_black - mean_white
        return abs(mean_white - mean_black)


#: The fold-based t-tests of paper B (Sections II-B to II-I), with the paper's tails.
PAPER_B_TESTS: tuple[PaperTest, ...] = (
    PaperTest("II", "group_fairness", "ppr", "greater"),
    PaperTest("III", "predictive_parity", "ppv", "less"),
    PaperTest("IV", "predictive_equality", "fpr", "greater"),
    PaperTest("V", "equal_opportunity", "fnr", "less"),
    PaperTest("VI", "equalized_odds", "fpr", "greater", 2),
    PaperTest("VII", "equalized_odds", "tpr", "greater", 2),
    PaperTest("VIII", "conditional_use_accuracy_equality", "ppv", "less", 2),
    PaperTest("IX", "conditional_use_accuracy_equality", "npv", "greater", 2),
    PaperTest("X", "overall_accuracy_equality", "accuracy", "two-sided"),
    PaperTest("XI", "treatment_equality", "fn_fp_ratio", "less"),
)

_ROMAN = (
    "I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX XXI XXII XXIII XXIV XXV".split()
)


# --------------------------------------------------------------------------------------------- reading


def _read_authors_csv(raw_dir: str | os.PathLike, key: str, columns: list[str]) -> pd.DataFrame:
    path = Path(raw_dir) / AUTHORS_FILES[key]
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the authors' file {AUTHORS_FILES[key]!r} is missing from `raw_dir`")
    frame = pd.read_csv(path, index_col=0)
    require_table(frame, columns, where=str(path))
    folds = frame.index.to_numpy()
    if not np.array_equal(folds, np.arange(len(frame))):
        raise ValueError(
            f"{path}: the first column must number the folds 0..{len(frame) - 1} (row i = fold i)"
        )
    sub = frame[columns]
    for column in columns:
        if not pd.api.types.is_numeric_dtype(sub[column]):
            bad = pd.to_numeric(sub[column], errors="coerce").isna() & sub[column].notna()
            value = sub.loc[bad, column].iloc[0] if bad.any() else None
            raise ValueError(f"{path}: column {column!r} is not numeric (value {value!r})")
        isna = sub[column].isna()
        if isna.any():
            raise ValueError(
                f"{path}: column {column!r} has {int(isna.sum())} missing value(s), first at fold "
                f"{int(sub.index[isna.to_numpy()][0])}"
            )
    return sub.astype(float)


def _confusion_columns() -> list[str]:
    return [f"{prefix}{letter}" for prefix, *_ in MODELS.values() for letter in "ABCDEFGH"]


def _fairness_columns() -> list[str]:
    cols = [acc for _, _, acc, _ in MODELS.values()]
    cols += [f"{g} PPR {code}" for _, code, _, _ in MODELS.values() for g in _GROUPS]
    return cols


def _contingency_columns() -> list[str]:
    return [
        f"{code} {g} {what}"
        for _, code, _, _ in MODELS.values()
        for g in _GROUPS
        for what in ("Recidivism", "No Recidivism")
    ]


def authors_fold_metrics(raw_dir: str | os.PathLike) -> pd.DataFrame:
    """Per-fold, per-race metrics of the four models, from the authors' committed files.

    Parameters
    ----------
    raw_dir : str or path-like
        Folder with the authors' files (``data/raw/paper-b-authors``), see :data:`AUTHORS_FILES`.

    Returns
    -------
    pandas.DataFrame
        Tidy, one row per (model, metric, group, fold): ``model`` (``lr, lda, rf, xgb``), ``metric``
        (:data:`AUTHORS_METRICS`), ``group`` (``White``, ``Black``), ``fold`` (0..K-1), ``value`` (NaN where
        the metric is undefined in that fold, e.g. FN/FP with no false positive), ``source_file``. Sorted by
        model (paper order), metric (:data:`AUTHORS_METRICS` order), group (White first), fold.

    Raises
    ------
    FileNotFoundError
        A file is missing.
    ValueError
        A column is missing, not numeric or has missing values, the folds are not numbered 0..K-1, the files
        disagree in their number of folds, or a group's four confusion shares in a fold do not add up to 1
        (naming file, model, group and fold).

    Notes
    -----
    ``ppr`` comes from the ``White/Black PPR <model>`` columns of the Fairness Metrics file (as the authors
    computed Table II); the other metrics from Confusion Distribution.csv, with the cells of
    :mod:`fairstats.metrics` (favourable outcome 0): tp = A/B, fp = C/D, tn = E/F, fn = G/H and
    tpr = tp/(tp+fn), fpr = fp/(fp+tn), fnr = fn/(tp+fn), ppv = tp/(tp+fp), npv = tn/(tn+fn),
    accuracy = tp+tn, fn_fp_ratio = fn/fp. The cells are shares of the group's people in the fold, so the
    ratios equal those of the counts. An empty denominator gives NaN (a positive numerator over 0 too).

    References
    ----------
    Paper B, Sections II-B to II-I; the authors' repository (data/raw PROVENANCE.md).
    """
    raw_dir = Path(raw_dir)
    confusion = _read_authors_csv(raw_dir, "confusion", _confusion_columns())
    fairness = _read_authors_csv(raw_dir, "fairness", _fairness_columns())
    if len(confusion) != len(fairness):
        raise ValueError(
            f"{raw_dir}: {AUTHORS_FILES['confusion']!r} has {len(confusion)} folds but "
            f"{AUTHORS_FILES['fairness']!r} has {len(fairness)}"
        )
    k = len(confusion)
    folds = np.arange(k)
    pieces = []
    for model, (prefix, code, _, _) in MODELS.items():
        for group in _GROUPS:
            cells = {c: confusion[f"{prefix}{_CELL_LETTERS[c][group]}"].to_numpy() for c in _CELL_LETTERS}
            total = cells["tp"] + cells["fp"] + cells["tn"] + cells["fn"]
            off = np.flatnonzero(np.abs(total - 1.0) > _SHARE_TOLERANCE)
            if off.size:
                raise ValueError(
                    f"{raw_dir / AUTHORS_FILES['confusion']}: model {prefix!r}, group {group}: the shares "
                    f"{''.join(_CELL_LETTERS[c][group] for c in ('tp', 'fp', 'tn', 'fn'))} add up to "
                    f"{total[off[0]]!r} at fold {int(off[0])}, not 1"
                )
            tp, fp, tn, fn = cells["tp"], cells["fp"], cells["tn"], cells["fn"]
            with np.errstate(divide="ignore", invalid="ignore"):
                values = {
                    "ppr": fairness[f"{group} PPR {code}"].to_numpy(),
                    "tpr": tp / (tp + fn),
                    "fpr": fp / (fp + tn),
                    "fnr": fn / (tp + fn),
                    "ppv": tp / (tp + fp),
                    "npv": tn / (tn + fn),
                    "accuracy": tp + tn,
                    "fn_fp_ratio": fn / fp,
                }
            for metric in AUTHORS_METRICS:
                v = np.asarray(values[metric], dtype=float)
                v = np.where(np.isfinite(v), v, np.nan)
                source = AUTHORS_FILES["fairness" if metric == "ppr" else "confusion"]
                pieces.append(
                    pd.DataFrame(
                        {
                            "model": model,
                            "metric": metric,
                            "group": group,
                            "fold": folds,
                            "value": v,
                            "source_file": source,
                        }
                    )
                )
    out = pd.concat(pieces, ignore_index=True)
    order = {
        "model": {m: i for i, m in enumerate(MODELS)},
        "metric": {m: i for i, m in enumerate(AUTHORS_METRICS)},
        "group": {g: i for i, g in enumerate(_GROUPS)},
    }
    out = out.sort_values(
        ["model", "metric", "group", "fold"], key=lambda s: s.map(order[s.name]) if s.name in order else s
    )
    return out.reset_index(drop=True)


def authors_table_i(raw_dir: str | os.PathLike) -> pd.DataFrame:
    """Table I: mean over the folds of each model's accuracy (``Accuracy of ...`` columns).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``model_name`` (as printed), ``accuracy`` (mean over folds, unrounded), ``n`` (folds),
        in the paper's row order.
    """
    fairness = _read_authors_csv(raw_dir, "fairness", _fairness_columns())
    rows = [
        {"model": m, "model_name": name, "accuracy": float(fairness[acc].mean()), "n": len(fairness)}
        for m, (_, _, acc, name) in MODELS.items()
    ]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------- battery


def _check_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.floating) or not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def fold_ttest_rows(
    fold_metrics: pd.DataFrame,
    *,
    tests: Sequence[PaperTest],
    models: Sequence[str],
    alpha: float,
    source: str,
) -> list[dict[str, object]]:
    """One battery row per (test, model): White vs Black per fold, paper B's t beside correct ones.

    Each row from :func:`~compendium.paper_b.as_published.fold_ttest_as_published`.

    ``fold_metrics`` is tidy (``model, metric, fold, group, value``, groups ``White``/``Black``); each test
    runs at ``alpha / n_tests`` (Bonferroni for the two-metric definitions). Shared by the authors' battery
    and the rerun's (:mod:`compendium.paper_b.battery`).
    """
    wide = fold_metrics.pivot(index=["model", "metric", "fold"], columns="group", values="value")
    rows = []
    for spec in tests:
        level = alpha / spec.n_tests
        for model in models:
            sub = wide.loc[(model, spec.metric)].sort_index()
            res = fold_ttest_as_published(
                sub["White"].to_numpy(), sub["Black"].to_numpy(), alternative=spec.alternative, alpha=level
            )
            rows.append(
                {
                    "table": spec.table,
                    "model": model,
                    "test": spec.test,
                    "metric": spec.metric,
                    "alternative": spec.alternative,
                    "alpha": level,
                    "disparity": spec.disparity(res.mean_a, res.mean_b),
                    "estimate": res.estimate,
                    "mean_white": res.mean_a,
                    "mean_black": res.mean_b,
                    "n_white": res.n_a,
                    "n_black": res.n_b,
                    "n_pairs": res.n_pairs,
                    "statistic_paper_formula": res.statistic_paper_formula,
                    "df_paper_formula": res.df_paper_formula,
                    "pvalue_paper_formula": res.pvalue_paper_formula,
                    "statistic_pooled": res.statistic_pooled,
                    "df_pooled": res.df_pooled,
                    "pvalue_pooled": res.pvalue_pooled,
                    "statistic_paired": res.statistic_paired,
                    "df_paired": res.df_paired,
                    "pvalue_paired": res.pvalue_paired,
                    "statistic_corrected": res.statistic_corrected,
                    "df_corrected": res.df_corrected,
                    "pvalue_corrected": res.pvalue_corrected,
                    "test_train_ratio": res.test_train_ratio,
                    "significant_paper": res.significant_paper_formula,
                    "significant_pooled": res.significant_pooled,
                    "significant_paired": res.significant_paired,
                    "significant_corrected": res.significant_corrected,
                    "verdict_changes": res.significant_paper_formula != res.significant_corrected,
                    "source": source,
                }
            )
    return rows


def authors_battery(raw_dir: str | os.PathLike, *, alpha: float = 0.05) -> pd.DataFrame:
    r"""Paper B's fold-based t-tests (Tables II-XI) on the authors' per-fold results, with correct tests.

    Parameters
    ----------
    raw_dir : str or path-like
        Folder with the authors' files (``data/raw/paper-b-authors``).
    alpha : float, keyword-only
        Family significance level (paper: 0.05); a definition with two tests uses ``alpha / 2`` per test.

    Returns
    -------
    pandas.DataFrame
        One row per (table, model), tables in the paper's order, models ``lr, lda, rf, xgb``. Columns:
        ``table, model, test, metric, alternative, alpha`` (the test's level), ``disparity`` (as the paper
        prints it), ``estimate`` (mean White - mean Black), ``mean_white, mean_black, n_white, n_black,
        n_pairs`` (folds used; fewer than K where the metric is undefined), then for ``paper_formula``,
        ``pooled``, ``paired`` and ``corrected``: ``statistic_*``, ``df_*``, ``pvalue_*``;
        ``test_train_ratio``; the verdicts ``significant_paper, significant_pooled, significant_paired,
        significant_corrected``; ``verdict_changes`` (paper's verdict differs from the corrected t's) and
        ``source`` (``"authors-per-fold"``).

    Notes
    -----
    Every statistic is oriented White minus Black and tested with the paper's tail; see
    :func:`~compendium.paper_b.as_published.fold_ttest_as_published` for the four
    statistics. The paper's own verdict is
    ``pvalue_paper_formula < alpha``.

    References
    ----------
    Paper B, Sections II-B to II-I and Tables II-XI.
    """
    alpha = _check_alpha(alpha)
    rows = fold_ttest_rows(
        authors_fold_metrics(raw_dir),
        tests=PAPER_B_TESTS,
        models=list(MODELS),
        alpha=alpha,
        source="authors-per-fold",
    )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------- published


def read_published_b(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``data/published/paper-b-tables.csv`` (every number printed in Tables I-XXV, as printed).

    Returns
    -------
    pandas.DataFrame
        ``table, row, column, published, printed_row, note``, all strings (``published`` exactly as printed,
        e.g. ``"0.023"``, ``"~0"``), in the file's (reading) order.

    Raises
    ------
    ValueError
        A column is missing or a (table, row, column) key is repeated.
    """
    path = Path(path)
    frame = pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)
    require_table(frame, ["table", "row", "column", "published", "printed_row", "note"], where=str(path))
    dup = frame.duplicated(["table", "row", "column"])
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise ValueError(f"{path}: the key ({row['table']}, {row['row']}, {row['column']}) is repeated")
    unknown = ~frame["table"].isin(_ROMAN)
    if unknown.any():
        raise ValueError(
            f"{path}: column 'table' has value {frame.loc[unknown, 'table'].iloc[0]!r}, not I..XXV"
        )
    return frame


def _row_of(model: str, group: str) -> str:
    side = "Unprotected" if group == "White" else "Protected"
    return f"{MODELS[model][3]} ({side})"


def printed_count_checks(published_csv: str | os.PathLike, raw_dir: str | os.PathLike) -> pd.DataFrame:
    """Consistency checks on the printed counts of Tables XVI-XXV against each other and the authors' files.

    Parameters
    ----------
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    raw_dir : str or path-like
        Folder with the authors' files (``Contingencies.csv`` gives the group sizes and prediction counts).

    Returns
    -------
    pandas.DataFrame
        One row per check: ``table, model, group, check, printed, expected, ok, note``. Checks, per 2x2 block:
        ``group_total`` (the four cells add up to the group's size over the 250 folds, 10,949 White /
        14,801 Black), ``original_0_total`` (the X = 0 column adds up to the authors' per-fold count of
        prediction 0 in Contingencies.csv), ``original_0_total_across_tables`` (the X = 0 column agrees
        between the causal table XVI-XIX and the awareness table XXI-XXIV of the same model); per row of
        Tables XX and XXV: ``k_is_cell`` and ``n_minus_k_is_cell`` (K and N-K equal the printed cells
        (Y 0, X 1) and (Y 1, X 0) of the matching block).
    """
    published = read_published_b(published_csv)
    contingencies = _read_authors_csv(raw_dir, "contingencies", _contingency_columns())
    blocks = printed_blocks(published)
    rows = []
    for table, (model, kind) in PAIR_TABLES.items():
        code = MODELS[model][1]
        twin = {v: t for t, v in PAIR_TABLES.items()}[(model, "awareness" if kind == "causal" else "causal")]
        for group in _GROUPS:
            cells = blocks[(table, group)]
            size = int(
                contingencies[f"{code} {group} Recidivism"].sum()
                + contingencies[f"{code} {group} No Recidivism"].sum()
            )
            pred0 = int(contingencies[f"{code} {group} No Recidivism"].sum())
            checks = [
                ("group_total", int(cells.sum()), size, f"{group} people over all folds (Contingencies.csv)"),
                (
                    "original_0_total",
                    int(cells[:, 0].sum()),
                    pred0,
                    "authors' per-fold count of prediction 0 (Contingencies.csv)",
                ),
                (
                    "original_0_total_across_tables",
                    int(cells[:, 0].sum()),
                    int(blocks[(twin, group)][:, 0].sum()),
                    f"X = 0 column total of Table {twin} (same model and group)",
                ),
            ]
            for check, printed, expected, what in checks:
                rows.append(
                    {
                        "table": table,
                        "model": model,
                        "group": group,
                        "check": check,
                        "printed": printed,
                        "expected": expected,
                        "ok": printed == expected,
                        "note": f"expected = {what}",
                    }
                )
    for table, kind in (("XX", "causal"), ("XXV", "awareness")):
        sub = published[published["table"] == table]
        for model in MODELS:
            block_table = {v: t for t, v in PAIR_TABLES.items()}[(model, kind)]
            for group in _GROUPS:
                row = _row_of(model, group)
                cells = blocks[(block_table, group)]
                for column, check, cell_name, expected in (
                    ("K", "k_is_cell", "(Y 0, X 1)", cells[0, 1]),
                    ("N-K", "n_minus_k_is_cell", "(Y 1, X 0)", cells[1, 0]),
                ):
                    printed = int(
                        sub.loc[(sub["row"] == row) & (sub["column"] == column), "published"].item()
                    )
                    rows.append(
                        {
                            "table": table,
                            "model": model,
                            "group": group,
                            "check": check,
                            "printed": printed,
                            "expected": int(expected),
                            "ok": printed == int(expected),
                            "note": f"expected = printed cell {cell_name} of Table {block_table}",
                        }
                    )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------ published vs reproduced

_NOT_COMMITTED = {
    "XII": "not computable from the authors' files: needs every person's predicted probability in every "
    "fold; "
    "the authors committed the probability frame of fold 0 only (Y Dataframe with Probabilities - Fold "
    "0.csv)",
    "XIV": "not computable from the authors' files: needs each fold's mean predicted score by race and true "
    "class, i.e. every person's predicted probability; the authors committed fold 0's only",
    "causal": "not computable from the authors' files: needs the race-flipped (counterfactual) predictions, "
    "which the authors did not commit",
    "awareness": "not computable from the authors' files: needs the nearest other-race neighbours' "
    "predictions, which the authors did not commit",
}
_NOT_COMMITTED["XIII"] = _NOT_COMMITTED["XII"]
_NOT_COMMITTED["XV"] = _NOT_COMMITTED["XIV"]

_RESULTS = "results/default/nij/authors/tables"
#: Where the evidence of this source's rows is: the committed results of rules authors_battery and
#: search_authors_per_fold (default experiment) and the tests that show what the authors' files hold.
EVIDENCE = {
    "battery": f"{_RESULTS}/battery.csv",
    "impossible": f"{_RESULTS}/printed_impossible.csv",
    "table_i_search": f"{_RESULTS}/table_i_search.csv",
    "ppv_search": f"{_RESULTS}/ppv_search.csv",
    "table_i": "tests/compendium/reference/test_authors_tables.py::"
    "test_table_i_regenerates_except_logistic_regression",
    "xgb_ppv": "tests/compendium/reference/test_authors_tables.py::"
    "test_ppv_tables_regenerate_except_the_xgboost_statistic",
    "table_xi": "tests/compendium/reference/test_table_xi_arithmetic.py::"
    "test_printed_table_xi_cannot_come_from_the_authors_confusion_counts",
    "xx_formula": "tests/compendium/reference/test_authors_tables.py::"
    "test_table_xx_pvalues_are_not_the_eq3_mid_p",
    "no_probabilities": "tests/compendium/reference/test_authors_inputs.py::"
    "test_the_committed_probabilities_cover_fold_0_only",
    "no_pairs": "tests/compendium/reference/test_authors_inputs.py::"
    "test_no_committed_file_holds_counterfactual_or_neighbour_predictions",
}


def _table_xi_note(row: pd.Series) -> str:
    return (
        "FN/FP per fold from the committed confusion shares (G/C, folds with no false positive undefined and "
        f"dropped: {row['n_white']} White and {row['n_black']} Black folds used) gives disparity "
        f"{row['disparity']:.3f} and statistic {row['statistic_paper_formula']:.2f}; none of 12 conventions "
        "on "
        "the committed shares (G/C or C/G, counts or conditional rates, a zero denominator dropped, counted "
        "0 "
        "or every count + 0.5) gives any model's printed disparity or statistic (test_table_xi_arithmetic.py)"
    )


def correct_t_note(b: pd.Series) -> str:
    """The published statistic is the paper's formula; say so and give the correct tests beside it."""
    return (
        "reproduced = the paper's formula (pooled t without the square root, p on 498 df: the published "
        f"number); correct: pooled t = {b['statistic_pooled']:.4g} (p = {b['pvalue_pooled']:.3g}), "
        f"paired t = {b['statistic_paired']:.4g} (p = {b['pvalue_paired']:.3g}), corrected resampled t "
        f"(Nadeau & Bengio) = {b['statistic_corrected']:.4g} (p = {b['pvalue_corrected']:.3g})"
    )


def published_vs_reproduced_authors(
    raw_dir: str | os.PathLike,
    published_csv: str | os.PathLike,
    *,
    alpha: float = 0.05,
    searches: Mapping[str, str] | None = None,
    evidence: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every number printed in paper B's Tables I-XXV beside its regeneration from the authors' files.

    Parameters
    ----------
    raw_dir : str or path-like
        Folder with the authors' files (``data/raw/paper-b-authors``).
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    alpha : float, keyword-only
        Family significance level of the battery (only used in notes about verdicts).
    searches : mapping, optional, keyword-only
        ``{"table_i_search": sentence, "ppv_search": sentence}``:
        :func:`compendium.paper_b.per_fold_searches.search_summary` of the declared readings of Table I and
        Tables III/VIII, quoted in the notes of the two numbers the committed values miss.
    evidence : mapping, optional, keyword-only
        Paths of the committed results named in ``evidence`` (keys of :data:`EVIDENCE`); default the
        default experiment's.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`compendium.publish.published.PVR_PIECE_COLUMNS`; ``paper`` = ``"B"``, ``source`` =
        ``"authors-per-fold"``, one row per printed number in the published file's order. ``reproduced`` is
        NaN where the authors' files cannot give the number (its note says why); ``basis`` is ``"inputs
        equal"`` (the authors' own per-fold values), ``"circular"`` for the Table XX/XXV p-values (from the
        printed K and N-K) and ``"impossible"`` for a printed count that
        :func:`compendium.paper_b.printed_arithmetic.impossible_printed_numbers` rules out.

    Notes
    -----
    Tables I-XI: Table I is :func:`authors_table_i`; Tables II-XI are :func:`authors_battery`'s
    ``disparity``, ``statistic_paper_formula`` and ``pvalue_paper_formula``. Table XX/XXV p-values: the
    authors' formula (:func:`compendium.paper_b.as_published.mcnemar_midp_as_published`) on the printed K and
    N-K, with the mid-p of the paper's Eq. 3 (:func:`fairstats.mcnemar.mcnemar_midp`) in the note.
    Numbers are compared at the printed precision (:func:`compendium.publish.published.matches_printed`).
    """
    alpha = _check_alpha(alpha)
    ev = {**EVIDENCE, **dict(evidence or {})}
    searches = dict(searches or {})
    published = read_published_b(published_csv)
    table_i = authors_table_i(raw_dir).set_index("model_name")
    battery = authors_battery(raw_dir, alpha=alpha)
    battery["model_name"] = battery["model"].map({m: v[3] for m, v in MODELS.items()})
    battery = battery.set_index(["table", "model_name"])
    checks = printed_count_checks(published_csv, raw_dir)
    failed = checks[~checks["ok"]]
    ruled_out = impossible_printed_numbers(published).set_index(["table", "row", "column"])["arithmetic"]

    out = []
    for _, p in published.iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        reproduced, note, evidence_row, basis = float("nan"), "", ev["battery"], "inputs equal"
        if table == "I":
            reproduced = float(table_i.loc[row, "accuracy"])
            evidence_row = ev["table_i"]
            if not matches_printed(column, printed, reproduced):
                note = (
                    f"the mean of the authors' 250 per-fold accuracies is {reproduced:.6f}, which rounds to "
                    f"{reproduced:.3f}, not the printed {printed}"
                )
                if "table_i_search" in searches:
                    note += "; " + searches["table_i_search"]
                evidence_row = f"{ev['table_i_search']}; {ev['table_i']}"
        elif table in {s.table for s in PAPER_B_TESTS}:
            b = battery.loc[(table, row)]
            field = {
                "Disparity": "disparity",
                "Test Statistic": "statistic_paper_formula",
                "P-Value": "pvalue_paper_formula",
            }[column]
            reproduced = float(b[field])
            ok = matches_printed(column, printed, reproduced)
            if table == "XI":
                note = _table_xi_note(b)
                evidence_row = f"{ev['battery']}; {ev['table_xi']}"
            elif not ok:
                note = (
                    f"the paper's formula on the authors' committed per-fold values gives {reproduced:.4g}, "
                    "not "
                    f"the printed {printed}"
                )
                if table in ("III", "VIII") and "ppv_search" in searches:
                    note += "; " + searches["ppv_search"]
                    evidence_row = f"{ev['battery']}; {ev['ppv_search']}; {ev['xgb_ppv']}"
            if column in ("Test Statistic", "P-Value") and table != "XI":
                note = "; ".join(filter(None, [note, correct_t_note(b)]))
        elif table in _NOT_COMMITTED:
            note, basis = _NOT_COMMITTED[table], ""
            evidence_row = ev["no_probabilities"]
        elif table in PAIR_TABLES:
            model, kind = PAIR_TABLES[table]
            group = "White" if row.startswith("Unprotected") else "Black"
            note, basis, evidence_row = _NOT_COMMITTED[kind], "", ev["no_pairs"]
            bad = failed[(failed["table"] == table) & (failed["group"] == group)]
            for _, c in bad.iterrows():
                note += f"; printed {c['check']} {c['printed']} != {c['expected']} ({c['note']})"
        elif table in ("XX", "XXV"):
            kind = "causal" if table == "XX" else "awareness"
            if column in ("K", "N-K"):
                note, basis, evidence_row = (
                    _NOT_COMMITTED[kind]
                    + " (K and N-K equal the printed discordant cells, see the count checks)",
                    "",
                    ev["no_pairs"],
                )
            else:
                sub = published[(published["table"] == table) & (published["row"] == row)]
                k = int(sub.loc[sub["column"] == "K", "published"].item())
                n_k = int(sub.loc[sub["column"] == "N-K", "published"].item())
                mid = mcnemar_midp(k, n_k)
                reproduced = mcnemar_midp_as_published(k, n_k).pvalue
                basis, evidence_row = "circular", ev["xx_formula"]
                note = (
                    "circular: from the printed K and N-K (the authors' counts; the predictions behind them "
                    "are "
                    f"not committed) by the authors' formula 2*cdf(k) - 0.5*pmf(k) = {reproduced:.4g} (the "
                    f"published number); correct: the mid-p of Eq. 3 with k = min(K, N-K) = {mid.pvalue:.4g}"
                )
                if (mid.pvalue < alpha) != (reproduced < alpha):
                    note += f"; the verdict at alpha = {alpha:g} changes under the mid-p"
        if (table, row, column) in ruled_out.index:
            basis = "impossible"
            evidence_row = ev["impossible"]
            note = "; ".join(filter(None, [f"impossible: {ruled_out.loc[(table, row, column)]}", note]))
        matches = bool(np.isfinite(reproduced) and matches_printed(column, printed, reproduced))
        out.append(
            [
                "B",
                table,
                row,
                column,
                printed,
                reproduced,
                "authors-per-fold",
                matches,
                note,
                evidence_row,
                basis,
            ]
        )
    return pd.DataFrame(out, columns=PVR_PIECE_COLUMNS)
