"""``fairstats monitor``: batches of decisions into a state folder the tool owns; one line per state change.

The ``monitor`` task of the one audit: its options are the audit's (:class:`~fairstats.auditing.AuditOptions`,
``task="monitor"``; the command line is :mod:`fairstats.auditing.cli`'s), each batch is read by the audit's
input step (:func:`fairstats.auditing.inputs.read`) and goes through its row step (``--where`` filters, the
decision rule, the checks of the columns: :func:`fairstats.auditing.rows.prepared_rows`), then into the
library's :class:`fairstats.FairnessMonitor`.
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
    the manifest (:mod:`fairstats.auditing.folder`), which names the monitor as the folder's owner and every
    file with its SHA-256: a state with a file missing, changed or added is refused, naming the file; an audit
    never writes into a state, nor the monitor into an audit's folder. The state is replaced by a finished
    work folder in one rename (a kill mid-update leaves the previous state; the next run removes the
    leftovers, and puts back a state caught between the two renames of the swap).

A run reads and replaces the state under its lock (``.STATE.fairstats-lock`` beside it): a second run on
the same state waits for the first and then reads what the first wrote, or gives up after
:data:`fairstats.auditing.folder.LOCK_WAIT` seconds (exit status 2, the state untouched); no batch is lost.
Group values, decisions and outcomes are read as label text (``1``, ``1.0`` and ``"1"`` are one group
whatever type a batch's file gives them).

A rerun with no new batch changes nothing (byte-identical folder). A processed batch whose content changed,
a new batch with the content of another (a copy under a new name), a new batch whose name sorts before the
last processed one, other options than the state was started with, or bad input end with one line
``fairstats monitor: error: ...`` and exit status 2, the state untouched.

Exit status (the audit's, :mod:`fairstats.auditing.exits`): 0 done; **3 with ``--fail-on disparity`` when a
comparison is in ``alarm``**; 2 bad input or a refused state folder; 1 the state folder could not be written;
130 / 143 after SIGINT / SIGTERM (state unchanged).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._format import figure_text
from fairstats._text import display_text as visible
from fairstats.auditing.errors import AuditError
from fairstats.auditing.exits import EXIT_BAD_INPUT, EXIT_DISPARITY, EXIT_OK, EXIT_WRITE
from fairstats.auditing.folder import (
    MANIFEST,
    OutFolderError,
    check_out_folder,
    discard,
    discard_own,
    locked,
    manifest_text,
    new_work_folder,
    process_alive,
    swap_into_place,
)
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.writing import file_sha256, one_line, print_out
from fairstats.monitor import FairnessMonitor, MonitorStatus

__all__ = ["MonitorError", "run_monitor"]
STATE = "monitor.json"
TABLE = "monitor.csv"
FIGURE = "monitor.png"
COLUMNS = list(MonitorStatus.__dataclass_fields__)
_PROG = "fairstats monitor"


class MonitorError(ValueError):
    """Bad input or a refused state folder: one line, exit status 2, the state untouched."""


def _monitor_options(options: AuditOptions) -> dict[str, object]:
    """The :class:`fairstats.FairnessMonitor` keywords of the checked options."""
    return {
        "group": options.groups[0],
        "y_pred": options.y_pred,
        "y_true": options.y_true,
        "metrics": options.metrics,
        "alpha": options.alpha,
        "margin": options.margin,
        "reference": options.reference[0] if options.reference else None,
        "favorable": options.favorable if options.favorable is not None else "1",
    }


def _rows_record(options: AuditOptions) -> dict[str, object]:
    """The row step's options, kept in the state: a later run must filter and decide as the first did."""
    return {"where": list(options.where), "date_format": options.date_format,
            "y_pred_positive": list(options.y_pred_positive),
            "y_pred_threshold": options.y_pred_threshold}  # fmt: skip


# --------------------------------------------------------------------------------------------------------
# the state folder
# --------------------------------------------------------------------------------------------------------


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


def _load(target: Path, options: AuditOptions, state: Path) -> tuple[FairnessMonitor, list[list[str]]]:
    """The monitor and its processed batches from ``target`` (a new monitor for a new or empty folder)."""
    state_file = target / STATE
    if not state_file.is_file():
        if target.is_dir() and any(target.iterdir()):
            raise MonitorError(
                f"--state {str(state)!r} is an audit folder, not a monitor state; choose another"
            )
        return FairnessMonitor(**_monitor_options(options)), []
    try:
        record = json.loads(state_file.read_text(encoding="utf-8"))
        monitor = FairnessMonitor.from_state(record["monitor"])
        batches = [[str(name), str(sha)] for name, sha in record["batches"]]
    except (ValueError, KeyError, TypeError) as err:
        raise MonitorError(
            f"--state {str(state)!r}: {STATE} is not a monitor state ({one_line(err)})"
        ) from None
    fresh = {**FairnessMonitor(**_monitor_options(options)).to_state()["options"], **_rows_record(options)}
    # a state from before 0.3 has no "rows"; one from before issue 36 no "date_format"
    unfiltered = {"where": [], "date_format": None, "y_pred_positive": [], "y_pred_threshold": None}
    stored = {**record["monitor"]["options"], **unfiltered, **record.get("rows", {})}
    for key, value in fresh.items():
        if key == "reference" or stored.get(key) == value:
            continue
        raise MonitorError(
            f"--state {str(state)!r} was started with {key} = {stored.get(key)!r}, not {value!r}; "
            "use the same options or a new --state"
        )
    reference = options.reference[0] if options.reference else None
    if reference is not None and monitor.reference != reference:
        raise MonitorError(
            f"--state {str(state)!r} compares against reference {monitor.reference!r}, not "
            f"{reference!r}; use a new --state"
        )
    return monitor, batches


def _new_batches(files: list[Path], done: list[list[str]]) -> list[tuple[Path, str]]:
    """The batches not processed yet, with their SHA-256; :class:`MonitorError` for a processed batch whose
    content changed, a batch with the content of another (a copy under a new name would count its people
    twice), and a new batch that sorts before the last processed one."""
    known = dict((name, sha) for name, sha in done)
    contents = {sha: name for name, sha in done}
    last = done[-1][0] if done else None
    new = []
    for path in files:
        sha = file_sha256(path)
        if path.name in known:
            if known[path.name] != sha:
                raise MonitorError(
                    f"batch {path.name!r} ({str(path)!r}) changed since it was processed (SHA-256 was "
                    f"{known[path.name][:12]}..., now {sha[:12]}...); a processed batch is never re-read"
                )
            continue
        if sha in contents:
            when = "was processed" if contents[sha] in known else "is in this run"
            raise MonitorError(
                f"batch {path.name!r} ({str(path)!r}) has the content of {contents[sha]!r}, which {when} "
                f"(SHA-256 {sha[:12]}...): a batch is counted once, so none was read; remove the copy (or, "
                "if they are two batches, add a column that tells them apart)"
            )
        contents[sha] = path.name
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


def _batch_rows(path: Path, options: AuditOptions):
    """A batch through the audit's input and row steps, the groups, decisions and outcomes as label text:
    ``1``, ``1.0`` and ``"1"`` are one label whatever type a batch's file gives the column (a parquet batch
    keeps its types, a CSV one is read as text), and the label ``--favorable`` names (``1.0`` or ``True``
    for the decisions 0/1, as in the audit) is written as ``--favorable`` is."""
    from fairstats.auditing.inputs import read
    from fairstats.auditing.prepare import favorable_text, label_text
    from fairstats.auditing.rows import prepared_rows

    rows = prepared_rows(read(path, options), options)
    data = rows.data.copy()
    favorable = _monitor_options(options)["favorable"]
    data[options.groups[0]] = label_text(data[options.groups[0]])
    for column in (options.y_pred, options.y_true):
        if column is not None:
            text = label_text(data[column])
            found = favorable_text(favorable, sorted(set(text)))
            data[column] = np.where(text == found, favorable, text) if found != favorable else text
    return data, rows


def run_monitor(
    options: AuditOptions, *, batches: Sequence[Path], state: Path, json: bool = False,
    fail_on: str | None = None, out=None,
) -> int:
    """Process the new ``batches`` into the ``state`` folder under the checked ``options``
    (``task="monitor"``); print one line per state change (``json``: a JSON summary instead); return the exit
    status (see the module).

    The state is read and replaced under its lock (:func:`fairstats.auditing.folder.locked`): a second run on
    the same state waits for the first, then reads what the first wrote (or gives up with exit status 2,
    the state untouched), so no batch is lost or counted twice."""
    from fairstats._csv import csv_text

    try:
        files = _batch_files(batches)
        target = check_out_folder(state, inputs=tuple(files), owner="monitor")
        with locked(target, owner="monitor"):
            _recover(target)
            target = check_out_folder(state, inputs=tuple(files), owner="monitor")  # as the last run left it
            expected = manifest_text(target)
            monitor, done = _load(target, options, state)
            new = _new_batches(files, done)
            frames, lines, read = [], [], []
            for path, sha in new:
                data, rows = _batch_rows(path, options)
                update = monitor.update(data, label=path.name)
                frames.append(update.to_frame())
                lines += [_line(s, options.alpha) for s in update.changed]
                filters = [{"where": w, "removed": int(k)} for w, k in rows.filters]
                read.append({"batch": path.name, "n": rows.n, "filters": filters})
                done.append([path.name, sha])
            if new:
                status = _write_state(target, state, frames, done, monitor, options, csv_text, expected)
                if status != EXIT_OK:
                    return status
    except (MonitorError, AuditError, ValueError, TypeError) as err:
        print(f"{_PROG}: error: {visible(one_line(err))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    stream = sys.stdout if out is None else out
    if json:
        import json as json_module

        from fairstats._version import __version__

        summary = {"fairstats": __version__, "task": "monitor", "state": str(state),
                   "batches": read, "decision_rule": None if options.decision_rule is None else
                   options.decision_rule.describe(),
                   "statuses": [_status_record(s) for f in frames for s in f.to_dict(orient="records")],
                   "alarm": bool(monitor.alarm), "has_disparity": bool(monitor.alarm)}  # fmt: skip
        print_out(json_module.dumps(summary, indent=2, ensure_ascii=True, allow_nan=False), stream)
    elif lines:
        print_out("\n".join(lines), stream)
    return EXIT_DISPARITY if fail_on == "disparity" and monitor.alarm else EXIT_OK


def _status_record(row: dict) -> dict:
    """A row of monitor.csv as plain JSON values (NaN as None)."""
    import math

    return {k: (None if isinstance(v, float) and not math.isfinite(v) else
                v.item() if hasattr(v, "item") else v) for k, v in row.items()}  # fmt: skip


def _write_state(target, state, frames, done, monitor, options, csv_text, expected) -> int:
    """The new state in a work folder, swapped into place (all or nothing)."""
    tmp = None
    try:
        tmp = new_work_folder(target)
        old = (target / TABLE).read_bytes() if (target / TABLE).is_file() else b""
        added = pd.concat(frames, ignore_index=True)[COLUMNS]
        text = csv_text(added)  # the one CSV writer; appended without its header after the first run
        if old:
            text = text.split("\n", 1)[1]  # the header is the fixed column names, one line
        (tmp / TABLE).write_bytes(old + text.encode("utf-8"))
        record = {"batches": done, "monitor": monitor.to_state(), "rows": _rows_record(options)}
        (tmp / STATE).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        table = pd.read_csv(
            tmp / TABLE, dtype={"group": str, "reference": str, "batch": str}, keep_default_na=False
        )
        for column in ("estimate", "cs_low", "cs_high"):
            table[column] = pd.to_numeric(table[column], errors="coerce")
        _draw(table, tmp / FIGURE, options.alpha)
        swap_into_place(tmp, target, owner="monitor", expected=expected)
        tmp = None
    except OutFolderError as err:
        print(f"{_PROG}: error: {visible(one_line(err))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:
        discard_own(target)
        print(f"{_PROG}: error: could not write {str(state)!r}: {one_line(err)}", file=sys.stderr)
        return EXIT_WRITE
    except BaseException:  # an interrupt may come while the work folder is being made: every one of ours
        discard_own(target)
        raise
    finally:
        if tmp is not None:
            discard(tmp)
    return EXIT_OK
