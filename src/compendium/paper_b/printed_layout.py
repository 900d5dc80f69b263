"""Paper B's Tables II-XXV as printed, beside every source that reproduces them, and in the paper's layout.

The sources (:data:`SOURCES`): ``authors-per-fold`` (the authors' committed per-fold results through the
paper's formulas, rule ``authors_battery``), ``rerun`` (our refitted models, rule ``run_battery``) and, where
the authors' procedures ran, ``authors-procedure`` (rule ``authors_procedure_tables``). Each writes a
published-vs-reproduced piece keyed by ``table, row, column``; :func:`combine_sources` joins them with the
transcription of the paper (``paper_b_tables.csv``), :func:`source_summary` counts per table what each source
reproduces, and :func:`layout_markdown` renders every table as the paper prints it, the sources' numbers and
the correct tests beside the printed ones (``paper_b_tables_layout.md``; :func:`layout_sections` splits it
again for the notebook). :func:`t_by_hand` recomputes Table II's logistic-regression row from the per-fold
values, to show that the battery is nothing more than the formulas. Rule ``tabulate_paper_b`` writes these
tables; the notebook ``paper_b_battery.ipynb`` reads them.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import fold_ttest_as_published, mcnemar_midp_as_published
from compendium.paper_b.authors import MODELS
from compendium.paper_b.battery_layout import RERUN_TESTS, align_battery
from fairstats.mcnemar import mcnemar_midp
from fairstats.reporting import to_markdown

__all__ = [
    "MODEL_NAME",
    "NAME_MODEL",
    "SOURCES",
    "TITLES",
    "combine_sources",
    "layout_markdown",
    "layout_sections",
    "read_battery",
    "read_combined",
    "read_pvr",
    "source_summary",
    "t_by_hand",
]

#: Model key -> the name paper B prints, and back.
MODEL_NAME = {m: v[3] for m, v in MODELS.items()}
NAME_MODEL = {v: k for k, v in MODEL_NAME.items()}
#: The sources that reproduce the printed tables, in the order of the joined table's columns.
SOURCES = ("authors-per-fold", "rerun", "authors-procedure")

#: What each table tests, as the layout's headings say it.
TITLES = {
    "II": "group fairness, P(ŷ=0)",
    "III": "predictive parity, PPV = P(y=0 | ŷ=0)",
    "IV": "predictive equality, FPR = P(ŷ=0 | y=1)",
    "V": "equal opportunity, FNR = P(ŷ=1 | y=0)",
    "VI": "equalized odds (FPR), α/2",
    "VII": "equalized odds (TPR = P(ŷ=0 | y=0)), α/2",
    "VIII": "conditional use accuracy equality (PPV), α/2",
    "IX": "conditional use accuracy equality (NPV = P(y=1 | ŷ=1)), α/2",
    "X": "overall accuracy equality, P(ŷ = y), two-sided",
    "XI": "treatment equality, FN/FP",
    "XII": "calibration, χ² of Eq. 1-2",
    "XIII": "well-calibration, χ² of Eq. 1-2 against the bin ends",
    "XIV": "balance for the positive class, E(S | y=0)",
    "XV": "balance for the negative class, E(S | y=1)",
    "XVI": "causal discrimination, logistic regression",
    "XVII": "causal discrimination, LDA",
    "XVIII": "causal discrimination, random forest",
    "XIX": "causal discrimination, gradient boosting",
    "XX": "causal discrimination, McNemar mid-p",
    "XXI": "fairness through awareness, logistic regression",
    "XXII": "fairness through awareness, LDA",
    "XXIII": "fairness through awareness, random forest",
    "XXIV": "fairness through awareness, gradient boosting",
    "XXV": "fairness through awareness, McNemar mid-p",
}
_T_COLUMNS = ("Disparity", "Test Statistic", "P-Value")


# ------------------------------------------------------------------------------------------------- reading


def _flag(series: pd.Series) -> pd.Series:
    """A verdict column read back from CSV ('True'/'False'/empty) as a nullable boolean."""
    return series.map({True: True, False: False, "True": True, "False": False}).astype("boolean")


def read_battery(path: str | os.PathLike, *, align: bool = False) -> pd.DataFrame:
    """A battery table (rule ``run_battery`` or ``authors_battery``) as the tables here use it: verdict
    columns as nullable booleans, ``group`` ``""`` on t rows; ``align`` gives the authors' battery the rerun's
    columns (:func:`compendium.paper_b.battery_layout.align_battery`)."""
    frame = pd.read_csv(path)
    if align:
        frame = align_battery(frame)
    for col in [c for c in frame.columns if c.startswith("significant_")] + ["verdict_changes"]:
        frame[col] = _flag(frame[col])
    frame["group"] = frame["group"].fillna("")
    return frame


def read_pvr(path: str | os.PathLike) -> pd.DataFrame:
    """A published-vs-reproduced piece, every cell as text (``published`` exactly as printed)."""
    return pd.read_csv(path, dtype={"published": str}, keep_default_na=False)


def _key(source: str) -> str:
    return source.replace("-", "_")


# ---------------------------------------------------------------------------------------- the joined table


def _reproduced(pvr: pd.DataFrame, source: str) -> pd.DataFrame:
    p = pvr.copy()
    p = p[p["paper"] == "B"]
    p["reproduced"] = pd.to_numeric(p["reproduced"], errors="coerce")
    p["matches"] = p["matches"].astype(str).str.lower().eq("true")
    key = _key(source)
    return p[["table", "row", "column", "reproduced", "matches", "note"]].rename(
        columns={"reproduced": key, "matches": f"matches_{key}", "note": f"note_{key}"}
    )


def combine_sources(published: pd.DataFrame, pvr: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every printed number of Tables II-XXV beside what each source reproduces.

    Parameters
    ----------
    published : pandas.DataFrame
        The transcription of the paper (:func:`compendium.paper_b.authors.read_published_b`).
    pvr : dict
        Source name (of :data:`SOURCES`) -> its published-vs-reproduced piece (:func:`read_pvr`), in the
        order of the output's columns.

    Returns
    -------
    pandas.DataFrame
        ``table, row, column, published`` in the transcription's order (Table I left out), then per source
        ``<source>`` (the number, NaN where the source gives none), ``matches_<source>`` (bool: matches the
        printed number at its printed precision) and ``note_<source>`` (text, ``""`` where none); the source
        names with ``_`` for ``-``.
    """
    combined = published[["table", "row", "column", "published"]].copy()
    for source, piece in pvr.items():
        combined = combined.merge(_reproduced(piece, source), on=["table", "row", "column"], how="left")
    combined = combined[combined["table"] != "I"].reset_index(drop=True)
    for key in map(_key, pvr):
        combined[f"matches_{key}"] = combined[f"matches_{key}"].fillna(False).astype(bool)
        combined[f"note_{key}"] = combined[f"note_{key}"].fillna("")
    return combined


def read_combined(path: str | os.PathLike) -> pd.DataFrame:
    """``paper_b_tables.csv`` read back as :func:`combine_sources` returned it (the same floats, text and
    booleans)."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    for key in [c[len("matches_") :] for c in frame.columns if c.startswith("matches_")]:
        frame[key] = pd.to_numeric(frame[key].replace("", np.nan), errors="raise")
        frame[f"matches_{key}"] = frame[f"matches_{key}"].map({"True": True, "False": False}).astype(bool)
    return frame


def sources_of(combined: pd.DataFrame) -> tuple[str, ...]:
    """The sources (:data:`SOURCES`) whose columns the joined table has."""
    return tuple(s for s in SOURCES if f"matches_{_key(s)}" in combined)


def source_summary(combined: pd.DataFrame) -> pd.DataFrame:
    """Per table: the printed numbers, and how many each source reproduces and matches."""
    keys = [_key(s) for s in sources_of(combined)]
    return combined.groupby("table", sort=False).agg(
        printed=("published", "size"),
        authors_reproduced=("authors_per_fold", lambda s: int(s.notna().sum())),
        authors_match=("matches_authors_per_fold", "sum"),
        rerun_reproduced=("rerun", lambda s: int(s.notna().sum())),
        rerun_match=("matches_rerun", "sum"),
        **(
            {
                "authors_procedure_reproduced": ("authors_procedure", lambda s: int(s.notna().sum())),
                "authors_procedure_match": ("matches_authors_procedure", "sum"),
            }
            if "authors_procedure" in keys
            else {}
        ),
    )


# ---------------------------------------------------------------------------------------- the paper's layout


def _fmt(value, matched=False, digits=3) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return ""
    text = f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return text + ("*" if matched else "")


def _t_layout(table, combined, battery, sources) -> pd.DataFrame:
    sub = combined[combined["table"] == table]
    rows = []
    for name in dict.fromkeys(sub["row"]):
        r = {"Model": name}
        cells = sub[sub["row"] == name].set_index("column")
        for col in _T_COLUMNS:
            r[f"published {col}"] = cells.loc[col, "published"]
        for source, key in (("authors", "authors_per_fold"), ("rerun", "rerun")):
            for col in _T_COLUMNS:
                digits = 3 if col != "Test Statistic" else 2
                r[f"{source} {col}"] = _fmt(cells.loc[col, key], cells.loc[col, f"matches_{key}"], digits)
        for source in sources:
            b = battery[
                (battery["source"] == source)
                & (battery["table"] == table)
                & (battery["model"] == NAME_MODEL[name])
            ]
            tag = "authors" if source == "authors-per-fold" else "rerun"
            if len(b):
                b = b.iloc[0]
                r[f"{tag} pooled t"] = _fmt(b["statistic_pooled"], digits=2)
                r[f"{tag} corrected t"] = _fmt(b["statistic_corrected"], digits=2)
                r[f"{tag} corrected p"] = _fmt(b["pvalue_corrected"], digits=3)
                paper, corrected = b["significant_paper"], b["significant_corrected"]
                r[f"{tag} verdict paper/corrected"] = f"{'V' if paper else '-'}/{'V' if corrected else '-'}"
        rows.append(r)
    return pd.DataFrame(rows)


def _calibration_layout(table, combined, rerun) -> pd.DataFrame:
    sub = combined[combined["table"] == table]
    rows = []
    chi2 = "Chi Squared Test Statistic"
    for name in dict.fromkeys(sub["row"]):
        cells = sub[sub["row"] == name].set_index("column")
        b = rerun[(rerun["table"] == table) & (rerun["model"] == NAME_MODEL[name])]
        r = {
            "Model": name,
            "published χ²": cells.loc[chi2, "published"],
            "published p": cells.loc["P-Value", "published"],
            "rerun χ²": _fmt(cells.loc[chi2, "rerun"], cells.loc[chi2, "matches_rerun"], 2),
            "rerun p": _fmt(cells.loc["P-Value", "rerun"], cells.loc["P-Value", "matches_rerun"]),
        }
        if len(b):
            b = b.iloc[0]
            r["rerun df"] = int(b["df"])
            if table == "XII":
                r["ours: independence χ²"] = _fmt(b["statistic_alternative"], digits=2)
                r["ours: df"] = int(b["df_alternative"]) if np.isfinite(b["df_alternative"]) else ""
                r["ours: p"] = _fmt(b["pvalue_alternative"])
        rows.append(r)
    return pd.DataFrame(rows)


def _count_layout(table, combined) -> pd.DataFrame:
    rows = []
    sub = combined[combined["table"] == table]
    for name in dict.fromkeys(sub["row"]):
        cells = sub[sub["row"] == name].set_index("column")
        r = {"": name}
        for x in (0, 1):
            r[f"published X={x}"] = cells.loc[f"Original (X) = {x}", "published"]
        for x in (0, 1):
            cell = f"Original (X) = {x}"
            r[f"rerun X={x}"] = _fmt(cells.loc[cell, "rerun"], cells.loc[cell, "matches_rerun"], 0)
        rows.append(r)
    return pd.DataFrame(rows)


def _mcnemar_layout(table, combined, rerun) -> pd.DataFrame:
    rows = []
    sub = combined[combined["table"] == table]
    for name in dict.fromkeys(sub["row"]):
        cells = sub[sub["row"] == name].set_index("column")
        k, n_k = int(cells.loc["K", "published"]), int(cells.loc["N-K", "published"])
        model, side = name.rsplit(" (", 1)
        group = "White" if side.startswith("Unprotected") else "Black"
        b = rerun[
            (rerun["table"] == table) & (rerun["model"] == NAME_MODEL[model]) & (rerun["group"] == group)
        ]
        r = {
            "Model": name,
            "published K": k,
            "published N-K": n_k,
            "published p": cells.loc["P-Value", "published"],
            "printed counts: mid-p (Eq. 3)": _fmt(mcnemar_midp(k, n_k).pvalue, digits=4),
            "printed counts: Table XX formula": _fmt(mcnemar_midp_as_published(k, n_k).pvalue, digits=4),
        }
        if len(b):
            b = b.iloc[0]
            paper, corrected = b["significant_paper"], b["significant_corrected"]
            r.update(
                {
                    "rerun K": int(b["k"]),
                    "rerun N-K": int(b["n_minus_k"]),
                    "rerun mid-p": _fmt(b["pvalue"], digits=4),
                    "rerun Table XX formula": _fmt(b["pvalue_as_published"], digits=4),
                    "rerun verdict paper/mid-p": f"{'V' if paper else '-'}/{'V' if corrected else '-'}",
                }
            )
        rows.append(r)
    return pd.DataFrame(rows)


def layout_markdown(
    combined: pd.DataFrame, battery: pd.DataFrame, *, count_tables: pd.DataFrame, preset: str
) -> str:
    """Tables II-XXV in the paper's layout, as Markdown: one ``## Table <numeral>: <what>`` section each.

    Per table the printed numbers, each source's through the paper's own procedure (``*`` = matches the
    printed number at its precision), the correct tests and the verdicts of both (``V`` violation, ``-``
    none). ``battery`` holds both batteries (:func:`read_battery`, column ``source``); ``count_tables`` is the
    rerun's paired count tables (rule ``run_battery``): an awareness table (XXI-XXIV) the rerun did not count
    is left out.
    """
    rerun = battery[battery["source"] == "rerun"]
    sources = sources_of(combined)
    out = [
        f"# Paper B, Tables II-XXV in the paper's layout (rerun preset {preset})\n",
        "`*` = matches the printed number at its precision; verdicts: V = violation at the test's alpha, "
        "- = none.\n",
    ]

    def section(table, frame, note=""):
        out.append(f"\n## Table {table}: {TITLES[table]}\n\n{note}" + to_markdown(frame))

    for table in [s.table for s in RERUN_TESTS if s.table not in ("XIV", "XV")] + ["XIV", "XV"]:
        section(table, _t_layout(table, combined, battery, sources))
    for table in ("XII", "XIII"):
        section(table, _calibration_layout(table, combined, rerun))
    for table in ("XVI", "XVII", "XVIII", "XIX"):
        note = "Rows: group and simulated (Y) prediction; columns: original (X) prediction.\n\n"
        section(table, _count_layout(table, combined), note)
    section("XX", _mcnemar_layout("XX", combined, rerun))
    for table in ("XXI", "XXII", "XXIII", "XXIV"):
        if table in set(count_tables["table"]):
            note = "Rows: group and neighbour (Y) prediction; columns: original (X) prediction.\n\n"
            section(table, _count_layout(table, combined), note)
    section("XXV", _mcnemar_layout("XXV", combined, rerun))
    return "\n".join(out)


def layout_sections(markdown: str) -> dict[str, str]:
    """:func:`layout_markdown`'s text split again: table numeral -> its section (heading and table)."""
    parts = re.split(r"^## Table ([IVX]+): ", markdown, flags=re.MULTILINE)
    return {parts[i]: f"**Table {parts[i]}** — {parts[i + 1].strip()}\n" for i in range(1, len(parts), 2)}


# ---------------------------------------------------------------------------------------- one row by hand


def t_by_hand(
    fold_metrics: dict[str, pd.DataFrame], *, table: str = "II", model: str = "lr", alpha: float = 0.05
) -> pd.DataFrame:
    """One row of a fold-based table recomputed from the per-fold values by the formulas, beside
    :func:`~compendium.paper_b.as_published.fold_ttest_as_published` (the paper's t and the library's).

    Parameters
    ----------
    fold_metrics : dict
        Source -> its per-fold metrics (``model, metric, group, fold, value``; groups ``White``/``Black``).
    table, model : str
        The table (of :data:`~compendium.paper_b.battery_layout.RERUN_TESTS`) and model.
    alpha : float
        The test's level.

    Returns
    -------
    pandas.DataFrame
        One row per source: ``K``, the paper's t by hand ((mean W - mean B) / (s_p (1/K + 1/K))) and through
        ``fold_ttest_as_published``, the pooled t and the ratio of the two (sqrt(K/2)), the corrected
        resampled t by hand (mean d / sqrt((1/K + 1/(K-1)) s_d^2)) and through the library, and its p-value.
    """
    spec = next(s for s in RERUN_TESTS if s.table == table)
    rows = []
    for source, folds in fold_metrics.items():
        sub = folds[(folds["model"] == model) & (folds["metric"] == spec.metric)]
        wide = sub.pivot(index="fold", columns="group", values="value").sort_index()
        a, b = wide["White"].to_numpy(), wide["Black"].to_numpy()
        k = len(a)
        sp = np.sqrt(((k - 1) * a.var(ddof=1) + (k - 1) * b.var(ddof=1)) / (2 * k - 2))
        d = a - b
        res = fold_ttest_as_published(a, b, alternative=spec.alternative, alpha=alpha)
        rows.append(
            {
                "source": source,
                "table": table,
                "model": model,
                "metric": spec.metric,
                "K": k,
                "t_paper_by_hand": (a.mean() - b.mean()) / (sp * (1 / k + 1 / k)),
                "t_paper": res.statistic_paper_formula,
                "t_pooled": res.statistic_pooled,
                "ratio": res.statistic_paper_formula / res.statistic_pooled,
                "t_corrected_by_hand": d.mean() / np.sqrt((1 / k + 1 / (k - 1)) * d.var(ddof=1)),
                "t_corrected": res.statistic_corrected,
                "pvalue_corrected": res.pvalue_corrected,
            }
        )
    return pd.DataFrame(rows)
