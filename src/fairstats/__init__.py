"""fairstats: is this group disparity real, or chance?

Statistical fairness tests (equal confusion test, fold-based tests with corrected t, calibration,
McNemar mid-p) and the reproducible compendium of two papers. Public API below; each helper module
documents its functions.
"""

__version__ = "0.1.0"

# Public API (one line per module; keep sorted).
from fairstats.confusion import EqualConfusionResult, SmallExpectedCountWarning, adjusted_residuals, confusion_parity_error, confusion_ratios, confusion_table, equal_confusion_test  # noqa: E501, F401, I001
