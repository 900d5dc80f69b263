"""The audit's options, each validated once where it enters: :class:`AuditOptions` and its bounds.

Every option of the audit is checked here and nowhere else in the wing: the command line's argument types
(:mod:`fairstats.auditing.cli`) call the same checks (:func:`check_level`, :func:`check_resamples`, ...) so
that a bound and its wording are written once, and :class:`AuditOptions` checks the combination of options
when it is made (by :func:`fairstats.audit` or by the command line). The rest of the audit trusts the value.
Messages name the option as the command line spells it (``--n-resamples``), as they always have.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairstats.auditing.errors import AuditError
from fairstats.equivalence import DEFAULT_MARGIN, DEFAULT_MARGIN_V
from fairstats.search import SEARCH_METRICS

__all__ = [
    "DEFAULT_SEARCH_METRICS",
    "MAX_RESAMPLES",
    "MIN_RESAMPLES",
    "AuditOptions",
    "check_depth",
    "check_level",
    "check_min_size",
    "check_resamples",
    "check_search_metric",
    "check_seed",
]

#: Bounds of ``n_resamples`` (``--n-resamples``): fewer resamples give no usable 95% interval or permutation
#: p-value; more than the maximum take hours and gigabytes without changing the result.
MIN_RESAMPLES = 99
MAX_RESAMPLES = 1_000_000
#: Metrics searched unless ``search_metrics`` (``--search-metrics``) says otherwise.
DEFAULT_SEARCH_METRICS = ("fpr", "fnr", "ppr")
DEFAULT_ALPHA = 0.05
DEFAULT_N_RESAMPLES = 9999
DEFAULT_SEED = 20240607


def check_level(value: object) -> float:
    """A level (``alpha``, ``margin``, ``margin_ratio``) strictly between 0 and 1, else ``ValueError``."""
    try:
        level = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a number between 0 and 1, got {value!r}") from None
    if not 0 < level < 1:
        raise ValueError(f"must be strictly between 0 and 1, got {value!r}")
    return level


def check_resamples(value: object) -> int:
    """``n_resamples`` from :data:`MIN_RESAMPLES` to :data:`MAX_RESAMPLES`; ``ValueError`` otherwise."""
    try:
        number = _integer(value)
    except ValueError:
        raise ValueError(
            f"must be an integer from {MIN_RESAMPLES} to {MAX_RESAMPLES:,}, got {value!r}"
        ) from None
    if not MIN_RESAMPLES <= number <= MAX_RESAMPLES:
        raise ValueError(
            f"must be from {MIN_RESAMPLES} to {MAX_RESAMPLES:,} (fewer give no usable interval, more take "
            f"hours and gigabytes), got {value!r}"
        )
    return number


def _integer(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, str):
        return int(value)
    if isinstance(value, int) or (hasattr(value, "__index__")):
        return int(value.__index__())
    raise ValueError(value)


def _whole(value: object, low: int, words: str) -> int:
    """``value`` as an integer >= ``low``; else ``ValueError`` "must be <words>"."""
    try:
        number = _integer(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be {words}, got {value!r}") from None
    if number < low:
        raise ValueError(f"must be {words}, got {value!r}")
    return number


def check_seed(value: object) -> int:
    """``seed``: a non-negative integer."""
    return _whole(value, 0, "a non-negative integer")


def check_depth(value: object) -> int:
    """``search_depth``: 1, 2 or 3."""
    if str(value) not in ("1", "2", "3") or isinstance(value, bool):
        raise ValueError(f"must be 1, 2 or 3, got {value!r}")
    return int(value)


def check_min_size(value: object) -> int:
    """``min_size``: a positive integer."""
    return _whole(value, 1, "a positive integer (at least 1)")


def check_search_metric(value: object) -> str:
    """One of :data:`fairstats.SEARCH_METRICS`."""
    if value not in SEARCH_METRICS:
        raise ValueError(f"must be one of {', '.join(SEARCH_METRICS)}, got {value!r}")
    return str(value)


def _checked(option: str, check, value):
    try:
        return check(value)
    except ValueError as err:
        raise AuditError(f"{option}: {err}") from None


@dataclass(frozen=True)
class AuditOptions:
    """The audit's checked options (what :func:`fairstats.audit` takes, under the same names).

    Made once, checked once (:meth:`__post_init__` raises :class:`AuditError` naming the option and the
    value); the rest of the audit trusts it.
    """

    groups: tuple[str, ...]
    y_true: str
    y_pred: str
    y_score: str | None = None
    fold: str | None = None
    favorable: str | None = None
    alpha: float = DEFAULT_ALPHA
    n_resamples: int = DEFAULT_N_RESAMPLES
    seed: int = DEFAULT_SEED
    margin: float = DEFAULT_MARGIN
    margin_ratio: float | None = None
    margin_v: float = DEFAULT_MARGIN_V
    # multi-level decisions (issue 17 A): the decision's levels in order (None: a two-level decision, the
    # binary audit), the outcome's levels (None: its values, sorted), whether the decision levels are ordered
    decision_levels: tuple[str, ...] | None = None
    outcome_levels: tuple[str, ...] | None = None
    ordered: bool = True
    # subgroup search (``--search``; fairstats.auditing.search): columns searched, depth, min size, metrics
    search: tuple[str, ...] = ()
    search_depth: int = 2
    min_size: int = 30
    search_metrics: tuple[str, ...] = DEFAULT_SEARCH_METRICS
    # comparisons (``--reference``, ``--comparisons``): every group against a named reference (the first of
    # ``reference`` that is one of a grouping's groups; else its largest group), or every pair
    reference: tuple[str, ...] = ()
    comparisons: str = "reference"
    # the input's rows and decision (``--where``, ``--y-pred-positive``, ``--y-pred-threshold``): SQL row
    # filters applied in order, and the rule that turns ``y_pred`` into the yes/no decision
    where: tuple[str, ...] = ()
    y_pred_positive: tuple[str, ...] = ()
    y_pred_threshold: float | None = None

    def __post_init__(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 - frozen: set once here
        groups = (self.groups,) if isinstance(self.groups, str) else tuple(self.groups)
        if not groups:
            raise AuditError("--group: give at least one group column")
        put("groups", tuple(str(g) for g in groups))
        dup = sorted({g for g in self.groups if self.groups.count(g) > 1})
        if dup:
            raise AuditError(f"--group {dup[0]!r} is given twice")
        named = [("--y-true", self.y_true), ("--y-pred", self.y_pred), ("--y-score", self.y_score),
                 ("--fold", self.fold)]  # fmt: skip
        seen: dict[str, str] = {g: "--group" for g in self.groups}
        for option, column in named:
            if column is None:
                continue
            if column in seen:
                raise AuditError(
                    f"{option} {column!r} is also given as {seen[column]}; each role needs its own column"
                )
            seen[column] = option
        put("alpha", _checked("--alpha", check_level, self.alpha))
        put("margin", _checked("--margin", check_level, self.margin))
        put("margin_v", _checked("margin_v", check_level, self.margin_v))
        if self.margin_ratio is not None:
            put("margin_ratio", _checked("--margin-ratio", check_level, self.margin_ratio))
        put("n_resamples", _checked("--n-resamples", check_resamples, self.n_resamples))
        put("seed", _checked("--seed", check_seed, self.seed))
        if self.favorable is not None:
            put("favorable", str(self.favorable))
        if self.margin_ratio is not None and self.fold is not None:
            raise AuditError(
                "--margin-ratio: the fold-based equivalence test (--fold) compares differences; use --margin"
            )
        self._levels_iv()
        self._search_iv()
        self._rows_iv()

    def _rows_iv(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        reference = (self.reference,) if isinstance(self.reference, str) else tuple(self.reference or ())
        put("reference", tuple(str(r) for r in reference))
        if self.comparisons not in ("reference", "pairs"):
            raise AuditError(f"--comparisons must be 'reference' or 'pairs', got {self.comparisons!r}")
        if self.comparisons == "pairs" and self.reference:
            raise AuditError("--reference names the group every other is compared with; --comparisons pairs "
                             "compares every pair: give one of them")  # fmt: skip
        where = (self.where,) if isinstance(self.where, str) else tuple(self.where or ())
        if any(not isinstance(w, str) or not w.strip() for w in where):
            raise AuditError(f"--where: an empty predicate in {list(where)!r}")
        put("where", where)
        positive = self.y_pred_positive
        positive = tuple(p.strip() for p in positive.split(",")) if isinstance(positive, str) else positive
        put("y_pred_positive", tuple(str(p) for p in positive or ()))
        if self.y_pred_positive or self.y_pred_threshold is not None:
            from fairstats._decision_rule import DecisionRule

            try:
                rule = DecisionRule.from_option(
                    self.y_pred, positive=self.y_pred_positive or None, threshold=self.y_pred_threshold
                )
            except ValueError as err:
                raise AuditError(str(err)) from None
            put("y_pred_threshold", rule.threshold)
            if self.decision_levels is not None:
                raise AuditError(
                    "--y-pred-positive/--y-pred-threshold make a two-level decision; --decision-levels "
                    "audits the levels as they are: give one of them"
                )

    @property
    def decision_rule(self):
        """The :class:`fairstats._decision_rule.DecisionRule` of ``--y-pred-positive``/``--y-pred-threshold``,
        or None (``y_pred`` is the decision as it is)."""
        if not self.y_pred_positive and self.y_pred_threshold is None:
            return None
        from fairstats._decision_rule import DecisionRule

        return DecisionRule(self.y_pred, positive=self.y_pred_positive, threshold=self.y_pred_threshold)

    def _levels_iv(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        if self.decision_levels is None:
            for option, given in (("--outcome-levels", self.outcome_levels is not None),
                                  ("--unordered", not self.ordered)):  # fmt: skip
                if given:
                    raise AuditError(
                        f"{option} needs --decision-levels (a decision with more than two levels)"
                    )
            return
        binary_only = (("--fold", self.fold), ("--y-score", self.y_score), ("--favorable", self.favorable))
        for option, given in binary_only:
            if given is not None:
                raise AuditError(
                    f"{option} applies to a two-level decision; with --decision-levels the levels are "
                    "compared one by one"
                )
        if self.search:
            raise AuditError(
                "--search compares two-level rates (fpr, fnr, ...); it does not run with --decision-levels "
                "yet"
            )
        named = (("--decision-levels", "decision_levels"), ("--outcome-levels", "outcome_levels"))
        for option, name in named:
            levels = getattr(self, name)
            if levels is None:
                continue
            levels = tuple(str(v) for v in levels)
            if any(not v for v in levels):
                raise AuditError(f"{option} {levels!r}: an empty level")
            if len(levels) < 2:
                raise AuditError(f"{option} {levels!r}: at least two levels are needed")
            dup = next((v for i, v in enumerate(levels) if v in levels[:i]), None)
            if dup is not None:
                raise AuditError(f"{option} {levels!r}: the level {dup!r} is listed twice")
            put(name, levels)
        put("ordered", bool(self.ordered))

    def _search_iv(self) -> None:
        put = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        search = (self.search,) if isinstance(self.search, str) else tuple(self.search or ())
        put("search", tuple(str(c) for c in search))
        put("search_depth", _checked("--search-depth", check_depth, self.search_depth))
        put("min_size", _checked("--min-size", check_min_size, self.min_size))
        metrics = tuple(_checked("--search-metrics", check_search_metric, m) for m in self.search_metrics)
        put("search_metrics", tuple(dict.fromkeys(metrics)))

    @property
    def margin_text(self) -> str:
        """The equivalence margin in words, as the outputs show it: ``margin 0.1`` or ``ratio margin 0.8``."""
        return f"ratio margin {self.margin_ratio:g}" if self.margin_ratio else f"margin {self.margin:g}"

    @property
    def groupings(self):
        """The groupings audited: each group column, then (with several) their intersection."""
        from fairstats.auditing.grouping import Grouping

        out = [Grouping((g,)) for g in self.groups]
        if len(self.groups) > 1:
            out.append(Grouping(self.groups))
        return tuple(out)
