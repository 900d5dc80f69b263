"""Paper B's outcome tests without folds on COMPAS (two groups, bootstrap intervals, the paper's tails and
two-sided), Holm/BH over them, and Cramér's V of each grouping with its noncentral chi-squared interval. Thin
adapter over fairstats.outcomes, fairstats.cramers_v and fairstats.multiplicity."""

import logging
import warnings

import numpy as np
import pandas as pd

from compendium.paper_b.authors import PAPER_B_TESTS
from compendium.publish.reporting import write_table
from compendium.publish.stable_floats import round_floats
from fairstats.cramers_v import cramers_v_interval
from fairstats.multiplicity import adjust_pvalues
from fairstats.outcomes import outcome_tests

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
logging.captureWarnings(True)
p = sm.params
data = pd.read_parquet(sm.input.data)
# the balance tests compare mean scores; COMPAS's score is the decile 1-10, here on [0.1, 1]
data["score"] = data["y_score"] / 10.0
seeds = np.random.SeedSequence(p.seed).spawn(1)

# Paper B's tails are about White - Black; COMPAS: a = Caucasian, b = African-American, favourable = low risk.
tails = {t.metric: t.alternative for t in PAPER_B_TESTS}
# Balance for the positive / negative class (II-L, II-M): left-tailed, a violation when White people get lower
# mean scores (probability of recidivism) than Black people with the same outcome.
tails.update(mean_score_pos="less", mean_score_neg="less")
common = dict(
    group="race",
    y_true="y_true",
    y_pred="y_pred",
    y_score="score",
    groups=tuple(p.groups),
    favorable=p.favorable,
    alpha=p.alpha,
    n_resamples=p.n_resamples,
    confidence_level=p.confidence_level,
)
paper_tails = outcome_tests(data, alternative=tails, rng=np.random.default_rng(seeds[0]), **common).to_frame()
two_sided = outcome_tests(
    data, alternative="two-sided", rng=np.random.default_rng(seeds[0]), **common
).to_frame()
table = paper_tails.assign(
    pvalue_two_sided=two_sided["pvalue"].to_numpy(),
    statistic_two_sided=two_sided["statistic"].to_numpy(),
)
for method, suffix in (("holm", "holm"), ("fdr_bh", "bh")):
    table = adjust_pvalues(table, method=method, pvalue="pvalue", alpha=p.alpha, suffix=suffix)
    table = adjust_pvalues(
        table, method=method, pvalue="pvalue_two_sided", alpha=p.alpha, suffix=f"{suffix}_two_sided"
    )
title = (
    f"Paper B's outcome tests without folds on COMPAS ({sm.wildcards.filter}): {p.groups[0]} - "
    f"{p.groups[1]}, favourable = {p.favorable} (low risk), score = decile / 10, {p.n_resamples} resamples"
)
# rounded at write: its mean scores and bootstrap bounds move in their last bits with the kernels (issue 21)
write_table(round_floats(table), sm.output.tests, digits=4, title=title)
logging.info(
    "%d tests; %d significant at the paper's alpha, %d after Holm, %d after BH (paper's tails)",
    len(table),
    int(table["significant"].sum()),
    int(table["significant_holm"].sum()),
    int(table["significant_bh"].sum()),
)

rows = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for name, columns in p.groupings.items():
        res = cramers_v_interval(
            data, group=list(columns), y_true="y_true", y_pred="y_pred", confidence_level=p.confidence_level
        )
        rows.append({"name": name, **res.to_record()})
        logging.info(
            "%s: V = %.4f, bias-corrected %.4f [%.4f, %.4f]",
            name,
            res.statistic,
            res.estimate,
            res.ci_low,
            res.ci_high,
        )
write_table(
    pd.DataFrame(rows),
    sm.output.cramers_v,
    digits=4,
    title="Cramér's V (confusion parity error), bias-corrected V and its noncentral chi-squared interval",
)
