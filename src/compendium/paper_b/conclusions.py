"""Which of paper B's conclusions survive a correct test, per source, definition and model.

A definition is *violated* (against Black people) when at least one of its tests is significant in the paper's
direction at the test's level; for the one-sided tests the paper also reads a p-value near 1 as *reverse
discrimination* (p > 1 - alpha). For each source of the battery (:func:`compendium.paper_b.printed_layout.
read_battery`) and model, :func:`conclusions` sets side by side the verdict the paper printed (from its
printed p-values), the paper's procedure on the source's data and a correct test's (the corrected t; for
calibration the summed independence chi-squared; for causal discrimination and fairness through awareness the
mid-p of Eq. 3; none for well-calibration, whose hypothesis is composite). Rule ``tabulate_paper_b`` writes
the table (``paper_b_conclusions.csv``); :func:`conclusion_changes` says in words what changes, for the
notebook.
"""

from __future__ import annotations

import pandas as pd

from compendium.paper_b.authors import MODELS
from compendium.paper_b.printed_layout import MODEL_NAME, NAME_MODEL

__all__ = ["conclusion_changes", "conclusions", "conclusions_pivot", "models_of", "printed_pvalues"]


def printed_pvalues(published: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """The printed p-values: (table, model, group) -> p (group ``""`` except on Tables XX and XXV's rows;
    ``~0`` read as 0)."""
    printed = {}
    for _, p in published[published["column"] == "P-Value"].iterrows():
        table, row = p["table"], p["row"]
        if table in ("XX", "XXV"):
            model = NAME_MODEL[row.rsplit(" (", 1)[0]]
            group = "White" if row.endswith("(Unprotected)") else "Black"
        else:
            model, group = NAME_MODEL[row], ""
        printed[(table, model, group)] = float(str(p["published"]).strip().lstrip("~"))
    return printed


def conclusions(battery: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """The verdicts of every (source, definition, model): printed, the paper's procedure, a correct test.

    Parameters
    ----------
    battery : pandas.DataFrame
        Both batteries (:func:`compendium.paper_b.printed_layout.read_battery`), column ``source``.
    published : pandas.DataFrame
        The transcription of the paper (:func:`compendium.paper_b.authors.read_published_b`).

    Returns
    -------
    pandas.DataFrame
        ``source, test, tables, model, violated_printed, violated_paper, violated_corrected, reverse_paper,
        reverse_corrected, conclusion_changes, lost_under_correct_test, new_under_correct_test,
        reverse_changes``, sorted by source, the battery's order of definitions and the paper's order of
        models; ``violated_corrected`` is NA where no correct test exists (well-calibration).
    """
    printed = printed_pvalues(published)
    rows = []
    for (source, test, model), g in battery.groupby(["source", "test", "model"], sort=False):
        one_sided = g["alternative"].isin(["less", "greater"])
        p_print = [printed.get((t, model, grp)) for t, grp in zip(g["table"], g["group"], strict=True)]
        level = g["alpha"].to_numpy()
        printed_sig = [p is not None and p < a for p, a in zip(p_print, level, strict=True)]
        paper_p = g["pvalue_paper_formula"].fillna(g["pvalue_as_published"]).fillna(g["pvalue"])
        corrected_p = (
            g["pvalue_corrected"]
            .fillna(g["pvalue"].where(g["table"].isin(["XX", "XXV"])))
            .fillna(g["pvalue_alternative"])
        )
        corrected_available = g["significant_corrected"].notna().all()
        rows.append(
            {
                "source": source,
                "test": test,
                "tables": "+".join(dict.fromkeys(g["table"])),
                "model": model,
                "violated_printed": any(printed_sig),
                "violated_paper": bool(g["significant_paper"].fillna(False).any()),
                "violated_corrected": bool(g["significant_corrected"].fillna(False).any())
                if corrected_available
                else pd.NA,
                "reverse_paper": bool((paper_p[one_sided] > 1 - level[one_sided.to_numpy()]).any()),
                "reverse_corrected": bool((corrected_p[one_sided] > 1 - level[one_sided.to_numpy()]).any()),
            }
        )
    out = pd.DataFrame(rows)
    for col in ("violated_printed", "violated_paper", "violated_corrected"):
        out[col] = out[col].astype("boolean")
    out["conclusion_changes"] = out["violated_paper"] != out["violated_corrected"]
    out["lost_under_correct_test"] = out["violated_paper"] & ~out["violated_corrected"]
    out["new_under_correct_test"] = ~out["violated_paper"] & out["violated_corrected"]
    out["reverse_changes"] = out["reverse_paper"] != out["reverse_corrected"]
    out["test"] = pd.Categorical(out["test"], categories=list(dict.fromkeys(battery["test"])), ordered=True)
    out["model"] = pd.Categorical(out["model"], categories=list(MODELS), ordered=True)
    out = out.sort_values(["source", "test", "model"]).reset_index(drop=True)
    out["test"] = out["test"].astype(str)
    out["model"] = out["model"].astype(str)
    return out


def read_conclusions(path) -> pd.DataFrame:
    """``paper_b_conclusions.csv`` read back with its verdicts as nullable booleans."""
    frame = pd.read_csv(path)
    for col in [c for c in frame.columns if c.startswith(("violated_", "reverse_"))] + [
        "conclusion_changes",
        "lost_under_correct_test",
        "new_under_correct_test",
    ]:
        frame[col] = frame[col].astype("boolean")
    return frame


def conclusions_pivot(concl: pd.DataFrame) -> pd.DataFrame:
    """The paper's procedure and the correct test's verdict per (definition, model), a column per source."""
    return concl.pivot_table(
        index=["test", "model"],
        columns="source",
        values=["violated_paper", "violated_corrected"],
        aggfunc="first",
        sort=False,
    )


def models_of(g: pd.DataFrame) -> str:
    """The printed names of the models of ``g``'s rows, comma-separated."""
    return ", ".join(MODEL_NAME[m] for m in g["model"])


def conclusion_changes(concl: pd.DataFrame) -> str:
    """What changes under a correct test, as a Markdown list (or "No conclusion changes.")."""
    lines = []
    for what, column in (
        ("no longer violated under the correct test", "lost_under_correct_test"),
        ("violated only under the correct test", "new_under_correct_test"),
    ):
        for (source, test), g in concl[concl[column].fillna(False)].groupby(["source", "test"], sort=False):
            lines.append(f"- **{source}**, {test.replace('_', ' ')}: {what} for {models_of(g)}.")
    for (source, test), g in concl.groupby(["source", "test"], sort=False):
        if (
            g["violated_paper"].any()
            and g["violated_corrected"].notna().all()
            and not g["violated_corrected"].any()
        ):
            lines.append(f"- **{source}**: {test.replace('_', ' ')} is no longer violated by **any** model.")
    for (source, test), g in concl[concl["reverse_changes"]].groupby(["source", "test"], sort=False):
        lines.append(
            f"- **{source}**, {test.replace('_', ' ')}: the 'reverse discrimination' verdict changes for "
            f"{models_of(g)}."
        )
    return "\n".join(lines) if lines else "No conclusion changes."
