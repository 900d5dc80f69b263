"""``fairstats monitor``: batches of decisions into a state folder the tool owns; one line per state change.

The ``monitor`` subcommand of the one command line (:mod:`fairstats.auditing.cli`), on top of the library's
:class:`fairstats.FairnessMonitor`.
``fairstats monitor BATCHES... --group race --y-pred decision [--y-true outcome] --state monitor/`` reads the
batch files (CSV or parquet; a folder stands for its ``*.csv``/``*.parquet`` files) in lexicographic order of
their names, feeds those it has not processed before to a :class:`fairstats.FairnessMonitor`, and keeps in
``--state``:

``monitor.csv``
    one row per batch, comparison and rate (``batch, group, reference, metric, n_group, n_reference,
    estimate, cs_low, cs_high, e_value, state, previous_state``), full precision, appended run after run;
``monitor.json``
    the monitor's counts and running bounds, the options it was started with, and every processed batch by
    name and SHA-256;
``monitor.png``
    the confidence sequences over the batches, drawn once per run that adds batches;
``.fairstats-audit``
    the manifest of the audit's output folder (:mod:`fairstats.auditing.folder`): the folder holds only files
    the tool wrote, and is replaced by a finished work folder in one rename (a kill mid-update leaves the
    previous state; the next run removes the leftovers, and puts back a state caught between the two
    renames of the swap).

A rerun with no new batch changes nothing (byte-identical folder). A processed batch whose content changed,
a new batch whose name sorts before the last processed one, other options than the state was started with,
or bad input end with one line ``fairstats monitor: error: ...`` and exit status 2, the state untouched.

Exit status (for a scheduled job; :mod:`fairstats.auditing.exits`, the same as the audit's): 0 no comparison
in ``alarm``; **3 at least one alarm** (the audit's "disparity found" status); 2 bad input or a refused state
folder; 1 the state folder could not be written; 130 / 143 after SIGINT / SIGTERM (state unchanged).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairstats._format import figure_text
from fairstats._text import display_text as visible
from fairstats.auditing.errors import AuditError
from fairstats.auditing.exits import EXIT_DISPARITY, EXIT_WRITE
from fairstats.auditing.folder import (
    MANIFEST,
    OutFolderError,
    check_out_folder,
    discard,
    discard_own,
    new_work_folder,
    process_alive,
    swap_into_place,
)
from fairstats.monitor import MONITOR_METRICS, FairnessMonitor, MonitorStatus
from fairstats.reporting import one_line

__all__ = [
    "EXIT_ALARM", "MonitorError", "MonitorOptions", "add_monitor_parser", "monitor_main", "run_monitor",
]

#: Exit status when a comparison is in ``alarm`` (a disparity found): the audit's --fail-on disparity one.
EXIT_ALARM = EXIT_DISPARITY
STATE = "monitor.json"
TABLE = "monitor.csv"
FIGURE = "monitor.png"
COLUMNS = list(MonitorStatus.__dataclass_fields__)
_PROG = "fairstats monitor"


class MonitorError(ValueError):
    """Bad input or a refused state folder: one line, exit status 2, the state untouched."""


@dataclass(frozen=True)
class MonitorOptions:
    """The command line's options, validated."""

    inputs: tuple[Path, ...]
    state: Path
    group: str
    y_pred: str
    y_true: str | None = None
    metrics: tuple[str, ...] | None = None
    alpha: float = 0.05
    margin: float | None = None
    reference: str | None = None
    favorable: str = "1"

    def monitor_options(self) -> dict[str, object]:
        return {
            "group": self.group,
            "y_pred": self.y_pred,
            "y_true": self.y_true,
            "metrics": self.metrics,
            "alpha": self.alpha,
            "margin": self.margin,
            "reference": self.reference,
            "favorable": self.favorable,
        }


# --------------------------------------------------------------------------------------------------------
# argument parsing
# --------------------------------------------------------------------------------------------------------


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text!r}")
    return value


def _metrics(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(","))
    bad = [n for n in names if n not in MONITOR_METRICS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"must be a comma-separated list of {', '.join(MONITOR_METRICS)}, got {text!r}"
        )
    return names


def add_monitor_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``monitor`` subcommand to ``subparsers`` (the one command line's) and return its parser."""
    parser = subparsers.add_parser(
        "monitor",
        help="follow group rate differences batch after batch (anytime-valid; exit 1 on an alarm)",
        description=(
            "Follow group rate differences batch after batch with anytime-valid confidence sequences: the "
            "batch files not seen before, in name order, into a state folder the tool owns (monitor.csv, "
            "monitor.json, monitor.png); one line per comparison whose state changed. Exit status: 0 no "
            "alarm, 1 an alarm, 2 bad input or a refused state, 3 the state could not be written."
        ),
    )
    _arguments(parser)
    return parser


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs", nargs="+", type=Path, metavar="BATCHES", help="batch files or folders of them"
    )
    parser.add_argument(
        "--state", required=True, type=Path, help="the state folder (created and owned by the tool)"
    )
    parser.add_argument("--group", required=True, help="column of the groups")
    parser.add_argument("--y-pred", required=True, dest="y_pred", help="column of the decisions")
    parser.add_argument("--y-true", dest="y_true", help="column of the outcomes (adds tpr and fpr)")
    parser.add_argument("--metrics", type=_metrics, help=f"rates to follow, from {','.join(MONITOR_METRICS)}")
    parser.add_argument(
        "--favorable", default="1", help="label of the favourable value, as written (default: 1)"
    )
    parser.add_argument(
        "--reference", help="reference group, as written (default: the largest of the first batch)"
    )
    parser.add_argument("--alpha", type=_level, default=0.05, help="level of each comparison (default: 0.05)")
    parser.add_argument(
        "--margin", type=_level, help="equivalence margin on the rate difference (none by default)"
    )


# --------------------------------------------------------------------------------------------------------
# the state folder
# --------------------------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _batch_files(inputs: Sequence[Path]) -> list[Path]:
    files: dict[str, Path] = {}
    for path in inputs:
        if path.is_dir():
            found = [
                p for p in path.iterdir() if p.is_file() and p.suffix.lower() in (".csv", ".parquet", ".pq")
            ]
        elif path.is_file():
            found = [path]
        else:
            raise MonitorError(f"batch {str(path)!r} not found")
        for p in found:
            if p.name in files and files[p.name].resolve() != p.resolve():
                raise MonitorError(f"two batches are named {p.name!r} ({str(files[p.name])!r}, {str(p)!r})")
            files[p.name] = p
    if not files:
        raise MonitorError(f"no batch files (CSV or parquet) in {', '.join(repr(str(p)) for p in inputs)}")
    return [files[name] for name in sorted(files)]


def _recover(target: Path) -> None:
    """Put back a state folder a kill caught between the two renames of the swap (it is then missing, and
    its previous version waits under the swap's backup name; the backup of a live process is left alone)."""
    if target.exists() or not target.parent.is_dir():
        return
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.fairstats-old-(?P<pid>\d+)-[A-Za-z0-9_]+$")
    for path in sorted(target.parent.iterdir()):
        match = pattern.match(path.name)
        if match and path.is_dir() and (path / MANIFEST).is_file() and not process_alive(int(match["pid"])):
            os.replace(path, target)
            return


def _load(target: Path, options: MonitorOptions) -> tuple[FairnessMonitor, list[list[str]]]:
    """The monitor and its processed batches from ``target`` (a new monitor for a new or empty folder)."""
    state_file = target / STATE
    if not state_file.is_file():
        if target.is_dir() and any(target.iterdir()):
            raise MonitorError(
                f"--state {str(options.state)!r} is an audit folder, not a monitor state; choose another"
            )
        return FairnessMonitor(**options.monitor_options()), []
    try:
        record = json.loads(state_file.read_text(encoding="utf-8"))
        monitor = FairnessMonitor.from_state(record["monitor"])
        batches = [[str(name), str(sha)] for name, sha in record["batches"]]
    except (ValueError, KeyError, TypeError) as err:
        raise MonitorError(
            f"--state {str(options.state)!r}: {STATE} is not a monitor state ({one_line(err)})"
        ) from None
    fresh = FairnessMonitor(**options.monitor_options()).to_state()["options"]
    stored = record["monitor"]["options"]
    for key, value in fresh.items():
        if key == "reference" or stored.get(key) == value:
            continue
        raise MonitorError(
            f"--state {str(options.state)!r} was started with {key} = {stored.get(key)!r}, not {value!r}; "
            "use the same options or a new --state"
        )
    if options.reference is not None and monitor.reference != options.reference:
        raise MonitorError(
            f"--state {str(options.state)!r} compares against reference {monitor.reference!r}, not "
            f"{options.reference!r}; use a new --state"
        )
    return monitor, batches


def _new_batches(files: list[Path], done: list[list[str]]) -> list[tuple[Path, str]]:
    known = dict((name, sha) for name, sha in done)
    last = done[-1][0] if done else None
    new = []
    for path in files:
        sha = _sha256(path)
        if path.name in known:
            if known[path.name] != sha:
                raise MonitorError(
                    f"batch {path.name!r} ({str(path)!r}) changed since it was processed (SHA-256 was "
                    f"{known[path.name][:12]}..., now {sha[:12]}...); a processed batch is never re-read"
                )
            continue
        if last is not None and path.name < last:
            raise MonitorError(
                f"batch {path.name!r} sorts before {last!r}, the last processed batch; batches are taken in "
                "name order: rename it to sort after"
            )
        new.append((path, sha))
    return new


def _draw(table: pd.DataFrame, path: Path, alpha: float) -> None:
    """The running confidence sequence and estimate of every comparison, one panel per rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"text.parse_math": False}):  # data strings as written, no mathtext
        metrics = list(dict.fromkeys(table["metric"]))
        fig, axes = plt.subplots(
            1, len(metrics), figsize=(5 * len(metrics), 3.6), squeeze=False, sharey=True
        )
        order = list(dict.fromkeys(table["batch"]))
        position = {b: i + 1 for i, b in enumerate(order)}
        for ax, metric in zip(axes[0], metrics, strict=True):
            rows = table[table["metric"] == metric]
            for group, part in rows.groupby("group", sort=True):
                x = [position[b] for b in part["batch"]]
                (line,) = ax.plot(x, part["estimate"], lw=1.2, label=figure_text(group))
                ax.fill_between(
                    x, part["cs_low"], part["cs_high"], color=line.get_color(), alpha=0.2, lw=0
                )
            ax.axhline(0, color="black", lw=0.8)
            ax.set_title(f"{metric}: group − {figure_text(rows['reference'].iloc[0])}")
            ax.set_xlabel("batch")
            ax.set_ylim(-1, 1)
        axes[0][0].set_ylabel(f"difference, {1 - alpha:.0%} confidence sequence")
        axes[0][-1].legend(fontsize="small", loc="upper right")
        fig.tight_layout()
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)


def _line(status: MonitorStatus, alpha: float) -> str:
    return (
        f"batch {visible(status.batch)}: {visible(status.group)} vs {visible(status.reference)}, "
        f"{status.metric}: "
        f"{status.previous_state} -> {status.state} (difference {status.estimate:+.3f}, {1 - alpha:.0%} "
        f"sequence [{status.cs_low:+.3f}, {status.cs_high:+.3f}], e-value {status.e_value:.3g})"
    )


def run_monitor(options: MonitorOptions | argparse.Namespace, *, out=None) -> int:
    """Process the new batches into the state folder; return the exit status (see the module)."""
    from fairstats._csv import csv_text
    from fairstats.auditing.inputs import read_predictions_file

    if isinstance(options, argparse.Namespace):
        options = MonitorOptions(
            **{k: v for k, v in vars(options).items() if k in MonitorOptions.__dataclass_fields__}
        )
    try:
        files = _batch_files(options.inputs)
        try:
            target = check_out_folder(options.state, inputs=tuple(files))
        except OutFolderError as err:
            raise MonitorError(
                str(err).replace("--out", "--state").replace("the audit", "the monitor")
            ) from None
        _recover(target)
        monitor, done = _load(target, options)
        new = _new_batches(files, done)
        if not new:
            return EXIT_ALARM if monitor.alarm else 0
        frames, lines, alarm = [], [], False
        columns = [c for c in (options.group, options.y_pred, options.y_true) if c]
        for path, sha in new:
            data = read_predictions_file(path, text_columns=columns)
            update = monitor.update(data, label=path.name)
            frames.append(update.to_frame())
            lines += [_line(s, options.alpha) for s in update.changed]
            done.append([path.name, sha])
            alarm = update.alarm
    except (MonitorError, AuditError, ValueError, TypeError) as err:
        print(f"{_PROG}: error: {visible(one_line(err))}", file=sys.stderr)
        return 2
    tmp = None
    try:
        tmp = new_work_folder(target)
        old = (target / TABLE).read_bytes() if (target / TABLE).is_file() else b""
        added = pd.concat(frames, ignore_index=True)[COLUMNS]
        text = csv_text(added)  # the one CSV writer; appended without its header after the first run
        if old:
            text = text.split("\n", 1)[1]  # the header is the fixed column names, one line
        (tmp / TABLE).write_bytes(old + text.encode("utf-8"))
        record = {"batches": done, "monitor": monitor.to_state()}
        (tmp / STATE).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        table = pd.read_csv(
            tmp / TABLE, dtype={"group": str, "reference": str, "batch": str}, keep_default_na=False
        )
        for column in ("estimate", "cs_low", "cs_high"):
            table[column] = pd.to_numeric(table[column], errors="coerce")
        _draw(table, tmp / FIGURE, options.alpha)
        swap_into_place(tmp, target)
        tmp = None
    except OutFolderError as err:
        print(f"{_PROG}: error: {visible(one_line(err))}", file=sys.stderr)
        return 2
    except OSError as err:
        discard_own(target)
        print(f"{_PROG}: error: could not write {str(options.state)!r}: {one_line(err)}", file=sys.stderr)
        return EXIT_WRITE
    except BaseException:  # an interrupt may come while the work folder is being made: every one of ours
        discard_own(target)
        raise
    finally:
        if tmp is not None:
            discard(tmp)
    for line in lines:
        print(line, file=sys.stdout if out is None else out)
    return EXIT_ALARM if alarm else 0


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the work folder is removed on the way out."""


def _on_sigterm(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    raise _Terminated


def monitor_main(args: argparse.Namespace) -> int:
    """Run ``fairstats monitor`` from its parsed arguments (:func:`add_monitor_parser`); SIGINT and SIGTERM
    end with one line and exit status 130 / 143, the state unchanged."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return run_monitor(args)
    except KeyboardInterrupt:
        print(f"{_PROG}: interrupted; {str(args.state)!r} was not changed", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{_PROG}: terminated; {str(args.state)!r} was not changed", file=sys.stderr)
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)
