r"""Model against model: is the new model fairer than the baseline, on the same people?

:func:`disparity_change` compares two models' decisions (and scores) on the same people: for each group
against a reference group and each metric, the change of the disparity
:math:`\Delta = D_{new} - D_{base}`, with an interval and tests that respect the pairing (each person is
scored by both models), a verdict ``fairer`` / ``less fair`` / ``equivalent`` / ``inconclusive`` /
``undefined`` after Holm's adjustment, and the same for the models' accuracy (and AUC), so that a trade-off
shows. Without folds the variance is the paired delta method on the counts of (outcome, baseline decision, new
decision) per group; with out-of-fold predictions over shared folds, the corrected resampled t over the folds.
:func:`fold_disparity_change` runs the fold version on per-fold values the user already has (e.g. published
per-fold rates). Comparing two models' intervals as if they had been computed on different people is the
mistake this avoids: the models' errors on the same people are correlated, and the paired variance is
smaller.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._change_tests import ADJUSTED, COLUMNS, Options, finish, fold_moments, verdicts
from fairstats._paired_people import count_iv, fold_values, people_moments
from fairstats._result import Result
from fairstats._validation import as_list, level_iv, require_columns, require_frame, require_no_nan
from fairstats.equivalence import DEFAULT_MARGIN, DEFAULT_MARGIN_RATIO, margin_iv
from fairstats.metrics import METRICS
from fairstats.power import DEFAULT_POWER

__all__ = [
    "CHANGE_METRICS",
    "CHANGE_VERDICTS",
    "DISPARITY_CHANGE_COLUMNS",
    "DisparityChangeResult",
    "disparity_change",
    "disparity_change_verdicts",
    "fold_disparity_change",
]

#: Columns of :attr:`DisparityChangeResult.table`, in order.
DISPARITY_CHANGE_COLUMNS = COLUMNS

#: The verdicts: ``fairer``/``less fair`` (the fairness family), ``better``/``worse`` (the accuracy family).
CHANGE_VERDICTS = ("fairer", "less fair", "better", "worse", "equivalent", "inconclusive", "undefined")

#: Default metrics of :func:`disparity_change`: each of the audit's rates once (FNR and TNR are 1 - TPR and
#: 1 - FPR: on the difference scale their changes are those of TPR and FPR), and with scores the mean score
#: per outcome class and the AUC.
CHANGE_METRICS = ("ppr", "tpr", "fpr", "ppv", "npv", "accuracy", "fn_fp_ratio")
_SCORE_METRICS = ("mean_score_pos", "mean_score_neg", "auc")
_ALL_METRICS = (*METRICS, "auc")
_SCALES = ("difference", "ratio")
_PSEUDO_COUNT = 0.5


@dataclass(frozen=True, eq=False)
class DisparityChangeResult(Result):
    r"""The change of each disparity from a baseline model to a new one on the same people, and of accuracy.

    Attributes
    ----------
    table : pandas.DataFrame
        Columns :data:`DISPARITY_CHANGE_COLUMNS`; one row per (grouping, group other than the reference,
        metric) of the ``"fairness"`` family and one per metric of the ``"accuracy"`` family (the models'
        accuracy, and AUC with scores, over everyone: ``grouping``, ``group``, ``reference`` empty).

        * ``value_baseline``, ``value``: the disparity :math:`D` of the baseline and of the new model,
          the group's metric minus the reference's (``scale="ratio"``: divided by it); for the accuracy
          family the two models' accuracy (AUC).
        * ``estimate``: :math:`\Delta = D_{new} - D_{base}` (ratio scale: :math:`D_{new} / D_{base}`), with
          ``ci_low``, ``ci_high`` at ``confidence_level``; ``statistic`` its z (or t, with ``df`` finite).
        * ``pvalue_better``, ``pvalue_worse``: one-sided p-values of "the new model's disparity is smaller
          (larger) in size than the baseline's", :math:`|D_{new}| < |D_{base}|` (accuracy family: the new
          model is more (less) accurate); ``pvalue`` = min(1, 2 min of the two), ``pvalue_adj`` Holm's and
          ``pvalue_bh`` Benjamini–Hochberg's over the row's family.
        * ``equivalence_pvalue`` (TOST: :math:`|\Delta|` within the margin, ``margin_low``, ``margin_high``),
          ``equivalence_pvalue_adj`` (Holm), ``mde`` (the change the test detects with ``power``).
        * ``verdict`` (:data:`CHANGE_VERDICTS`), ``verdict_note``; ``n``, ``n_reference`` (people),
          ``n_changed``, ``n_changed_reference`` (people whose two decisions differ), ``n_folds`` (folds
          used, NaN without folds), ``method``, ``reason`` (why a row is undefined, "" otherwise).
    inference : str
        ``"people"`` (paired delta method) or ``"folds"`` (corrected resampled t).
    scale : str
        ``"difference"`` or ``"ratio"`` (of the rate metrics; scores and the accuracy family are always
        differences).
    alpha, confidence_level, margin, margin_ratio, power : float
        As passed (``margin_ratio`` NaN on the difference scale).
    """

    table: pd.DataFrame
    inference: str
    scale: str
    alpha: float
    confidence_level: float
    margin: float
    margin_ratio: float
    power: float

    _table = "table"

    @classmethod
    def combine(cls, results: Sequence[DisparityChangeResult]) -> DisparityChangeResult:
        """One result from several (e.g. one per grouping of the same people and models): the rows of all,
        the accuracy family's rows once, and Holm, Benjamini–Hochberg and the verdicts over the union.

        Raises ``ValueError`` when the results differ in inference, scale, alpha, confidence level, margins or
        power, or when two hold the same comparison.
        """
        results = list(results)
        if not results or not all(isinstance(r, DisparityChangeResult) for r in results):
            raise TypeError("`results` must be a non-empty sequence of DisparityChangeResult")
        first = results[0]
        keys = ("inference", "scale", "alpha", "confidence_level", "margin", "margin_ratio", "power")
        for r in results[1:]:
            for k in keys:
                a, b = getattr(first, k), getattr(r, k)
                if a != b and not (isinstance(a, float) and np.isnan(a) and np.isnan(b)):
                    raise ValueError(
                        f"`results` differ in {k}: {a!r} and {b!r}; combine results of one analysis"
                    )
        table = pd.concat([r.table for r in results], ignore_index=True)
        accuracy = table["family"] == "accuracy"
        keep = ~(accuracy & table.duplicated(subset=["family", "metric"]))
        table = table[keep].reset_index(drop=True)
        if table.duplicated(subset=["grouping", "group", "reference", "family", "metric"]).any():
            raise ValueError("`results` hold the same comparison twice (grouping, group, reference, metric)")
        table = disparity_change_verdicts(table, alpha=first.alpha)
        return cls(
            table,
            first.inference,
            first.scale,
            first.alpha,
            first.confidence_level,
            first.margin,
            first.margin_ratio,
            first.power,
        )


def disparity_change_verdicts(
    table: pd.DataFrame, *, alpha: float = 0.05, by: str | Sequence[str] | None = None
) -> pd.DataFrame:
    """Holm, Benjamini–Hochberg and the verdicts again, over a table of changes gathered from several results.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :attr:`DisparityChangeResult.table` (e.g. of several pairs of models, with columns naming the
        pair); their adjusted p-values and verdicts are replaced.
    alpha : float, default 0.05
        Family-wise level.
    by : str or list of str, optional
        Columns whose values make separate families besides ``family`` (e.g. the source of the predictions);
        default: one fairness and one accuracy family over the whole table.

    Returns
    -------
    pandas.DataFrame
        ``table``'s other columns (e.g. those naming the pair), then :data:`DISPARITY_CHANGE_COLUMNS`, in the
        rows' order.

    Raises
    ------
    ValueError
        A column of :data:`DISPARITY_CHANGE_COLUMNS` or of ``by`` is missing, or ``alpha`` is out of range.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"g": rng.choice(["a", "b"], 600), "y": rng.integers(0, 2, 600),
    ...                    "m1": rng.integers(0, 2, 600), "m2": rng.integers(0, 2, 600)})
    >>> kw = dict(group="g", y_true="y", metrics=["ppr"])
    >>> one = disparity_change(df, y_pred="m2", y_pred_baseline="m1", **kw).table.assign(pair="1-2")
    >>> two = disparity_change(df, y_pred="m1", y_pred_baseline="m2", **kw).table.assign(pair="2-1")
    >>> disparity_change_verdicts(pd.concat([one, two]), by="pair").columns[:2].tolist()
    ['pair', 'grouping']
    """
    table = require_frame(table, name="table")
    by_columns = [] if by is None else as_list(by, name="by")
    require_columns(table, [*DISPARITY_CHANGE_COLUMNS, *by_columns], where="`table`")
    alpha = level_iv(alpha, "alpha")
    keys = [c for c in table.columns if c not in DISPARITY_CHANGE_COLUMNS]
    keep = [*keys, *(c for c in DISPARITY_CHANGE_COLUMNS if c not in ADJUSTED)]
    return verdicts(table[keep].reset_index(drop=True), alpha, by_columns, keys)


# --------------------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------------------


def _options_iv(scale, alpha, confidence_level, margin, margin_ratio, power) -> Options:
    if scale not in _SCALES:
        raise ValueError(f"`scale` must be one of {list(_SCALES)}, got {scale!r}")
    if margin_ratio is not None and scale != "ratio":
        raise ValueError("`margin_ratio` applies to the ratio scale only; pass scale='ratio' or leave it out")
    ratio = float("nan")
    if scale == "ratio":
        ratio = margin_iv(DEFAULT_MARGIN_RATIO if margin_ratio is None else margin_ratio, "margin_ratio")
    return Options(
        scale,
        level_iv(alpha, "alpha"),
        level_iv(confidence_level, "confidence_level"),
        margin_iv(margin, "margin"),
        ratio,
        level_iv(power, "power"),
    )


def _metrics_iv(metrics, scores: bool) -> tuple[str, ...]:
    if metrics is None:
        return CHANGE_METRICS + (_SCORE_METRICS if scores else ())
    metrics = tuple(dict.fromkeys(as_list(metrics, name="metrics")))
    for m in metrics:
        if m not in _ALL_METRICS:
            raise ValueError(f"`metrics`: unknown metric {m!r}; choose from {list(_ALL_METRICS)}")
        if m in _SCORE_METRICS and not scores:
            raise ValueError(f"`metrics`: {m!r} needs `y_score` and `y_score_baseline`")
    return metrics


# --------------------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------------------


def disparity_change(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    y_pred_baseline: str,
    y_score: str | None = None,
    y_score_baseline: str | None = None,
    fold: str | None = None,
    reference: object = None,
    metrics: Sequence[str] | None = None,
    scale: str = "difference",
    favorable: int = 1,
    pos_label: object = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    power: float = DEFAULT_POWER,
    pseudo_count: float | None = None,
    test_train_ratio: float | None = None,
) -> DisparityChangeResult:
    r"""Is the new model fairer than the baseline on the same people? The paired change of each disparity.

    Parameters
    ----------
    data : data frame or Counts
        One row per person with both models' decisions (pandas, polars, pyarrow, DuckDB, Spark: counted in
        its engine), or :class:`fairstats.Counts` over the columns used.
    group : str or list of str
        Sensitive attribute column(s); several columns make intersectional groups (one grouping; combine
        the results of several groupings with :meth:`DisparityChangeResult.combine`).
    y_true : str
        Binary outcome column (0/1).
    y_pred, y_pred_baseline : str
        The new model's and the baseline model's decisions (0/1) for the same people.
    y_score, y_score_baseline : str, optional
        Both models' scores (any real numbers, higher meaning more likely ``pos_label``): the mean score per
        outcome class and the AUC are compared too.
    fold : str, optional
        Column of the cross-validation test fold of out-of-fold predictions, the folds shared by both
        models: the corrected resampled t over the folds instead of the delta method over people.
    reference : optional
        The group every other group is compared with (default: the largest).
    metrics : list of str, optional
        Of :data:`fairstats.METRICS` and ``"auc"`` (default :data:`CHANGE_METRICS`, with scores also the
        mean scores and the AUC).
    scale : {"difference", "ratio"}, default "difference"
        Disparity of a rate as the group's minus the reference's, or divided by it (the change then is the
        ratio of the two models' ratios). Scores and the accuracy family are differences.
    favorable : {0, 1}, default 1
        Label of the favourable outcome and decision (the rates' "positive").
    pos_label : optional
        The outcome the scores predict (the AUC's cases; default 1 with 0/1 labels).
    alpha : float, default 0.05
        Family-wise level of the verdicts (Holm within each family) and of the equivalence tests.
    confidence_level : float, default 0.95
        Of the intervals.
    margin : float, default 0.1
        Equivalence margin of a change on the difference scale (rates, scores, AUC, accuracy).
    margin_ratio : float, optional
        Ratio scale only: the change is equivalent when the ratio of ratios lies in
        [``margin_ratio``, 1 / ``margin_ratio``] (default 0.8, the four-fifths band).
    power : float, default 0.8
        Of the minimum detectable change ``mde``.
    pseudo_count : float, optional
        Without ``fold``: added to each of the eight (outcome, baseline decision, decision) cells of a group
        for the variance only (default 0.5; 0 gives the plain delta method). Not with ``fold``.
    test_train_ratio : float, optional
        With ``fold``: :math:`n_{test}/n_{train}` of the corrected t (default :math:`1/(K-1)`, K folds).

    Returns
    -------
    DisparityChangeResult

    Raises
    ------
    ValueError, TypeError
        A missing column or value, labels that are not 0/1, a score that is not a finite number, fewer than
        two groups (or folds), an unknown reference or metric, an option out of range or given where it
        does not apply (``margin_ratio`` without the ratio scale, ``pseudo_count`` with ``fold``,
        ``test_train_ratio`` without it, ``pos_label`` without scores).

    Warns
    -----
    UndefinedTestWarning
        A row whose change cannot be tested (a metric undefined in a group, a rate of 0 on the ratio scale,
        too few positives for an AUC, fewer than two folds): NaN p-values, verdict ``undefined`` and a reason.

    Notes
    -----
    For a group :math:`g`, the reference :math:`r` and a metric :math:`m`, the disparity of a model is
    :math:`D = m_g - m_r` (``scale="ratio"``: :math:`\log(m_g / m_r)`), and the change is
    :math:`\Delta = D_{new} - D_{base}`.

    *Without folds*, the people of a group fall into the eight cells of (outcome, baseline decision, new
    decision), with shares :math:`p` out of :math:`N`. Each rate is :math:`m = w_{num}^\top p /
    w_{den}^\top p` (e.g. TPR: the favourable decisions among the favourable outcomes), for either model, and
    the pair :math:`(m_{base}, m_{new})` has the multinomial delta-method covariance

    .. math:: C_g = G\, \mathrm{diag}(\tilde p)\, G^\top / \tilde N, \qquad
              G_k = \frac{w_{num,k} - m_k\, w_{den,k}}{w_{den,k}^\top \tilde p}

    (Moskowitz & Pepe 2006 derive it for two predictive values; on the log scale
    :math:`\mathrm{diag}(1/m)\, C_g\, \mathrm{diag}(1/m)`). The shares :math:`\tilde p` carry
    ``pseudo_count`` = 0.5 more people in each cell, :math:`\tilde N = N + 8 \times 0.5`: for TPR, FPR, FNR
    and TNR this is exactly Agresti & Min's (2005) adjusted variance of a paired difference (as DTComPair's
    ``sesp.diff.ci(ci.method = "agresti-min")``), which keeps the Wald interval's coverage when few people's
    decisions differ, and never gives a zero variance. Two scores' AUCs on the same people have DeLong's
    paired covariance (DeLong et al. 1988), two mean scores their sample covariance. Groups hold different
    people, so :math:`\mathrm{Cov}(D_{base}, D_{new}) = C_g + C_r` and

    .. math:: \mathrm{Var}(\Delta) = c_{11} + c_{22} - 2 c_{12}, \qquad
              z = \Delta / \sqrt{\mathrm{Var}(\Delta)}.

    *With folds*, each fold :math:`f` gives :math:`D_{base,f}` and :math:`D_{new,f}` on its test people
    (the same for both models); :math:`\Delta_f = D_{new,f} - D_{base,f}` over the :math:`J` folds where
    both are defined has the corrected resampled t (Nadeau & Bengio 2003, K-fold form of Bouckaert & Frank
    2004), :math:`t = \bar\Delta / \sqrt{(1/J + r) s^2_\Delta}` on :math:`J - 1` df, :math:`r = 1/(K-1)`.

    *Fairer* means a smaller disparity in size, :math:`|D_{new}| < |D_{base}|`, which holds exactly when
    :math:`u = D_{new} - D_{base}` and :math:`v = D_{new} + D_{base}` have opposite signs. Its test is the
    union of two intersection–union tests (Berger & Hsu 1996):
    :math:`p_{better} = \min\{\max(P_{u<0}, P_{v>0}), \max(P_{u>0}, P_{v<0})\}` from the one-sided
    p-values of :math:`u` and :math:`v` (:math:`\mathrm{Var}(v) = c_{11} + c_{22} + 2 c_{12}`);
    :math:`p_{worse}` likewise for :math:`|D_{new}| > |D_{base}|`; ``pvalue`` = min(1, 2 min). When both
    disparities are far from 0 on one side, :math:`p_{better}` is the one-sided p-value of :math:`\Delta` and
    ``pvalue`` its two-sided one. A disparity that changes sign (:math:`D_{base} = 0.1`,
    :math:`D_{new} = -0.1`) is neither fairer nor less fair: the interval of :math:`\Delta` excludes 0 but
    the verdict stays ``inconclusive``, with a note. Beside it, the TOST of :math:`|\Delta| <` ``margin``
    (which implies :math:`||D_{new}| - |D_{base}|| <` ``margin``). :func:`fairstats.three_way_verdicts`
    sets both after Holm within each family; a significant change reads ``fairer`` or ``less fair`` by its
    direction. The accuracy family tests :math:`\Delta` = accuracy (AUC) of the new model minus the
    baseline's over everyone, ``better``/``worse``.

    The delta method treats the two fitted models as given and asks about these people's population; the
    fold version asks about the two learning procedures, whose models vary with the training folds.

    References
    ----------
    C. S. Moskowitz and M. S. Pepe, "Comparing the predictive values of diagnostic tests: sample size and
    analysis for paired study designs", Clinical Trials 3(3):272-279, 2006; A. Agresti and Y. Min, "Simple
    improved confidence intervals for comparing matched proportions", Statistics in Medicine 24:729-740,
    2005; E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44(3):837-845, 1988; C. Nadeau and
    Y. Bengio, "Inference for the Generalization Error", Machine Learning 52(3):239-281, 2003; R. R.
    Bouckaert and E. Frank, PAKDD 2004; R. L. Berger and J. C. Hsu, Statistical Science 11(4), 1996.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> g = rng.choice(["a", "b"], n)
    >>> y = rng.binomial(1, 0.5, n)
    >>> old = np.where(g == "a", rng.binomial(1, 0.6, n), rng.binomial(1, 0.4, n))
    >>> new = np.where(rng.random(n) < 0.4, old, rng.binomial(1, 0.5, n))  # both groups nearer 0.5
    >>> df = pd.DataFrame({"g": g, "y": y, "old": old, "new": new})
    >>> res = disparity_change(df, group="g", y_true="y", y_pred="new", y_pred_baseline="old",
    ...                        metrics=["ppr"])
    >>> res.table.loc[0, ["metric", "verdict"]].tolist()
    ['ppr', 'fairer']
    """
    options = _options_iv(scale, alpha, confidence_level, margin, margin_ratio, power)
    if fold is None and test_train_ratio is not None:
        raise ValueError("`test_train_ratio` applies to the fold version; give `fold` or leave it out")
    if fold is not None and pseudo_count is not None:
        raise ValueError(
            "`pseudo_count` applies without `fold` (the delta method over people); with `fold` the "
            "variance comes from the folds"
        )
    if pseudo_count is None:
        pseudo_count = _PSEUDO_COUNT
    if (
        isinstance(pseudo_count, bool)
        or not isinstance(pseudo_count, numbers.Real)
        or not np.isfinite(float(pseudo_count))
        or pseudo_count < 0
    ):
        raise ValueError(f"`pseudo_count` must be a finite number >= 0, got {pseudo_count!r}")
    counted = count_iv(
        data,
        group,
        y_true,
        y_pred,
        y_pred_baseline,
        y_score,
        y_score_baseline,
        fold,
        favorable,
        pos_label,
        reference,
    )
    chosen = _metrics_iv(metrics, y_score is not None)
    if fold is None:
        rows = people_moments(counted, chosen, options, float(pseudo_count))
        inference = "people"
    else:
        ratio_k = _ratio_iv(test_train_ratio, counted.n_folds)
        per_fold, overall = fold_values(counted, chosen)
        sizes = {g: float(counted.weight[counted.group == i].sum()) for i, g in enumerate(counted.groups)}
        sizes[""] = float(counted.weight.sum())
        rows = fold_moments(
            per_fold,
            overall,
            grouping=counted.grouping,
            reference=counted.reference,
            options=options,
            ratio_k=ratio_k,
            sizes=sizes,
        )
        inference = "folds"
    return DisparityChangeResult(
        finish(rows, options),
        inference,
        options.scale,
        options.alpha,
        options.confidence_level,
        options.margin,
        options.margin_ratio,
        options.power,
    )


def _ratio_iv(test_train_ratio, k: int) -> float:
    if test_train_ratio is None:
        return 1.0 / (k - 1)
    value = test_train_ratio
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"`test_train_ratio` must be a positive finite number, got {value!r}")
    return float(value)


_PER_FOLD_COLUMNS = ("fold", "group", "metric", "value", "value_baseline")


def _per_fold_iv(frame: object, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    frame = require_frame(frame, name=name)
    require_columns(frame, columns, where=f"`{name}`")
    require_no_nan(frame, [c for c in columns if not c.startswith("value")], where=f"`{name}`")
    for c in ("value", "value_baseline"):
        if pd.api.types.is_bool_dtype(frame[c]) or not pd.api.types.is_numeric_dtype(frame[c]):
            raise ValueError(
                f"`{name}`: column {c!r} must hold numbers (NaN: undefined in that fold), got "
                f"{frame[c].dtype}"
            )
    keys = [c for c in columns if not c.startswith("value")]
    twice = frame.duplicated(subset=keys)
    if twice.any():
        first = frame.loc[twice, keys].iloc[0].to_dict()
        raise ValueError(f"`{name}`: {first!r} occurs more than once")
    unknown = sorted(set(frame["metric"]) - set(_ALL_METRICS), key=str)
    if unknown:
        raise ValueError(f"`{name}`: unknown metric {unknown[0]!r}; choose from {list(_ALL_METRICS)}")
    return frame


def fold_disparity_change(
    per_fold: pd.DataFrame,
    *,
    reference: object,
    grouping: str = "group",
    overall: pd.DataFrame | None = None,
    scale: str = "difference",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    power: float = DEFAULT_POWER,
    test_train_ratio: float | None = None,
) -> DisparityChangeResult:
    r"""The fold version of :func:`disparity_change` on per-fold values the user already has.

    Parameters
    ----------
    per_fold : pandas.DataFrame
        One row per (fold, group, metric): ``fold``, ``group``, ``metric`` (of :data:`fairstats.METRICS`
        and ``"auc"``), ``value`` (the new model's metric in that fold and group) and ``value_baseline`` (the
        baseline's, on the same test people); NaN where a metric is undefined in a fold.
    reference : object
        The group every other group is compared with (a value of ``group``).
    grouping : str, default "group"
        Name of the grouping in the table.
    overall : pandas.DataFrame, optional
        ``fold, metric, value, value_baseline`` over everyone (e.g. each model's accuracy per fold): the
        accuracy family. Default: no accuracy family.
    scale, alpha, confidence_level, margin, margin_ratio, power, test_train_ratio
        As :func:`disparity_change` (``test_train_ratio`` default :math:`1/(K-1)` with K the folds of
        ``per_fold``).

    Returns
    -------
    DisparityChangeResult
        ``inference`` ``"folds"``; ``n``, ``n_changed`` NaN (per-fold values hold no people).

    Raises
    ------
    ValueError, TypeError
        A missing column or key value, a value that is not a number, a repeated (fold, group, metric), an
        unknown metric or reference, fewer than two folds, options as :func:`disparity_change`.

    Notes
    -----
    As :func:`disparity_change` with ``fold``: per fold :math:`\Delta_f = D_{new,f} - D_{base,f}` and
    :math:`D_{new,f} + D_{base,f}`, the corrected resampled t over the folds where both are defined
    (Nadeau & Bengio 2003), the union of intersection–union tests for "fairer", Holm within each family.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [{"fold": f, "group": g, "metric": "tpr", "value": 0.60 + 0.01 * (f % 3),
    ...          "value_baseline": 0.70 if g == "b" else 0.50 + 0.01 * (f % 2)}
    ...         for f in range(10) for g in ("a", "b")]
    >>> res = fold_disparity_change(pd.DataFrame(rows), reference="a")
    >>> res.table.loc[0, "verdict"]
    'fairer'
    """
    options = _options_iv(scale, alpha, confidence_level, margin, margin_ratio, power)
    per_fold = _per_fold_iv(per_fold, "per_fold", _PER_FOLD_COLUMNS)
    if overall is not None:
        overall = _per_fold_iv(overall, "overall", ("fold", "metric", "value", "value_baseline"))
    if not isinstance(grouping, str):
        raise TypeError(f"`grouping` must be a string, got {grouping!r}")
    per_fold = per_fold.assign(group=per_fold["group"].astype(str))
    groups = sorted(per_fold["group"].unique())
    if str(reference) not in groups:
        raise ValueError(f"`reference`: group {reference!r} does not occur in `per_fold`; groups: {groups!r}")
    if len(groups) < 2:
        raise ValueError(f"`per_fold` has {len(groups)} group {groups!r}; a disparity needs at least 2")
    folds = per_fold["fold"].unique()
    if folds.size < 2:
        raise ValueError(f"`per_fold` has {folds.size} fold; the fold version needs at least 2")
    # every (fold, group) for every metric: a missing row is a missing value, not an undefined metric
    full = pd.MultiIndex.from_product([sorted(folds), groups, list(dict.fromkeys(per_fold["metric"]))])
    have = pd.MultiIndex.from_frame(per_fold[["fold", "group", "metric"]])
    if len(full.difference(have)):
        raise ValueError(
            f"`per_fold` lacks (fold, group, metric) {full.difference(have)[0]!r}: give every "
            "metric for every fold and group (NaN where it is undefined)"
        )
    per_fold = per_fold.sort_values(
        ["metric", "group", "fold"],
        key=lambda s: s.map({m: i for i, m in enumerate(_ALL_METRICS)}) if s.name == "metric" else s,
        kind="stable",
    )
    rows = fold_moments(
        per_fold,
        overall,
        grouping=grouping,
        reference=str(reference),
        options=options,
        ratio_k=_ratio_iv(test_train_ratio, folds.size),
    )
    return DisparityChangeResult(
        finish(rows, options),
        "folds",
        options.scale,
        options.alpha,
        options.confidence_level,
        options.margin,
        options.margin_ratio,
        options.power,
    )
