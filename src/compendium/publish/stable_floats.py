"""Floats rounded at write to 12 significant digits, so that last-bit differences of the BLAS kernels do not
change a committed table.

Sums over thousands of scores (mean scores, bootstrap quantiles, test statistics) move in their last bits with
the floating-point kernels a CPU picks (e.g. AVX2 with or without AVX-512, with or without FMA): relative
changes of about 1e-16, far below anything a table reports. Rounded to 12 significant digits at write, such a
change alters the written value only when the exact value lies within that change of a rounding boundary of
the twelfth digit (rare, not impossible): the committed file is then stable across kernels, and
``config/verify.yaml``'s 1e-9 tolerance still covers such a flip. Used for the tables issue 21 found
moving: the COMPAS outcome tests and the three-level decision tests. The library itself never rounds;
this is the compendium's writing convention, like the awareness distances rounded to 9 decimals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["SIGNIFICANT_DIGITS", "round_floats"]

#: Significant digits kept at write.
SIGNIFICANT_DIGITS = 12


def round_floats(frame: pd.DataFrame, *, significant: int = SIGNIFICANT_DIGITS) -> pd.DataFrame:
    """A copy of ``frame`` with every float column rounded to ``significant`` significant digits.

    NaN and infinities are kept; integer, boolean and text columns are unchanged.

    Examples
    --------
    >>> round_floats(pd.DataFrame({"x": [0.1 + 0.2, 1 / 3]}))["x"].tolist()
    [0.3, 0.333333333333]
    """
    if isinstance(significant, bool) or not isinstance(significant, int) or not 1 <= significant <= 17:
        raise ValueError(f"`significant` must be an integer from 1 to 17, got {significant!r}")
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_float_dtype(out[column]):
            values = out[column].to_numpy(dtype=np.float64)
            finite = np.isfinite(values)
            rounded = values.copy()
            rounded[finite] = [float(f"{v:.{significant}g}") for v in values[finite]]
            out[column] = rounded
    return out
