"""Random people for the tests of the two-group functions (bootstrap, outcome tests, fold disparity)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def people(seed: int = 0, n: int = 300, *, groups=("a", "b"), score: bool = False) -> pd.DataFrame:
    """Random people with a group, 0/1 labels (group a predicted 1 more often) and a score on a 0.05 grid."""
    rng = np.random.default_rng(seed)
    g = rng.choice(list(groups), n)
    y = rng.integers(0, 2, n)
    p = (rng.random(n) < np.where(g == groups[0], 0.6, 0.4)).astype(int)
    frame = pd.DataFrame({"g": g, "y": y, "p": p})
    if score:
        frame["s"] = np.round(rng.random(n) * 20) / 20
    return frame


SMALL = people(0, 80, score=True)
MEDIUM = people(1, 600, score=True)
