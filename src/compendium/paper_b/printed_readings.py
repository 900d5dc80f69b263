"""Readings of paper B's equations for Tables XI, XII, XIII and XV, declared before they are run.

The code behind the printed calibration χ² (Tables XII-XIII), the balance tests (XIV-XV) and the treatment
equality ratios (XI) is not among the authors' files. Their scores come from the same models and features as
Table I (script ``Get Recidivism Probabilities.py``), and our LDA and random-forest fits equal theirs on
250 of 250 folds, so for these two models any difference from a printed number lies in the computation. This
module lists, **up front**, the readings of the paper's text that a careful reader could take (bins and their
closure, which outcome is counted, which count is "expected", which class and which quantity), runs every one
on the LDA and RF predictions, and reports which numbers each reproduces at printed precision. A match is
labelled with the reading that made it; nothing is adopted silently, and the lists are not tuned after
looking at the printed numbers (:data:`CALIBRATION_READINGS`, :data:`WELL_CALIBRATION_READINGS`,
:data:`BALANCE_READINGS`, :data:`TREATMENT_READINGS`).

Every statistic comes from one home: the χ² of Eq. 1-2 from
:func:`compendium.paper_b.calibration.calibration_test` and
:func:`~compendium.paper_b.calibration.well_calibration_test` (the reading's bins are handed over as the bin
midpoints, so the unit bins are the reading's bins), the t statistics from
:func:`~compendium.paper_b.as_published.fold_ttest_as_published` (the paper's formula, left tail,
disparity Black - White).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import fold_ttest_as_published
from compendium.paper_b.authors import MODELS, fold_ttest_rows, read_published_b
from compendium.paper_b.battery_layout import AUTHORS_COLUMNS, RERUN_TESTS
from compendium.paper_b.calibration import calibration_test, well_calibration_test
from compendium.publish.published import matches_printed

__all__ = [
    "BALANCE_READINGS",
    "CALIBRATION_READINGS",
    "READING_MODELS",
    "TREATMENT_READINGS",
    "WELL_CALIBRATION_READINGS",
    "Reading",
    "exact_scores",
    "nearest_reading",
    "reading_tests",
    "readings_by_model",
    "run_readings",
]

#: The models whose scores and predictions equal the authors' (Table I: 250 of 250 folds).
READING_MODELS: tuple[str, ...] = ("lda", "rf")


@dataclass(frozen=True)
class Reading:
    """One reading of a printed table's equations.

    Attributes
    ----------
    table : str
        ``"XI"``, ``"XII"``, ``"XIII"`` or ``"XV"``.
    name : str
        Short unique label, e.g. ``"edges=unit closure=left counted=0 expected=gamma"``.
    options : tuple of (str, object)
        The choices, as (option, value) pairs.
    """

    table: str
    name: str
    options: tuple[tuple[str, object], ...]

    def get(self, key: str) -> object:
        """The value of option ``key``."""
        return dict(self.options)[key]


def _grid(table: str, **choices: tuple) -> tuple[Reading, ...]:
    keys = list(choices)
    out = []
    for values in itertools.product(*(choices[k] for k in keys)):
        options = tuple(zip(keys, values, strict=True))
        out.append(Reading(table, " ".join(f"{k}={v}" for k, v in options), options))
    return tuple(out)


#: Table XII (calibration, Eq. 1-2). ``edges``: ten equal-width bins of [0, 1] (``unit``), of the scores'
#: own range as ``numpy.histogram``/``pandas.cut`` make them (``data_range``), or pooled deciles
#: (``deciles``); ``closure``: ``left`` [a, b) or ``right`` (a, b], or ``both`` [a, b]: a score on an inner
#: edge is counted in the two bins it closes (the authors' scratch notebook ``chi square calibration
#: tester.ipynb`` selects a bin with ``<= 0.1`` and ``>= 0`` and counts ``Actual Outcomes == 1``; declared
#: before it was run, issue 21); ``counted``: the outcome counted as
#: "positive" (0 = no recidivism, the text; 1 = recidivism); ``expected``: the denominator of Eq. 2, γ (as
#: printed) or λ (the standardised count taken as the expected one).
CALIBRATION_READINGS: tuple[Reading, ...] = _grid(
    "XII",
    edges=("unit", "data_range", "deciles"),
    closure=("left", "right", "both"),
    counted=(0, 1),
    expected=("gamma", "lambda"),
)
#: Table XIII (well-calibration): the bin ends are the expected probabilities, so only unit bins apply;
#: closure and counted outcome as for XII.
WELL_CALIBRATION_READINGS: tuple[Reading, ...] = _grid(
    "XIII", edges=("unit",), closure=("left", "right", "both"), counted=(0, 1)
)
#: Table XV (balance for the negative class), per fold and race: the mean of ``quantity`` (``score`` =
#: P(recidivism), ``1-score`` = P(no recidivism), ``prediction`` = the predicted class) among people whose
#: true class is ``white_class`` (White) and ``black_class`` (Black); the named quantity is score with classes
#: (1, 1); Table XIV is (0, 0).
BALANCE_READINGS: tuple[Reading, ...] = _grid(
    "XV",
    quantity=("score", "1-score", "prediction"),
    white_class=(1, 0),
    black_class=(1, 0),
)
#: Table XI (treatment equality), per fold and race: ``ratio`` FN/FP or FP/FN of ``counts`` (``counts`` or
#: conditional ``rates`` FNR, FPR), with the favourable outcome 0 as "positive" (the paper's; the other
#: choice only swaps FN and FP, i.e. the ratio), and a fold with a zero denominator ``dropped`` (undefined),
#: set to ``zero``, or both counts increased by ``half`` (0.5).
TREATMENT_READINGS: tuple[Reading, ...] = _grid(
    "XI",
    ratio=("FN/FP", "FP/FN"),
    counts=("counts", "rates"),
    zero=("dropped", "zero", "half"),
)

_MODEL_ROW = {m: v[3] for m, v in MODELS.items()}


def exact_scores(predictions: pd.DataFrame) -> pd.Series:
    """The stored scores in float64; random-forest scores (multiples of 1/100) restored exactly.

    The predictions file stores ``y_score`` as float32. A random forest of 100 fully grown trees scores
    k/100; as float32 such a score is off its float64 value by up to 6e-9, which moves it across a bin edge
    j/10 (0.3 as float32 is 0.30000001). ``round(100 s)/100`` restores the float64 score the authors' code
    saw. Other models' scores are continuous and are only widened to float64.
    """
    s = predictions["y_score"].to_numpy(dtype=np.float64, copy=True)  # never a view of the frame
    rf = (predictions["model"].astype(str) == "rf").to_numpy()
    snapped = np.round(s[rf] * 100) / 100
    if rf.any() and np.abs(snapped - s[rf]).max() > 1e-5:
        raise ValueError("`predictions`: random-forest scores are not multiples of 1/100")
    s[rf] = snapped
    return pd.Series(s, index=predictions.index, name="y_score")


def _edges(score: np.ndarray, reading: Reading, n_bins: int) -> np.ndarray:
    edges_kind = reading.get("edges")
    if edges_kind == "unit":
        return np.arange(n_bins + 1) / n_bins
    if edges_kind == "data_range":
        return np.linspace(score.min(), score.max(), n_bins + 1)
    return np.quantile(score, np.arange(n_bins + 1) / n_bins)


def _bin_of(score: np.ndarray, reading: Reading, n_bins: int) -> np.ndarray:
    """Each score's bin; for ``closure=both`` the lower of the two bins of a score on an inner edge."""
    side = "right" if reading.get("closure") == "left" else "left"
    b = np.searchsorted(_edges(score, reading, n_bins), score, side=side) - 1
    return np.clip(b, 0, n_bins - 1)


def _binned_rows(score: np.ndarray, reading: Reading, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions and their bins: every row once, and for closed bins ``[a, b]`` a score exactly on an
    inner edge a second time, in the upper bin (the authors' scratch notebook's ``<=``/``>=`` selection)."""
    bins = _bin_of(score, reading, n_bins)
    rows = np.arange(len(score))
    if reading.get("closure") != "both":
        return rows, bins
    inner = _edges(score, reading, n_bins)[1:-1]
    on_edge = np.isin(score, inner)
    return np.concatenate([rows, rows[on_edge]]), np.concatenate([bins, bins[on_edge] + 1])


def _midpoints(bins: np.ndarray, n_bins: int) -> np.ndarray:
    """Scores that the unit bins (:func:`compendium.paper_b.calibration.score_bins`) put into ``bins`` (their
    midpoints)."""
    return (bins + 0.5) / n_bins


def _calibration_value(p: pd.DataFrame, reading: Reading, n_bins: int) -> tuple[float, float]:
    score = p["score"].to_numpy()
    rows, bins = _binned_rows(score, reading, n_bins)
    mids = _midpoints(bins, n_bins)
    y, race = p["y_true"].to_numpy()[rows], p["race"].astype(str).to_numpy()[rows]
    args = dict(protected="BLACK", unprotected="WHITE", n_bins=n_bins, favorable=int(reading.get("counted")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if reading.table == "XIII":
            res = well_calibration_test(y, mids, race, **args)
            return res.statistic, res.pvalue
        res = calibration_test(y, mids, race, **args)
    if reading.get("expected") == "gamma":
        return res.statistic, res.pvalue
    t = res.table
    used = t[(t["lambda"] > 0) & (t["alpha"] > 0)]
    stat = float((((used["gamma"] - used["lambda"]) ** 2) / used["lambda"]).sum())
    from scipy.stats import chi2

    return stat, float(chi2.sf(stat, len(used) - 1))


def _fold_values(p: pd.DataFrame, reading: Reading) -> pd.DataFrame:
    """Per fold and race the reading's value (XI, XV); columns White, Black, index fold."""
    y, pred = p["y_true"].to_numpy(), p["y_pred"].to_numpy()
    frame = pd.DataFrame({"fold": p["fold"].to_numpy(), "race": p["race"].astype(str).to_numpy()})
    if reading.table == "XV":
        q = reading.get("quantity")
        value = {"score": p["score"], "1-score": 1 - p["score"], "prediction": p["y_pred"]}[q]
        frame["value"] = np.asarray(value, dtype=np.float64)
        frame["y"] = y
        parts = {}
        for race, label, cls in (("WHITE", "White", "white_class"), ("BLACK", "Black", "black_class")):
            sub = frame[(frame["race"] == race) & (frame["y"] == reading.get(cls))]
            parts[label] = sub.groupby("fold")["value"].mean()
        return pd.DataFrame(parts)
    # XI: favourable outcome 0 is "positive": FN = positive truth predicted negative, FP the reverse
    frame["fn"] = ((y == 0) & (pred == 1)).astype(float)
    frame["fp"] = ((y == 1) & (pred == 0)).astype(float)
    frame["pos"] = (y == 0).astype(float)
    frame["neg"] = (y == 1).astype(float)
    g = frame.groupby(["fold", "race"])[["fn", "fp", "pos", "neg"]].sum()
    fn, fp = g["fn"], g["fp"]
    if reading.get("counts") == "rates":
        fn, fp = fn / g["pos"], fp / g["neg"]
    num, den = (fn, fp) if reading.get("ratio") == "FN/FP" else (fp, fn)
    zero = reading.get("zero")
    if zero == "half":
        ratio = (num + 0.5) / (den + 0.5)
    else:
        ratio = num / den.where(den > 0)
        if zero == "zero":
            ratio = ratio.fillna(0.0)
    wide = ratio.unstack("race")
    return wide.rename(columns={"WHITE": "White", "BLACK": "Black"})[["White", "Black"]]


def run_readings(
    predictions: pd.DataFrame, published_csv, *, n_bins: int = 10, models: tuple[str, ...] | None = None
) -> pd.DataFrame:
    """Run every declared reading on every model's predictions; compare with the printed numbers.

    Parameters
    ----------
    predictions : pandas.DataFrame
        The ``paper`` preset's Table I predictions (:data:`compendium.paper_b.crossval.PREDICTION_COLUMNS`).
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    n_bins : int, keyword-only
        Number of bins (paper: 10).
    models : tuple of str, optional, keyword-only
        Models to run (default: every model in ``predictions``); LDA and RF are always among them.

    Returns
    -------
    pandas.DataFrame
        One row per (table, reading, model, printed column): ``table, reading, model, row, column,
        published, reproduced, matches``; and ``reading_matches`` = every printed number of the table for
        LDA and RF (whose scores equal the authors') matches under this reading.
    """
    missing = [m for m in READING_MODELS if m not in set(predictions["model"].astype(str))]
    if missing:
        raise ValueError(f"`predictions` lacks model(s) {missing} (the readings need LDA and RF)")
    published = read_published_b(published_csv).set_index(["table", "row", "column"])["published"]
    preds = predictions.assign(score=exact_scores(predictions))
    rows = []
    readings = CALIBRATION_READINGS + WELL_CALIBRATION_READINGS + BALANCE_READINGS + TREATMENT_READINGS
    present = set(preds["model"].astype(str))
    wanted = set(MODELS) if models is None else set(models) | set(READING_MODELS)
    models = [m for m in MODELS if m in present and m in wanted]
    for reading in readings:
        for model in models:
            p = preds[preds["model"].astype(str) == model]
            row = _MODEL_ROW[model]
            if reading.table in ("XII", "XIII"):
                stat, pvalue = _calibration_value(p, reading, n_bins)
                values = {"Chi Squared Test Statistic": stat, "P-Value": pvalue}
            else:
                wide = _fold_values(p, reading)
                res = fold_ttest_as_published(
                    wide["White"].to_numpy(), wide["Black"].to_numpy(), alternative="less"
                )
                values = {
                    "Disparity": res.mean_b - res.mean_a,
                    "Test Statistic": res.statistic_paper_formula,
                    "P-Value": res.pvalue_paper_formula,
                }
            for column, value in values.items():
                printed = published[(reading.table, row, column)]
                ok = matches_printed(column, printed, value)
                rows.append([reading.table, reading.name, model, row, column, printed, value, ok])
    out = pd.DataFrame(
        rows, columns=["table", "reading", "model", "row", "column", "published", "reproduced", "matches"]
    )
    # a reading reproduces a table when it gives every printed number of LDA and RF (the authors' own scores)
    ours = out["model"].isin(READING_MODELS)
    full = out[ours].groupby(["table", "reading"])["matches"].all().rename("reading_matches")
    return out.merge(full.reset_index(), on=["table", "reading"], how="left")


#: The printed statistics a table's nearest reading is judged on (its p-values follow from them).
_STATISTICS = {
    "XI": ("Disparity", "Test Statistic"),
    "XII": ("Chi Squared Test Statistic",),
    "XIII": ("Chi Squared Test Statistic",),
    "XV": ("Disparity", "Test Statistic"),
}


def nearest_reading(readings: pd.DataFrame, table: str) -> tuple[str, float]:
    """The declared reading of ``table`` nearest to the printed numbers, and its error.

    The error of a reading is the mean relative difference ``|reproduced - printed| / |printed|`` over the
    printed statistics (:data:`_STATISTICS`: the χ² of XII and XIII, disparity and statistic of XI and XV)
    of LDA and RF, the models whose scores equal the authors'; ties go to the first declared reading.

    Parameters
    ----------
    readings : pandas.DataFrame
        :func:`run_readings`.
    table : str
        ``"XI"``, ``"XII"``, ``"XIII"`` or ``"XV"``.

    Returns
    -------
    (str, float)
        The reading's name and its mean relative error.
    """
    if table not in _STATISTICS:
        raise ValueError(f"`table` must be one of {sorted(_STATISTICS)}, got {table!r}")
    r = readings[
        (readings["table"] == table)
        & readings["model"].isin(READING_MODELS)
        & readings["column"].isin(_STATISTICS[table])
    ]
    if r.empty:
        raise ValueError(f"`readings` has no reading of Table {table} for {list(READING_MODELS)}")
    printed = pd.to_numeric(r["published"].astype(str).str.lstrip("~"), errors="coerce")
    error = ((r["reproduced"] - printed).abs() / printed.abs()).groupby(r["reading"], sort=False).mean()
    return str(error.idxmin()), float(error.min())


def readings_by_model(readings: pd.DataFrame) -> pd.DataFrame:
    """Per table, model and printed statistic: the declared reading nearest to the printed number.

    Each model is searched on its own (a reading that reproduces one model's number but not another's is
    named here, and judged by :func:`nearest_reading` and ``reading_matches`` for the whole table).

    Parameters
    ----------
    readings : pandas.DataFrame
        :func:`run_readings`.

    Returns
    -------
    pandas.DataFrame
        ``table, model, column, published, readings`` (declared readings of the table),
        ``readings_matching`` (readings that give this printed number at printed precision, ``"; "``-joined
        in ``matching``), ``nearest_reading``, ``nearest_value``, ``nearest_error`` (``|value - printed| /
        |printed|``; ties go to the first declared reading), for the statistics of :data:`_STATISTICS`.
    """
    rows = []
    for table, columns in _STATISTICS.items():
        r = readings[(readings["table"] == table) & readings["column"].isin(columns)]
        for (model, column), g in r.groupby(["model", "column"], sort=False):
            printed = pd.to_numeric(g["published"].astype(str).str.lstrip("~").str.replace("\u2212", "-"))
            error = (g["reproduced"] - printed).abs() / printed.abs()
            best = error.idxmin()
            hits = g.loc[g["matches"].astype(bool), "reading"]
            rows.append(
                {
                    "table": table,
                    "model": model,
                    "column": column,
                    "published": g["published"].iloc[0],
                    "readings": g["reading"].nunique(),
                    "readings_matching": len(hits),
                    "matching": "; ".join(hits),
                    "nearest_reading": g.at[best, "reading"],
                    "nearest_value": float(g.at[best, "reproduced"]),
                    "nearest_error": float(error.loc[best]),
                }
            )
    return pd.DataFrame(rows)


def reading_tests(
    predictions: pd.DataFrame, readings: pd.DataFrame, table: str = "XV", *, alpha: float = 0.05
) -> pd.DataFrame:
    """The paper's fold t-test of ``table`` under the reading that reproduces it, for every model.

    The reading is the one whose every printed number of the table matches for LDA and RF
    (``reading_matches`` of :func:`run_readings`); the test is the paper's (its table, definition and tail in
    :data:`compendium.paper_b.battery_layout.RERUN_TESTS`) on that reading's per-fold values, with the correct
    tests beside the paper's formula (:func:`compendium.paper_b.authors.fold_ttest_rows`), so that the
    verdict through the authors' procedure can be read next to the others.

    Parameters
    ----------
    predictions : pandas.DataFrame
        The ``paper`` preset's Table I predictions.
    readings : pandas.DataFrame
        :func:`run_readings` on them.
    table : str, default "XV"
        A fold-based table of :data:`BALANCE_READINGS` or :data:`TREATMENT_READINGS` (``"XV"`` or ``"XI"``).
    alpha : float, keyword-only
        Family level (the test's level is ``alpha / n_tests``).

    Returns
    -------
    pandas.DataFrame
        :func:`~compendium.paper_b.authors.fold_ttest_rows` columns (``source`` = ``"authors-procedure"``) and
        ``reading``; no rows when no declared reading reproduces the table.
    """
    if table not in ("XI", "XV"):
        raise ValueError(f"`table` must be 'XI' or 'XV' (a fold-based table with readings), got {table!r}")
    full = readings[(readings["table"] == table) & readings["reading_matches"].astype(bool)]
    if full.empty:
        return pd.DataFrame(columns=[*AUTHORS_COLUMNS, "reading"])
    name = str(full["reading"].iloc[0])
    reading = next(r for r in BALANCE_READINGS + TREATMENT_READINGS if r.table == table and r.name == name)
    spec = next(s for s in RERUN_TESTS if s.table == table)
    preds = predictions.assign(score=exact_scores(predictions))
    models = [m for m in MODELS if m in set(preds["model"].astype(str))]
    parts = []
    for model in models:
        wide = _fold_values(preds[preds["model"].astype(str) == model], reading)
        long = (
            wide.rename_axis("fold").reset_index().melt(id_vars="fold", var_name="group", value_name="value")
        )
        parts.append(long.assign(model=model, metric=spec.metric))
    rows = fold_ttest_rows(
        pd.concat(parts, ignore_index=True),
        tests=[spec],
        models=models,
        alpha=alpha,
        source="authors-procedure",
    )
    return pd.DataFrame(rows).assign(reading=name)
