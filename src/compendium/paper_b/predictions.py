"""Predictions files: one tidy parquet per set of cross-validated predictions, settings in its metadata.

:func:`write_predictions` writes the table of :mod:`compendium.paper_b.crossval`
(:data:`~compendium.paper_b.crossval.PREDICTION_COLUMNS`) atomically and byte-identically for identical
inputs, with its settings (seed, preset, package versions, estimator parameters, unconverged folds) as JSON in
the schema metadata; :func:`read_predictions` reads it back with the settings in ``attrs["fairstats"]``;
:func:`gather_predictions` joins the per-chunk files of the workflow's fan-out into one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from compendium.paper_b.crossval import PREDICTION_COLUMNS, FoldPredictions
from compendium.paper_b.models import MODEL_NAMES

__all__ = ["METADATA_KEY", "gather_predictions", "read_predictions", "write_predictions"]

#: Key of the settings (JSON) in a predictions parquet file's schema metadata.
METADATA_KEY = b"fairstats"


def write_predictions(result: FoldPredictions | pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write predictions and their settings to a parquet file, atomically (temporary file, then rename).

    A ``DataFrame`` argument takes its settings from ``attrs["fairstats"]``. The file is byte-identical for
    identical inputs (no timestamps); settings go into the schema metadata under :data:`METADATA_KEY`.
    """
    if isinstance(result, FoldPredictions):
        frame, settings = result.predictions, result.settings
    elif isinstance(result, pd.DataFrame):
        frame, settings = result, result.attrs.get("fairstats", {})
    else:
        raise TypeError(f"`result` must be FoldPredictions or a DataFrame, got {type(result).__name__}")
    missing = [c for c in PREDICTION_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"`result` lacks prediction column(s) {missing}")
    frame = frame[list(PREDICTION_COLUMNS)].reset_index(drop=True)
    frame.attrs = {}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(settings, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; a results file is readable like any other
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_predictions(path: str | os.PathLike) -> pd.DataFrame:
    """Read a predictions parquet file; its settings come back as ``attrs["fairstats"]``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no predictions file {str(path)!r}")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{str(path)!r}: not a readable parquet file ({exc})") from exc
    missing = [c for c in PREDICTION_COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"{str(path)!r}: not a predictions file, missing column(s) {missing}")
    frame = table.to_pandas()
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    frame.attrs["fairstats"] = json.loads(raw) if raw else {}
    return frame


def gather_predictions(
    parts: Sequence[FoldPredictions | pd.DataFrame | str | os.PathLike],
    *,
    models: Sequence[str] | None = None,
) -> FoldPredictions:
    """Concatenate chunks of predictions into one table, checked and sorted.

    Parameters
    ----------
    parts : sequence of FoldPredictions, DataFrame (with ``attrs["fairstats"]``) or parquet paths
        The chunks (any order).
    models : sequence of str, optional
        Order of the ``model`` categories (default: :data:`compendium.paper_b.models.MODEL_NAMES` order, then
        others sorted).

    Returns
    -------
    FoldPredictions
        Rows sorted by model, fold, then the chunks' row order; settings merged: per model, the union of test
        folds and of unconverged folds; all other settings must agree across chunks.

    Raises
    ------
    ValueError
        No parts; a setting (e.g. versions, favourable outcome, seed) that differs between chunks; a
        (model, fold) present in two chunks.
    """
    if len(parts) == 0:
        raise ValueError("`parts` is empty")
    frames: list[pd.DataFrame] = []
    merged: dict[str, object] | None = None
    per_model: dict[str, dict[str, object]] = {}
    for i, part in enumerate(parts):
        label = str(part) if isinstance(part, str | os.PathLike) else f"part {i}"
        if isinstance(part, FoldPredictions):
            frame, settings = part.predictions, part.settings
        elif isinstance(part, pd.DataFrame):
            frame, settings = part, part.attrs.get("fairstats", {})
        else:
            frame = read_predictions(part)
            settings = frame.attrs["fairstats"]
        common = {k: v for k, v in settings.items() if k != "models"}
        if merged is None:
            merged = common
        elif common != merged:
            diff = sorted(k for k in set(common) | set(merged) if common.get(k) != merged.get(k))
            raise ValueError(
                f"{label}: settings differ from the first part's in {diff} "
                f"(e.g. {diff[0]!r}: {common.get(diff[0])!r} vs {merged.get(diff[0])!r})"
            )
        for name, info in settings.get("models", {}).items():
            entry = per_model.setdefault(
                name, {"estimator": info["estimator"], "test_folds": [], "not_converged": []}
            )
            if entry["estimator"] != info["estimator"]:
                raise ValueError(f"{label}: model {name!r} has other estimator settings than an earlier part")
            entry["test_folds"] = entry["test_folds"] + list(info["test_folds"])
            entry["not_converged"] = entry["not_converged"] + list(info["not_converged"])
        f = frame[list(PREDICTION_COLUMNS)].copy()
        f["model"] = f["model"].astype(str)
        f["race"] = f["race"].astype(str)
        frames.append(f.assign(_part=i, _row=np.arange(len(f))))
    out = pd.concat(frames, ignore_index=True)
    dup = out.drop_duplicates(["model", "fold", "_part"]).duplicated(["model", "fold"], keep=False)
    if dup.any():
        row = out.drop_duplicates(["model", "fold", "_part"]).loc[dup].iloc[0]
        raise ValueError(f"model {row['model']!r}, fold {int(row['fold'])} appears in more than one part")
    names = sorted(
        out["model"].unique(),
        key=lambda m: (m not in MODEL_NAMES, MODEL_NAMES.index(m) if m in MODEL_NAMES else 0, m),
    )
    if models is not None:
        names = list(models) + [m for m in names if m not in models]
    out["model"] = pd.Categorical(out["model"], categories=names)
    races = sorted(out["race"].unique())
    out["race"] = pd.Categorical(out["race"], categories=races)
    # within a fold, rows keep the order of the part that holds the fold
    out = out.sort_values(["model", "fold", "_row"], kind="stable").reset_index(drop=True)
    out = out[list(PREDICTION_COLUMNS)]
    for entry in per_model.values():
        entry["test_folds"] = sorted(int(t) for t in entry["test_folds"])
        entry["not_converged"] = sorted(int(t) for t in entry["not_converged"])
    settings = dict(merged or {})
    settings["models"] = {name: per_model[name] for name in names if name in per_model}
    return FoldPredictions(predictions=out, settings=settings)
