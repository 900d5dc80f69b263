"""Lab 7, the COMPAS debate: answers and common wrong answers.

The data: COMPAS general re-offence file, ProPublica's filter (preset propublica_general, 6,172 people), the
3,175 African-American and 2,103 Caucasian defendants; ``y_pred`` = Medium or High risk.
"""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Wrong

DATA = "preset propublica_general, African-American (3,175) and Caucasian (2,103) defendants"
_COUNTS = "African-American TP 1188, FP 641, FN 473, TN 873; Caucasian TP 414, FP 282, FN 408, TN 999"

ANSWERS = {
    "7.1": Number(
        0.4233817701453104,
        hint="among the African-American defendants with y_true == 0, the share with y_pred == 1",
        source=f"{DATA}: 641 / (641 + 873); fairstats.group_metrics(...)['fpr']",
        wrong=(
            Wrong(0.35046473482777474,
                  "that is the share of the *labelled risky* who did not re-offend (1 - PPV): the FPR "
                  "divides by those who did not re-offend",
                  why="641 / (641 + 1188)"),
            Wrong(0.20188976377952755,
                  "that divides by every African-American defendant: the FPR divides by those who did not "
                  "re-offend",
                  why="641 / 3175"),
            Wrong(0.2847682119205298,
                  "that is the false negative rate: among those who did *not* re-offend, who was labelled "
                  "risky?",
                  why="473 / (473 + 1188)"),
            Wrong(0.5766182298546896,
                  "that is the share labelled *low* risk among those who did not re-offend (the TNR)",
                  why="873 / (641 + 873)"),
            Wrong(0.22014051522248243,
                  "that is the Caucasian group: keep race == 'African-American'",
                  why="282 / (282 + 999)"),
        ),
    ),
    "7.2": Number(
        0.05470767896532869,
        hint="PPV: among those with y_pred == 1, the share with y_true == 1; per group, then "
             "African-American minus Caucasian",
        source=f"{DATA}: 1188 / 1829 - 414 / 696; {_COUNTS}",
        wrong=(
            Wrong(-0.05470767896532869,
                  "the order: African-American minus Caucasian (or you took 1 - PPV, the false discovery "
                  "rate)",
                  why="Caucasian minus African-American"),
            Wrong(-0.061432911857608574,
                  "that is the negative predictive value (among those labelled low risk): PPV is about those "
                  "labelled Medium or High",
                  why="NPV difference"),
            Wrong(0.203241254922828,
                  "that is the difference of the false positive rates (exercise 7.1's quantity): PPV "
                  "conditions on the label, not on the outcome",
                  why="FPR difference"),
        ),
    ),
    "7.3": Number(
        0.1346034524844426,
        hint="p_decile = two.groupby('y_score')['y_true'].transform('mean'); "
             "recalibration_tests(...).comparisons['pvalue']",
        source=f"fairstats.recalibration_tests(group='race', y_score=p_decile) on {DATA}: LR 4.011 on 2 df",
        wrong=(
            Wrong(4.010844424283505,
                  "that is the likelihood-ratio statistic: give its p-value",
                  why="comparisons['statistic']"),
            Wrong(0.13751321413668086,
                  "that decile map counts every race: take the shares among the African-American and "
                  "Caucasian defendants (the frame two)",
                  why="p_decile from all 6,172 people"),
        ),
    ),
    "7.4": Choice(
        "a",
        {"b": "the recalibration test did not reject; 'with more people' is a guess, not a finding",
         "c": "the equal confusion test's p-value is about 1e-69: that is not chance",
         "d": "both claims were tested above; the base rates are why they conflict, not why they cannot be "
              "tested"},
        source="the lab's tests: equal confusion chi2 322.4 (p 1e-69); recalibration LR p 0.135",
    ),
    "7.5": Number(
        0.3763752422644129,
        hint="p / (1 - p) x (1 - PPV) / PPV x (1 - FNR), p the African-American base rate, PPV and FNR the "
             "Caucasian ones",
        source=f"Chouldechova (2017) on {DATA}: base rate 1661 / 3175; Caucasian PPV 414 / 696, FNR 408 / "
               "822",
        wrong=(
            Wrong(0.22014051522248246,
                  "that uses the Caucasian base rate: the question keeps the African-American one (and so "
                  "gives back the Caucasian FPR)",
                  why="Caucasian p"),
            Wrong(0.1794746824530145,
                  "the identity uses the odds p / (1 - p), not p",
                  why="p instead of odds"),
            Wrong(0.3709205286084069,
                  "the last factor is 1 - FNR (the true positive rate), not the FNR",
                  why="FNR instead of 1 - FNR"),
            Wrong(0.4233817701453104,
                  "that is their actual FPR (with their own PPV and FNR): use the Caucasian PPV and FNR",
                  why="own PPV and FNR"),
            Wrong(0.8111917285744092,
                  "the PPV factor is (1 - PPV) / PPV, not its inverse",
                  why="PPV / (1 - PPV)"),
        ),
    ),
    "7.6": Number(
        0.1109705741120654,
        hint="s_group = two.groupby(['race', 'y_score'])['y_true'].transform('mean'); the mean of s_group "
             "where y_true == 0, per race; African-American minus Caucasian",
        source=f"{DATA}: mean within-group calibrated score of non-re-offenders, 0.4559 - 0.3449",
        wrong=(
            Wrong(0.08528965360194568,
                  "that score is group-blind (shares per decile over both groups): calibrate within each "
                  "group, per race and decile",
                  why="p_decile instead of s_group"),
            Wrong(0.12196827006330596,
                  "that is the re-offenders (balance for the positive class): take y_true == 0",
                  why="mean score of re-offenders"),
            Wrong(0.1322794208498545,
                  "that averages over everybody, which gives the base rates' difference: take the "
                  "non-re-offenders only",
                  why="mean of s_group per race"),
            Wrong(-0.1109705741120654, "the order: African-American minus Caucasian", why="sign"),
        ),
    ),
    "7.7": Choice(
        "d",
        {"a": "the result is about three criteria together; it does not say which one is 'the' fairness",
         "b": "calibrated scores with different base rates give different error rates at a shared threshold",
         "c": "the identity holds exactly in every data set: more data cannot remove it"},
        source="Kleinberg, Mullainathan & Raghavan (2016), Theorem 1.1; Chouldechova (2017)",
    ),
}
