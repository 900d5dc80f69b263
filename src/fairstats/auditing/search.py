"""``fairstats audit --search``: the subgroup search of an audit, its tables, figure and report section.

Kept apart from the binary audit's tables and report: :func:`search_iv` checks the ``--search`` columns
before anything is computed, :func:`run_search` runs :func:`fairstats.subgroup_search` on the audit's people
and returns a :class:`SearchSection` (the tables ``subgroups.csv`` and ``subgroup_residuals.csv``, the
search's result, whose figure :func:`draw_search_figure` draws when the audit is saved, and the context of the
report section
``search.md.j2`` / ``search.html.j2``, whose data strings the templates escape like the rest of the report).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._format import pvalue_text as _p
from fairstats._resampling import derived_rng
from fairstats.auditing.counting import people_in
from fairstats.auditing.options import DEFAULT_SEARCH_METRICS
from fairstats.search import SubgroupSearchResult, subgroup_search

__all__ = ["DEFAULT_SEARCH_METRICS", "SearchSection", "draw_search_figure", "run_search", "search_iv"]

#: Rows of the report's table and of the figure (the tables hold every subgroup).
TOP = 10
#: Distinct subgroups whose confusion cells get paper A's residual analysis.
TOP_RESIDUALS = 3


@dataclass(frozen=True)
class SearchSection:
    """What the search adds to an audit: tables (file stem -> frame), the search's result (its figure is
    drawn when the audit is saved), report context and the summary's line."""

    tables: dict[str, pd.DataFrame]
    result: SubgroupSearchResult
    context: dict
    summary: str


def search_iv(
    data: pd.DataFrame,
    columns: tuple[str, ...],
    roles: dict[str, str],
    source: str,
    weight: np.ndarray | None = None,
) -> None:
    """Refuse unknown ``--search`` columns, a column with missing values or one that is also the outcome or
    the prediction (one line each, :class:`ValueError`, before anything is written; ``weight``: people per
    row of counted ``data``)."""
    names = [str(c) for c in data.columns]
    for column in columns:
        if column not in names:
            close = difflib.get_close_matches(column, names, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; columns are {names[:12]!r}"
            raise ValueError(f"--search: column {column!r} not found in {source}{hint}")
        if column in roles:
            raise ValueError(f"--search: column {column!r} is also {roles[column]}")
        missing = data[column].isna().to_numpy()
        if missing.any():
            raise ValueError(
                f"--search: column {column!r} of {source} has {people_in(missing, weight)} missing value(s) "
                "(NaN)"
            )
    dup = next((c for i, c in enumerate(columns) if c in columns[:i]), None)
    if dup is not None:
        raise ValueError(f"--search: column {dup!r} is given twice")


def draw_search_figure(section: SearchSection, folder: Path) -> list[str]:
    """The top comparisons' rates in the subgroup and in the rest (:meth:`SubgroupSearchResult.plot`)."""
    import matplotlib.pyplot as plt

    from fairstats.auditing.writing import save_figure, set_style

    res = section.result
    if not (res.table["verdict"] != "undefined").any():
        return []
    set_style()
    fig = res.plot(TOP)
    path = save_figure(fig, folder / "subgroups.png", pdf=False)
    plt.close(fig)
    return [path.name]


def run_search(
    data: pd.DataFrame,
    weight: np.ndarray | None,
    *,
    columns: tuple[str, ...],
    y01: np.ndarray,
    p01: np.ndarray,
    depth: int,
    min_size: int,
    metrics: tuple[str, ...],
    alpha: float,
    n_resamples: int,
    seed: int,
) -> SearchSection:
    """Run the search on the audit's people (``y01``/``p01``: 1 = favourable)."""
    frame = pd.DataFrame({c: data[c].astype(str).to_numpy() for c in columns})
    inner = ["__fairstats_search_y", "__fairstats_search_p"]
    frame[inner[0]], frame[inner[1]] = y01.astype(np.int64), p01.astype(np.int64)
    if weight is not None:
        from fairstats.counts import COUNT_COLUMN, Counts

        frame[COUNT_COLUMN] = weight
        frame = Counts.from_table(frame, keys=[*columns, *inner], where="the audit's counts")
    rng = derived_rng(seed, "subgroup search")
    try:
        res = subgroup_search(
            frame, group=list(columns), y_true=inner[0], y_pred=inner[1], metrics=list(metrics),
            max_depth=depth, min_size=min_size, favorable=1, alpha=alpha, n_resamples=n_resamples, rng=rng,
        )  # fmt: skip
    except ValueError as err:
        if "no subgroup" in str(err):
            raise ValueError(f"--search: {err} (--min-size)".replace("`min_size`", "--min-size")) from None
        raise
    table = res.table.drop(columns=["tp", "fp", "fn", "tn"])
    residuals = res.residuals(top=TOP_RESIDUALS)
    top = res.table[res.table["verdict"] != "undefined"].head(TOP)
    flagged = residuals[residuals["flag_bonferroni"] & (residuals["side"] == "subgroup")]
    n_found = int((res.table["verdict"] == "disparity").sum())
    context = {
        "columns": list(columns),
        "depth": depth,
        "min_size": f"{min_size:,}",
        "metrics": list(metrics),
        "n_subgroups": f"{res.n_subgroups:,}",
        "n_tests": f"{res.n_tests:,}",
        "n_found": n_found,
        "n_undefined": int((res.table["verdict"] == "undefined").sum()),
        "n_resamples": f"{n_resamples:,}",
        "top": [
            {
                "subgroup": r["subgroup"],
                "metric": r["metric"],
                "n": f"{int(r['n']):,}",
                "rate_subgroup": f"{r['rate_subgroup']:.3f}",
                "rate_rest": f"{r['rate_rest']:.3f}",
                "estimate": f"{r['estimate']:+.3f}",
                "p": _p(r["pvalue"]),
                "p_adj": _p(r["pvalue_adjusted"]),
                "verdict": r["verdict"],
            }
            for r in top.to_dict(orient="records")
        ],
        "flagged": [
            {
                "subgroup": r["subgroup"],
                "cell": r["cell"],
                "direction": "more" if r["residual"] > 0 else "fewer",
                "observed": int(r["observed"]),
                "expected": f"{r['expected']:.1f}",
                "residual": f"{r['residual']:+.1f}",
            }
            for r in flagged.to_dict(orient="records")
        ],
        "n_residual_subgroups": int(residuals["subgroup"].nunique()),
    }
    summary = (
        f"  subgroup search ({', '.join(columns)}; depth {depth}, min size {min_size}): {n_found} of "
        f"{res.n_tests} comparisons of {res.n_subgroups} subgroups show a disparity (Westfall-Young adjusted)"
    )
    return SearchSection(
        tables={"subgroups": table, "subgroup_residuals": residuals},
        result=res,
        context=context,
        summary=summary,
    )
