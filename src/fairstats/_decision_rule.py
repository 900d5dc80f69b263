"""The rule that turns a prediction column into the yes/no decision the tests compare.

A deployed system often stores a label with several values (COMPAS' ``score_text``: Low, Medium, High) or a
score (``decile_score`` 1..10) rather than the decision. ``fairstats audit --y-pred-positive Medium,High``
names
the labels that count as the positive prediction; ``--y-pred-threshold 5`` makes a score of 5 or more
positive.
:class:`DecisionRule` is that choice, validated once, applied to a column, and written into the report in
words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["DecisionRule"]


@dataclass(frozen=True)
class DecisionRule:
    """Positive prediction = a label in ``positive``, or a score at or above ``threshold`` (exactly one).

    Attributes
    ----------
    column : str
        The prediction column the rule reads.
    positive : tuple of str
        Labels (as text) that count as the positive prediction; empty with a threshold.
    threshold : float or None
        Scores ``>= threshold`` count as positive.
    """

    column: str
    positive: tuple[str, ...] = ()
    threshold: float | None = None

    def __post_init__(self) -> None:
        if bool(self.positive) == (self.threshold is not None):
            raise ValueError(
                "give either the positive labels (--y-pred-positive) or a threshold (--y-pred-threshold)"
            )
        if self.threshold is not None and not math.isfinite(self.threshold):
            raise ValueError(f"--y-pred-threshold must be a finite number, got {self.threshold!r}")
        if any(not str(p) for p in self.positive) or len(set(self.positive)) != len(self.positive):
            raise ValueError(
                f"--y-pred-positive: labels must be non-empty and distinct, got {list(self.positive)!r}"
            )

    @classmethod
    def from_option(
        cls, column: str, *, positive: str | Sequence[str] | None, threshold: object
    ) -> DecisionRule:
        """The rule from the command line's text: ``positive`` comma-separated (``"Medium,High"``)."""
        labels: tuple[str, ...] = ()
        if positive is not None:
            parts = positive.split(",") if isinstance(positive, str) else list(positive)
            labels = tuple(str(p).strip() for p in parts)
        value = None
        if threshold is not None:
            try:
                value = float(threshold)
            except (TypeError, ValueError):
                raise ValueError(f"--y-pred-threshold must be a number, got {threshold!r}") from None
        return cls(column=column, positive=labels, threshold=value)

    def describe(self) -> str:
        """The rule in words, for the report: ``y_pred = 1 when score_text is "Medium" or "High"``."""
        if self.threshold is not None:
            return f"positive prediction when {self.column} >= {self.threshold:g}"
        shown = " or ".join(f'"{p}"' for p in self.positive)
        return f"positive prediction when {self.column} is {shown}"

    def apply(self, values: pd.Series, *, source: str = "the input") -> np.ndarray:
        """0/1 decisions (int8) for ``values``; a one-line ``ValueError`` naming the column and value."""
        if self.threshold is not None:
            numeric = pd.to_numeric(values, errors="coerce")
            bad = numeric.isna() & values.notna()
            if bad.any():
                first = values[bad].iloc[0]
                raise ValueError(
                    f"{source}: column {self.column!r} has the value {first!r}, not a number, but "
                    f"--y-pred-threshold needs a score"
                )
            return (numeric.to_numpy(dtype=float) >= self.threshold).astype(np.int8)
        text = values.astype(str)
        found = set(text.unique())
        unseen = [p for p in self.positive if p not in found]
        if len(unseen) == len(self.positive):
            shown = sorted(found)[:12]
            raise ValueError(
                f"{source}: column {self.column!r} has none of the --y-pred-positive labels "
                f"{list(self.positive)!r}; its values include {shown!r}"
            )
        return text.isin(self.positive).to_numpy().astype(np.int8)
