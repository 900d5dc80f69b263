"""Paper B's Tables II-XXV as printed beside our rerun's: the ``rerun`` piece of published vs reproduced.

:func:`published_vs_reproduced_rerun` takes the tables of :func:`compendium.paper_b.battery.battery_tables`
on the ``paper`` preset's predictions and sets every printed number beside ours, with a note for every
mismatch (whether the authors' own per-fold values give the printed number, in how many folds ours equal
theirs, whether the printed counts add up); :func:`fold_agreement` counts the folds in which the rerun's
per-fold metrics equal the authors'.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import fold_ttest_as_published
from compendium.paper_b.authors import (
    AUTHORS_METRICS,
    MODELS,
    PAPER_B_TESTS,
    authors_fold_metrics,
    correct_t_note,
    printed_count_checks,
    read_published_b,
)
from compendium.paper_b.battery_layout import COUNT_TABLES, OTHER_PREDICTION, RERUN_TESTS, BatteryTables
from compendium.paper_b.printed_arithmetic import impossible_printed_numbers
from compendium.publish.published import PVR_PIECE_COLUMNS, matches_printed

__all__ = ["EVIDENCE", "fold_agreement", "published_vs_reproduced_rerun", "rerun_fold_agreement"]

_RESULTS = "results/default/nij"
#: Where the evidence of this source's rows is (default experiment): the rerun's battery, per-fold metrics and
#: count tables (rule run_battery), the authors' per-fold battery it is compared with (rule authors_battery)
#: and the printed numbers that arithmetic rules out.
EVIDENCE = {
    "battery": f"{_RESULTS}/paper/tables/battery.csv",
    "fold_metrics": f"{_RESULTS}/paper/tables/battery_fold_metrics.csv",
    "counts": f"{_RESULTS}/paper/tables/battery_count_tables.csv",
    "agreement": f"{_RESULTS}/paper/tables/battery_fold_agreement.csv",
    "authors_battery": f"{_RESULTS}/authors/tables/battery.csv",
    "impossible": f"{_RESULTS}/authors/tables/printed_impossible.csv",
}

def fold_agreement(fold_metrics: pd.DataFrame, authors: pd.DataFrame, *, atol: float = 1e-9) -> pd.DataFrame:
    """Per model and metric: in how many folds the rerun's per-fold values equal the authors' (both groups).

    Parameters
    ----------
    fold_metrics : pandas.DataFrame
        :attr:`BatteryTables.fold_metrics` (``model, metric, group, fold, value``).
    authors : pandas.DataFrame
        :func:`compendium.paper_b.authors.authors_fold_metrics`.
    atol : float, keyword-only
        Absolute tolerance of "equal" (NaN equals NaN).

    Returns
    -------
    pandas.DataFrame
        ``model, metric, n_folds, n_equal, max_abs_difference`` over the folds of ``fold_metrics`` and the
        metrics both have (:data:`compendium.paper_b.authors.AUTHORS_METRICS`), plus one row per model with
        metric
        ``"all"``: the folds where every one of those metrics is equal (the same confusion cells).
    """
    ours = fold_metrics[fold_metrics["metric"].isin(AUTHORS_METRICS)]
    merged = ours.merge(
        authors[["model", "metric", "group", "fold", "value"]],
        on=["model", "metric", "group", "fold"],
        suffixes=("", "_authors"),
        how="left",
    )
    a, b = merged["value"].to_numpy(dtype=float), merged["value_authors"].to_numpy(dtype=float)
    merged["equal"] = (np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= atol)
    merged["absdiff"] = np.abs(a - b)
    per_fold = merged.groupby(["model", "metric", "fold"], sort=False).agg(
        equal=("equal", "all"), absdiff=("absdiff", "max")
    )
    every = (
        per_fold.groupby(["model", "fold"], sort=False)
        .agg(equal=("equal", "all"), absdiff=("absdiff", "max"))
        .assign(metric="all")
        .set_index("metric", append=True)
        .reorder_levels(["model", "metric", "fold"])
    )
    out = (
        pd.concat([per_fold, every])
        .groupby(["model", "metric"], sort=False)
        .agg(n_folds=("equal", "size"), n_equal=("equal", "sum"), max_abs_difference=("absdiff", "max"))
        .reset_index()
    )
    out["n_equal"] = out["n_equal"].astype(np.int64)
    return out


def rerun_fold_agreement(tables: BatteryTables, raw_dir: str | os.PathLike) -> pd.DataFrame:
    """:func:`fold_agreement` of the rerun's per-fold metrics with the authors' over the rerun's folds: in
    how many folds our predictions give the authors' committed per-fold values (``metric == "all"``: all)."""
    authors = authors_fold_metrics(raw_dir)
    authors = authors[authors["fold"].isin(tables.fold_metrics["fold"].unique())]
    return fold_agreement(tables.fold_metrics, authors)


_MODEL_ROWS = {v[3]: m for m, v in MODELS.items()}
_T_FIELDS = {
    "Disparity": "disparity",
    "Test Statistic": "statistic_paper_formula",
    "P-Value": "pvalue_paper_formula",
}
_NO_SCORES = (
    "no authors-per-fold counterpart (needs every person's score; the authors committed fold 0's only)"
)
_AWARENESS_MATCHING = (
    "our matching differs from the authors' (they took the covariance of the two vectors compared and "
    "matched within folds; we use the pooled within-race covariance of the features and search all folds)"
)


_CAUSAL = (
    "the printed table comes from the authors' refits without Race_WHITE, not from Table I's models: see "
    "source authors-procedure"
)
_AWARENESS = (
    "the authors' neighbour is decided by rounding (their distance is sqrt(2) for every pair): see source "
    "authors-procedure"
)
_READINGS = (
    "none of the readings declared in compendium.printed_readings reproduces the printed number: see source "
    "authors-procedure"
)
#: Where our predictions equal the authors' in every fold, the demonstrated cause of a remaining difference.
_CAUSE_WHEN_FITS_AGREE = {
    **dict.fromkeys(("XVI", "XVII", "XVIII", "XIX", "XX"), _CAUSAL),
    **dict.fromkeys(("XXI", "XXII", "XXIII", "XXIV", "XXV"), _AWARENESS),
    **dict.fromkeys(("XI", "XII", "XIII"), _READINGS),
    "XV": (
        "the printed numbers are E(S | y=1) of Black minus E(S | y=0) of White people, two different classes "
        "(reading of compendium.printed_readings, source authors-procedure)"
    ),
}


class _Notes:
    """The facts behind the notes of the rerun's published-vs-reproduced piece."""

    def __init__(self, tables: BatteryTables, published_csv, raw_dir) -> None:
        self.folds = np.sort(tables.fold_metrics["fold"].unique())
        self.k = len(self.folds)
        self.agreement = self.authors_t = self.failed = None
        if raw_dir is None:
            return
        authors = authors_fold_metrics(raw_dir)
        authors = authors[authors["fold"].isin(self.folds)]
        self.agreement = rerun_fold_agreement(tables, raw_dir).set_index(["model", "metric"])
        wide = authors.pivot(index=["model", "metric", "fold"], columns="group", values="value")
        models = set(tables.battery["model"])
        self.authors_t = {}
        for spec in PAPER_B_TESTS:
            for model in (m for m in MODELS if m in models):
                sub = wide.loc[(model, spec.metric)].sort_index()
                res = fold_ttest_as_published(
                    sub["White"].to_numpy(), sub["Black"].to_numpy(), alternative=spec.alternative
                )
                self.authors_t[(spec.table, model)] = {
                    "disparity": spec.disparity(res.mean_a, res.mean_b),
                    "statistic_paper_formula": res.statistic_paper_formula,
                    "pvalue_paper_formula": res.pvalue_paper_formula,
                }
        checks = printed_count_checks(published_csv, raw_dir)
        self.failed = checks[~checks["ok"]]

    def agree(self, model: str, metric: str = "all", table: str = "") -> str:
        """In how many folds our per-fold values (a metric, or "all" cells) equal the authors'; where all do,
        the demonstrated cause of a difference in ``table`` (:data:`_CAUSE_WHEN_FITS_AGREE`)."""
        if self.agreement is None or (model, metric) not in self.agreement.index:
            return ""
        a = self.agreement.loc[(model, metric)]
        n_equal, n_folds = int(a["n_equal"]), int(a["n_folds"])
        if metric != "all":
            return (
                f"; our per-fold {metric} equals the authors' committed value in {n_equal} of {n_folds} "
                f"folds (max |difference| {a['max_abs_difference']:.3g})"
            )
        text = (
            f"; our predictions give the authors' committed confusion cells in {n_equal} of {n_folds} folds"
        )
        if n_equal == n_folds and table in _CAUSE_WHEN_FITS_AGREE:
            text += f" (our fits agree with the authors'; {_CAUSE_WHEN_FITS_AGREE[table]})"
        return text

    def basis(self, model: str) -> str:
        """``"inputs equal"`` where our predictions give the authors' committed confusion cells in every one
        of the paper's folds, ``"inputs differ"`` where not, ``""`` without the authors' files."""
        if self.agreement is None or (model, "all") not in self.agreement.index:
            return ""
        a = self.agreement.loc[(model, "all")]
        return "inputs equal" if int(a["n_equal"]) == int(a["n_folds"]) == 250 else "inputs differ"

    def subset(self) -> str:
        if self.k == 250:
            return ""
        return (
            f"; the rerun covers {self.k} of the paper's 250 folds (config nij.test_folds), so its numbers "
            "are not comparable with the printed ones"
        )

    def t_table(self, table: str, model: str, metric: str, column: str, printed: str, ours: float) -> str:
        note = f"rerun {ours:.4g} (the paper's formula on our per-fold values)"
        field_ = _T_FIELDS[column]
        if self.authors_t is not None and (table, model) in self.authors_t:
            theirs = self.authors_t[(table, model)][field_]
            ok = matches_printed(column, printed, theirs)
            note += (
                f"; the same formula on the authors' per-fold values over these folds gives {theirs:.4g}, "
                f"which {'matches' if ok else 'does not match'} the printed value"
            )
            if not ok and self.k == 250:
                note += " (so the printed number does not follow from the authors' committed per-fold values)"
            return note + self.agree(model, metric) + self.subset()
        if table in ("XIV", "XV"):
            note += "; " + _NO_SCORES
        return note + self.agree(model, table=table) + self.subset()

    def calibration(self, model: str, ours: float, df: int, table: str = "XII") -> str:
        return (
            f"rerun {ours:.4g} (the paper's Eq. 1-2 on our out-of-fold scores, {df} df); {_NO_SCORES}; the "
            "statistic counts every score in its bin, so refits that move scores across bin edges move it"
            + self.agree(model, table=table)
            + self.subset()
        )

    def count(
        self, table: str, test: str, model: str, group: str, x: int, y: int, ours: int, total: int
    ) -> str:
        note = (
            f"rerun count {ours} of {total} {group} people "
            f"(own prediction {x}, {OTHER_PREDICTION[test]} prediction {y})"
        )
        if test == "fairness_through_awareness":
            note += "; " + _AWARENESS_MATCHING
        else:
            note += "; the race-flipped predictions come from our refit models"
        note += self.agree(model, table=table)
        if self.failed is not None:
            bad = self.failed[(self.failed["table"] == table) & (self.failed["group"] == group)]
            for _, c in bad.iterrows():
                note += f"; printed {c['check']} {c['printed']} != {c['expected']} ({c['note']})"
        return note + self.subset()

    def mcnemar(self, table: str, model: str, column: str, printed: str, r: pd.Series, alpha: float) -> str:
        ours = float(r[{"K": "k", "N-K": "n_minus_k", "P-Value": "pvalue"}[column]])
        note = f"rerun {ours:.4g}"
        if column == "P-Value":
            published = float(r["pvalue_as_published"])
            ok = matches_printed(column, printed, published)
            note += (
                f" = mid-p of Eq. 3 on our K = {int(r['k'])}, N-K = {int(r['n_minus_k'])}; Table XX's "
                f"formula 2*cdf(k) - 0.5*pmf(k) on our counts gives {published:.4g} "
                f"({'matches' if ok else 'does not match'} the printed value)"
            )
            if bool(r["verdict_changes"]):
                note += f"; the verdict at alpha = {alpha:g} differs between the two formulas"
        else:
            note += " discordant pairs (" + ("race-flipped" if table == "XX" else "nearest neighbour") + ")"
            if table == "XXV":
                note += "; " + _AWARENESS_MATCHING
        return note + self.agree(model, table=table) + self.subset()


def published_vs_reproduced_rerun(
    tables: BatteryTables,
    published_csv: str | os.PathLike,
    *,
    raw_dir: str | os.PathLike | None = None,
    alpha: float = 0.05,
    evidence: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Every number printed in paper B's Tables II-XXV beside the rerun's (Table I: the training notebook).

    Parameters
    ----------
    tables : BatteryTables
        :func:`battery_tables` on the ``paper`` preset's predictions (with ``features``).
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    raw_dir : str or path-like or None, keyword-only
        The authors' files (``data/raw/paper-b-authors``), used in the notes of mismatches: whether the
        authors' own per-fold values give the printed number, in how many folds ours equal theirs, whether the
        printed counts add up. None: notes without these comparisons.
    alpha : float, keyword-only
        Family level (only for the notes about verdicts).
    evidence : dict, optional, keyword-only
        Paths of the committed results named in ``evidence`` (keys of :data:`EVIDENCE`); default the
        default experiment's.

    Returns
    -------
    pandas.DataFrame
        :data:`compendium.publish.published.PVR_PIECE_COLUMNS`, ``paper`` = ``"B"``, ``source`` =
        ``"rerun"``, one row per printed number of Tables II-XXV in the published file's order; ``reproduced``
        NaN where the rerun has no counterpart (e.g. awareness tables without features), with a note; every
        mismatch has a note. ``basis``: ``"inputs equal"`` for a model whose predictions give the authors'
        committed confusion cells in all 250 folds, ``"inputs differ"`` otherwise, ``"impossible"`` for a
        printed count that :func:`compendium.paper_b.printed_arithmetic.impossible_printed_numbers` rules
        out.

    Raises
    ------
    TypeError
        ``tables`` is not a :class:`BatteryTables`.

    Notes
    -----
    Tables II-XI, XIV, XV: ``disparity``, ``statistic_paper_formula``, ``pvalue_paper_formula`` (the paper's
    own formula). XII, XIII: the paper's χ² and p. Count tables: the printed cell in row ``... (Y) = y``,
    column ``Original (X) = x`` is the count of people with own prediction x and other prediction y. XX,
    XXV: K, N - K and the mid-p of Eq. 3 (as the authors-per-fold piece does; the note gives Table XX's
    formula on our counts). Printed p-values ``~0``, ``0``, ``~1``, ``1`` match a p that rounds to it at
    three decimals (:func:`compendium.publish.published.matches_printed_pvalue`).
    """
    if not isinstance(tables, BatteryTables):
        raise TypeError(f"`tables` must be a BatteryTables result, got {type(tables).__name__}")
    ev = {**EVIDENCE, **dict(evidence or {})}
    published = read_published_b(published_csv)
    ruled_out = impossible_printed_numbers(published).set_index(["table", "row", "column"])["arithmetic"]
    notes = _Notes(tables, published_csv, raw_dir)
    bat = tables.battery.set_index(["table", "model", "group"])
    cells = tables.count_tables.set_index(["table", "group", "original", "other"])["n"]
    totals = tables.count_tables.groupby(["table", "group"])["n"].sum()
    t_specs = {s.table: s for s in RERUN_TESTS}
    count_keys = {t: key for key, t in COUNT_TABLES.items()}
    missing = "no rerun counterpart (fairness through awareness needs `features`)"
    out = []
    for _, p in published.iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        if table == "I":
            continue
        reproduced, note, model, sources = float("nan"), missing, "", [ev["battery"]]
        if table in t_specs or table in ("XII", "XIII"):
            model = _MODEL_ROWS[row]
            sources = [ev["battery"], ev["fold_metrics"], ev["authors_battery"]]
            if (table, model, "") in bat.index:
                r = bat.loc[(table, model, "")]
                if table in t_specs:
                    reproduced = float(r[_T_FIELDS[column]])
                    note = notes.t_table(table, model, t_specs[table].metric, column, printed, reproduced)
                else:
                    reproduced = float(r["statistic" if column.startswith("Chi") else "pvalue"])
                    note = notes.calibration(model, reproduced, int(r["df"]), table)
        elif table in count_keys:
            test, model = count_keys[table]
            sources = [ev["counts"]]
            group = "White" if row.startswith("Unprotected") else "Black"
            y, x = int(row.rsplit("=", 1)[1]), int(column.rsplit("=", 1)[1])
            if (table, group, x, y) in cells.index:
                reproduced = float(cells.loc[(table, group, x, y)])
                total = int(totals.loc[(table, group)])
                note = notes.count(table, test, model, group, x, y, int(reproduced), total)
        elif table in ("XX", "XXV"):
            model = _MODEL_ROWS[row.rsplit(" (", 1)[0]]
            group = "White" if row.endswith("(Unprotected)") else "Black"
            if (table, model, group) in bat.index:
                r = bat.loc[(table, model, group)]
                reproduced = float(r[{"K": "k", "N-K": "n_minus_k", "P-Value": "pvalue"}[column]])
                note = notes.mcnemar(table, model, column, printed, r, alpha)
        matches = matches_printed(column, printed, reproduced)
        note = "" if matches else note
        if table in t_specs and column in ("Test Statistic", "P-Value") and np.isfinite(reproduced):
            note = "; ".join(filter(None, [note, correct_t_note(r)]))
        basis = notes.basis(model) if model else ""
        if basis:
            sources.append(ev["agreement"])  # whether our predictions are the authors', fold by fold
        if (table, row, column) in ruled_out.index:
            basis, sources = "impossible", [ev["impossible"], *sources]
            note = "; ".join(filter(None, [f"impossible: {ruled_out.loc[(table, row, column)]}", note]))
        evidence = "; ".join(sources)
        out.append(["B", table, row, column, printed, reproduced, "rerun", matches, note, evidence, basis])
    return pd.DataFrame(out, columns=PVR_PIECE_COLUMNS)
