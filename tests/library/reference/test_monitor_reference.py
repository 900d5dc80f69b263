"""The monitor's single-rate confidence sequence against the `expectation` package's, on fixed streams.

`expectation` (PyPI, 0.6.1) needs Python >= 3.12, so it cannot be in the project's 3.11 lock: its bounds were
computed once in a scratch venv (Python 3.12.1, expectation 0.6.1, numpy 2.5.5, scipy 1.18.1) and are carried
here as constants. The exact call, for each stream below fed one observation at a time::

    from expectation.confseq.confidencesequence import ConfidenceSequence
    from expectation.confseq.confidenceconfig import ConfidenceSequenceConfig
    cs = ConfidenceSequence(config=ConfidenceSequenceConfig(alpha=0.05))
    for t, x in enumerate(stream(p, 2000), start=1):
        r = cs.update(np.array([float(x)]))   # r.lower, r.upper at t in TIMES

(Howard et al. 2021's gamma-exponential mixture boundary with the empirical variance as intrinsic time; for
p = 0.1 the package raised "Failed to find upper limit for mixture bound", so only 0.3 and 0.5 are carried.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairstats.monitor import rate_confidence_sequence

PHI = (math.sqrt(5) - 1) / 2
TIMES = [100, 150, 200, 300, 500, 700, 1000, 1500, 2000]


def stream(p: float, n: int) -> list[int]:
    """A deterministic 0/1 stream of rate ``p`` (golden-ratio rotation: no generator, same everywhere)."""
    return [1 if ((t * PHI) % 1.0) < p else 0 for t in range(1, n + 1)]


# expectation 0.6.1, the call above: (lower, upper) at each of TIMES
REFERENCE = {
    0.3: [
        (0.08797210455431875, 0.5120278954456812),
        (0.13132571501778115, 0.46867428498221886),
        (0.15169341125226263, 0.4383065887477373),
        (0.1813751570710419, 0.4119581762622915),
        (0.2116721484983864, 0.3883278515016136),
        (0.22579287982665952, 0.37420712017334046),
        (0.23815909358133358, 0.3618409064186664),
        (0.24960843024198676, 0.3503915697580132),
        (0.25636245391402995, 0.34363754608597),
    ],
    0.5: [
        (0.2712544974792157, 0.7287455025207843),
        (0.3175702726772024, 0.6824297273227976),
        (0.33908283624151647, 0.6509171637584835),
        (0.37449085918530234, 0.6255091408146977),
        (0.40393666247094023, 0.5960633375290598),
        (0.4192034663671597, 0.5807965336328402),
        (0.4325990486191033, 0.5674009513808966),
        (0.4456909681954466, 0.5556423651378868),
        (0.4523647786858222, 0.5476352213141777),
    ],
}


@pytest.mark.parametrize("p", sorted(REFERENCE))
def test_width_within_1_5x_of_expectation_after_100_observations(p):
    x = stream(p, 2000)
    ours = rate_confidence_sequence(x, [1] * len(x), alpha=0.05).set_index("n")
    for t, (lo, hi) in zip(TIMES, REFERENCE[p], strict=True):
        width = ours.at[t, "cs_high"] - ours.at[t, "cs_low"]
        running = ours.at[t, "cs_high_running"] - ours.at[t, "cs_low_running"]
        assert 0 < running <= width <= 1.5 * (hi - lo), (t, width, hi - lo)
        # both cover the stream's rate (a rotation's running mean is within 1/t of p)
        assert ours.at[t, "cs_low_running"] < p < ours.at[t, "cs_high_running"]


def test_every_time_after_100_within_1_5x():
    """At every t >= 100, ours <= 1.5x the reference's width at the next carried time (the reference's
    width shrinks between the carried times, as the constants show, so this bounds it by 1.5x at t)."""
    x = stream(0.3, 2000)
    ours = rate_confidence_sequence(x, [1] * len(x), alpha=0.05)
    width = (ours["cs_high_running"] - ours["cs_low_running"]).to_numpy()
    assert np.all(np.diff(width) <= 1e-15)
    ref = [hi - lo for lo, hi in REFERENCE[0.3]]
    for t in range(100, 2001):
        nxt = next(i for i, s in enumerate(TIMES) if s >= t)
        assert width[t - 1] <= 1.5 * ref[nxt], (t, width[t - 1], ref[nxt])
