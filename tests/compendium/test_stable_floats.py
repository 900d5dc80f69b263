"""compendium.publish.stable_floats: floats rounded at write, so last-bit differences do not reach a file."""

import numpy as np
import pandas as pd
import pytest

from compendium.publish.stable_floats import round_floats


def test_a_last_bit_difference_does_not_change_the_written_table():
    x = np.array([0.1 + 0.2, 1 / 3, 12345.678901234567, -2.5e-300, np.nan, np.inf])
    moved = np.nextafter(x, np.inf)  # the next float up: what another summation order gives
    a = round_floats(pd.DataFrame({"x": x})).to_csv(index=False)
    b = round_floats(pd.DataFrame({"x": moved})).to_csv(index=False)
    assert a == b
    assert a.splitlines()[1:4] == ["0.3", "0.333333333333", "12345.6789012"]


def test_other_columns_are_unchanged_and_bad_digits_refused():
    frame = pd.DataFrame({"n": [1, 2], "ok": [True, False], "label": ["a=1/3", "b"], "x": [1 / 3, 2.0]})
    out = round_floats(frame)
    pd.testing.assert_frame_equal(out.drop(columns="x"), frame.drop(columns="x"))
    assert frame["x"].iloc[0] == 1 / 3  # a copy: the input is not changed
    with pytest.raises(ValueError, match="`significant`"):
        round_floats(frame, significant=0)
