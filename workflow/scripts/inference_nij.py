"""The equal confusion test, parity error and residuals on each NIJ model's out-of-fold predictions (race and
race x gender), with the noncentral chi-squared interval of Cramér's V and bootstrap intervals for the
White - Black disparities of each model. Thin adapter over fairstats.confusion, fairstats.cramers_v and
fairstats.bootstrap."""

import logging
import warnings

import numpy as np
import pandas as pd

from compendium.paper_b.predictions import read_predictions
from compendium.publish.reporting import write_table
from fairstats.bootstrap import bootstrap_disparity
from fairstats.confusion import equal_confusion_test
from fairstats.cramers_v import cramers_v_interval

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p = sm.params
predictions = read_predictions(sm.input.predictions)
people = pd.read_parquet(sm.input.table, columns=["ID", "Gender"])
frame = predictions.merge(people, on="ID", how="left", validate="many_to_one")
missing = frame["Gender"].isna()
if missing.any():
    raise ValueError(
        f"{sm.input.predictions}: {int(missing.sum())} predictions have an ID not in {sm.input.table}"
    )
frame["race"] = frame["race"].astype(str)
frame["gender"] = frame["Gender"].astype(str)
models = list(dict.fromkeys(frame["model"].astype(str)))
groupings = {"race": ["race"], "race x gender": ["race", "gender"]}
logging.info("%d predictions, models %s, favourable %s", len(frame), models, p.favorable)

equal, residuals, disparities = [], [], []
for m, model in enumerate(models):
    rows = frame[frame["model"].astype(str) == model]
    # seeds[2 * g + 1] (once the bootstrap of V) unused; kept so that the other streams stay as they were
    seeds = np.random.SeedSequence([p.seed, m]).spawn(len(groupings) * 2 + 1)
    for g, (name, columns) in enumerate(groupings.items()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = equal_confusion_test(
                rows,
                group=columns,
                y_true="y_true",
                y_pred="y_pred",
                alpha=p.alpha,
                n_resamples=p.n_resamples,
                rng=np.random.default_rng(seeds[2 * g]),
            )
            v = cramers_v_interval(
                rows, group=columns, y_true="y_true", y_pred="y_pred", confidence_level=p.confidence_level
            )
        for w in caught:
            logging.info("%s, %s: %s", model, name, w.message)
        record = res.to_record()
        equal.append(
            {
                "model": model,
                "grouping": name,
                **{k: record[k] for k in ("statistic", "pvalue", "df", "n", "cramers_v")},
                "cramers_v_estimate": v.estimate,
                "cramers_v_ci_low": v.ci_low,
                "cramers_v_ci_high": v.ci_high,
                "effect_size": res.effect_size,
                "min_expected": res.cochran_min_expected,
                "cochran_ok": res.cochran_ok,
                "pvalue_permutation": res.pvalue_permutation,
                "n_flag_3_29": record["n_flag_strict"],
                "n_flag_bonferroni": record["n_flag_bonferroni"],
                "notes": record["notes"],
            }
        )
        tidy = res.to_frame()
        residuals.append(
            pd.DataFrame(
                {
                    "model": model,
                    "grouping": name,
                    "group": tidy["group"],
                    "cell": tidy["cell"],
                    "observed": tidy["observed"],
                    "expected": tidy["expected"],
                    "adjusted_residual": tidy["residual"],
                    "flag_3_29": tidy["flag_strict"],
                    "flag_bonferroni": tidy["flag_bonferroni"],
                }
            )
        )
    # The battery's disparities on the pooled out-of-fold predictions (people resampled, folds ignored).
    d = bootstrap_disparity(
        rows,
        group="race",
        y_true="y_true",
        y_pred="y_pred",
        groups=tuple(p.groups),
        metrics=list(p.metrics),
        favorable=p.favorable,
        n_resamples=p.n_resamples,
        confidence_level=p.confidence_level,
        rng=np.random.default_rng(seeds[-1]),
        warn=False,
    )
    disparities.append(d.to_frame().assign(model=model))
    logging.info("%s: done", model)

equal = pd.DataFrame(equal)
residuals = pd.concat(residuals, ignore_index=True)
disparities = pd.concat(disparities, ignore_index=True)
disparities = disparities[["model", *[c for c in disparities.columns if c != "model"]]]
preset = sm.wildcards.preset
write_table(
    equal,
    sm.output.equal_confusion,
    digits=4,
    title=f"Equal confusion test on the NIJ models' out-of-fold predictions ({preset} preset)",
)
write_table(
    residuals, sm.output.residuals, digits=3, title=f"Adjusted residuals, NIJ models ({preset} preset)"
)
write_table(
    disparities,
    sm.output.disparities,
    digits=4,
    title=f"{p.groups[0]} - {p.groups[1]} disparities with bootstrap intervals, pooled out-of-fold "
    f"predictions ({preset} preset; favourable = {p.favorable})",
)
