"""Which subgroup? (issue 17 B): the COMPAS people of one filter preset searched over conjunctions of
attribute values with :func:`fairstats.subgroup_search` (Westfall-Young max-T adjusted over the whole search),
and a null simulation for students: the same search on label-permuted data, its smallest unadjusted and
adjusted p-values.

Rule ``search_compas_subgroups`` runs :func:`write_subgroup_search` (through this module's command line); the
notebook ``notebooks/compas_subgroup_search.ipynb`` reads and explains the tables and figures it writes. One
random stream, ``numpy.random.SeedSequence([seed, 17])``, is drawn first by the search, then by the null
simulation in the order of its data sets: the numbers depend on that order.

Run it with other settings (the filtered data from ``snakemake --cores 1
data/interim/default/compas/propublica_violent.parquet``)::

    python -m compendium.paper_a.subgroup_search data/interim/default/compas/propublica_violent.parquet \\
        /tmp/depth1 --max-depth 1 --n-resamples 999
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import warnings
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from compendium.publish.plotting import save_figure, set_style
from compendium.publish.reporting import write_table
from fairstats import UndefinedTestWarning, subgroup_search

__all__ = [
    "FPR_COLUMNS",
    "SEED_KEY",
    "attribute_sizes",
    "fpr_disparities",
    "null_minimum_p_figure",
    "null_simulation",
    "null_summary",
    "search_summary",
    "search_warnings",
    "write_subgroup_search",
]

#: The second entry of the search's seed sequence ``[seed, SEED_KEY]`` (the notebook's, which drew it first).
SEED_KEY = 17
#: Columns of the subgroups with an FPR disparity (the table the notebook shows).
FPR_COLUMNS = ["subgroup", "n", "rate_subgroup", "rate_rest", "estimate", "statistic", "pvalue_adjusted"]
_VERDICTS = ("disparity", "inconclusive", "undefined")


def attribute_sizes(data: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """People by value of each searched attribute (``attribute``, ``value``, ``people``), largest first."""
    return pd.concat(
        [
            data[c]
            .astype(str)
            .value_counts()
            .rename_axis("value")
            .reset_index(name="people")
            .assign(attribute=c)
            for c in columns
        ],
        ignore_index=True,
    )[["attribute", "value", "people"]]


def search_summary(result, *, filter_name: str, people: int, settings: dict) -> pd.DataFrame:
    """One row: the data, the search's settings (``settings``: attributes, depth, sizes, metrics, alpha,
    permutations), its size and its verdict counts."""
    counts = result.table["verdict"].value_counts()
    return pd.DataFrame(
        [
            {
                "filter": filter_name,
                "people": people,
                **settings,
                "subgroups": result.n_subgroups,
                "comparisons_defined": result.n_tests,
                **{v: int(counts.get(v, 0)) for v in _VERDICTS},
            }
        ]
    )


def search_warnings(caught) -> pd.DataFrame:
    """The warnings the search raised (``category``, ``message``), as text, one row each."""
    return pd.DataFrame(
        [{"category": w.category.__name__, "message": str(w.message)} for w in caught],
        columns=["category", "message"],
    )


def fpr_disparities(table: pd.DataFrame) -> pd.DataFrame:
    """The subgroups whose false positive rate differs from the rest's after the adjustment, in the table's
    order (largest |z| first), with :data:`FPR_COLUMNS`."""
    return table[(table["metric"] == "fpr") & (table["verdict"] == "disparity")][FPR_COLUMNS]


def null_simulation(
    data: pd.DataFrame,
    columns: Sequence[str],
    *,
    metrics: Sequence[str],
    max_depth: int,
    min_size: int,
    alpha: float,
    n_null: int,
    n_null_resamples: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """The search on ``n_null`` data sets whose attribute columns are permuted jointly over people (every
    subgroup's size kept, any link with ``y_true`` and ``y_pred`` broken): per data set the comparisons made
    and the smallest unadjusted (permutation and normal) and adjusted p-values. Draws from ``rng`` in
    order."""
    rows = []
    for i in range(n_null):
        perm = rng.permutation(len(data))
        null = (
            data[list(columns)]
            .iloc[perm]
            .reset_index(drop=True)
            .assign(y_true=data["y_true"].to_numpy(), y_pred=data["y_pred"].to_numpy())
        )
        with (
            warnings.catch_warnings()
        ):  # undefined comparisons are counted in the table (n_tests), not warned
            warnings.simplefilter("ignore", UndefinedTestWarning)
            res = subgroup_search(
                null,
                group=list(columns),
                y_true="y_true",
                y_pred="y_pred",
                metrics=list(metrics),
                max_depth=max_depth,
                min_size=min_size,
                alpha=alpha,
                n_resamples=n_null_resamples,
                rng=rng,
            )
        z = res.table["statistic"].abs()
        rows.append(
            {
                "dataset": i,
                "n_tests": res.n_tests,
                "min_pvalue": res.table["pvalue"].min(),
                "min_pvalue_normal": float(2 * stats.norm.sf(z.max())),
                "min_pvalue_adjusted": res.table["pvalue_adjusted"].min(),
            }
        )
    return pd.DataFrame(rows)


def null_summary(null_sim: pd.DataFrame, *, alpha: float) -> pd.DataFrame:
    """How often each smallest p of :func:`null_simulation` is below ``alpha``, with an exact 95 %
    interval."""
    n_null = len(null_sim)
    summary = []
    for column, what in (
        ("min_pvalue", "unadjusted (permutation) minimum p"),
        ("min_pvalue_normal", "unadjusted (normal approximation) minimum p"),
        ("min_pvalue_adjusted", "Westfall-Young adjusted minimum p"),
    ):
        k = int((null_sim[column] < alpha).sum())
        ci = stats.binomtest(k, n_null).proportion_ci(confidence_level=0.95, method="exact")
        summary.append(
            {
                "p_value": what,
                "datasets": n_null,
                "below_alpha": k,
                "share": k / n_null,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "alpha": alpha,
            }
        )
    return pd.DataFrame(summary)


def null_minimum_p_figure(null_sim: pd.DataFrame, *, alpha: float) -> plt.Figure:
    """Histograms of the smallest unadjusted (normal) and adjusted p-values of the null simulation."""
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = np.linspace(0, 1, 41)
    ax.hist(null_sim["min_pvalue_normal"], bins=bins, alpha=0.6, label="smallest unadjusted p (normal)")
    ax.hist(null_sim["min_pvalue_adjusted"], bins=bins, alpha=0.6, label="smallest Westfall-Young adjusted p")
    ax.axvline(alpha, color="black", lw=1, ls="--", label=f"alpha = {alpha:g}")
    ax.set_xlabel("smallest p-value of the search")
    ax.set_ylabel(f"data sets (of {len(null_sim)})")
    ax.set_title("No disparity anywhere (labels permuted): the best subgroup's p-value")
    ax.legend(fontsize=8)
    return fig


def write_subgroup_search(
    data: pd.DataFrame,
    out_dir: str | os.PathLike,
    *,
    filter_name: str,
    attributes: Sequence[str],
    max_depth: int,
    min_size: int,
    metrics: Sequence[str],
    alpha: float,
    n_resamples: int,
    n_null: int,
    n_null_resamples: int,
    seed: int,
) -> dict[str, Path]:
    """Run the search and the null simulation on ``data`` and write their tables under ``out_dir/tables``
    and figures under ``out_dir/figures``; return the written paths by name.

    Tables: ``attribute_sizes``, ``subgroups`` (the search without its four cell counts),
    ``subgroup_search_summary``, ``subgroup_search_warnings``, ``fpr_disparities``, ``subgroup_residuals``
    (the top 3 subgroups),
    ``null_simulation`` and ``null_simulation_summary`` (CSV and Markdown); figures ``top_subgroups`` and
    ``null_minimum_p`` (PNG and PDF).
    """
    set_style()
    out = Path(out_dir)
    tables, figures = out / "tables", out / "figures"
    columns, chosen = list(attributes), list(metrics)
    rng = np.random.default_rng(np.random.SeedSequence([seed, SEED_KEY]))
    written = {}

    def table(name, frame, digits, title):
        written[name] = write_table(frame, tables / f"{name}.csv", digits=digits, title=title)

    table(
        "attribute_sizes",
        attribute_sizes(data, columns),
        0,
        f"Subgroup search, {filter_name}: people by value of each searched attribute",
    )
    with warnings.catch_warnings(record=True) as caught:  # kept as text in the summary table
        warnings.simplefilter("always")
        result = subgroup_search(
            data,
            group=columns,
            y_true="y_true",
            y_pred="y_pred",
            metrics=chosen,
            max_depth=max_depth,
            min_size=min_size,
            alpha=alpha,
            n_resamples=n_resamples,
            rng=rng,
        )
    found = result.table.drop(columns=["tp", "fp", "fn", "tn"])
    table(
        "subgroups",
        found,
        4,
        f"Subgroup search, {filter_name}: every subgroup and rate (Westfall-Young adjusted p-values)",
    )
    settings = {
        "attributes": ",".join(columns),
        "max_depth": max_depth,
        "min_size": min_size,
        "metrics": ",".join(chosen),
        "alpha": alpha,
        "permutations": n_resamples,
    }
    table(
        "subgroup_search_summary",
        search_summary(result, filter_name=filter_name, people=len(data), settings=settings),
        4,
        f"Subgroup search, {filter_name}: settings, subgroups, comparisons and verdicts",
    )
    table(
        "subgroup_search_warnings",
        search_warnings(caught),
        0,
        f"Subgroup search, {filter_name}: its warnings",
    )
    table(
        "fpr_disparities",
        fpr_disparities(found),
        4,
        f"Subgroup search, {filter_name}: the subgroups with a false-positive-rate disparity, "
        "largest |z| first",
    )
    fig = dataclasses.replace(result, table=result.table[result.table["metric"] == "fpr"]).plot(
        15,
        title=f"False positive rate: top 15 subgroups vs the rest ({filter_name}; "
        f"filled: adjusted p < {alpha:g})",
    )
    written["top_subgroups"] = save_figure(fig, figures / "top_subgroups.png")
    plt.close(fig)
    table(
        "subgroup_residuals",
        result.residuals(top=3),
        3,
        f"Adjusted residuals inside the top 3 subgroups, {filter_name} (subgroup vs rest)",
    )
    null_sim = null_simulation(
        data,
        columns,
        metrics=chosen,
        max_depth=max_depth,
        min_size=min_size,
        alpha=alpha,
        n_null=n_null,
        n_null_resamples=n_null_resamples,
        rng=rng,
    )
    table(
        "null_simulation",
        null_sim,
        4,
        f"Null simulation: smallest p-values of the search on {n_null} label-permuted data sets",
    )
    table(
        "null_simulation_summary",
        null_summary(null_sim, alpha=alpha),
        3,
        "Null simulation: how often the search finds 'something' at alpha (exact 95 % interval)",
    )
    fig = null_minimum_p_figure(null_sim, alpha=alpha)
    written["null_minimum_p"] = save_figure(fig, figures / "null_minimum_p.png")
    plt.close(fig)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m compendium.paper_a.subgroup_search DATA OUT_DIR [options]``."""
    parser = argparse.ArgumentParser(
        prog="python -m compendium.paper_a.subgroup_search",
        description="Search COMPAS subgroups (Westfall-Young max-T) and simulate the search under no "
        "disparity; "
        "write tables/ and figures/ under OUT_DIR. Defaults are config/config.yaml's compas.search.",
    )
    parser.add_argument("data", help="filtered COMPAS data (parquet; rule filter_compas)")
    parser.add_argument("out_dir", help="folder to write tables/ and figures/ into")
    parser.add_argument(
        "--filter-name", default="propublica_violent", help="filter preset of DATA, for titles"
    )
    parser.add_argument(
        "--attributes", default="sex,race,age_cat,c_charge_degree", help="comma list of columns"
    )
    parser.add_argument("--max-depth", type=int, default=3, help="values per subgroup, 1 to 3")
    parser.add_argument("--min-size", type=int, default=30, help="smallest subgroup (and rest), in people")
    parser.add_argument("--metrics", default="fpr,fnr,ppr", help="comma list of rates compared")
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise significance level")
    parser.add_argument("--n-resamples", type=int, default=9999, help="permutations of the max-T adjustment")
    parser.add_argument(
        "--n-null", type=int, default=200, help="label-permuted data sets of the null simulation"
    )
    parser.add_argument("--n-null-resamples", type=int, default=199, help="permutations per null search")
    parser.add_argument("--seed", type=int, default=20240607, help="master seed (config: seed)")
    args = parser.parse_args(argv)
    written = write_subgroup_search(
        pd.read_parquet(args.data),
        args.out_dir,
        filter_name=args.filter_name,
        attributes=args.attributes.split(","),
        max_depth=args.max_depth,
        min_size=args.min_size,
        metrics=args.metrics.split(","),
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        n_null=args.n_null,
        n_null_resamples=args.n_null_resamples,
        seed=args.seed,
    )
    for path in written.values():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
