"""The monitor's sequences against reference implementations: the single-rate one against the `expectation`
package's, on fixed streams; the difference's gamma-exponential mixture against confseq, Howard's own.

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
from scipy import integrate

from fairstats import rate_confidence_sequence
from fairstats.sequences import _log_mixture, _radius, mixture_rho

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


# confseq 0.0.11 (Howard, Waudby-Smith & Ramdas; the C++ of Howard et al. 2021's boundaries), built from
# PyPI's source on Python 3.11.7 with numpy 2.4.6 (its build pins pybind11 2.6.2, which does not compile on
# 3.11: `pip install "pybind11>=2.11" scikit-build cmake ninja; pip install --no-build-isolation confseq`,
# Boost headers from Debian's libboost-dev). Each value is
#     confseq.boundaries.gamma_exponential_log_mixture(s, v, 300.0, 1.0, 0.025)
# i.e. the mixture with c = 1 tuned for v_opt = 300 at one-sided level 0.025 (our alpha / 2, alpha = 0.05).
CONFSEQ_LOG_MIXTURE = [
    (0.0, 0.0, 0.0),
    (5.0, 5.0, 0.6166124791834022),
    (-5.0, 5.0, -0.5720490338196953),
    (40.0, 100.0, 4.882449602003476),
    (-40.0, 100.0, -2.195858710370999),
    (60.0, 300.0, 4.324082697080485),
    (-200.0, 300.0, -3.7558895126853713),
    (150.0, 3000.0, 2.0374751836461655),
    (2000.0, 100000.0, 16.438024706672877),
]
# confseq.boundaries.gamma_exponential_mixture_bound(v, 0.025, 300.0, 1.0, 0.025): the one-sided boundary at
# 0.025, i.e. the two-sided sequence by a union bound; ours averages the two directions at 1/alpha instead,
# so its half-width lies (slightly) inside.
CONFSEQ_BOUND = [
    (10.0, 19.552591079291233),
    (100.0, 34.393332807371735),
    (300.0, 55.66070018832079),
    (3000.0, 181.83322362168042),
    (100000.0, 1186.4788117271985),
]
RHO = mixture_rho(300.0, 0.05)


@pytest.mark.parametrize(("s", "v", "expected"), CONFSEQ_LOG_MIXTURE)
def test_gamma_exponential_mixture_equals_confseq(s, v, expected):
    assert float(_log_mixture(s, v, RHO)) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_gamma_exponential_mixture_where_confseq_has_no_answer():
    """For s + v + rho <= 0 confseq's closed form calls gamma_p with a negative argument and raises; ours
    takes the integral form there. Against scipy's quadrature of the defining mixture over lambda in
    [0, 1): the gamma prior on u = 1 - lambda, density proportional to u^(rho - 1) e^(-rho u) on (0, 1]."""
    for s, v in ((-400.0, 100.0), (-90.0, 30.0), (5.0, 5.0)):
        def integrand(u, s=s, v=v):
            lam = 1.0 - u
            psi = -np.log(u) - lam
            return np.exp(lam * s - psi * v + (RHO - 1) * np.log(u) - RHO * u)

        norm = integrate.quad(lambda u: np.exp((RHO - 1) * np.log(u) - RHO * u), 0, 1, limit=200)[0]
        value = integrate.quad(integrand, 0, 1, limit=400, epsabs=0, epsrel=1e-12)[0]
        assert float(_log_mixture(s, v, RHO)) == pytest.approx(np.log(value / norm), rel=1e-9)


@pytest.mark.parametrize(("v", "union_bound"), CONFSEQ_BOUND)
def test_two_sided_half_width_solves_the_average_and_lies_inside_the_union_bound(v, union_bound):
    x = _radius(v, RHO, 0.05)
    average = (np.exp(_log_mixture(x, v, RHO)) + np.exp(_log_mixture(-x, v, RHO))) / 2
    assert average == pytest.approx(20.0, rel=1e-9)
    assert 0.99 * union_bound < x <= union_bound
