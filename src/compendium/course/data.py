"""The COMPAS people of a filter preset, as the labs and the course's answers read them.

A preset is an entry of ``compas.presets`` in ``config/config.yaml`` (``propublica_violent`` ...); a lab or an
answer may change some of its keys (``day_window=0``). Each (preset, changes) is read and filtered once per
Python session; callers get a copy.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import pandas as pd
import yaml

from compendium.course.paths import repository_path
from compendium.data.compas import FilterResult, load_preset

__all__ = ["compas_preset", "compas_presets"]


def compas_presets(config_path: str = "config/config.yaml") -> dict[str, dict]:
    """The filter presets of the compendium's configuration (``compas.presets``)."""
    config = yaml.safe_load(repository_path(config_path).read_text(encoding="utf-8"))
    return dict(config["compas"]["presets"])


@functools.cache
def _filtered(name: str, changes: tuple[tuple[str, object], ...], raw_dir: str,
              config_path: str) -> FilterResult:
    presets = compas_presets(config_path)
    if name not in presets:
        raise KeyError(f"preset: {name!r} is not a preset of {config_path} (known: {sorted(presets)})")
    return load_preset(repository_path(raw_dir), {**presets[name], **dict(changes)})


def compas_preset(name: str = "propublica_violent", *, changes: Mapping[str, object] | None = None,
                  raw_dir: str = "data/raw", config_path: str = "config/config.yaml",
                  report: bool = False) -> pd.DataFrame:
    """The filtered people of preset ``name`` (with ``changes`` to its keys), a copy; with ``report=True``
    the filter's report (rows removed by each condition) instead.

    Raises
    ------
    KeyError
        ``name`` is not a preset.
    ValueError
        A change the filter refuses (see :func:`compendium.data.compas.load_preset`).
    """
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (changes or {}).items()))
    result = _filtered(name, key, raw_dir, config_path)
    return (result.report if report else result.frame).copy()
