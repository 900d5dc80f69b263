"""fairstats: is this group disparity real, or chance?

Statistical fairness tests (equal confusion test, fold-based tests with corrected t, calibration,
McNemar mid-p) and the reproducible compendium of two papers. Public API below; each helper module
documents its functions.
"""

__version__ = "0.1.0"

# Public API (one line per module; keep sorted).
