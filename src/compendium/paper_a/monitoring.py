"""Anytime-valid fairness monitoring (issue 27): simulated streams with no disparity (how often the monitor
and a naive z test after every batch ever alarm), a planted difference (decisions until the monitor alarms,
against a fixed-sample test sized with :func:`fairstats.mde_rate_difference`), and COMPAS replayed in
``screening_date`` order through :class:`fairstats.FairnessMonitor`.

Rule ``simulate_monitoring`` runs :func:`write_monitoring` (through this module's command line); the notebook
``notebooks/monitoring.ipynb`` reads and explains the tables and figures it writes. Random numbers: the seed's
``numpy.random.SeedSequence(seed).spawn(2)`` gives the null streams and, spawned three times again, the
planted differences (half, once and twice ``difference``, in that order).

Run it with other settings (the filtered data from ``snakemake --cores 1
data/interim/default/compas/propublica_violent.parquet``)::

    python -m compendium.paper_a.monitoring data/interim/default/compas/propublica_violent.parquet \\
        /tmp/monitoring200 --n-streams 200 --n-batches 200
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from compendium.publish.plotting import save_figure, set_style
from compendium.publish.reporting import write_table
from fairstats import FairnessMonitor, mde_rate_difference, rate_difference_e_value

__all__ = [
    "compas_replay",
    "fixed_sample_decisions",
    "monitor_alarms",
    "naive_alarms",
    "null_ever_alarm",
    "planted_decisions",
    "simulate",
    "write_monitoring",
]


def simulate(seed_sequence, p_group, batches, *, n_streams, batch_size, rate):
    """Cumulative counts (s_g, n_g, s_r, n_r) of ``n_streams`` streams, each of shape (n_streams, batches):
    every decision in the group or the reference with probability 1/2, selected with ``p_group`` (the group)
    or ``rate`` (the reference)."""
    rng = np.random.default_rng(seed_sequence)
    ng = rng.binomial(batch_size, 0.5, (n_streams, batches))
    nr = batch_size - ng
    sg, sr = rng.binomial(ng, p_group), rng.binomial(nr, rate)
    return tuple(np.cumsum(x, axis=1) for x in (sg, ng, sr, nr))


def monitor_alarms(sg, ng, sr, nr, *, alpha):
    """The monitor's alarm after each batch: the e-process against no disparity has reached 1/alpha."""
    e = rate_difference_e_value(sg, ng, sr, nr)
    return np.maximum.accumulate(e, axis=1) >= 1 / alpha


def naive_alarms(sg, ng, sr, nr, *, alpha):
    """The pooled two-proportion z test (statsmodels' proportions_ztest) after each batch, p < alpha, kept."""
    pooled = (sg + sr) / (ng + nr)
    z = (sg / ng - sr / nr) / np.sqrt(pooled * (1 - pooled) * (1 / ng + 1 / nr))
    return np.maximum.accumulate(2 * stats.norm.sf(np.abs(z)) < alpha, axis=1)


def fixed_sample_decisions(power, planted, *, rate, alpha):
    """Smallest n per group (both groups alike) whose minimum detectable difference <= planted, x 2."""
    lo, hi = 2, 10**7
    while lo < hi:
        mid = (lo + hi) // 2
        if mde_rate_difference(mid, mid, rate, alpha=alpha, power=power) <= planted:
            hi = mid
        else:
            lo = mid + 1
    return 2 * lo


def null_ever_alarm(seed_sequence, *, alpha, n_streams, n_batches, batch_size, rate):
    """Streams with no disparity: the share alarmed so far after each batch (``curves``: batch, monitor, naive
    z after every batch) and the share ever alarmed with its Monte-Carlo standard error (``summary``)."""
    null = simulate(seed_sequence, rate, n_batches, n_streams=n_streams, batch_size=batch_size, rate=rate)
    curves = pd.DataFrame(
        {
            "batch": np.arange(1, n_batches + 1),
            "monitor": monitor_alarms(*null, alpha=alpha).mean(axis=0),
            "naive z after every batch": naive_alarms(*null, alpha=alpha).mean(axis=0),
        }
    )
    summary = pd.DataFrame(
        {
            "method": ["monitor (confidence sequence)", "naive z test after every batch"],
            "streams": n_streams,
            "batches": n_batches,
            "ever_alarm_rate": [curves["monitor"].iloc[-1], curves["naive z after every batch"].iloc[-1]],
        }
    )
    summary["mc_se"] = np.sqrt(summary["ever_alarm_rate"] * (1 - summary["ever_alarm_rate"]) / n_streams)
    summary["alpha"] = alpha
    return curves, summary


def planted_decisions(seed_sequence, *, alpha, n_streams, n_batches, batch_size, rate, difference):
    """Decisions until the monitor alarms on half, once and twice ``difference`` (``4 * n_batches`` batches),
    beside the fixed-sample test's at 80 % and 95 % power (``table``), and each stream's decisions to alarm by
    difference (``firsts``; NaN where it never alarmed)."""
    rows, firsts = [], {}
    for planted, child in zip(
        (difference / 2, difference, 2 * difference), seed_sequence.spawn(3), strict=True
    ):
        counts = simulate(
            child, rate + planted, 4 * n_batches, n_streams=n_streams, batch_size=batch_size, rate=rate
        )
        alarmed = monitor_alarms(*counts, alpha=alpha)
        first = np.where(alarmed.any(axis=1), alarmed.argmax(axis=1) + 1, np.nan) * batch_size
        firsts[planted] = first
        rows.append(
            {
                "difference": planted,
                "monitor_median_decisions": np.nanmedian(first),
                "monitor_p95_decisions": np.nanquantile(first, 0.95),
                "monitor_share_alarmed": np.isfinite(first).mean(),
                "fixed_80_power_decisions": fixed_sample_decisions(0.8, planted, rate=rate, alpha=alpha),
                "fixed_95_power_decisions": fixed_sample_decisions(0.95, planted, rate=rate, alpha=alpha),
            }
        )
    return pd.DataFrame(rows), firsts


def compas_replay(compas: pd.DataFrame, *, alpha, batch_days):
    """COMPAS's three largest race groups replayed in ``screening_date`` order, in batches of ``batch_days``
    days, through :class:`fairstats.FairnessMonitor` (favourable: low risk, ``y_pred = 0``): every comparison
    after every batch (``replay``) and the records of those that changed state (``changes``)."""
    compas = compas.copy()
    compas["screening_date"] = pd.to_datetime(compas["screening_date"])
    largest = compas["race"].value_counts().index[:3]
    compas = compas[compas["race"].isin(largest)].sort_values("screening_date", kind="stable")
    compas["batch"] = (compas["screening_date"] - compas["screening_date"].min()).dt.days // batch_days
    monitor = FairnessMonitor(group="race", y_pred="y_pred", y_true="y_true", favorable=0, alpha=alpha)
    rows, changes = [], []
    for _, part in compas.groupby("batch", sort=True):
        label = part["screening_date"].max().strftime("%Y-%m-%d")
        update = monitor.update(part[["race", "y_pred", "y_true"]], label=label)
        rows.append(update.to_frame())
        changes += [s.to_record() for s in update.changed]
    return pd.concat(rows, ignore_index=True), pd.DataFrame(changes)


def _null_figure(curves, *, alpha, batch_size):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for column in ("monitor", "naive z after every batch"):
        ax.step(curves["batch"], curves[column], where="post", label=column)
    ax.axhline(alpha, color="black", lw=0.8, ls="--", label=f"α = {alpha}")
    ax.set_xlabel(f"batch ({batch_size} decisions each)")
    ax.set_ylabel("share of streams alarmed so far")
    ax.legend()
    return fig


def _planted_figure(first, *, difference, rate, alpha):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.ecdf(first[np.isfinite(first)], label=f"monitor: decisions to alarm (difference {difference})")
    for power, style in ((0.8, ":"), (0.95, "--")):
        ax.axvline(
            fixed_sample_decisions(power, difference, rate=rate, alpha=alpha),
            color="black",
            ls=style,
            lw=0.8,
            label=f"fixed-sample test, {power:.0%} power",
        )
    ax.set_xlabel("decisions")
    ax.set_ylabel("share of streams alarmed")
    ax.legend()
    return fig


def _replay_figure(replay, *, alpha):
    metrics = list(dict.fromkeys(replay["metric"]))
    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 3.6), sharey=True, squeeze=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        part = replay[replay["metric"] == metric]
        for group, rows_g in part.groupby("group", sort=True):
            x = pd.to_datetime(rows_g["batch"])
            (line,) = ax.plot(x, rows_g["estimate"], lw=1.2, label=str(group))
            ax.fill_between(x, rows_g["cs_low"], rows_g["cs_high"], color=line.get_color(), alpha=0.2, lw=0)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(f"{metric}: group − {part['reference'].iloc[0]}")
        ax.set_ylim(-0.6, 0.6)
        ax.tick_params(axis="x", labelrotation=45)
    axes[0][0].set_ylabel(f"difference, {1 - alpha:.0%} confidence sequence")
    axes[0][-1].legend(fontsize="small")
    return fig


def write_monitoring(
    compas: pd.DataFrame,
    out_dir: str | os.PathLike,
    *,
    alpha: float,
    n_streams: int,
    n_batches: int,
    batch_size: int,
    rate: float,
    difference: float,
    batch_days: int,
    seed: int,
) -> dict[str, Path]:
    """Run the three studies and write their tables under ``out_dir/tables`` (``null_ever_alarm``,
    ``planted_decisions``, ``compas_replay``, ``compas_replay_changes``: CSV and Markdown) and figures under
    ``out_dir/figures`` (``null_ever_alarm``, ``planted_decisions``, ``compas_replay``: PNG and PDF); return
    the written paths by name."""
    set_style()
    out = Path(out_dir)
    tables, figures = out / "tables", out / "figures"
    null_seed, planted_seed = np.random.SeedSequence(seed).spawn(2)
    written = {}
    sizes = dict(alpha=alpha, n_streams=n_streams, n_batches=n_batches, batch_size=batch_size, rate=rate)

    curves, summary = null_ever_alarm(null_seed, **sizes)
    written["null_ever_alarm"] = write_table(
        summary,
        tables / "null_ever_alarm.csv",
        digits=3,
        title="Share of streams with no disparity that ever alarm",
    )
    figs = {"null_ever_alarm": _null_figure(curves, alpha=alpha, batch_size=batch_size)}

    decisions, firsts = planted_decisions(planted_seed, difference=difference, **sizes)
    written["planted_decisions"] = write_table(
        decisions,
        tables / "planted_decisions.csv",
        digits=2,
        title=f"Decisions to alarm on a planted difference (reference rate {rate}; "
        f"{4 * n_batches} batches of {batch_size})",
    )
    figs["planted_decisions"] = _planted_figure(
        firsts[difference], difference=difference, rate=rate, alpha=alpha
    )

    replay, changed = compas_replay(compas, alpha=alpha, batch_days=batch_days)
    written["compas_replay"] = write_table(
        replay,
        tables / "compas_replay.csv",
        digits=3,
        title="COMPAS replayed by screening date: every comparison after every batch",
    )
    written["compas_replay_changes"] = write_table(
        changed,
        tables / "compas_replay_changes.csv",
        digits=3,
        title="COMPAS replay: the batches where a comparison changed state",
    )
    figs["compas_replay"] = _replay_figure(replay, alpha=alpha)
    for name, fig in figs.items():
        written[f"{name}_figure"] = save_figure(fig, figures / f"{name}.png")
        plt.close(fig)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m compendium.paper_a.monitoring DATA OUT_DIR [options]``."""
    parser = argparse.ArgumentParser(
        prog="python -m compendium.paper_a.monitoring",
        description="Simulate the fairness monitor with no disparity and a planted one, replay COMPAS; write "
        "tables/ and figures/ under OUT_DIR. Defaults are config/config.yaml's monitoring block.",
    )
    parser.add_argument("data", help="filtered COMPAS data (parquet; rule filter_compas)")
    parser.add_argument("out_dir", help="folder to write tables/ and figures/ into")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of each comparison")
    parser.add_argument("--n-streams", type=int, default=1000, help="simulated streams per scenario")
    parser.add_argument("--n-batches", type=int, default=50, help="batches per null stream (planted: 4x)")
    parser.add_argument("--batch-size", type=int, default=100, help="decisions per batch")
    parser.add_argument("--rate", type=float, default=0.3, help="rate of both groups under the null")
    parser.add_argument(
        "--difference", type=float, default=0.1, help="planted difference of the group's rate"
    )
    parser.add_argument("--batch-days", type=int, default=30, help="days of screening_date per COMPAS batch")
    parser.add_argument("--seed", type=int, default=20240607, help="master seed (config: seed)")
    args = parser.parse_args(argv)
    written = write_monitoring(
        pd.read_parquet(args.data),
        args.out_dir,
        alpha=args.alpha,
        n_streams=args.n_streams,
        n_batches=args.n_batches,
        batch_size=args.batch_size,
        rate=args.rate,
        difference=args.difference,
        batch_days=args.batch_days,
        seed=args.seed,
    )
    for path in written.values():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
