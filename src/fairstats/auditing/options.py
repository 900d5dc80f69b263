"""The audit's options: one declaration of every option and the tasks it applies to, and the options object.

Every task of the audit is a question the same audit answers — the audit of decisions (``decisions``: the
equal confusion test, outcome disparities, and the levels, scores and subgroup-search sections),
``impact_ratios`` (the four-fifths rule and NYC Local Law 144), ``regression`` (a continuous prediction),
``comparison`` (model against model: the change of every disparity from a baseline model's decisions to the
new model's, on the same people) and ``monitor`` (batches over time, ``fairstats monitor``).
:data:`OPTIONS` says, for every option, its keyword (of :func:`fairstats.audit` and field of
:class:`AuditOptions`), its command-line flag, the tasks it applies to, its default there, its check
(:mod:`fairstats.auditing.checks`) and the option it needs. The command line's help
(:mod:`fairstats.auditing.cli`), the messages of :class:`AuditOptions` and the documentation page of options
(``docs/options.rst``, :func:`options_page`) are made from it, and
``tests/library/test_options_by_task.py`` runs every option in every task.

The rule: an option given in a task it does not apply to is refused with one line naming the option and the
task (:class:`~fairstats.auditing.AuditError`, exit status 2); an option given where it applies changes what
is computed, and the report's "What was audited" says so. An option that needs another (``--search-depth``
needs ``--search``) is refused without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields

from fairstats.auditing import checks as chk
from fairstats.auditing.errors import AuditError
from fairstats.disparity_change import CHANGE_METRICS
from fairstats.equivalence import DEFAULT_MARGIN, DEFAULT_MARGIN_V
from fairstats.metrics import METRICS
from fairstats.monitor import MONITOR_METRICS
from fairstats.search import SEARCH_METRICS

__all__ = [
    "DEFAULT_SEARCH_METRICS",
    "OPTIONS",
    "TASKS",
    "AuditOptions",
    "Option",
    "options_page",
    "refuse_inapplicable",
]

#: The tasks, in the order the documentation lists them.
TASKS = ("decisions", "impact_ratios", "regression", "comparison", "monitor")
#: How a message names each task (what the user typed to choose it).
TASK_NAMES = {
    "decisions": "the audit of decisions",
    "impact_ratios": "--impact-ratios",
    "regression": "--task regression",
    "comparison": "--task comparison",
    "monitor": "fairstats monitor",
}
#: Metrics searched unless ``search_metrics`` (``--search-metrics``) says otherwise.
DEFAULT_SEARCH_METRICS = ("fpr", "fnr", "ppr")
#: The bootstrap resamples of the calibration index's interval (each refits a spline GLM) unless
#: ``ici_resamples`` says otherwise.
DEFAULT_ICI_RESAMPLES = 199

_ALL = TASKS
#: The tasks that write an audit folder (--out): every task but the monitor.
AUDIT_TASKS = ("decisions", "impact_ratios", "regression", "comparison")
_AUDITS = AUDIT_TASKS
_D, _I, _R, _C, _M = ("decisions",), ("impact_ratios",), ("regression",), ("comparison",), ("monitor",)
_DC = ("decisions", "comparison")  # a two-level decision and its outcome


def _choice(*allowed: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
        return value

    return check


def _search_metrics(value: object) -> tuple[str, ...]:
    names = chk.check_labels(value)
    bad = [m for m in names if m not in SEARCH_METRICS]
    if bad:
        raise ValueError(f"must be among {', '.join(SEARCH_METRICS)}, got {bad[0]!r}")
    return names


#: The measures ``--metrics`` may name in each task that takes it (a comparison: every rate of
#: :data:`fairstats.METRICS` and the AUC; the mean scores and the AUC need both models' scores).
TASK_METRICS = {"comparison": (*METRICS, "auc"), "monitor": MONITOR_METRICS}
_SCORE_METRICS = ("mean_score_pos", "mean_score_neg", "auc")


def _metrics(value: object) -> tuple[str, ...]:
    """Measure names (a list, or comma-separated), each known to some task; the task's own set is checked
    with the other options (:meth:`AuditOptions._combinations_iv`)."""
    names = tuple(dict.fromkeys(chk.check_labels(value)))
    known = dict.fromkeys(m for metrics in TASK_METRICS.values() for m in metrics)
    bad = [m for m in names if m not in known]
    if bad:
        raise ValueError(f"must be among {', '.join(known)}, got {bad[0]!r}")
    return names


@dataclass(frozen=True)
class Option:
    """One option of the audit, declared once.

    ``name``: the keyword of :func:`fairstats.audit` (and the field of :class:`AuditOptions` unless ``field``
    says otherwise; ``field=""``: an option of the command line's run, not of the computation, such as
    ``--out``); ``flag``: the command line's spelling (``""``: keyword only); ``tasks``: where it applies;
    ``default``: its value there when not given (a dict: task -> value, None where a task has none);
    ``check``: value -> checked value; ``needs``: the option
    without which it has no effect; ``cli``: how argparse reads it (``value``, ``append``, ``flag``,
    ``nargs``,
    ``positional``); ``section``: its group in ``--help``.
    """

    name: str
    flag: str
    tasks: tuple[str, ...]
    help: str
    default: object = None
    check: Callable[[object], object] | None = None
    needs: str | None = None
    cli: str = "value"
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    section: str = "options"
    field: str | None = None
    flag_value: object = True  # what a flag (``cli="flag"``) sets: True, or False for --unordered

    @property
    def attribute(self) -> str:
        """The :class:`AuditOptions` field ("" for an option of the run only)."""
        return self.name if self.field is None else self.field

    def default_in(self, task: str) -> object:
        """The default in ``task`` (None: none)."""
        return self.default.get(task) if isinstance(self.default, dict) else self.default

    @property
    def spelled(self) -> str:
        """How messages name the option: its flag, else its keyword."""
        return self.flag or f"{self.name}="


_SECTION_ROWS = "rows and decision"
_SECTION_LEVELS = "multi-level decisions"
_SECTION_SEARCH = "subgroup search"
_SECTION_IMPACT = "impact ratios (the four-fifths rule, NYC Local Law 144)"
_SECTION_REGRESSION = "regression"
_SECTION_MONITOR = "monitor"
_SECTION_OUTPUT = "outputs"

#: Every option of the audit: the one declaration (see the module's docstring).
OPTIONS: tuple[Option, ...] = (
    # the task and the input
    Option("task", "--task", _AUDITS, "what --y-pred holds: decisions (two labels, or levels with "
           "--decision-levels; the default), a continuous prediction (regression), decisions audited as "
           "impact ratios (impact_ratios; also --impact-ratios), or a new model's decisions against a "
           "baseline model's on the same people (comparison, with --y-pred-baseline)", default="decisions",
           check=_choice(*AUDIT_TASKS), choices=AUDIT_TASKS, field=""),
    Option("impact_ratios", "--impact-ratios", _I, "audit impact ratios: --task impact_ratios",
           cli="flag", field=""),
    Option("predictions", "", _AUDITS, "CSV or parquet file, or folder of parquet files, one row per person",
           cli="positional", metavar="PREDICTIONS", field=""),
    Option("counts", "--counts", ("decisions", "impact_ratios", "comparison"), "instead of PREDICTIONS: a "
           "table of counts (CSV or parquet) with the --group, --y-true and --y-pred (and --y-pred-baseline) "
           "columns and n, the number of people with each combination (e.g. one SQL GROUP BY)",
           metavar="FILE", field=""),
    Option("batches", "", _M, "batch files or folders of them (CSV or parquet), taken in name order",
           cli="positional", metavar="BATCHES", field=""),
    # the columns
    Option("group", "--group", _ALL, "sensitive attribute column; repeat for several (their intersection is "
           "audited too; the monitor follows one)", check=chk.check_columns, cli="append", metavar="COL",
           field="groups"),
    Option("y_true", "--y-true", ("decisions", "regression", "comparison", "monitor"), "column of the true "
           "outcome (the monitor: adds tpr and fpr)", check=chk.check_column, metavar="COL"),
    Option("y_pred", "--y-pred", _ALL, "column of the prediction: the decision (two labels), its levels, or "
           "a continuous prediction (--task regression); --task comparison: the new model's decision",
           check=chk.check_column, metavar="COL"),
    Option("y_pred_baseline", "--y-pred-baseline", _C, "column of the baseline model's decision for the same "
           "people (its labels those of --y-pred): every disparity's change from it to --y-pred is "
           "tested, paired",
           check=chk.check_column, metavar="COL"),
    Option("y_score", "--y-score", _DC, "column of a score (adds AUC, calibration and score distribution "
           "tests; --task comparison: the new model's score, with --y-score-baseline: AUC and mean scores)",
           check=chk.check_column, metavar="COL"),
    Option("y_score_baseline", "--y-score-baseline", _C, "column of the baseline model's score (with "
           "--y-score): the changes of each group's AUC and mean scores are tested too",
           check=chk.check_column, needs="y_score", metavar="COL"),
    Option("fold", "--fold", _DC, "column of the cross-validation test fold (out-of-fold predictions of one "
           "model; --task comparison: of both, over the same folds): compare per-fold metrics with the "
           "corrected resampled t instead of the bootstrap (the delta method)",
           check=chk.check_column, metavar="COL"),
    Option("favorable", "--favorable", ("decisions", "impact_ratios", "comparison", "monitor"), "label of "
           "the favourable outcome (impact ratios: the selected decision), in both --y-true and --y-pred "
           "(default: 1, with 0/1 labels)", check=chk.check_label, metavar="VALUE"),
    # the tests
    Option("alpha", "--alpha", _ALL, "significance level of every test and of the multiplicity control",
           default=0.05, check=chk.check_level, metavar="A"),
    Option("margin", "--margin", ("decisions", "comparison", "monitor"), "equivalence margin: a difference "
           "of two rates (or mean scores) within +-M counts as negligible (AIF360's 'fair' range of its "
           "difference metrics; --task comparison: a change of a disparity, and of accuracy; the monitor: "
           "none unless given)", default={"decisions": DEFAULT_MARGIN, "comparison": DEFAULT_MARGIN},
           check=chk.check_level, metavar="M"),
    Option("margin_ratio", "--margin-ratio", _DC, "test rates by their ratio instead, equivalent within "
           "[R, 1/R] (0.8: the four-fifths rule, 29 CFR 1607.4(D)); the audit of decisions: not with --fold; "
           "--task comparison: disparities as ratios, their change the ratio of the two models' ratios",
           check=chk.check_level, metavar="R"),
    Option("margin_v", "", _D, "equivalence margin of Cramér's V", default=DEFAULT_MARGIN_V,
           check=chk.check_level),
    Option("n_resamples", "--n-resamples", ("decisions", "regression"), "bootstrap and permutation "
           f"resamples, {chk.MIN_RESAMPLES} to {chk.MAX_RESAMPLES:,}", default=9999,
           check=chk.check_resamples, metavar="N"),
    Option("ici_resamples", "--ici-resamples", _D, "bootstrap resamples of the calibration index's (ICI) "
           f"interval, each refitting a spline GLM per group, {chk.MIN_RESAMPLES} to {chk.MAX_RESAMPLES:,}",
           default=DEFAULT_ICI_RESAMPLES, check=chk.check_resamples, needs="y_score", metavar="N"),
    # keyword rng (numpy SPEC 7, as every resampling function of fairstats), flag --seed (the command line's
    # convention): an integer, the one seed of the audit's scheme, recorded in the report as "seed"
    Option("rng", "--seed", ("decisions", "regression"), "random seed, a non-negative integer: every "
           "resampling stream is derived from it (one per task and grouping), and the report records it",
           default=20240607, check=chk.check_seed, metavar="S", field="seed"),
    Option("reference", "--reference", _ALL, "the group every other group is compared with (repeat for "
           "several groupings: each uses the first that is one of its groups; an intersection's label as the "
           "tables write it; impact ratios: the comparison category instead of the most selected one; the "
           "monitor: one group); default: the largest group", check=chk.check_labels, cli="append",
           metavar="GROUP"),
    Option("comparisons", "--comparisons", _D, "'reference': every group against the reference; 'pairs': "
           "every pair of groups once", default="reference", check=_choice("reference", "pairs"),
           choices=("reference", "pairs")),
    # rows and decision
    Option("where", "--where", _ALL, "keep the rows for which this SQL predicate holds (repeatable, applied "
           "in order), e.g. \"days_b_screening_arrest BETWEEN -30 AND 30\"; column references, constants, "
           "comparisons, BETWEEN, IN (...), LIKE, IS NULL, CASE, casts and simple scalar functions only",
           default=(), check=chk.check_predicates, cli="append", metavar="PREDICATE",
           section=_SECTION_ROWS),
    Option("date_format", "--date-format", _ALL, "how the dates written as text that --where reads (and "
           "impact ratios' --date) are written, in strftime codes, e.g. %d/%m/%Y; every such column is then "
           "read as dates (UTC) and compared as dates. Without it, date text other than ISO 8601 "
           "(YYYY-MM-DD) is refused: read day-first or month-first it gives other dates",
           check=chk.check_date_format, metavar="FORMAT", section=_SECTION_ROWS),
    Option("y_pred_positive", "--y-pred-positive", ("decisions", "impact_ratios", "comparison", "monitor"),
           "the --y-pred labels that count as the positive prediction, comma-separated (e.g. Medium,High); "
           "the decision becomes 0/1 (--task comparison: --y-pred-baseline's too)", check=chk.check_labels,
           metavar="L1,L2,...", section=_SECTION_ROWS),
    Option("y_pred_threshold", "--y-pred-threshold", ("decisions", "impact_ratios", "comparison", "monitor"),
           "instead: --y-pred is a score, positive when >= T (the decision becomes 0/1; --task comparison: "
           "--y-pred-baseline too)", check=chk.check_number,
           metavar="T", section=_SECTION_ROWS),
    # multi-level decisions
    Option("decision_levels", "--decision-levels", _D, "every level of --y-pred, comma-separated, low to "
           "high when ordered (e.g. Low,Medium,High): the equal confusion test on the decision x outcome "
           "cells, per-level shares, and the linear-by-linear test; level_tests.csv and ordinal_tests.csv "
           "instead of tests.csv", check=chk.check_levels, metavar="L1,L2,...", section=_SECTION_LEVELS),
    Option("outcome_levels", "--outcome-levels", _D, "every level of --y-true, comma-separated (default: the "
           "values found, sorted)", check=chk.check_levels, needs="decision_levels", metavar="O1,O2,...",
           section=_SECTION_LEVELS),
    Option("ordered", "--unordered", _D, "the decision levels have no order: no linear-by-linear (ordinal) "
           "test (keyword: ordered=False)", default=True, check=chk.check_flag, needs="decision_levels",
           cli="flag", section=_SECTION_LEVELS, flag_value=False),
    # subgroup search
    Option("search", "--search", _D, "columns whose values define subgroups: every conjunction of up to "
           "--search-depth values is compared with the rest, p-values adjusted over the whole search "
           "(Westfall-Young max-T)", default=(), check=chk.check_columns, cli="nargs", metavar="COL",
           section=_SECTION_SEARCH),
    Option("search_depth", "--search-depth", _D, "values per subgroup, 1 to 3", default=2,
           check=chk.check_depth, needs="search", metavar="D", section=_SECTION_SEARCH),
    Option("min_size", "--min-size", _D, "smallest subgroup (and rest) searched, in people", default=30,
           check=chk.check_min_size, needs="search", metavar="N", section=_SECTION_SEARCH),
    Option("search_metrics", "--search-metrics", _D, f"rates compared: {', '.join(SEARCH_METRICS)}",
           default=DEFAULT_SEARCH_METRICS, check=_search_metrics, needs="search", cli="nargs", metavar="M",
           section=_SECTION_SEARCH),
    # impact ratios
    Option("scoring_rate", "--scoring-rate", _I, "a score column: the rate is the share strictly above the "
           "whole sample's median (instead of --y-pred)", check=chk.check_column, metavar="COL",
           section=_SECTION_IMPACT),
    Option("standard", "--standard", _I, "ll144: NYC Local Law 144's layout (6 RCNY 5-300 ff.): --sex, "
           "--race and their intersection", check=_choice("ll144"), choices=("ll144",),
           section=_SECTION_IMPACT),
    Option("sex", "--sex", _I, "sex column", check=chk.check_column, needs="standard", metavar="COL",
           section=_SECTION_IMPACT),
    Option("race", "--race", _I, "race/ethnicity column", check=chk.check_column, needs="standard",
           metavar="COL", section=_SECTION_IMPACT),
    Option("date", "--date", _I, "date column whose range the report gives", check=chk.check_column,
           metavar="COL", section=_SECTION_IMPACT),
    Option("min_share", "--min-share", _I, "exclude categories below this share of the data from the ratios, "
           "keeping their row (LL144's 2 %% rule: 0.02; the auditor must justify it)", check=chk.check_level,
           metavar="S", section=_SECTION_IMPACT),
    Option("missing_as_unknown", "--missing-as-unknown", _I, "count missing group values in an 'unknown' "
           "category (default: a missing value is an error)", default=False, check=chk.check_flag,
           cli="flag", section=_SECTION_IMPACT),
    Option("unknown", "--unknown", _I, "a group value meaning unknown (e.g. Declined), counted in the "
           "'unknown' category; repeatable", default=(), check=chk.check_labels, cli="append",
           metavar="VALUE", section=_SECTION_IMPACT),
    # regression
    Option("regression_margin", "--regression-margin", _R, "equivalence margin of every error metric's "
           "difference, in the unit of --y-true (default: none, no equivalence tests)",
           check=chk.check_positive, metavar="M", section=_SECTION_REGRESSION),
    # the monitor
    Option("metrics", "--metrics", ("comparison", "monitor"), "the measures compared, comma-separated: the "
           f"monitor's rates to follow, from {', '.join(MONITOR_METRICS)} (default: ppr, and tpr, fpr with "
           f"--y-true); --task comparison: from {', '.join(TASK_METRICS['comparison'])} (default: "
           f"{', '.join(CHANGE_METRICS)}, and with the scores {', '.join(_SCORE_METRICS)}; Holm over those "
           "given)", check=_metrics, metavar="M1,M2"),
    Option("state", "--state", _M, "the state folder (created and owned by the monitor)", metavar="DIR",
           section=_SECTION_MONITOR, field=""),
    # outputs
    Option("out", "--out", _AUDITS, "output folder (see below)", metavar="DIR", section=_SECTION_OUTPUT,
           field=""),
    Option("pdf", "--pdf", _AUDITS, "also write report.pdf (report.html printed by headless Chromium; exit 2 "
           "if none is found)", cli="flag", section=_SECTION_OUTPUT, field=""),
    Option("json", "--json", _ALL, "print a machine-readable summary (JSON) on standard output instead of "
           "the text summary", cli="flag", section=_SECTION_OUTPUT, field=""),
    Option("fail_on", "--fail-on", _ALL, "exit with status 3 when a verdict is 'disparity' (impact ratios: a "
           "category 'below 4/5'; --task comparison: a change 'less fair'; the monitor: an alarm), for "
           "scheduled jobs and CI gates; the outputs are written as usual", choices=("disparity",),
           check=_choice("disparity"), section=_SECTION_OUTPUT, field=""),
)

_BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}


def option(name: str) -> Option:
    """The declaration of the option ``name`` (its keyword)."""
    return _BY_NAME[name]


def refuse_inapplicable(task: str, given: Iterable[str]) -> None:
    """:class:`AuditError` naming the first option of ``given`` (keywords, in declaration order) that does
    not apply to ``task``, or that needs an option not given."""
    given = set(given)
    for opt in OPTIONS:
        if opt.name not in given:
            continue
        if task not in opt.tasks:
            where = ", ".join(TASK_NAMES[t] for t in opt.tasks)
            raise AuditError(f"{opt.spelled} does not apply to {TASK_NAMES[task]} (it applies to {where})")
        if opt.needs is not None and opt.needs not in given:
            raise AuditError(f"{opt.spelled} needs {_BY_NAME[opt.needs].spelled}")


def _checked(opt: Option, value: object) -> object:
    if opt.check is None:
        return value
    try:
        return opt.check(value)
    except (TypeError, ValueError) as err:
        raise AuditError(f"{opt.spelled}: {err}") from None


@dataclass(frozen=True)
class AuditOptions:
    """The audit's checked options, for every task (what :func:`fairstats.audit` and the command line take).

    Made once from the options given (None: not given), checked once by :meth:`__post_init__` against
    :data:`OPTIONS`: an option given in a task it does not apply to, a value out of bounds or a combination
    that cannot be computed raises :class:`AuditError` naming the option (and the task). Afterwards every
    option that applies to :attr:`task` holds its value or its default, and every other holds ``None``
    (``()`` for a list, ``False`` for a flag); the rest of the audit trusts it. :attr:`given` lists the
    options given, as the report's "What was audited" names them.
    """

    task: str = "decisions"
    groups: tuple[str, ...] = ()
    y_true: str | None = None
    y_pred: str | None = None
    y_pred_baseline: str | None = None
    y_score: str | None = None
    y_score_baseline: str | None = None
    fold: str | None = None
    favorable: str | None = None
    alpha: float | None = None
    margin: float | None = None
    margin_ratio: float | None = None
    margin_v: float | None = None
    n_resamples: int | None = None
    ici_resamples: int | None = None
    seed: int | None = None
    reference: tuple[str, ...] = ()
    comparisons: str | None = None
    where: tuple[str, ...] = ()
    date_format: str | None = None
    y_pred_positive: tuple[str, ...] = ()
    y_pred_threshold: float | None = None
    decision_levels: tuple[str, ...] | None = None
    outcome_levels: tuple[str, ...] | None = None
    ordered: bool | None = None
    search: tuple[str, ...] = ()
    search_depth: int | None = None
    min_size: int | None = None
    search_metrics: tuple[str, ...] = ()
    scoring_rate: str | None = None
    standard: str | None = None
    sex: str | None = None
    race: str | None = None
    date: str | None = None
    min_share: float | None = None
    missing_as_unknown: bool = False
    unknown: tuple[str, ...] = ()
    regression_margin: float | None = None
    metrics: tuple[str, ...] | None = None
    given: tuple[str, ...] = ()

    @classmethod
    def of(cls, task: str = "decisions", **given: object) -> AuditOptions:
        """The options of ``task`` from keywords as :func:`fairstats.audit` names them (``group=``, not
        ``groups=``); a keyword whose value is None is not given."""
        if task not in TASKS:
            raise AuditError(f"--task must be one of {', '.join(AUDIT_TASKS)}, got {task!r}")
        unknown = [k for k in given if k not in _BY_NAME or not _BY_NAME[k].attribute]
        if unknown:
            raise AuditError(f"unknown option {unknown[0]!r}")
        present = {k: v for k, v in given.items() if v is not None}
        fields_given = {_BY_NAME[k].attribute: v for k, v in present.items()}
        return cls(task=task, given=tuple(k for k in _BY_NAME if k in present), **fields_given)

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 - frozen: set once here
        if self.task not in TASKS:
            raise AuditError(f"--task must be one of {', '.join(AUDIT_TASKS)}, got {self.task!r}")
        if not self.given:  # made with fields directly (not through `of`): the fields not at their blank
            blank = {f.name: f.default for f in fields(self)}
            put("given", tuple(o.name for o in OPTIONS if o.attribute and o.attribute != "task"
                               and getattr(self, o.attribute) != blank[o.attribute]))
        refuse_inapplicable(self.task, self.given)
        for opt in OPTIONS:
            if not opt.attribute or opt.attribute == "task":
                continue
            if opt.name in self.given:
                put(opt.attribute, _checked(opt, getattr(self, opt.attribute)))
            elif self.task in opt.tasks and opt.default_in(self.task) is not None:
                put(opt.attribute, opt.default_in(self.task))
            else:
                put(opt.attribute, _blank(opt))
        self._required_iv()
        self._roles_iv()
        self._combinations_iv()

    # --- the checks of combinations (written once; the declaration says the rest) --------------------------

    def _required_iv(self) -> None:
        task = self.task
        need = {"decisions": ("group", "y_true", "y_pred"), "regression": ("group", "y_true", "y_pred"),
                "comparison": ("group", "y_true", "y_pred", "y_pred_baseline"),
                "monitor": ("group", "y_pred"),
                "impact_ratios": ()}[task]  # fmt: skip
        missing = [_BY_NAME[n].spelled for n in need if n not in self.given]
        if missing:
            raise AuditError(
                f"the following arguments are required for {TASK_NAMES[task]}: {', '.join(missing)}"
            )
        if task == "monitor" and len(self.groups) > 1:
            raise AuditError("--group: fairstats monitor follows one group column; give one --group")
        if task == "monitor" and len(self.reference) > 1:
            raise AuditError("--reference: fairstats monitor compares with one group; give one --reference")
        if task == "impact_ratios":
            if ("y_pred" in self.given) == ("scoring_rate" in self.given):
                raise AuditError(
                    "--impact-ratios: give the decision with --y-pred (and --favorable naming the selected "
                    "label), or a score with --scoring-rate COL, not both or neither"
                )
            if self.scoring_rate is not None:
                for name in ("favorable", "y_pred_positive", "y_pred_threshold"):
                    if name in self.given:
                        raise AuditError(
                            f"{_BY_NAME[name].spelled}: with --scoring-rate the rate is the share above the "
                            "median; there is no decision to make"
                        )
            if self.standard == "ll144":
                if self.sex is None or self.race is None:
                    raise AuditError("--standard ll144 needs --sex COL and --race COL (and optionally "
                                     "--date)")
                if "group" in self.given:
                    raise AuditError(
                        "--group: with --standard ll144 the groupings are --sex, --race and their "
                        "intersection"
                    )
                object.__setattr__(self, "groups", (self.sex, self.race))
            elif not self.groups:
                raise AuditError("--impact-ratios: give at least one --group column (or --standard ll144)")

    def _roles_iv(self) -> None:
        """Each role its own column."""
        seen: dict[str, str] = {g: "--group" for g in self.groups}
        if self.standard == "ll144":
            seen = {self.sex: "--sex", self.race: "--race"}  # type: ignore[dict-item]
        named = (("--y-true", self.y_true), ("--y-pred", self.y_pred),
                 ("--y-pred-baseline", self.y_pred_baseline),
                 ("--y-score", self.y_score), ("--y-score-baseline", self.y_score_baseline),
                 ("--fold", self.fold), ("--scoring-rate", self.scoring_rate), ("--date", self.date))
        for flag, column in named:
            if column is None:
                continue
            if column in seen:
                raise AuditError(
                    f"{flag} {column!r} is also given as {seen[column]}; each role needs its own column"
                )
            seen[column] = flag

    def _combinations_iv(self) -> None:
        given = set(self.given)
        if self.task == "comparison":  # the changes' own rules: both scores or neither
            if self.y_score is not None and self.y_score_baseline is None:
                raise AuditError("--y-score: --task comparison compares two models' scores; give --y-score "
                                 "with --y-score-baseline, or neither")  # fmt: skip
        elif self.margin_ratio is not None and self.fold is not None:
            raise AuditError(
                "--margin-ratio: the fold-based equivalence test (--fold) compares differences; use --margin"
            )
        ratio_only = self.margin_ratio is not None and self.y_score is None and self.task == "decisions"
        if "margin" in given and ratio_only:  # a comparison's accuracy changes are differences (--margin)
            raise AuditError(
                "--margin: with --margin-ratio the rates are tested by their ratio; --margin applies to "
                "differences (of mean scores, with --y-score): give one of them"
            )
        if self.comparisons == "pairs" and self.reference:
            raise AuditError("--reference names the group every other is compared with; --comparisons pairs "
                             "compares every pair: give one of them")  # fmt: skip
        if self.date_format is not None and not self.where and self.date is None:
            raise AuditError("--date-format says how the dates --where reads (or --date) are written; give "
                             "--where" + (" or --date" if self.task == "impact_ratios" else ""))  # fmt: skip
        if self.y_pred_positive and self.y_pred_threshold is not None:
            raise AuditError("give either the positive labels (--y-pred-positive) or a threshold "
                             "(--y-pred-threshold), not both")  # fmt: skip
        if self.decision_levels is not None:
            for flag, name in (("--fold", "fold"), ("--y-score", "y_score"), ("--favorable", "favorable")):
                if name in given:
                    raise AuditError(
                        f"{flag} applies to a two-level decision; with --decision-levels the levels are "
                        "compared one by one"
                    )
            if self.search:
                raise AuditError(
                    "--search compares two-level rates (fpr, fnr, ...); it does not run with "
                    "--decision-levels yet"
                )
            if self.y_pred_positive or self.y_pred_threshold is not None:
                raise AuditError(
                    "--y-pred-positive/--y-pred-threshold make a two-level decision; --decision-levels "
                    "audits the levels as they are: give one of them"
                )
            if "margin" in given or "margin_ratio" in given:
                raise AuditError(
                    "--margin/--margin-ratio: the levels' tests have no equivalence test; leave it out"
                )
        if self.metrics is not None:
            allowed = TASK_METRICS[self.task]
            bad = [m for m in self.metrics if m not in allowed]
            if bad:
                raise AuditError(f"--metrics: {TASK_NAMES[self.task]} compares {', '.join(allowed)}; got "
                                 f"{bad[0]!r}")  # fmt: skip
            scored = [m for m in self.metrics if m in _SCORE_METRICS]
            if self.task == "comparison" and scored and self.y_score is None:
                raise AuditError(f"--metrics {scored[0]!r} needs both models' scores (--y-score and "
                                 "--y-score-baseline)")  # fmt: skip
        if self.task == "monitor" and self.metrics is not None and self.y_true is None:
            wrong = [m for m in self.metrics if m != "ppr"]
            if wrong:
                raise AuditError(f"--metrics {wrong[0]!r} needs --y-true (the outcome)")

    # --- what the rest of the audit reads ------------------------------------------------------------------

    @property
    def decision_rule(self):
        """The :class:`fairstats._decision_rule.DecisionRule` of ``--y-pred-positive``/``--y-pred-threshold``,
        or None (``y_pred`` is the decision as it is)."""
        if not self.y_pred_positive and self.y_pred_threshold is None:
            return None
        from fairstats._decision_rule import DecisionRule

        return DecisionRule(self.y_pred, positive=self.y_pred_positive, threshold=self.y_pred_threshold)

    @property
    def decision_rules(self) -> tuple:
        """The decision rule of every prediction column it makes a decision of: ``y_pred``'s, and with
        ``--task comparison`` the same rule for ``y_pred_baseline``'s (empty without a rule)."""
        rule = self.decision_rule
        if rule is None:
            return ()
        if self.y_pred_baseline is None:
            return (rule,)
        from dataclasses import replace

        return rule, replace(rule, column=self.y_pred_baseline)

    @property
    def selected(self) -> str | None:
        """The column whose rate is compared: ``y_pred``, or the score of ``--scoring-rate``."""
        return self.scoring_rate if self.scoring_rate is not None else self.y_pred

    @property
    def margin_text(self) -> str:
        """The equivalence margin in words, as the report shows it."""
        if self.task == "regression":
            if self.regression_margin is None:
                return "no margin (--regression-margin): no equivalence tests"
            return f"margin {self.regression_margin:g} in the unit of {self.y_true!r}"
        if self.margin_ratio and self.task == "comparison":
            return f"ratio margin {self.margin_ratio:g} (differences: margin {self.margin:g})"
        if self.margin_ratio:
            return f"ratio margin {self.margin_ratio:g}"
        return "no margin" if self.margin is None else f"margin {self.margin:g}"

    @property
    def groupings(self):
        """The groupings audited: each group column, then (with several) their intersection."""
        from fairstats.auditing.grouping import Grouping

        out = [Grouping((g,)) for g in self.groups]
        if len(self.groups) > 1:
            out.append(Grouping(self.groups))
        return tuple(out)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of the input the task reads (``--where``'s own are added when the input's columns are
        known, :func:`fairstats.auditing.rows.predicate_columns`)."""
        named = [*self.groups, *self.search, self.y_true, self.y_pred, self.y_pred_baseline, self.y_score,
                 self.y_score_baseline, self.fold, self.scoring_rate, self.date]  # fmt: skip
        return tuple(dict.fromkeys(c for c in named if c is not None))

    @property
    def per_person(self) -> bool:
        """Does a test need each person's row (a score, a fold, a residual)? Else rows are counted."""
        return self.task in ("regression", "monitor") or self.y_score is not None or self.fold is not None

    def shown(self) -> list[tuple[str, str]]:
        """The options given that change the computation, as (flag, value) for the report's "What was
        audited" (the columns and rows have rows of their own there)."""
        skip = {"group", "y_true", "y_pred", "y_pred_baseline", "where", "y_pred_positive",
                "y_pred_threshold"}  # fmt: skip
        out = []
        for name in self.given:
            opt = _BY_NAME[name]
            if name in skip or not opt.attribute:
                continue
            value = getattr(self, opt.attribute)
            text = ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)
            out.append((opt.spelled, text))
        return out


def _blank(opt: Option) -> object:
    """The value of an option that is not given and has no default in the task: None, ``()`` for a list,
    ``False`` for a flag."""
    if opt.cli in ("append", "nargs") and opt.name not in ("decision_levels", "outcome_levels"):
        return ()
    if opt.name in ("y_pred_positive", "unknown"):
        return ()
    if opt.name == "missing_as_unknown":
        return False
    return None


def options_page() -> str:
    """``docs/options.rst``: every option, its flag and keyword, the tasks it applies to, its default and
    what it does; made from :data:`OPTIONS` (``tests/library/test_options_by_task.py`` checks the committed
    page against it)."""
    head = ["option", "keyword", *TASKS, "default", "what it does"]
    lines = [
        "Options by task",
        "===============",
        "",
        "Made from ``fairstats.auditing.options.OPTIONS``, the one declaration the command line's help, the",
        "messages of ``fairstats.audit`` and this page come from. ✓: the option applies to the task; an",
        "option given where it does not apply is refused (exit status 2, one line naming the option and the",
        "task).",
        "Options with a keyword are :func:`fairstats.audit`'s parameters of that name (the monitor is",
        "``fairstats monitor``, and :class:`fairstats.FairnessMonitor` in memory). A flag and its keyword",
        "are spelled alike, but for "
        + " and ".join(f"``{o.flag}`` (``{o.name}={repr(o.flag_value) if o.cli == 'flag' else ''}``)"
                       for o in OPTIONS if o.attribute and o.flag and o.flag[2:].replace("-", "_") != o.name)
        + "; ``rng`` is the seed's name in every resampling function of fairstats (here an integer, which",
        "the report records).",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 14 12 6 6 6 6 6 10 34",
        "",
    ]
    rows = [head]
    for opt in OPTIONS:
        flag = f"``{opt.flag}``" if opt.flag else (opt.metavar or "")
        keyword = f"``{opt.name}``" if opt.attribute else ""
        marks = ["✓" if t in opt.tasks else "" for t in TASKS]
        needs = f" Needs ``{_BY_NAME[opt.needs].spelled}``." if opt.needs else ""
        text = opt.help.replace("%%", "%").replace("*", "\\*") + "." + needs
        rows.append([flag, keyword, *marks, _default_text(opt.default), text])
    for row in rows:
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}".rstrip() for cell in row[1:]]
    return "\n".join(lines) + "\n"


def _default_text(value: object) -> str:
    """A default as the page shows it (per task where it differs)."""
    if isinstance(value, dict):
        return "; ".join(f"{task}: {_default_text(v)}" for task, v in value.items())
    if value is None or value == ():
        return ""
    return f"``{' '.join(map(str, value)) if isinstance(value, tuple) else value}``"


def given_options(values: Mapping[str, object]) -> dict[str, object]:
    """The options of ``values`` (keyword -> value) that were given: not None (the command line leaves every
    option it was not given at None)."""
    return {k: v for k, v in values.items() if v is not None}
