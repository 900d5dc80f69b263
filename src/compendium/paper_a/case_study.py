"""Paper A's case study (equal confusion fairness on COMPAS): its descriptive tables, figures, and the
comparison of every printed number with ours.

The statistics themselves live in :mod:`fairstats.confusion`; this module only arranges them the way the
paper prints them (Tables III-X) and draws the two figure types of the case-study notebook.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, confusion_matrix, precision_score, recall_score

from compendium._checks import require_table
from compendium.publish.published import PVR_COLUMNS, matches_at_printed_precision
from fairstats.confusion import EqualConfusionResult, equal_confusion_test

__all__ = [
    "PAPER_A_GROUPINGS",
    "crosstab_with_shares",
    "headline_numbers",
    "format_groupings",
    "overall_confusion",
    "parse_groupings",
    "plot_group_confusion_matrices",
    "plot_residual_heatmap",
    "published_vs_reproduced_a",
    "ratio_panels",
]

#: The paper's groupings and the tables that print them (residuals: V, VI, IX; ratios: VII, VIII, X).
PAPER_A_GROUPINGS: dict[str, dict[str, object]] = {
    "sex": {"group": ["sex"], "table": "V", "ratio_table": "VII"},
    "race": {"group": ["race"], "table": "VI", "ratio_table": "VIII"},
    "sex_race": {"group": ["sex", "race"], "table": "IX", "ratio_table": "X"},
}

MINUS = "\u2212"


def parse_groupings(text: str) -> dict[str, list[str]]:
    """Parse ``"sex:sex,sex_race:sex+race"`` into ``{"sex": ["sex"], "sex_race": ["sex", "race"]}``.

    The notebook's ``groupings`` parameter is this one string (papermill parameters are scalars);
    :func:`format_groupings` writes it from the config's ``compas.groupings``.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            f"`groupings` must be a non-empty string like 'sex:sex,sex_race:sex+race', got {text!r}"
        )
    out: dict[str, list[str]] = {}
    for part in text.split(","):
        name, sep, columns = part.strip().partition(":")
        cols = [c.strip() for c in columns.split("+") if c.strip()]
        if not sep or not name.strip() or not cols:
            raise ValueError(f"`groupings`: entry {part!r} is not 'name:col' or 'name:col1+col2'")
        if name.strip() in out:
            raise ValueError(f"`groupings`: name {name.strip()!r} appears twice")
        out[name.strip()] = cols
    return out


def format_groupings(groupings: Mapping[str, Sequence[str]]) -> str:
    """Inverse of :func:`parse_groupings` (keys in the given order)."""
    return ",".join(f"{name}:{'+'.join(cols)}" for name, cols in groupings.items())


def crosstab_with_shares(
    data: pd.DataFrame,
    *,
    rows: str,
    columns: str,
    row_order: Sequence[object] | None = None,
    column_order: Sequence[object] | None = None,
    row_labels: Mapping[object, str] | None = None,
    column_labels: Mapping[object, str] | None = None,
) -> pd.DataFrame:
    """Counts of ``rows`` x ``columns`` with totals and shares, laid out as paper A's Tables III and IV.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person.
    rows, columns : str
        Columns to cross-tabulate.
    row_order, column_order : sequence, optional
        Order of the values (default: sorted).
    row_labels, column_labels : mapping, optional
        Display labels of the values (default: ``str(value)``).

    Returns
    -------
    pandas.DataFrame
        First column ``rows`` (the row labels, then ``"Total"`` and ``"%"``), then one column per value of
        ``columns``, then ``"Total"`` and ``"%"``. Cells are counts, except the ``"%"`` row and column:
        percentages of the grand total (not rounded; the paper prints whole numbers). The ``"%"``/``"%"``
        corner is NaN (printed empty).
    """
    data = require_table(data, [rows, columns], where="`data`", nonempty=True, complete=True)
    counts = pd.crosstab(data[rows], data[columns])
    r_order = list(row_order) if row_order is not None else sorted(counts.index)
    c_order = list(column_order) if column_order is not None else sorted(counts.columns)
    counts = counts.reindex(index=r_order, columns=c_order, fill_value=0).astype(float)
    total = counts.to_numpy().sum()
    counts["Total"] = counts.sum(axis=1)
    counts["%"] = 100.0 * counts["Total"] / total
    col_totals = counts.sum(axis=0)
    col_totals["%"] = 100.0
    shares = 100.0 * col_totals / total
    shares["%"] = np.nan
    out = pd.concat([counts, col_totals.to_frame("Total").T, shares.to_frame("%").T])
    rl = {v: (row_labels or {}).get(v, str(v)) for v in r_order}
    cl = {v: (column_labels or {}).get(v, str(v)) for v in c_order}
    out.index = [rl.get(v, v) for v in out.index]
    out.columns = [cl.get(v, v) for v in out.columns]
    out.index.name = rows
    return out.reset_index()


def overall_confusion(data: pd.DataFrame, *, y_true: str, y_pred: str) -> pd.DataFrame:
    """Paper A's Table IV: predicted (rows) x actual (columns), positives first, with totals and shares.

    Returns
    -------
    pandas.DataFrame
        As :func:`crosstab_with_shares` with rows ``predicted +``, ``predicted −`` and columns ``actual +``,
        ``actual −`` (binary 0/1 labels, 1 = positive).
    """
    return crosstab_with_shares(
        data,
        rows=y_pred,
        columns=y_true,
        row_order=[1, 0],
        column_order=[1, 0],
        row_labels={1: "predicted +", 0: f"predicted {MINUS}"},
        column_labels={1: "actual +", 0: f"actual {MINUS}"},
    )


def headline_numbers(data: pd.DataFrame, *, y_true: str, y_pred: str) -> dict[str, float]:
    """The numbers paper A's text states: cases, predicted/actual positives, TP, accuracy, precision, recall.

    Returns
    -------
    dict
        ``cases``, ``predicted positive``, ``actual positive``, ``true positive`` (counts) and ``accuracy``,
        ``precision``, ``recall`` in percent (scikit-learn's metrics times 100, not rounded).
    """
    data = require_table(data, [y_true, y_pred], where="`data`", nonempty=True, complete=True)
    yt, yp = data[y_true].to_numpy(), data[y_pred].to_numpy()
    tn, fp, fn, tp = confusion_matrix(yt, yp, labels=[0, 1]).ravel()
    return {
        "cases": float(len(data)),
        "predicted positive": float(tp + fp),
        "actual positive": float(tp + fn),
        "true positive": float(tp),
        "accuracy": 100.0 * float(accuracy_score(yt, yp)),
        "precision": 100.0 * float(precision_score(yt, yp, zero_division=np.nan)),
        "recall": 100.0 * float(recall_score(yt, yp, zero_division=np.nan)),
    }


def ratio_panels(ratios: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Paper A's ratio tables (VII, VIII, X) from :func:`fairstats.confusion.confusion_ratios` (binary).

    Returns
    -------
    dict
        ``"actual positive"`` and ``"actual negative"``: one row per group; columns
        ``"<cell> % of group"`` and ``"<cell> % of actual"`` for the panel's two cells (TP, FN, i.e.
        TPR/FNR; FP, TN, i.e. FPR/TNR), in percent (not rounded).
    """
    panels = {}
    for name, y, cells in (("actual positive", 1, ["TP", "FN"]), ("actual negative", 0, ["FP", "TN"])):
        part = ratios[ratios["y_true"] == y]
        group_order = list(dict.fromkeys(ratios["group"]))
        cols = {}
        for cell in cells:
            one = part[part["cell"] == cell].set_index("group")
            cols[f"{cell} % of group"] = 100.0 * one["share_of_group"]
            cols[f"{cell} % of actual"] = 100.0 * one["share_of_actual"]
        frame = pd.DataFrame(cols).reindex(group_order)
        frame.index.name = "group"
        panels[name] = frame.reset_index()
    return panels


def plot_residual_heatmap(result: EqualConfusionResult, *, ax=None, title: str = ""):
    """Heatmap of adjusted residuals (diverging palette centred on 0), flagged cells marked.

    A cell's text is its residual to one decimal, followed by ``*`` when it is past the Bonferroni cut-off
    and ``†`` when past the strict cut-off (|r| > 3.29 for alpha = 0.001); flagged cells are also framed.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.patches import Rectangle

    from compendium.publish.plotting import DIVERGING

    resid = result.residuals
    q, r = resid.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(1.3 * r + 3.5, 0.45 * q + 1.6))
    bound = max(float(np.abs(resid.to_numpy()).max()), result.strict_cutoff)
    text = resid.apply(lambda col: col.map(lambda v: f"{v:.1f}".replace("-", MINUS)))
    text = text + np.where(result.flag_bonferroni, "*", "") + np.where(result.flag_strict, "\u2020", "")
    sns.heatmap(
        resid,
        ax=ax,
        cmap=DIVERGING,
        center=0.0,
        vmin=-bound,
        vmax=bound,
        annot=text.to_numpy(),
        fmt="",
        linewidths=0.5,
        cbar_kws={"label": "adjusted residual"},
    )
    for i, j in zip(*np.nonzero((result.flag_strict | result.flag_bonferroni).to_numpy()), strict=True):
        ax.add_patch(Rectangle((j, i), 1, 1, fill=False, edgecolor="black", linewidth=1.6))
    ax.set_xlabel("confusion cell")
    ax.set_ylabel("")
    caption = (
        f"* |r| > {result.bonferroni_cutoff:.2f} (Bonferroni, {result.posthoc_alpha:g}/{q * r}); "
        f"\u2020 |r| > {result.strict_cutoff:.2f} (alpha {result.posthoc_strict_alpha:g})"
    )
    ax.set_title((title + "\n" if title else "") + caption, fontsize=9)
    return ax.figure


def plot_group_confusion_matrices(result: EqualConfusionResult, *, ncols: int = 4, title: str = ""):
    """One small confusion matrix per group (rows: prediction, columns: truth), counts and % of the group."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    observed = result.observed
    key = result.cells.set_index("cell")
    preds = sorted(key["y_pred"].unique(), reverse=True)
    trues = sorted(key["y_true"].unique(), reverse=True)
    q = observed.shape[0]
    ncols = min(ncols, q)
    nrows = math.ceil(q / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols, 2.5 * nrows), squeeze=False)
    for k, group in enumerate(observed.index):
        ax = axes[k // ncols][k % ncols]
        mat = pd.DataFrame(0, index=preds, columns=trues, dtype=float)
        for cell, value in observed.loc[group].items():
            mat.loc[key.loc[cell, "y_pred"], key.loc[cell, "y_true"]] = value
        share = 100.0 * mat / mat.to_numpy().sum()
        labels = np.vectorize(lambda c, s: f"{int(c)}\n{s:.0f}%")(mat.to_numpy(), share.to_numpy())
        sns.heatmap(share, ax=ax, annot=labels, fmt="", cmap="Blues", vmin=0, vmax=100, cbar=False)
        ax.set_title(str(group), fontsize=9)
        ax.set_xlabel("actual")
        ax.set_ylabel("predicted")
    for k in range(q, nrows * ncols):
        axes[k // ncols][k % ncols].set_axis_off()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _pvr_row(table: str, row: str, column: str, published: str, reproduced: float, note: str = "") -> dict:
    matches = matches_at_printed_precision(published, reproduced)
    if not matches and not note:
        note = "differs at the printed precision"
    return {
        "paper": "A",
        "table": table,
        "row": row,
        "column": column,
        "published": published,
        "reproduced": float(reproduced),
        "source": "rerun",
        "matches": bool(matches),
        "note": note,
    }


def _residual_note(published: str, value: float, result: EqualConfusionResult) -> str:
    """A note where rounding to one decimal hides which side of the strict cut-off a residual is on."""
    printed = abs(float(published.replace(MINUS, "-")))
    cutoff = result.strict_cutoff
    if abs(printed - round(cutoff, 1)) > 1e-9:
        return ""
    strict = abs(value) > cutoff
    bonferroni = abs(value) > result.bonferroni_cutoff
    return (
        f"printed {published} cannot show the {cutoff:.2f} cut-off; r = {value:.4f} is "
        f"{'past' if strict else 'not past'} it (alpha {result.posthoc_strict_alpha:g}) and "
        f"{'past' if bonferroni else 'not past'} the Bonferroni cut-off {result.bonferroni_cutoff:.2f}"
    )


def published_vs_reproduced_a(
    data: pd.DataFrame,
    published: pd.DataFrame,
    *,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
) -> pd.DataFrame:
    """Every printed number of paper A beside ours (the piece of ``results/published-vs-reproduced.csv``).

    Parameters
    ----------
    data : pandas.DataFrame
        The COMPAS violent frame after the ProPublica filter (``propublica_violent``), with ``sex``, ``race``
        and the label columns.
    published : pandas.DataFrame
        ``data/published/paper-a-tables.csv``: columns ``table, row, column, published`` (read as strings).
        Tables: ``text`` (numbers in the text), ``III``, ``IV``, ``V``, ``VI``, ``IX``.
    y_true, y_pred : str
        Label columns.
    posthoc_alpha, posthoc_strict_alpha : float
        Levels of the residual flags that the notes refer to.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`compendium.publish.reporting.PVR_COLUMNS`, one row per published number, in its order;
        ``source`` = ``"rerun"``; a ``note`` on every mismatch, on every p-value (printed as round(p, 5)) and
        wherever a residual's printed value hides which side of the 3.29 cut-off it is on.

    Raises
    ------
    ValueError
        A published row this function does not know how to reproduce (naming table, row and column).
    """
    require_table(published, ["table", "row", "column", "published"], where="`published`")
    tables = {
        "III": crosstab_with_shares(data, rows="race", columns="sex").set_index("race"),
        "IV": overall_confusion(data, y_true=y_true, y_pred=y_pred).set_index(y_pred),
    }
    headline = headline_numbers(data, y_true=y_true, y_pred=y_pred)
    results: dict[str, EqualConfusionResult] = {}
    for spec in PAPER_A_GROUPINGS.values():
        results[str(spec["table"])] = equal_confusion_test(
            data,
            group=list(spec["group"]),
            y_true=y_true,
            y_pred=y_pred,
            alpha=0.01,  # paper A rejects at p < 0.01 (the library's default is 0.05)
            posthoc_alpha=posthoc_alpha,
            posthoc_strict_alpha=posthoc_strict_alpha,
            permutation="never",
        )
    rows = []
    for item in published.itertuples(index=False):
        table, row, column, text = str(item.table), str(item.row), str(item.column), str(item.published)
        note = ""
        try:
            if table == "text":
                value = headline[row]
            elif table in ("III", "IV"):
                value = tables[table].loc[row, column]
            elif table in results:
                res = results[table]
                if row == "test" and column == "p":
                    value = res.pvalue
                    note = (
                        f"printed as round(p, 5); ours p = {value:.3g} "
                        f"(chi2 = {res.statistic:.4f}, df = {res.df})"
                    )
                elif row == "test" and column == "confusion parity error":
                    value = res.cramers_v
                else:
                    kind, cell = column.split(": ")
                    if kind == "O":
                        value = res.observed.loc[row, cell]
                    else:
                        value = res.residuals.loc[row, cell]
                        note = _residual_note(text, float(value), res)
            else:
                raise KeyError(table)
        except (KeyError, ValueError):
            raise ValueError(
                f"`published`: cannot reproduce table {table!r}, row {row!r}, column {column!r}"
            ) from None
        rows.append(_pvr_row(table, row, column, text, float(value), note))
    return pd.DataFrame(rows, columns=PVR_COLUMNS)
