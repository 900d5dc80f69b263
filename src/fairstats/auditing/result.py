"""The audit in memory: :func:`audit`, the one entry point of every task, and :func:`run`, the one road.

``fairstats.audit(data, task=..., group=..., ...)`` checks the options once
(:class:`~fairstats.auditing.AuditOptions`), reads the input (:func:`fairstats.auditing.inputs.read`) and
:func:`run` takes it through the row step (:func:`fairstats.auditing.rows.prepared_rows`) to the task's
computation: :func:`decisions_audit` here (the equal confusion test and the outcome comparisons,
:mod:`fairstats.auditing.tables`, with the levels, scores and subgroup-search sections), or
:func:`fairstats.auditing.impact.impact_audit` and :func:`fairstats.auditing.regression.regression_audit`. The
command line (:mod:`fairstats.auditing.cli`) calls the same :func:`run`. Every task's answer follows
:class:`~fairstats.auditing.protocol.AuditResult`; :class:`Audit` is the decisions' answer: ``.tests`` and
``.equal_confusion`` (the frames ``fairstats audit`` writes as ``tests.csv`` and ``equal_confusion.csv``), the
other tables, the notes, :meth:`Audit.summary`, and :meth:`~AuditResult.save`, which writes the output folder
all or nothing (:mod:`fairstats.auditing.folder`: only files an audit wrote are ever replaced).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from fairstats._deprecation import renamed_keywords
from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.protocol import AuditResult
from fairstats.auditing.rows import Rows
from fairstats.auditing.search import SearchSection
from fairstats.auditing.source import Source
from fairstats.auditing.tables import Tables, user_warnings

__all__ = ["Audit", "AuditResult", "audit", "decisions_audit", "run"]


@dataclass(frozen=True, eq=False)
class Audit(AuditResult):
    """An audit's checked inputs and results (what :func:`fairstats.audit` returns).

    Attributes
    ----------
    options : AuditOptions
        The checked options.
    source : Source
        The input as the messages and the report name it.
    n : int
        Number of people.
    labels : tuple of str
        ``(favourable, other)`` label as text (multi-level: the decision and outcome levels, joined).
    groupings : tuple of Grouping
        Each grouping audited, with its groups' labels.
    equal_confusion, residuals, tests : pandas.DataFrame
        The tables of ``equal_confusion.csv``, ``residuals.csv`` and ``tests.csv`` (``tests`` is empty, with
        its columns, for a multi-level decision).
    level_tests, ordinal_tests : pandas.DataFrame or None
        Multi-level decisions: ``level_tests.csv`` and ``ordinal_tests.csv``.
    search : SearchSection or None
        The subgroup search (``search=...``): ``search.tables`` (``subgroups``, ``subgroup_residuals``).
    notes : tuple of str
        Notes on the input and the tests, as the report lists them.
    warnings : tuple of str
        Warnings about the input (:class:`GroupWhitespaceWarning`), printed by the CLI.
    decision_rule : str or None
        How the prediction was derived from the input, in words (e.g. ``'positive prediction when
        score_text is "Medium" or "High"'``); None: the ``y_pred`` column as given. Shown on the report's
        first screen.
    filters : tuple of (str, int)
        Each row filter (a ``--where`` predicate) and the number of rows it removed, in order.
    command : str or None
        The exact command line (``fairstats audit ...``) or :func:`fairstats.audit` call that made the audit,
        for the report's provenance block.
    """

    options: AuditOptions
    source: Source
    n: int
    labels: tuple[str, str]
    groupings: tuple[Grouping, ...]
    equal_confusion: pd.DataFrame
    residuals: pd.DataFrame
    tests: pd.DataFrame
    results: dict  # grouping name -> EqualConfusionResult
    references: dict[str, str]
    sizes: dict[str, dict[str, int]]
    level_tests: pd.DataFrame | None
    ordinal_tests: pd.DataFrame | None
    level_context: dict | None  # the report's multi-level section (plain values)
    search: SearchSection | None
    warnings: tuple[str, ...]
    _notes_before: tuple[str, ...]  # notes that arose before the figures were drawn
    _notes_after: tuple[str, ...]  # and after (the subgroup search's warnings)
    decision_rule: str | None = None
    filters: tuple[tuple[str, int], ...] = ()
    command: str | None = None
    score_tests: pd.DataFrame | None = None  # --y-score with a binary outcome (issue 26): score_tests.csv
    score_groups: pd.DataFrame | None = None  # and score_groups.csv: each group's AUC and calibration (ICI)
    score_curves: dict | None = None  # grouping -> ScoreCurves: what the ROC and calibration figures draw

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self._notes_before, *self._notes_after)))

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds, by file stem, in the order they are written."""
        if self.level_tests is not None:
            out = {"equal_confusion": self.equal_confusion, "residuals": self.residuals,
                   "level_tests": self.level_tests}  # fmt: skip
            if self.ordinal_tests is not None:
                out["ordinal_tests"] = self.ordinal_tests
            return out
        out = {"equal_confusion": self.equal_confusion, "residuals": self.residuals, "tests": self.tests}
        if self.score_tests is not None:
            out["score_tests"] = self.score_tests
        if self.score_groups is not None:
            out["score_groups"] = self.score_groups
        if self.search is not None:
            out.update(self.search.tables)
        return out

    def summary(self, out: Path | str | None = None, *, notes: Sequence[str] | None = None) -> str:
        """The plain-language summary (what ``fairstats audit`` prints); with ``out``, the line naming the
        report saved there."""
        from fairstats.auditing.levels import level_summary
        from fairstats.auditing.report import summary_lines

        notes = self.notes if notes is None else tuple(notes)
        lines = summary_lines(self, notes)
        if self.level_context is not None:
            lines = level_summary(lines, self, self.options, self.level_context, self.ordinal_tests)
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        text = "\n".join(lines)
        if self.search is not None:
            text += "\n" + self.search.summary
        return text

    @property
    def decision_levels(self) -> tuple[str, ...] | None:
        return self.options.decision_levels

    def json_groupings(self) -> list[dict]:
        """Per grouping: its groups, sizes, reference, equal confusion test and each group's rates."""
        from fairstats._format import json_records

        equal = {row["grouping"]: row for row in json_records(
            self.equal_confusion, ["grouping", "statistic", "df", "pvalue", "cramers_v", "n", "verdict"])}
        return [
            {
                "name": g.name,
                "groups": list(g.labels),
                "sizes": self.sizes.get(g.name, {}),
                "reference": self.references.get(g.name) or None,
                "rates": _group_rates(self.results[g.name], self.labels, self.options.decision_levels),
                "equal_confusion": equal.get(g.name),
            }
            for g in self.groupings
        ]

    def json_extra(self) -> dict:
        """``--y-score``: each group's AUC and ICI (estimates; the tests' rows are in ``verdicts``)."""
        from fairstats._format import json_records

        if self.score_groups is None:
            return {}
        return {"score_groups": json_records(
            self.score_groups, ["grouping", "group", "n", "auc", "auc_ci_low", "auc_ci_high", "ici",
                                "ici_ci_low", "ici_ci_high"])}  # fmt: skip

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder`` (``pdf``: also ``report.pdf``); return
        the notes the report lists (with the warnings drawing the figures raised)."""
        from fairstats.auditing.figures import report_figures
        from fairstats.auditing.folder import write_tables
        from fairstats.auditing.report import write_report
        from fairstats.auditing.search import draw_search_figure

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figures = report_figures(self, self.tests, folder, self.labels)
            if self.search is not None:
                alt = (
                    "Bar chart of the subgroup search's top comparisons: each subgroup's rate beside the "
                    "rate of the rest of the people, for the measure compared."
                )
                figures = [*figures, *({"file": name, "grouping": None, "kind": "subgroups", "alt": alt}
                                       for name in draw_search_figure(self.search, folder))]  # fmt: skip
        notes = tuple(dict.fromkeys((*self._notes_before, *user_warnings(caught), *self._notes_after)))
        write_tables(folder, list(self.tables.items()))
        write_report(folder, self, notes, figures)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return notes


def _group_rates(result, labels: tuple[str, str], levels: tuple[str, ...] | None) -> dict:
    """Each group's rates from its confusion counts (``result``: the grouping's equal confusion test): the
    share predicted favourable (``ppr``), the favourable outcome's base rate, TPR, FPR, PPV, NPV and accuracy;
    for a multi-level decision, the share of each decision level. Undefined rates (0 denominators) as None."""
    observed = result.observed
    cells = result.cells.set_index("cell")
    out = {}
    for group, row in observed.iterrows():
        counts = row.to_numpy(dtype=float)
        n = counts.sum()
        pred = cells.loc[observed.columns, "y_pred"].astype(str).to_numpy()
        if levels is not None:
            out[str(group)] = {f"share_{level}": _ratio(counts[pred == level].sum(), n) for level in levels}
            continue
        true = cells.loc[observed.columns, "y_true"].astype(str).to_numpy()
        fav = labels[0]
        tp = counts[(pred == fav) & (true == fav)].sum()
        fp = counts[(pred == fav) & (true != fav)].sum()
        fn = counts[(pred != fav) & (true == fav)].sum()
        tn = counts[(pred != fav) & (true != fav)].sum()
        out[str(group)] = {"n": int(n), "ppr": _ratio(tp + fp, n), "base_rate": _ratio(tp + fn, n),
                           "tpr": _ratio(tp, tp + fn), "fpr": _ratio(fp, fp + tn), "ppv": _ratio(tp, tp + fp),
                           "npv": _ratio(tn, tn + fn), "accuracy": _ratio(tp + tn, n)}  # fmt: skip
    return out


def _ratio(a: float, b: float) -> float | None:
    return float(a / b) if b > 0 else None


def decisions_audit(rows: Rows, options: AuditOptions) -> Audit:
    """The audit of decisions on the checked ``rows``: its preparation (labels, scores, folds), the tables,
    the score section, the subgroup search."""
    from fairstats.auditing.prepare import label_text, prepare, prepare_levels

    data, weight, source = rows.data, rows.weight, rows.source
    if options.search:  # subgroup search: check its columns before anything is computed
        from fairstats.auditing.search import search_iv

        search_iv(data, options.search, {options.y_true: "--y-true", options.y_pred: "--y-pred"}, source.name,
                  weight)  # fmt: skip
    prep = (prepare_levels if options.decision_levels is not None else prepare)(data, options, source, weight)
    if options.decision_levels is not None:
        from fairstats.auditing.levels import level_context, levels_tables

        tables: Tables = levels_tables(prep, options)
        context = level_context(options, prep, tables.level_tests, tables.ordinal_tests)
    else:
        from fairstats.auditing.tables import binary_tables

        tables = binary_tables(prep, options)
        context = None
    search = None
    after: tuple[str, ...] = ()
    scores, score_notes = None, ()
    if options.y_score is not None:  # issue 26
        from fairstats.auditing.scores import score_table

        scores = score_table(prep, options)
        score_notes = scores.notes
    if options.search:  # subgroup search (fairstats.auditing.search)
        from fairstats.auditing.search import run_search

        fav = prep.labels[0]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search = run_search(
                data, weight, columns=options.search,
                y01=label_text(data[options.y_true]) == fav,
                p01=label_text(data[options.y_pred]) == fav,
                depth=options.search_depth, min_size=options.min_size, metrics=options.search_metrics,
                alpha=options.alpha, n_resamples=options.n_resamples, seed=options.seed,
            )  # fmt: skip
        after = tuple(user_warnings(caught))
    return Audit(
        options=options,
        source=source,
        n=prep.n,
        labels=prep.labels,
        groupings=tables.groupings,
        equal_confusion=tables.equal_confusion,
        residuals=tables.residuals,
        tests=tables.tests,
        results=tables.results,
        references=tables.references,
        sizes=tables.sizes,
        level_tests=tables.level_tests,
        ordinal_tests=tables.ordinal_tests,
        level_context=context,
        search=search,
        warnings=rows.warned,
        _notes_before=(*rows.warned, *tables.notes, *tables.warned, *score_notes),
        _notes_after=after,
        decision_rule=rows.decision_rule,
        filters=rows.filters,
        score_tests=None if scores is None else scores.table,
        score_groups=None if scores is None else scores.groups,
        score_curves=None if scores is None else scores.curves,
    )


def run(found, options: AuditOptions, *, command: str | None = None) -> AuditResult:
    """The one road: the input ``found`` (:func:`fairstats.auditing.inputs.read`) through the row step
    (:func:`fairstats.auditing.rows.prepared_rows`) to the task's computation, for the checked ``options``;
    ``command``: the command line or call, for the report's provenance."""
    from fairstats.auditing.rows import prepared_rows

    if options.task == "monitor":
        raise AuditError("the monitor keeps its state between batches: run `fairstats monitor` on batch "
                         "files, or feed fairstats.FairnessMonitor in memory")  # fmt: skip
    rows = prepared_rows(found, options)
    if options.task == "impact_ratios":
        from fairstats.auditing.impact import impact_audit as compute
    elif options.task == "regression":
        from fairstats.auditing.regression import regression_audit as compute
    elif options.task == "comparison":
        from fairstats.auditing.comparison import comparison_audit as compute
    else:
        compute = decisions_audit
    return replace(compute(rows, options), command=command)


@renamed_keywords(seed="rng")
def audit(
    data: object,
    *,
    task: str = "decisions",
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
    y_pred_baseline: str | None = None,
    y_score: str | None = None,
    y_score_baseline: str | None = None,
    fold: str | None = None,
    favorable: object = None,
    alpha: float = 0.05,
    margin: float | None = None,
    margin_ratio: float | None = None,
    margin_v: float | None = None,
    n_resamples: int | None = None,
    ici_resamples: int | None = None,
    rng: int | None = None,
    reference: str | Sequence[str] | None = None,
    comparisons: str | None = None,
    where: str | Sequence[str] | None = None,
    date_format: str | None = None,
    y_pred_positive: str | Sequence[str] | None = None,
    y_pred_threshold: float | None = None,
    decision_levels: str | Sequence[str] | None = None,
    outcome_levels: str | Sequence[str] | None = None,
    ordered: bool | None = None,
    search: str | Sequence[str] | None = None,
    search_depth: int | None = None,
    min_size: int | None = None,
    search_metrics: str | Sequence[str] | None = None,
    scoring_rate: str | None = None,
    standard: str | None = None,
    sex: str | None = None,
    race: str | None = None,
    date: str | None = None,
    min_share: float | None = None,
    missing_as_unknown: bool | None = None,
    unknown: str | Sequence[str] | None = None,
    regression_margin: float | None = None,
    metrics: str | Sequence[str] | None = None,
) -> AuditResult:
    """Audit predictions for group disparities, in memory: what ``fairstats audit`` computes, as an object.

    One function for every task of the audit, and the same road as the command line: the options checked
    once (:class:`~fairstats.auditing.AuditOptions`; ``docs/options.md`` lists which option applies to which
    task, and an option given where it does not apply raises :class:`AuditError` naming it), the input read
    (:func:`fairstats.auditing.inputs.read`), the rows filtered (``where``), decided (``y_pred_positive``,
    ``y_pred_threshold``) and checked, then the task's tables. Every parameter left at None is not given: it
    takes the task's default.

    Parameters
    ----------
    data : data frame, Counts or path
        One row per person: pandas; a polars (eager or lazy), pyarrow, DuckDB or Spark frame (counted in its
        engine, or its used columns collected where a test needs each person); a :class:`fairstats.Counts`;
        or the path of a CSV or parquet file (or folder of parquet files), read as the command line reads it.
    task : {"decisions", "impact_ratios", "regression", "comparison"}, keyword-only
        ``"decisions"``: the equal confusion test and the outcome disparities (the default);
        ``"impact_ratios"``:
        selection or scoring rates, impact ratios and the four-fifths verdicts (``--impact-ratios``);
        ``"regression"``: a continuous prediction's errors by group (``--task regression``);
        ``"comparison"``: model against model, the paired change of every disparity from the decisions of
        ``baseline`` to those of ``y_pred`` on the same people (``--task comparison``). (The monitor,
        which keeps state between batches, is :class:`fairstats.FairnessMonitor` in memory and
        ``fairstats monitor`` on files.)
    group : str or list of str, keyword-only
        Sensitive attribute column(s); with several, their intersection is audited too.
    y_true, y_pred, y_score, fold : str, keyword-only
        Columns of the true outcome, the prediction, a score and the cross-validation fold.
    y_pred_baseline, y_score_baseline : str, keyword-only
        ``task="comparison"``: the baseline model's decision (its labels those of ``y_pred``, the new
        model's) and, with ``y_score``, its score.
    metrics : str or list of str, keyword-only
        ``task="comparison"``: the measures compared (a list, or ``"ppr,tpr"``; default
        :data:`fairstats.CHANGE_METRICS`, with scores also the mean scores and the AUC), Holm over them.
    favorable : optional, keyword-only
        The favourable label (default 1, with 0/1 labels); impact ratios: the selected decision.
    alpha, margin, margin_ratio, margin_v, n_resamples, ici_resamples : keyword-only
        As the command line's options (``n_resamples`` from 99 to 1,000,000).
    rng : int, keyword-only
        The seed every resampling stream of the audit derives from (one per task and grouping), as the
        command line's ``--seed``; default 20240607. The name of every resampling function of fairstats
        (numpy SPEC 7), but an integer only, not a :class:`numpy.random.Generator`: the report records the
        seed so that the run can be repeated. (Until 0.4 also accepted as ``seed``, with a
        DeprecationWarning.)
    reference, comparisons : keyword-only
        The group every other group is compared with (the first of these labels that is one of a
        grouping's groups; default: the largest), or ``comparisons="pairs"`` for every pair.
    where : str or list of str, keyword-only
        SQL predicates over the input's columns; only rows for which all hold are audited, and the report
        counts the people each removes (:mod:`fairstats._where` says what a predicate may hold; its
        timestamps are compared in UTC).
    date_format : str, keyword-only
        How the dates written as text that ``where`` reads (and, with ``task="impact_ratios"``, ``date``)
        are written, in strftime codes (``"%d/%m/%Y"``); date text other than ISO 8601 is refused without
        it.
    y_pred_positive, y_pred_threshold : keyword-only
        Make the decision from ``y_pred``: these labels (a list, or ``"Medium,High"``) count as the positive
        prediction, or a score at or above the threshold does.
    decision_levels, outcome_levels, ordered : keyword-only
        A decision with more than two levels (a list, or ``"Low,Medium,High"``).
    search, search_depth, min_size, search_metrics : keyword-only
        The subgroup search.
    scoring_rate, standard, sex, race, date, min_share, missing_as_unknown, unknown : keyword-only
        Impact ratios (``task="impact_ratios"``): a score's scoring rate instead of ``y_pred``; NYC Local Law
        144's layout; the 2 % rule; unknown categories.
    regression_margin : float, keyword-only
        ``task="regression"``: the equivalence margin of the error metrics, in the outcome's unit.

    Returns
    -------
    AuditResult
        :class:`Audit` (decisions), :class:`~fairstats.auditing.impact.ImpactAudit`,
        :class:`~fairstats.auditing.regression.RegressionAudit` or
        :class:`~fairstats.auditing.comparison.ComparisonAudit`: ``.tables``, ``.summary()``, ``.to_dict()``,
        ``.has_disparity``, ``.save(folder, pdf=False)``.

    Raises
    ------
    AuditError
        Bad input (one line naming the option, column and value).

    Examples
    --------
    >>> result = fairstats.audit(frame, group=["sex", "race"], y_true="y", y_pred="p")  # doctest: +SKIP
    >>> result.tests[["grouping", "group", "metric", "estimate", "verdict"]]  # doctest: +SKIP
    >>> fairstats.audit(frame, task="impact_ratios", group="race", y_pred="hired")  # doctest: +SKIP
    >>> fairstats.audit(frame, task="comparison", group="race", y_true="y", y_pred="new",
    ...                 y_pred_baseline="old").has_disparity  # a disparity grew: less fair  # doctest: +SKIP
    >>> result.save("audit/")  # doctest: +SKIP
    """
    from fairstats.auditing.inputs import read

    given = {k: v for k, v in locals().items() if k not in ("data", "read")}
    # a keyword at its signature's default is not given (alpha, the one option every task takes, has one)
    keywords = {k: v for k, v in given.items() if k != "task" and not (k == "alpha" and v == 0.05)}
    if task == "monitor":
        raise AuditError("task='monitor': the monitor keeps its state between batches; feed "
                         "fairstats.FairnessMonitor in memory, or run `fairstats monitor` on batch "
                         "files")  # fmt: skip
    options = AuditOptions.of(task, **keywords)
    return run(read(data, options), options, command=call_text(given))


def call_text(given: dict) -> str:
    """The :func:`audit` call with the keyword arguments ``given`` (those left at their defaults out), for
    the report's provenance block: ``fairstats.audit(data, group='race', ...)``."""
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(audit).parameters.items()}
    parts = [f"{k}={v!r}" for k, v in given.items() if not _same(v, defaults.get(k))]
    return f"fairstats.audit(data, {', '.join(parts)})"


def _same(value: object, default: object) -> bool:
    if isinstance(value, list | tuple) and isinstance(default, list | tuple):
        return list(value) == list(default)
    return value is None if default is None else value == default
