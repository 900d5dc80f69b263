"""``make verify``: do the results just produced agree with the committed ones?

Compares the working tree's results with a git revision (``HEAD``: the committed results), file by file, with
the tolerances declared in one place, ``config/verify.yaml``:

* a file that git sees as unchanged is reproduced (byte-identical);
* a changed table (``.csv``, ``.parquet``) is compared cell by cell: integers, strings and booleans exactly,
  floats within ``float_rtol`` / ``float_atol`` (:func:`numpy.isclose`); a cell that differs beyond that is a
  difference, unless a ``machine_dependent`` item declares it (rows matched by ``where``, ``columns``);
* any other changed file (Markdown, notebook, figure) must be byte-identical, unless it is a declared
  ``rendering`` of machine-dependent numbers (then its tables are what is checked);
* a file committed but not produced, or produced but not committed, is a difference;
* every ``range`` of a machine-dependent item (e.g. Table I accuracy of the paper preset's logistic
  regression) is checked on the produced file, whether it changed or not: inside the measured spread.

The verdict is one line (``reproduced: 0 differences beyond tolerance; 6 known machine-dependent numbers
within their range``) after at most ``max_reported`` lines per file naming file, row and both values. Exit
status: 0 reproduced, 1 a difference beyond tolerance, 2 a bad configuration or no git repository.

Usage::

    python -m compendium.publish.verify                           # config/verify.yaml, against HEAD
    python -m compendium.publish.verify --against main --config config/verify.yaml

Git is only read (``git diff``, ``git ls-files``, ``git show``); no file is written or changed.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

#: Table formats compared cell by cell.
TABLE_SUFFIXES = (".csv", ".parquet")


@dataclass(frozen=True)
class Cells:
    """Cells of some tables that may differ across machines: rows matching ``where``, in ``columns``.

    ``where`` maps a column to a value or a list of values, compared as text, ``fnmatch`` patterns allowed
    (``Logistic Regression*``); a row matches when every column matches one of its values (empty: every row;
    a column the table lacks: no row). ``columns`` empty means every column.
    """

    files: tuple[str, ...]
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Range:
    """A machine-dependent number that must stay inside its measured spread: ``min <= value <= max``.

    ``column`` of the one row of ``file`` matching ``where``; or, with ``count_differing``, the number of rows
    matching ``where`` whose ``columns`` differ from the committed file (``min`` is then 0).
    """

    file: str
    where: Mapping[str, tuple[str, ...]]
    column: str
    min: float
    max: float
    count_differing: tuple[str, ...] = ()


@dataclass(frozen=True)
class MachineDependent:
    """One known source of machine-dependent results (name, why, its cells, renderings and ranges)."""

    name: str
    why: str
    cells: tuple[Cells, ...] = ()
    renderings: tuple[str, ...] = ()
    ranges: tuple[Range, ...] = ()


@dataclass(frozen=True)
class VerifyConfig:
    """``config/verify.yaml``: what is compared and with which tolerances (see the file's comments)."""

    paths: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    float_rtol: float = 1e-9
    float_atol: float = 1e-12
    max_reported: int = 10
    machine_dependent: tuple[MachineDependent, ...] = ()


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify`.

    Attributes
    ----------
    differences : list of str
        Every difference beyond tolerance, one line each naming file, row and both values.
    known : dict
        Per machine-dependent item name: how many cells or renderings differ within its declaration.
    ranges_checked : int
        Machine-dependent numbers found inside their range.
    files_compared : int
        Files under ``paths`` (committed or produced).
    files_changed : int
        Files whose bytes differ from the committed ones.
    """

    differences: list[str]
    known: dict[str, int]
    ranges_checked: int
    files_compared: int
    files_changed: int

    @property
    def ok(self) -> bool:
        return not self.differences

    def verdict(self) -> str:
        """The one-line verdict."""
        known = sum(self.known.values())
        tail = (
            f"; {self.ranges_checked} known machine-dependent numbers within their range"
            f"; {self.files_compared} files compared, {self.files_changed} changed"
            + (f" ({known} cells or renderings differ where declared machine-dependent)" if known else "")
        )
        if self.ok:
            return f"reproduced: 0 differences beyond tolerance{tail}"
        return f"NOT reproduced: {len(self.differences)} differences beyond tolerance{tail}"

    def to_frame(self) -> pd.DataFrame:
        """One row per difference: ``difference``."""
        return pd.DataFrame({"difference": self.differences})


# ------------------------------------------------------------------------------------------ configuration


def _strings(value: object, *, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str | int | float | bool) for v in value):
        raise ValueError(f"config key {key!r}: expected a string or a list of strings, got {value!r}")
    return tuple(str(v) for v in value)


def _where(value: object, *, key: str) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"config key {key!r}: expected a mapping column -> value(s), got {value!r}")
    return {
        str(c): (_strings(v, key=f"{key}.{c}") if isinstance(v, list) else (str(v),))
        for c, v in value.items()
    }


def _keys(mapping: object, allowed: set[str], required: set[str], *, key: str) -> dict:
    if not isinstance(mapping, dict):
        raise ValueError(f"config key {key!r}: expected a mapping, got {mapping!r}")
    unknown = sorted(set(mapping) - allowed)
    if unknown:
        raise ValueError(f"config key {key}.{unknown[0]!r} is unknown (allowed: {sorted(allowed)})")
    missing = sorted(required - set(mapping))
    if missing:
        raise ValueError(f"config key {key!r} lacks {missing[0]!r}")
    return mapping


def _number(value: object, *, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"config key {key!r}: expected a number, got {value!r}")
    return float(value)


def parse_config(raw: object) -> VerifyConfig:
    """Validate a configuration mapping (as read from ``config/verify.yaml``) into a :class:`VerifyConfig`."""
    top = _keys(
        raw,
        {"paths", "exclude", "float_rtol", "float_atol", "max_reported", "machine_dependent"},
        {"paths"},
        key="verify",
    )
    items = []
    for i, item in enumerate(top.get("machine_dependent") or []):
        k = f"machine_dependent[{i}]"
        item = _keys(item, {"name", "why", "cells", "renderings", "ranges"}, {"name", "why"}, key=k)
        cells = []
        for j, c in enumerate(item.get("cells") or []):
            kc = f"{k}.cells[{j}]"
            c = _keys(c, {"files", "where", "columns"}, {"files"}, key=kc)
            cells.append(
                Cells(
                    files=_strings(c["files"], key=f"{kc}.files"),
                    where=_where(c.get("where"), key=f"{kc}.where"),
                    columns=_strings(c.get("columns"), key=f"{kc}.columns"),
                )
            )
        ranges = []
        for j, r in enumerate(item.get("ranges") or []):
            kr = f"{k}.ranges[{j}]"
            r = _keys(
                r, {"file", "where", "column", "min", "max", "count_differing"}, {"file", "max"}, key=kr
            )
            count = _strings(r.get("count_differing"), key=f"{kr}.count_differing")
            if not count and "column" not in r:
                raise ValueError(f"config key {kr!r} needs 'column' (or 'count_differing')")
            lo = _number(r.get("min", 0), key=f"{kr}.min")
            hi = _number(r["max"], key=f"{kr}.max")
            if lo > hi:
                raise ValueError(f"config key {kr!r}: min {lo} is above max {hi}")
            ranges.append(
                Range(
                    file=str(r["file"]),
                    where=_where(r.get("where"), key=f"{kr}.where"),
                    column=str(r.get("column", "")),
                    min=lo,
                    max=hi,
                    count_differing=count,
                )
            )
        items.append(
            MachineDependent(
                name=str(item["name"]),
                why=str(item["why"]),
                cells=tuple(cells),
                renderings=_strings(item.get("renderings"), key=f"{k}.renderings"),
                ranges=tuple(ranges),
            )
        )
    rtol = _number(top.get("float_rtol", 1e-9), key="float_rtol")
    atol = _number(top.get("float_atol", 1e-12), key="float_atol")
    if rtol < 0 or atol < 0:
        raise ValueError(f"config keys 'float_rtol', 'float_atol' must be >= 0, got {rtol}, {atol}")
    max_reported = top.get("max_reported", 10)
    if isinstance(max_reported, bool) or not isinstance(max_reported, int) or max_reported < 1:
        raise ValueError(f"config key 'max_reported' must be a positive integer, got {max_reported!r}")
    return VerifyConfig(
        paths=_strings(top["paths"], key="paths"),
        exclude=_strings(top.get("exclude"), key="exclude"),
        float_rtol=rtol,
        float_atol=atol,
        max_reported=max_reported,
        machine_dependent=tuple(items),
    )


def read_config(path: str | Path) -> VerifyConfig:
    """Read and validate ``config/verify.yaml``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`config`: no file {str(path)!r}")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{str(path)!r} is not valid YAML: {exc}") from exc
    try:
        return parse_config(raw)
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {exc}") from exc


def machine_dependent_ranges(config: VerifyConfig, name: str) -> dict[str, tuple[float, float]]:
    """The measured ranges of machine-dependent item ``name``: ``{column: (min, max)}``.

    A ``count_differing`` range is keyed ``"differing " + ", ".join(columns)``. Used by the notebooks' notes,
    so that the published-vs-reproduced table states the same spread that ``make verify`` checks.
    """
    items = [m for m in config.machine_dependent if m.name == name]
    if not items:
        known = [m.name for m in config.machine_dependent]
        raise ValueError(f"`name`: no machine-dependent item {name!r} (items: {known})")
    return {
        ("differing " + ", ".join(r.count_differing) if r.count_differing else r.column): (r.min, r.max)
        for r in items[0].ranges
    }


# ------------------------------------------------------------------------------------------------- git


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise ValueError("git is not installed (make verify compares with the committed results)") from exc
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise ValueError(
            f"git {' '.join(args[:2])} in {str(root)!r} failed: {message[-1] if message else ''}"
        )
    return done.stdout


def _split(out: bytes) -> list[str]:
    return [p.decode() for p in out.split(b"\0") if p]


def _changes(root: Path, against: str, paths: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """(files under ``paths`` committed in ``against`` or produced, {changed file: 'M' | 'D' | 'new'})."""
    committed = _split(_git(root, "ls-tree", "-r", "-z", "--name-only", against, "--", *paths))
    fields = _split(_git(root, "diff", "--name-status", "--no-renames", "-z", against, "--", *paths))
    changed = {fields[i + 1]: ("D" if fields[i] == "D" else "M") for i in range(0, len(fields), 2)}
    for path in _split(_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", *paths)):
        changed[path] = "new"
    for path, status in list(changed.items()):
        if status == "M" and path not in committed:
            changed[path] = "new"  # added to the index, not committed
    return sorted(set(committed) | set(changed)), changed


# ------------------------------------------------------------------------------------------- comparing


def _matches(path: str, patterns: Sequence[str]) -> bool:
    """``fnmatch`` patterns (``*`` crosses ``/``), or a folder prefix."""
    return any(fnmatch.fnmatchcase(path, p) or path.startswith(p.rstrip("/") + "/") for p in patterns)


def _read_table(data: bytes, path: str) -> pd.DataFrame:
    if path.endswith(".parquet"):
        return pd.read_parquet(io.BytesIO(data))
    return pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""])


def _row_mask(frame: pd.DataFrame, where: Mapping[str, tuple[str, ...]]) -> np.ndarray:
    mask = np.ones(len(frame), dtype=bool)
    for column, values in where.items():
        if column not in frame.columns:
            return np.zeros(len(frame), dtype=bool)
        text = frame[column].astype(str)
        if any(ch in v for v in values for ch in "*?["):
            mask &= np.array([any(fnmatch.fnmatchcase(t, v) for v in values) for t in text], dtype=bool)
        else:
            mask &= text.isin(values).to_numpy()
    return mask


def _differing(old: pd.Series, new: pd.Series, rtol: float, atol: float) -> np.ndarray:
    """Cells of one column that differ beyond tolerance (NaN equals NaN)."""
    numeric = all(pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) for s in (old, new))
    if numeric:
        a = old.to_numpy(dtype=np.float64, na_value=np.nan)
        b = new.to_numpy(dtype=np.float64, na_value=np.nan)
        both_float = pd.api.types.is_float_dtype(old) or pd.api.types.is_float_dtype(new)
        same = np.isclose(a, b, rtol=rtol, atol=atol) if both_float else a == b
        return ~(same | (np.isnan(a) & np.isnan(b)))
    na_a, na_b = old.isna().to_numpy(), new.isna().to_numpy()
    a, b = old.astype(str).to_numpy(), new.astype(str).to_numpy()
    return (na_a != na_b) | (~na_a & ~na_b & (a != b))


def _row_label(frame: pd.DataFrame, i: int) -> str:
    """Row ``i`` named by its first few non-float values (e.g. ``table=II, model=lr, test=...``)."""
    parts = []
    for column in frame.columns:
        if pd.api.types.is_float_dtype(frame[column]):
            continue
        parts.append(f"{column}={frame[column].iloc[i]}")
        if len(parts) == 3:
            break
    return ", ".join(parts)


def _value(v: object) -> str:
    return repr(v.item() if isinstance(v, np.generic) else v)


def _compare_table(
    path: str, old: pd.DataFrame, new: pd.DataFrame, config: VerifyConfig, known: dict[str, int]
) -> list[str]:
    if list(old.columns) != list(new.columns):
        return [f"{path}: columns differ: committed {list(old.columns)}, produced {list(new.columns)}"]
    if len(old) != len(new):
        return [f"{path}: {len(new)} rows produced, {len(old)} committed"]
    rules = [
        (item.name, cells)
        for item in config.machine_dependent
        for cells in item.cells
        if _matches(path, cells.files)
    ]
    masks = [(name, cells, _row_mask(old, cells.where)) for name, cells in rules]
    out: list[str] = []
    n_real = 0
    for column in old.columns:
        bad = _differing(old[column], new[column], config.float_rtol, config.float_atol)
        if not bad.any():
            continue
        for name, cells, rows in masks:
            if cells.columns and column not in cells.columns:
                continue
            covered = bad & rows
            known[name] = known.get(name, 0) + int(covered.sum())
            bad &= ~rows
        for i in np.flatnonzero(bad):
            n_real += 1
            if n_real <= config.max_reported:
                # CSV: the line of the file (header = line 1); parquet: the row index
                where = f"line {i + 2}" if path.endswith(".csv") else f"row {i}"
                out.append(
                    f"{path}: {where} ({_row_label(old, i)}), column {column}: committed "
                    f"{_value(old[column].iloc[i])}, produced {_value(new[column].iloc[i])}"
                )
    if n_real > config.max_reported:
        out.append(f"{path}: ... {n_real - config.max_reported} more differing cells")
    return out


def _check_range(
    root: Path, against: str, item: MachineDependent, r: Range, config: VerifyConfig
) -> tuple[list[str], bool]:
    produced = root / r.file
    if not produced.is_file():
        return [f"{r.file}: not produced (range of {item.name!r})"], False
    new = _read_table(produced.read_bytes(), r.file)
    rows = _row_mask(new, r.where)
    where = ", ".join(f"{c}={'|'.join(v)}" for c, v in r.where.items()) or "all rows"
    if r.count_differing:
        old = _read_table(_git(root, "show", f"{against}:{r.file}"), r.file)
        if len(old) != len(new) or not np.array_equal(_row_mask(old, r.where), rows):
            return [f"{r.file}: rows ({where}) are not those committed; cannot count differing rows"], False
        differ = np.zeros(len(new), dtype=bool)
        for column in r.count_differing:
            differ |= _differing(old[column], new[column], config.float_rtol, config.float_atol)
        value = float((differ & rows).sum())
        what = f"rows ({where}) whose {', '.join(r.count_differing)} differ from the committed ones"
    else:
        if r.column not in new.columns or rows.sum() != 1:
            return [
                f"{r.file}: no single row ({where}) with column {r.column!r} (range of {item.name!r})"
            ], False
        value = float(new.loc[rows, r.column].iloc[0])
        what = f"({where}) {r.column}"
    if not r.min <= value <= r.max:
        return [
            f"{r.file}: {what} = {value:g}, outside the known machine-dependent range "
            f"[{r.min:g}, {r.max:g}] of {item.name!r}"
        ], False
    return [], True


def verify(root: str | Path, config: VerifyConfig, *, against: str = "HEAD") -> VerifyResult:
    """Compare the results in the working tree at ``root`` with revision ``against`` (see the module doc)."""
    root = Path(root)
    files, changed = _changes(root, against, config.paths)
    files = [f for f in files if not _matches(f, config.exclude)]
    differences: list[str] = []
    known: dict[str, int] = {}
    n_changed = 0
    for path in files:
        status = changed.get(path)
        if status is None:
            continue
        if status == "D":
            differences.append(f"{path}: committed, but not produced")
            continue
        if status == "new":
            differences.append(f"{path}: produced, but not committed")
            continue
        new_bytes = (root / path).read_bytes()
        old_bytes = _git(root, "show", f"{against}:{path}")
        if new_bytes == old_bytes:
            continue
        n_changed += 1
        if path.endswith(TABLE_SUFFIXES):
            differences += _compare_table(
                path, _read_table(old_bytes, path), _read_table(new_bytes, path), config, known
            )
            continue
        item = next((m for m in config.machine_dependent if _matches(path, m.renderings)), None)
        if item is None:
            differences.append(
                f"{path}: bytes differ ({len(old_bytes)} committed, {len(new_bytes)} produced)"
            )
        else:
            known[item.name] = known.get(item.name, 0) + 1
    n_ranges = 0
    for item in config.machine_dependent:
        for r in item.ranges:
            lines, ok = _check_range(root, against, item, r, config)
            differences += lines
            n_ranges += ok
    return VerifyResult(
        differences=differences,
        known=known,
        ranges_checked=n_ranges,
        files_compared=len(files),
        files_changed=n_changed,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compendium.publish.verify", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--config", default="config/verify.yaml", help="tolerances (default: %(default)s)")
    parser.add_argument("--against", default="HEAD", help="git revision of the committed results (HEAD)")
    parser.add_argument("--root", default=".", help="the repository's working tree (default: .)")
    args = parser.parse_args(argv)
    try:
        config = read_config(Path(args.root) / args.config)
        result = verify(args.root, config, against=args.against)
    except ValueError as exc:
        print(f"make verify: error: {exc}", file=sys.stderr)
        return 2
    for line in result.differences:
        print(line)
    for name, n in sorted(result.known.items()):
        print(f"known machine-dependent ({name}): {n} differing cells or renderings, as declared")
    print(result.verdict())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
