"""Model against model (``--task comparison``): is the new model fairer than the baseline, on the same people?

A task of the one audit. The options, input, filters, decision rule (applied to both models' decisions) and
grouping checks are every task's (:mod:`fairstats.auditing.rows`); the labels are checked and mapped as the
audit of decisions maps them (:func:`fairstats.auditing.prepare.prepare`: the baseline's labels are those of
``--y-pred``). :func:`comparison_audit` runs :func:`fairstats.disparity_change` per grouping (each
``--group`` and, with several, their intersection) and :meth:`fairstats.DisparityChangeResult.combine`:
Holm, Benjamini–Hochberg and the verdicts (fairer, less fair, equivalent, inconclusive, undefined) over every
change of disparity, and over the models' accuracy. :class:`ComparisonAudit` follows
:class:`~fairstats.auditing.protocol.AuditResult`: ``disparity_change.csv``, the summary, ``--json`` with
each group's rates under both models, ``has_disparity`` (a change "less fair": what ``--fail-on disparity``
exits 3 on) and the report (``comparison.md.j2``, ``comparison.html.j2``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import chosen_references
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.protocol import AuditResult
from fairstats.auditing.rows import Rows
from fairstats.auditing.source import Source
from fairstats.auditing.tables import user_warnings
from fairstats.auditing.writing import one_line
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.disparity_change import DisparityChangeResult, disparity_change
from fairstats.groups import group_labels

__all__ = ["ComparisonAudit", "comparison_audit"]

#: The verdicts of a change of disparity, in the order the report counts them.
_FAIRNESS_VERDICTS = ("fairer", "less fair", "equivalent", "inconclusive", "undefined")
_ORDER = {"less fair": 0, "fairer": 1, "inconclusive": 2, "equivalent": 3, "undefined": 4}


@dataclass(frozen=True, eq=False, repr=False)  # the protocol's repr: the task, people and groupings
class ComparisonAudit(AuditResult):
    """Model against model (what ``fairstats audit --task comparison`` computes).

    Attributes
    ----------
    options : AuditOptions
        The checked options (``y_pred``: the new model's decision, ``baseline``: the baseline's).
    source : Source
        The input as the messages and the report name it.
    n : int
        Number of people.
    labels : tuple of str
        ``(favourable, other)`` label as text.
    result : fairstats.DisparityChangeResult
        Every grouping's changes, combined (Holm and the verdicts over all of them).
    sizes, references, rates : dict
        Per grouping: each group's people, the reference group, and each group's rates under both models
        (``base_rate``; ``baseline`` and ``new``: ``ppr``, ``tpr``, ``fpr``, ``ppv``, ``npv``, ``accuracy``).
    notes, filters, warnings, decision_rule, command
        As every audit's.
    """

    options: AuditOptions
    source: Source
    n: int
    labels: tuple[str, str]
    result: DisparityChangeResult
    sizes: dict
    references: dict
    rates: dict
    notes: tuple[str, ...] = ()
    filters: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()
    decision_rule: str | None = None
    command: str | None = None

    disparity_verdict = "less fair"
    json_finding_columns = ("grouping", "group", "reference", "family", "metric", "value_baseline", "value",
                            "estimate", "ci_low", "ci_high", "pvalue", "pvalue_adj", "verdict")  # fmt: skip

    @property
    def table(self) -> pd.DataFrame:
        """``disparity_change.csv``: :data:`fairstats.DISPARITY_CHANGE_COLUMNS`."""
        return self.result.table

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds: ``disparity_change``."""
        return {"disparity_change": self.table}

    def json_groupings(self) -> list[dict]:
        """Per grouping: its groups, sizes, reference and each group's rates under both models."""
        return [{"name": name, "groups": list(sizes), "sizes": sizes, "reference": self.references[name],
                 "rates": self.rates[name]} for name, sizes in self.sizes.items()]  # fmt: skip

    def json_extra(self) -> dict:
        """How the changes were tested (``inference``: people or folds; ``scale``)."""
        return {"inference": self.result.inference, "scale": self.result.scale}

    def summary(self, out: Path | str | None = None, *, notes=None) -> str:
        """The plain-language summary (what ``fairstats audit --task comparison`` prints); with ``out``, the
        line naming the report saved there."""
        fairness = self.table[self.table["family"] == "fairness"]
        counts = fairness["verdict"].value_counts()
        lines = [
            f"fairstats audit --task comparison: {self.n:,} people, the new model {self.options.y_pred!r} "
            f"against the baseline {self.options.y_pred_baseline!r}, alpha = {self.options.alpha:g}, "
            f"{self.options.margin_text}, {_inference_words(self.result)}",
            f"  {len(fairness)} changes of disparity (each group against its grouping's reference), Holm "
            "over them: " + ", ".join(f"{v} {int(counts.get(v, 0))}" for v in _FAIRNESS_VERDICTS),
        ]
        shown = fairness[fairness["verdict"].isin(["less fair", "fairer"])]
        shown = shown.sort_values("verdict", key=lambda v: v.map(_ORDER), kind="stable")
        for row in shown.head(20).itertuples():
            lines.append(f"    {row.verdict}: {row.grouping} {row.group!r} vs {row.reference!r}, "
                         f"{row.metric} disparity {row.value_baseline:+.3f} -> {row.value:+.3f}, change "
                         f"{_change(row)}")
        for row in self.table[self.table["family"] == "accuracy"].itertuples():
            lines.append(f"  {row.metric}: baseline {row.value_baseline:.3f}, new {row.value:.3f}, change "
                         f"{_change(row)}: {row.verdict}")
        if self.notes:
            lines.append(f"  {len(self.notes)} note(s): see the report")
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        return "\n".join(lines)

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder``; return the notes."""
        from fairstats.auditing.folder import write_tables

        write_tables(folder, list(self.tables.items()))
        write_comparison_report(folder, self, self.notes)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return self.notes


def _change(row) -> str:
    """A row's change with its interval (ratio scale: the ratio of ratios, no sign)."""
    ratio = row.scale == "ratio"
    estimate = f"{row.estimate:.3f}" if ratio else f"{row.estimate:+.3f}"
    if not (np.isfinite(row.ci_low) and np.isfinite(row.ci_high)):
        return estimate
    low, high = (f"{row.ci_low:.3f}", f"{row.ci_high:.3f}") if ratio else (f"{row.ci_low:+.3f}",
                                                                          f"{row.ci_high:+.3f}")  # fmt: skip
    return f"{estimate} [{low}, {high}]"


def _inference_words(result: DisparityChangeResult) -> str:
    if result.inference == "folds":
        return "corrected resampled t over the folds"
    return "paired delta method over people"


def _rates(y: np.ndarray, decided: np.ndarray, weight: np.ndarray) -> dict:
    """One model's rates among people with outcomes ``y`` and decisions ``decided`` (1: favourable)."""
    cells = {(a, b): float(weight[(y == a) & (decided == b)].sum()) for a in (0, 1) for b in (0, 1)}
    tp, fn, fp, tn = cells[1, 1], cells[1, 0], cells[0, 1], cells[0, 0]

    def ratio(a: float, b: float) -> float | None:
        return a / b if b > 0 else None

    n = tp + fn + fp + tn
    return {"ppr": ratio(tp + fp, n), "tpr": ratio(tp, tp + fn), "fpr": ratio(fp, fp + tn),
            "ppv": ratio(tp, tp + fp), "npv": ratio(tn, tn + fn), "accuracy": ratio(tp + tn, n)}


def _group_rates(frame: pd.DataFrame, weight: np.ndarray, columns: list[str], cols: dict) -> dict:
    """Each group's people, base rate and rates under both models, in the tables' order of groups."""
    combos = frame[columns].drop_duplicates().sort_values(columns, kind="stable")
    labels = group_labels(frame, columns).to_numpy()
    y, new, old = (frame[cols[k]].to_numpy() for k in ("y01", "p01", "b01"))
    out = {}
    for g in dict.fromkeys(group_labels(combos, columns)):
        mask = labels == g
        w = weight[mask]
        out[str(g)] = {"n": int(round(w.sum())), "base_rate": float(w[y[mask] == 1].sum() / w.sum()),
                       "baseline": _rates(y[mask], old[mask], w), "new": _rates(y[mask], new[mask], w)}
    return out


def comparison_audit(rows: Rows, options: AuditOptions) -> ComparisonAudit:
    """Model against model on the checked ``rows``: both models' labels mapped to the favourable one (0/1),
    :func:`fairstats.disparity_change` per grouping and one :meth:`~fairstats.DisparityChangeResult.combine`.
    :class:`AuditError` naming the input, column and value for bad data."""
    from fairstats.auditing.prepare import prepare

    source = rows.source
    prep = prepare(rows.data, options, source, rows.weight)
    references = chosen_references(rows.data, options)
    cols = prep.cols
    keywords: dict = {"y_true": cols["y01"], "y_pred": cols["p01"], "y_pred_baseline": cols["b01"],
                      "favorable": 1, "alpha": options.alpha, "margin": options.margin}  # fmt: skip
    if options.margin_ratio is not None:
        keywords.update(scale="ratio", margin_ratio=options.margin_ratio)
    if options.metrics is not None:
        keywords["metrics"] = list(options.metrics)
    if options.fold is not None:
        keywords["fold"] = cols["fold"]
    if options.y_score is not None:  # the scores predict outcome 1 (0/1 labels), else the favourable one
        pos_label = 0 if prep.binary01 and prep.labels[0] == "0" else 1
        keywords.update(y_score=cols["score"], y_score_baseline=cols["baseline_score"], pos_label=pos_label)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = DisparityChangeResult.combine([
                disparity_change(prep.checked, group=g.group, reference=references[g.name], **keywords)
                for g in options.groupings
            ])  # fmt: skip
        except (ValueError, TypeError) as err:
            raise AuditError(f"{source.name}: {one_line(err)}") from None
    frame = prep.data.table if isinstance(prep.data, Counts) else prep.data
    weight = frame[COUNT_COLUMN].to_numpy(float) if isinstance(prep.data, Counts) else np.ones(len(frame))
    rates = {g.name: _group_rates(frame, weight, list(g.columns), cols) for g in options.groupings}
    fairness = result.table[result.table["family"] == "fairness"]
    chosen = dict(zip(fairness["grouping"], fairness["reference"], strict=True))
    notes = tuple(dict.fromkeys([*rows.warned, *user_warnings(caught)]))
    return ComparisonAudit(
        options=options, source=source, n=prep.n, labels=prep.labels, result=result,
        sizes={name: {g: r["n"] for g, r in groups.items()} for name, groups in rates.items()},
        references={name: chosen.get(name) for name in rates}, rates=rates, notes=notes,
        filters=rows.filters, warnings=rows.warned, decision_rule=rows.decision_rule,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------------
# the report (templates comparison.md.j2, comparison.html.j2)
# --------------------------------------------------------------------------------------------------------

_METRIC_WORDS = {
    "ppr": "share of decisions favourable",
    "tpr": "among people with the favourable outcome, share decided favourably",
    "fpr": "among people with the other outcome, share decided favourably",
    "ppv": "among favourable decisions, share with the favourable outcome",
    "npv": "among the other decisions, share with the other outcome",
    "accuracy": "share of decisions equal to the outcome",
    "fn_fp_ratio": "people wrongly denied the favourable decision per person wrongly granted it",
    "mean_score_pos": "mean score of people with the outcome the score predicts",
    "mean_score_neg": "mean score of the other people",
    "auc": "area under the ROC curve of the score",
}

#: (name, what it computes, assumptions, reference), and when it applies: "people", "folds", "scores", "".
_METHODS = (
    ("people", "paired delta method", "each model's disparity D (a group's measure minus the reference's; "
     "with --margin-ratio their ratio, tested on the log scale) and the change D(new) - D(baseline), its "
     "variance from each group's counts of (outcome, baseline decision, new decision): the same people under "
     "both models; 0.5 added to each of the eight cells for the variance (Agresti-Min)",
     "people independent; the two fitted models taken as given",
     "Moskowitz & Pepe (2006), Clinical Trials 3(3); Agresti & Min (2005), Statistics in Medicine 24"),
    ("scores", "paired DeLong covariance; paired mean scores", "the two models' AUCs (mean scores) in each "
     "group and their covariance on the same people", "people independent",
     "DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3)"),
    ("folds", "corrected resampled t", "the change of each disparity in every fold (both models' out-of-fold "
     "predictions over the same folds), its mean against its spread corrected for overlapping training sets",
     "the folds of one cross-validation; asks about the two learning procedures",
     "Nadeau & Bengio (2003), Machine Learning 52(3); Bouckaert & Frank (2004), PAKDD"),
    ("", "fairer or less fair", "fairer: a smaller disparity in size, |D(new)| < |D(baseline)|, as the union "
     "of two intersection-union tests on D(new) - D(baseline) and D(new) + D(baseline); less fair likewise",
     "a disparity that changes sign with the same size is neither",
     "Berger & Hsu (1996), Statistical Science 11(4)"),
    ("", "Holm, Benjamini-Hochberg and the verdicts", "Holm's adjustment over every change of disparity "
     "(and, apart, over the accuracy changes), Benjamini-Hochberg's beside it; a TOST equivalence test "
     "within the margin, so a change is fairer, less fair, equivalent, inconclusive or undefined "
     "(accuracy: better, worse, ...)", "the margin set by the auditor (--margin, --margin-ratio)",
     "Holm (1979); Benjamini & Hochberg (1995); Schuirmann (1987)"),
)


#: The headings of the report's table of changes (one sort rule per column, style.css.j2).
_COLUMNS = ("group", "measure", "baseline disparity", "new disparity", "change", "interval", "Holm p",
            "verdict", "MDE")
#: The report lists at most this many changes and group sizes per grouping (the CSV file has every one).
_MAX_LISTED = 200


def _shown_rows(part: pd.DataFrame) -> tuple[list[dict], int]:
    """The changes of one grouping for the report's sortable table (at most :data:`_MAX_LISTED`, those with
    the smallest adjusted p-values, in the table's order) and the number left out."""
    from fairstats._format import pvalue_text
    from fairstats.auditing.report import number_text, sort_orders

    left = max(len(part) - _MAX_LISTED, 0)
    if left:
        keep = np.argsort(part["pvalue_adj"].to_numpy(dtype=float), kind="stable")[:_MAX_LISTED]
        part = part.iloc[np.sort(keep)]
    # disparities as differences carry a sign; ratios, accuracies and the ratio of two ratios do not
    signed = (part["scale"].to_numpy() != "ratio") & (part["family"].to_numpy() == "fairness")
    orders = sort_orders([
        np.arange(len(part)), part["metric"].astype(str).to_numpy(),
        *(part[c].to_numpy(dtype=float)
          for c in ("value_baseline", "value", "estimate", "ci_low", "pvalue_adj")),
        np.array([_ORDER.get(v, 5) for v in part["verdict"]]), part["mde"].to_numpy(dtype=float),
    ])  # fmt: skip
    rows = []
    for r, order, sign in zip(part.to_dict(orient="records"), orders, signed, strict=True):
        ratio = r["scale"] == "ratio"
        low, high = number_text(r["ci_low"], not ratio), number_text(r["ci_high"], not ratio)
        interval = "n/a" if "n/a" in (low, high) else f"{low} to {high}"
        rows.append({"group": r["group"], "metric": r["metric"], "order": order,
                     "baseline": number_text(r["value_baseline"], sign), "new": number_text(r["value"], sign),
                     "change": number_text(r["estimate"], not ratio), "interval": interval,
                     "p_adj": pvalue_text(r["pvalue_adj"]), "verdict": r["verdict"],
                     "mde": number_text(r["mde"])})  # fmt: skip
    return rows, left


def _headline(audit: ComparisonAudit, fairness: pd.DataFrame) -> list[str]:
    counts = fairness["verdict"].value_counts()
    scale = "ratio" if audit.result.scale == "ratio" else "difference"
    out = [
        f"Each group's disparity from its grouping's reference group (the {scale} of their measures) was "
        f"computed under both models on the same {audit.n:,} people, and its change tested: "
        f"{len(fairness)} changes, with Holm's adjustment over all of them (α = {audit.options.alpha:g}; "
        f"{audit.options.margin_text}).",
        "Verdicts: " + ", ".join(f"{int(counts.get(v, 0))} {v}" for v in _FAIRNESS_VERDICTS) + ".",
    ]
    for verdict, word in (("less fair", "grew"), ("fairer", "shrank")):
        rows = fairness[fairness["verdict"] == verdict]
        if len(rows):
            names = list(dict.fromkeys(f"{g} ({grouping}: {m})" for grouping, g, m in
                                       zip(rows["grouping"], rows["group"], rows["metric"], strict=True)))
            out.append(f"Disparities that {word} under the new model ({verdict}): " + ", ".join(names[:20])
                       + (f" and {len(names) - 20:,} more" if len(names) > 20 else "") + ".")  # fmt: skip
    if not (fairness["verdict"] == "less fair").any():
        out.append("No disparity grew beyond chance under the new model.")
    return out


def write_comparison_report(folder: Path, audit: ComparisonAudit, notes: tuple[str, ...]) -> None:
    """``report.md`` and ``report.html`` of a comparison, from the package's templates (every data string
    escaped, as the decisions report: :func:`fairstats.auditing.report.write_report`)."""
    from fairstats._version import __version__
    from fairstats.auditing.provenance import input_hashes, report_date, versions
    from fairstats.auditing.report import audited_context, template_environment
    from fairstats.auditing.writing import atomic_write_text

    options, table = audit.options, audit.table
    fairness = table[table["family"] == "fairness"]
    sections, summary = [], []
    for k, (name, sizes) in enumerate(audit.sizes.items()):
        part = fairness[fairness["grouping"] == name]
        counts = part["verdict"].value_counts()
        tally = {v: int(counts.get(v, 0)) for v in _FAIRNESS_VERDICTS}
        rows, left = _shown_rows(part)
        listed = list(sizes.items())
        sections.append({"id": f"grouping-{k + 1}", "name": name, "reference": audit.references[name],
                         "sizes": [(g, f"{n:,}") for g, n in listed[:_MAX_LISTED]],
                         "sizes_more": len(listed[_MAX_LISTED:]), "rows": rows, "rows_more": left,
                         "counts": tally})  # fmt: skip
        summary.append({"grouping": name, "n_groups": len(sizes), "reference": audit.references[name],
                        "n": len(part), "counts": tally})  # fmt: skip
    applies = {"", audit.result.inference, *(("scores",) if options.y_score is not None else ())}
    hashes, more_files = input_hashes(audit.source.path)
    context = {
        "version": __version__, "audited": audited_context(audit), "input_name": audit.source.name,
        "n_people": f"{audit.n:,}", "y_true": options.y_true, "y_pred": options.y_pred,
        "y_pred_baseline": options.y_pred_baseline, "y_score": options.y_score,
        "y_score_baseline": options.y_score_baseline,
        "fold": options.fold, "fav": audit.labels[0], "other": audit.labels[1], "alpha": f"{options.alpha:g}",
        "margin_text": options.margin_text, "inference": _inference_words(audit.result),
        "level": f"{100 * audit.result.confidence_level:g}%", "ratio": audit.result.scale == "ratio",
        "headline": _headline(audit, fairness), "summary": summary, "sections": sections,
        "verdicts": _FAIRNESS_VERDICTS, "accuracy": _shown_rows(table[table["family"] == "accuracy"])[0],
        "total": len(fairness), "columns": _COLUMNS,
        "metric_words": [(m, w) for m, w in _METRIC_WORDS.items() if m in set(table["metric"])],
        "methods": [dict(zip(("name", "what", "assumes", "reference"), m[1:], strict=True))
                    for m in _METHODS if m[0] in applies],
        "notes": list(dict.fromkeys(notes)),
        "provenance": {"hashes": hashes, "more_files": more_files, "date": report_date(),
                       "command": audit.command or "(not recorded)", "versions": versions()},
    }  # fmt: skip
    for kind in ("md", "html"):
        text = template_environment(kind).get_template(f"comparison.{kind}.j2").render(**context)
        atomic_write_text(folder / f"report.{kind}", text)
