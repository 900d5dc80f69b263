"""The audit of a continuous prediction by group (``--task regression``): :class:`RegressionAudit`, its
``regression_tests.csv``, report and figures.

Never guessed from the data: a numeric ``--y-pred`` with more than two values and no ``--task`` is refused
with a hint naming this option (:mod:`fairstats.auditing.prepare`). Per grouping (each ``--group`` and, with
several, their intersection), :func:`fairstats.regression_tests` (mean residual, MAE, RMSE: studentized
permutation tests and bootstrap intervals; KS of the residuals); Holm and the three-way verdicts over the
whole file. The options, input, filters and grouping checks are every task's (:mod:`fairstats.auditing.rows`);
:func:`regression_audit` computes :class:`RegressionAudit` from the checked rows
(``fairstats.audit(..., task="regression")`` and the command line alike), and its
:meth:`~fairstats.auditing.protocol.AuditResult.save` writes the folder all or nothing, as every audit: the
table, one residual-distribution figure per grouping, ``report.md`` / ``report.html`` (and ``report.pdf``)
from the package's templates.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats._resampling import derived_rng
from fairstats._text import display_text as visible
from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import chosen_references, where_in
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.protocol import AuditResult
from fairstats.auditing.rows import Rows
from fairstats.auditing.source import Source
from fairstats.groups import group_labels
from fairstats.multiplicity import three_way_verdicts
from fairstats.regression import regression_tests

__all__ = ["REGRESSION_COLUMNS", "RegressionAudit", "regression_audit"]

#: Columns of ``regression_tests.csv``, in order.
REGRESSION_COLUMNS = (
    "grouping", "group", "reference", "metric", "value", "value_reference", "estimate", "ci_low", "ci_high",
    "statistic", "pvalue", "pvalue_adj", "verdict", "verdict_note", "equivalence_pvalue", "margin", "mde",
    "n", "n_reference", "method", "reason",
)

#: The residual-distribution figures draw at most this many groups of a grouping (the reference and the
#: largest others); regression_tests.csv holds every group.
MAX_FIGURE_GROUPS = 8

#: The quantiles of each group's residuals the figure draws (its ECDF and quantile bars).
_QUANTILES = np.round(np.linspace(0, 1, 201), 6)

_METRIC_WORDS = {
    "mean_residual": "mean residual (prediction minus outcome): the group's bias; positive: over-predicted",
    "mae": "mean absolute error",
    "rmse": "root mean squared error",
    "residual_distribution": "Kolmogorov–Smirnov distance between the group's and the reference's residual "
    "distributions (estimate: the distance D; no equivalence test)",
}

_METHODS = (
    ("studentized permutation test", "each metric's difference from the reference group divided by its "
     "standard error, compared with its permutation distribution (group labels shuffled) and with its "
     "bootstrap-t distribution (each group resampled on its own); the larger p-value is reported",
     "people independent; exact under equal distributions, asymptotically valid for unequal variances "
     "(studentized); the bootstrap-t holds the size in small skewed groups; under 20 people a group's rows "
     "are undefined",
     "DiCiccio, DiCiccio & Su (2020), KDD; Hall & Wilson (1991); scipy.stats.permutation_test, bootstrap"),
    ("bootstrap interval", "percentile interval of each difference, people resampled within their group",
     "people independent", "Efron & Tibshirani (1993)"),
    ("two-sample Kolmogorov–Smirnov test", "whether the residual distributions of a group and the reference "
     "are equal", "people independent, continuous residuals", "scipy.stats.ks_2samp"),
    ("Holm and the three-way verdicts", "Holm's adjustment over every row of regression_tests.csv; with a "
     "margin, TOST equivalence tests, so a comparison is a disparity, equivalent, inconclusive or undefined",
     "the margin set by the auditor (--regression-margin), in the outcome's unit",
     "Holm (1979); Schuirmann (1987)"),
)


@dataclass(frozen=True, eq=False)
class RegressionAudit(AuditResult):
    """The audit of a continuous prediction (what ``fairstats audit --task regression`` computes).

    Attributes
    ----------
    options : AuditOptions
        The checked options (``y_true``, ``y_pred``: residual = ``y_pred - y_true``; ``regression_margin``).
    source : Source
        The input as the messages and the report name it.
    n : int
        Number of people.
    groupings : tuple of str
        The groupings' names (each column and, with several, their intersection ``a x b``).
    sizes : dict
        Per grouping, each group's number of people.
    references : dict
        Per grouping, the reference group.
    table : pandas.DataFrame
        ``regression_tests.csv`` (:data:`REGRESSION_COLUMNS`).
    groups : dict
        Per grouping, each group's mean residual, MAE and RMSE.
    distributions : dict
        Per grouping, the quantiles of the residuals of the groups its figure draws (``group, quantile,
        residual``; ``attrs["total"]``: the grouping's number of groups).
    notes : tuple of str
        The warnings of the input and the tests, as the report lists them.
    filters, decision_rule, command
        The rows' filters with the people each removed, the decision rule (none for a regression), the
        command line or call that made the audit.
    """

    options: AuditOptions
    source: Source
    n: int
    groupings: tuple[str, ...]
    sizes: dict
    references: dict
    table: pd.DataFrame
    groups: dict
    distributions: dict
    notes: tuple[str, ...] = ()
    filters: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()  # the input's warnings (printed by the command line; in the notes too)
    decision_rule: str | None = None
    command: str | None = None

    json_finding_columns = ("grouping", "group", "reference", "metric", "value", "value_reference",
                            "estimate", "ci_low", "ci_high", "pvalue", "pvalue_adj", "verdict")  # fmt: skip

    @property
    def y_true(self) -> str:
        return self.options.y_true  # type: ignore[return-value]

    @property
    def y_pred(self) -> str:
        return self.options.y_pred  # type: ignore[return-value]

    @property
    def alpha(self) -> float:
        return self.options.alpha  # type: ignore[return-value]

    @property
    def margin(self) -> float | None:
        return self.options.regression_margin

    @property
    def seed(self) -> int:
        return self.options.seed  # type: ignore[return-value]

    @property
    def n_resamples(self) -> int:
        return self.options.n_resamples  # type: ignore[return-value]

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds, by file stem."""
        return {"regression_tests": self.table}

    @property
    def margin_text(self) -> str:
        return self.options.margin_text

    def json_groupings(self) -> list[dict]:
        """Per grouping: its groups, sizes, reference and each group's mean residual, MAE and RMSE."""
        return [{"name": g, "groups": list(self.sizes.get(g, {})), "sizes": self.sizes.get(g, {}),
                 "reference": self.references.get(g), "rates": self.groups.get(g, {})}
                for g in self.groupings]  # fmt: skip

    def summary(self, out: Path | str | None = None, *, notes=None) -> str:
        """The plain-language summary (what ``fairstats audit --task regression`` prints); with ``out``, the
        line naming the report saved there."""
        from fairstats.auditing.report import verdict_tally

        counts = verdict_tally(self.table["verdict"])
        tally = ", ".join(f"{k} {v}" for v, k in counts.items())
        lines = [
            f"fairstats audit --task regression: {self.n:,} people, residual = {self.y_pred!r} - "
            f"{self.y_true!r}, alpha = {self.alpha:g}, {self.margin_text}",
            f"  {len(self.table)} comparisons (mean residual, MAE, RMSE, residual distribution per group "
            f"against the largest), Holm over the file: {tally}",
        ]
        for row in self.table[self.table["verdict"] == "disparity"].itertuples():
            interval = f" [{row.ci_low:.4g}, {row.ci_high:.4g}]" if np.isfinite(row.ci_low) else ""
            lines.append(f"    disparity: {row.grouping} {row.group!r} vs {row.reference!r}, {row.metric} "
                         f"{row.estimate:+.4g}{interval}")
        if self.notes:
            lines.append(f"  {len(self.notes)} note(s): see the report")
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        return "\n".join(lines)

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder``; return the notes."""
        from fairstats.auditing.figures import regression_figures
        from fairstats.auditing.folder import write_tables

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figures = regression_figures(self.distributions, folder)
        notes = tuple(dict.fromkeys((*self.notes, *(str(w.message) for w in caught
                                                    if issubclass(w.category, UserWarning)))))
        write_tables(folder, list(self.tables.items()))
        write_regression_report(folder, self, notes, figures)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return notes


def _numbers_iv(data: pd.DataFrame, options: AuditOptions, source: Source) -> pd.DataFrame:
    """``data`` with the outcome and prediction as numbers (text that reads as one is read so), or
    :class:`AuditError` naming the option, column, value and the input's own line of the first value that
    is no finite number."""
    out = data
    for flag, column in (("--y-true", options.y_true), ("--y-pred", options.y_pred)):
        values = data[column]
        if pd.api.types.is_bool_dtype(values):
            raise AuditError(f"{flag}: column {column!r} of {source.name} holds True/False, not numbers; the "
                             "regression audit compares residuals of numbers")  # fmt: skip
        numeric = pd.api.types.is_numeric_dtype(values)
        numbers = values if numeric else pd.to_numeric(values, errors="coerce")
        bad = ~np.isfinite(numbers.to_numpy(dtype=float))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            what = "is no number" if pd.isna(numbers.iloc[i]) else "is not finite"
            value = values.iloc[i]
            value = float(value) if isinstance(value, float | np.floating) else value
            raise AuditError(f"{flag}: column {column!r} holds {visible(repr(value))} on "
                             f"{where_in(data, i, source)}, which {what}; the regression audit needs finite "
                             "numbers")  # fmt: skip
        if numbers is not values:
            out = out.copy() if out is data else out
            out[column] = numbers.to_numpy(dtype=float)
    return out


def regression_audit(rows: Rows, options: AuditOptions) -> RegressionAudit:
    """The regression audit of the checked ``rows`` (one per person): :func:`fairstats.regression_tests` per
    grouping (each group column and, with several, their intersection; each grouping's resamples from its own
    stream of ``seed``), Holm and the three-way verdicts over the whole table. :class:`AuditError` naming the
    input, column and value for bad data."""
    data, source = _numbers_iv(rows.data, options, rows.source), rows.source
    chosen = chosen_references(data, options)
    parts, sizes, references, distributions, per_group = [], {}, {}, {}, {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for grouping in options.groupings:
            name, columns, reference = grouping.name, list(grouping.columns), chosen[grouping.name]
            try:
                res = regression_tests(
                    data, group=columns if len(columns) > 1 else columns[0], y_true=options.y_true,
                    y_pred=options.y_pred, reference=reference, margin=options.regression_margin,
                    alpha=options.alpha, n_resamples=options.n_resamples,
                    rng=derived_rng(options.seed, "regression", name),
                )  # fmt: skip
            except (ValueError, TypeError) as err:
                raise AuditError(f"{source.name}: {err}") from None
            parts.append(res.comparisons)
            sizes[name] = {str(g): int(k) for g, k in zip(res.groups["group"], res.groups["n"], strict=True)}
            per_group[name] = {
                str(r["group"]): {k: (None if pd.isna(r[k]) else float(r[k]))
                                  for k in ("mean_residual", "mae", "rmse") if k in r}
                for r in res.groups.to_dict(orient="records")
            }  # fmt: skip
            references[name] = res.reference
            distributions[name] = _distributions(data, columns, options.y_true, options.y_pred, res.reference,
                                                  sizes[name])  # fmt: skip
    table = pd.concat(parts, ignore_index=True).drop(
        columns=["pvalue_adj", "pvalue_holm_equivalence", "verdict", "verdict_note"])
    table = three_way_verdicts(table, alpha=options.alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})[list(REGRESSION_COLUMNS)]
    notes = tuple(dict.fromkeys([*rows.warned, *(str(w.message) for w in caught
                                 if not issubclass(w.category, DeprecationWarning | FutureWarning))]))
    return RegressionAudit(
        options=options, source=source, n=rows.n, groupings=tuple(sizes), sizes=sizes, references=references,
        table=table, groups=per_group, distributions=distributions, notes=notes, filters=rows.filters,
        decision_rule=rows.decision_rule, warnings=rows.warned,
    )  # fmt: skip


def _distributions(data, columns, y_true, y_pred, reference, sizes) -> pd.DataFrame:
    """The quantiles of the residuals of the reference and the largest other groups (the figure's)."""
    labels = group_labels(data, columns if len(columns) > 1 else columns[0]).to_numpy()
    residual = data[y_pred].to_numpy(dtype=float) - data[y_true].to_numpy(dtype=float)
    others = sorted((g for g in sizes if g != reference), key=lambda g: -sizes[g])[: MAX_FIGURE_GROUPS - 1]
    shown = [reference, *[g for g in sizes if g in set(others)]]
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    parts = []
    for g in shown:
        lo, hi = np.searchsorted(sorted_labels, g, "left"), np.searchsorted(sorted_labels, g, "right")
        values = residual[order[lo:hi]]
        parts.append(pd.DataFrame({"group": g, "quantile": _QUANTILES,
                                   "residual": np.quantile(values, _QUANTILES)}))
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["total"] = len(sizes)
    return frame


# --------------------------------------------------------------------------------------------------------
# the report (templates regression.md.j2, regression.html.j2)
# --------------------------------------------------------------------------------------------------------


def write_regression_report(folder: Path, audit: RegressionAudit, notes: tuple[str, ...],
                            figures: list[dict]) -> None:
    """``report.md`` and ``report.html`` of a regression audit, from the package's templates (every data
    string escaped, as the decisions report: :func:`fairstats.auditing.report.write_report`)."""
    from fairstats._version import __version__
    from fairstats.auditing.provenance import input_hashes, report_date, versions
    from fairstats.auditing.report import (
        COMPARISON_COLUMNS,
        audited_context,
        comparison_rows,
        sizes_item,
        template_environment,
        verdict_tally,
    )
    from fairstats.auditing.writing import atomic_write_text

    table = audit.table
    sections, summary = [], []
    for k, name in enumerate(audit.groupings):
        part = table[table["grouping"] == name].rename(columns={"value": "value_group"})
        rows, more = comparison_rows(part, file="regression_tests.csv")
        counts = verdict_tally(part["verdict"])
        sections.append({
            "id": f"grouping-{k + 1}", "name": name, "reference": audit.references[name],
            "sizes": sizes_item(name, audit.sizes[name]), "comparisons": rows, "comparisons_more": more,
            "counts": counts, "figures": [f for f in figures if f["grouping"] == name],
        })  # fmt: skip
        summary.append({"grouping": name, "n_groups": len(audit.sizes[name]),
                        "reference": audit.references[name], "n": len(part), **counts})
    c = verdict_tally(table["verdict"])
    flagged = table[table["verdict"] == "disparity"]
    names = list(dict.fromkeys(
        f"{g} ({grouping})" for grouping, g in zip(flagged["grouping"], flagged["group"], strict=True)))
    headline = [
        f"Each group's errors were compared with its grouping's largest group in {len(table)} comparisons "
        f"(mean residual, MAE, RMSE and the residual distribution), with Holm's adjustment over all of them "
        f"(α = {audit.alpha:g}; {audit.margin_text}).",
        f"Verdicts: {c['disparity']} disparity, {c['equivalent']} equivalent, {c['inconclusive']} "
        f"inconclusive (the data cannot tell), {c['undefined']} undefined.",
        ("Groups with a disparity: " + ", ".join(names) + ".") if names else "No group has a disparity.",
    ]
    hashes, more_files = input_hashes(audit.source.path)
    context = {
        "version": __version__, "audited": audited_context(audit), "input_name": audit.source.name,
        "seed": audit.seed,
        "n_people": f"{audit.n:,}",
        "y_true": audit.y_true, "y_pred": audit.y_pred, "alpha": f"{audit.alpha:g}",
        "margin_text": audit.margin_text, "headline": headline, "summary": summary, "sections": sections,
        "columns": [heading for heading, _ in COMPARISON_COLUMNS], "total": len(table),
        "metric_words": [(m, w) for m, w in _METRIC_WORDS.items() if m in set(table["metric"])],
        "methods": [dict(zip(("name", "what", "assumes", "reference"), m, strict=True)) for m in _METHODS],
        "notes": list(dict.fromkeys(notes)),
        "provenance": {"hashes": hashes, "more_files": more_files,
                       "command": audit.command or "(not recorded)",
                       "date": report_date(), "versions": versions(), "seed": audit.seed,
                       "n_resamples": audit.n_resamples},
    }  # fmt: skip
    for kind, name in (("md", "report.md"), ("html", "report.html")):
        text = template_environment(kind).get_template(f"regression.{kind}.j2").render(**context)
        atomic_write_text(folder / name, text)
