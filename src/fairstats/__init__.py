"""fairstats: is this group disparity real, or chance?

Statistical fairness tests: the equal confusion test, fold-based tests with the corrected t, calibration,
McNemar mid-p, fairness through awareness, bootstrap intervals, multiplicity control, equivalence tests with
the minimum detectable disparity and three-way verdicts, impact ratios under the four-fifths rule and NYC
Local Law 144, model against model (the paired change of each disparity), and the audit of predictions,
in memory (``fairstats.audit(...) -> Audit``, in the wing :mod:`fairstats.auditing`) or as the
``fairstats audit`` command. Public API below; each module documents its functions. The papers' compendium
(``src/compendium``) uses this API and is not part of the library.
"""

from fairstats._version import __version__  # noqa: F401, I001
from fairstats import _epoch  # noqa: F401, I001 - before scipy: a bad SOURCE_DATE_EPOCH must not stop the import
from fairstats._deprecation import attribute as _attribute  # noqa: I001

# Public API (one line per module; keep sorted).
from fairstats._contingency import ContingencyTable  # noqa: F401, I001
from fairstats.awareness import AwarenessResult, MahalanobisWhitening, Neighbours, SingularCovarianceWarning, awareness_test, fairness_through_awareness, mahalanobis_whitening, nearest_other_group  # noqa: E501, F401, I001
from fairstats.bootstrap import BCaUndefinedWarning, BootstrapCramersVResult, BootstrapDisparityResult, UndefinedResampleWarning, bootstrap_cramers_v, bootstrap_disparity  # noqa: E501, F401, I001
from fairstats.calibration import CalibrationIndependenceResult, calibration_independence_test  # noqa: E501, F401, I001
from fairstats.confusion import EqualConfusionResult, SmallExpectedCountWarning, adjusted_residuals, confusion_parity_error, confusion_ratios, equal_confusion_test  # noqa: E501, F401, I001
from fairstats.counts import COUNT_COLUMN, Counts  # noqa: E501, F401, I001
from fairstats.cramers_v import CramersVIntervalResult, cramers_v_interval  # noqa: E501, F401, I001
from fairstats.disparity_change import DisparityChangeResult, disparity_change, disparity_change_verdicts, fold_disparity_change  # noqa: E501, F401, I001
from fairstats.discrimination import AUCResult, AUCTestsResult, auc_delong, auc_tests, roc_curves  # noqa: E501, F401, I001
from fairstats.equivalence import EquivalenceResult, EquivalenceUndefinedWarning, cramers_v_equivalence, fold_equivalence, rate_equivalence, t_equivalence, welch_equivalence, z_equivalence  # noqa: E501, F401, I001
from fairstats.folds import FoldDisparityResult, fold_disparity  # noqa: E501, F401, I001
from fairstats.impact import ImpactRatioUndefinedWarning, ImpactRatiosResult, impact_ratios  # noqa: E501, F401, I001
from fairstats.levels import LevelRateTestsResult, decision_table, level_rate_tests  # noqa: E501, F401, I001
from fairstats.mcnemar import McNemarResult, mcnemar_midp, mcnemar_midp_table, paired_table  # noqa: E501, F401, I001
from fairstats.metrics import METRICS, METRIC_DEFINITIONS, UndefinedMetricWarning, confusion_counts, group_metrics, undefined_counts  # noqa: E501, F401, I001
from fairstats.monitor import EmptyConfidenceSequenceWarning, FairnessMonitor, MonitorStatus, MonitorUpdate  # noqa: E501, F401, I001
from fairstats.sequences import rate_confidence_sequence, rate_difference_confidence_sequence, rate_difference_e_value  # noqa: E501, F401, I001
from fairstats.multiplicity import VERDICTS, adjust_pvalues, three_way_verdicts  # noqa: E501, F401, I001
from fairstats.ordinal import LinearByLinearResult, OrdinalShiftTestsResult, linear_by_linear_test, ordinal_shift_tests  # noqa: E501, F401, I001
from fairstats.outcomes import OutcomeTestsResult, UndefinedTestWarning, outcome_tests  # noqa: E501, F401, I001
from fairstats.power import mde_cramers_v, mde_rate_difference, mde_t, mde_z  # noqa: E501, F401, I001
from fairstats.recalibration import RecalibrationTestsResult, calibration_curves, recalibration_tests  # noqa: E501, F401, I001
from fairstats.regression import BoundedGroupLossResult, RegressionTestsResult, bounded_group_loss, regression_tests  # noqa: E501, F401, I001
from fairstats.score_distributions import ScoreDistributionTestsResult, score_distribution_tests  # noqa: E501, F401, I001
from fairstats.score_tests import ScoreTestsResult, score_tests  # noqa: E501, F401, I001
from fairstats.search import SubgroupSearchResult, subgroup_search  # noqa: E501, F401, I001
from fairstats.ttests import FoldTTestResult, fold_ttest  # noqa: E501, F401, I001

# The in-memory audit lives in its own wing (fairstats.auditing), imported on first use so that
# `import fairstats` loads neither the wing nor its plotting and report modules.
_LAZY = ("Audit", "audit")


def __getattr__(name: str):
    if name in _LAZY:
        from fairstats.auditing import result

        value = getattr(result, name)
        globals()[name] = value
        return value
    return _attribute("fairstats", name)  # a renamed name (with its warning), or what became of it


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# The library's API: what `from fairstats import *` gives and what the API reference (docs/api.rst) documents.
# tests/library/test_public_api.py checks that every name here exists and is documented;
# tests/library/test_no_paper_names.py that none is named after a paper or describes a paper's formula.
__all__ = [
    "adjust_pvalues",
    "adjusted_residuals",
    "auc_delong",
    "auc_tests",
    "AUCResult",
    "AUCTestsResult",
    "Audit",
    "audit",
    "awareness_test",
    "AwarenessResult",
    "BCaUndefinedWarning",
    "bootstrap_cramers_v",
    "bootstrap_disparity",
    "BootstrapCramersVResult",
    "BootstrapDisparityResult",
    "bounded_group_loss",
    "BoundedGroupLossResult",
    "calibration_curves",
    "calibration_independence_test",
    "CalibrationIndependenceResult",
    "confusion_counts",
    "confusion_parity_error",
    "confusion_ratios",
    "ContingencyTable",
    "COUNT_COLUMN",
    "Counts",
    "cramers_v_equivalence",
    "cramers_v_interval",
    "CramersVIntervalResult",
    "decision_table",
    "disparity_change",
    "disparity_change_verdicts",
    "DisparityChangeResult",
    "EmptyConfidenceSequenceWarning",
    "equal_confusion_test",
    "EqualConfusionResult",
    "EquivalenceResult",
    "EquivalenceUndefinedWarning",
    "fairness_through_awareness",
    "FairnessMonitor",
    "fold_disparity",
    "fold_disparity_change",
    "fold_equivalence",
    "fold_ttest",
    "FoldDisparityResult",
    "FoldTTestResult",
    "group_metrics",
    "impact_ratios",
    "ImpactRatiosResult",
    "ImpactRatioUndefinedWarning",
    "level_rate_tests",
    "LevelRateTestsResult",
    "linear_by_linear_test",
    "LinearByLinearResult",
    "mahalanobis_whitening",
    "MahalanobisWhitening",
    "mcnemar_midp",
    "mcnemar_midp_table",
    "McNemarResult",
    "mde_cramers_v",
    "mde_rate_difference",
    "mde_t",
    "mde_z",
    "METRIC_DEFINITIONS",
    "METRICS",
    "MonitorStatus",
    "MonitorUpdate",
    "nearest_other_group",
    "Neighbours",
    "ordinal_shift_tests",
    "OrdinalShiftTestsResult",
    "outcome_tests",
    "OutcomeTestsResult",
    "paired_table",
    "rate_confidence_sequence",
    "rate_difference_confidence_sequence",
    "rate_difference_e_value",
    "rate_equivalence",
    "recalibration_tests",
    "RecalibrationTestsResult",
    "regression_tests",
    "RegressionTestsResult",
    "roc_curves",
    "score_distribution_tests",
    "score_tests",
    "ScoreDistributionTestsResult",
    "ScoreTestsResult",
    "SingularCovarianceWarning",
    "SmallExpectedCountWarning",
    "subgroup_search",
    "SubgroupSearchResult",
    "t_equivalence",
    "three_way_verdicts",
    "undefined_counts",
    "UndefinedMetricWarning",
    "UndefinedResampleWarning",
    "UndefinedTestWarning",
    "VERDICTS",
    "welch_equivalence",
    "z_equivalence",
]
