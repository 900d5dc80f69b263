"""Lab 6, reading a paper critically: answers and common wrong answers."""

from __future__ import annotations

from compendium.course.checks import Choice, Number, Raised, Wrong

AUTHORS = "the authors' per-fold results of paper B (data/raw/paper-b-authors), compendium.paper_b.authors"
_PRINTED = "paper B Table II (data/published/paper-b-tables.csv)"

ANSWERS = {
    "6.1": Number(
        11.18157257834444,
        # the printed 31.76 holds +-0.005, a relative 1.6e-4: a ratio to it is known no better
        rtol=0.005 / 31.76,
        hint="the printed 31.76 divided by scipy.stats.ttest_ind(white, black).statistic",
        source=f"{_PRINTED} and {AUTHORS}; erratum: results/default/nij/clean/tables/paper_b_erratum.csv",
        wrong=(
            Wrong(8.080898788609144,
                  "that is the ratio to the paired t (ttest_rel): the paper says two-sample, use ttest_ind",
                  why="31.76 / ttest_rel(white, black).statistic"),
            Wrong(0.08943285866039259,
                  "the ratio the other way round: the printed statistic over yours",
                  why="ttest_ind(...).statistic / 31.76"),
        ),
    ),
    "6.2": Choice(
        "d",
        {"a": "with the variance the factor would vary with the spread of the data",
         "b": "the paired t of these data is 3.93, not 31.76",
         "c": "degrees of freedom change the p-value, not the statistic"},
        source="compendium.paper_b.as_published.fold_ttest_as_published Notes: t_paper = sqrt(K/2) t_pooled",
    ),
    "6.3": Number(
        112.19022900138575,
        hint="(mean W - mean B) / (s_p (1/K + 1/K)) on random forest's rates, s_p from the two variances "
             "with ddof=1",
        source=f"{_PRINTED} prints 112.19 for random forest; fold_ttest_as_published statistic_paper_formula",
        wrong=(
            Wrong(10.034599138334675,
                  "that is the correct pooled t (with the square root): the exercise asks for the statistic "
                  "*with* the mistake",
                  why="ttest_ind on random forest"),
            Wrong(31.75649868021885, "that is logistic regression: use model == 'rf'", why="lr's statistic"),
            Wrong(1569.7663300837248,
                  "that divides by the variance s_p^2: the pooled t divides by s_p",
                  why="s_p^2 instead of s_p"),
            Wrong(224.3804580027715,
                  "the denominator has 1/K + 1/K (two groups of K folds), not 1/K once",
                  why="s_p / K"),
        ),
    ),
    "6.4": Number(
        1.4142135623730951,
        rtol=1e-3,  # the floating-point error of pinv differs from pair to pair (the lesson of 6.5)
        hint="V = np.cov(np.vstack([x, y]), rowvar=False); d = sqrt(e @ pinv(V) @ e), e = x - y",
        source="compendium.paper_b.authors_awareness (d^2 = 2 for every pair of distinct vectors)",
        wrong=(
            Wrong(Raised(ValueError, "matmul"),
                  "np.cov treats each row as a variable unless rowvar=False: without it V is 2 x 2, the "
                  "shapes do not match; V must be features x features",
                  why="np.cov(np.vstack([x, y]))"),
            Wrong(2.0, "that is d squared: take the square root", why="e @ pinv(V) @ e"),
        ),
    ),
    "6.5": Choice(
        "b",
        {"a": "print the distances of all the pairs: do they differ?",
         "c": "the distance of every pair is the same, whoever is in it",
         "d": "would standardising the features change a distance that is the same for all?"},
        source="compendium.paper_b.authors_awareness docstring: V is rank one, d = sqrt(2)",
    ),
}
