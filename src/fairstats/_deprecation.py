"""Names that left fairstats' public API, and where they went (issue 38).

One home for the library's migration table (``docs/migration.rst`` is its prose): ``REMOVED`` names what is
gone for good with the reason and the new home, and :func:`missing` turns a lookup of such a name into an
``AttributeError`` that says so. A module looks up its own qualified names
(``fairstats.calibration.score_bins``) from its ``__getattr__``; the package looks up the top-level ones.
"""

from __future__ import annotations

__all__ = ["REMOVED", "missing"]

_PAPER_B_CALIBRATION = (
    "paper B's calibration chi-squared (its Eq. 1-2), whose chi-squared reference is not justified, moved "
    "to the papers' compendium (compendium.paper_b.calibration, not part of the fairstats package) in "
    "fairstats 0.3; the library's test of the same hypothesis is fairstats.calibration_independence_test"
)

#: qualified name -> why it is gone and where it went
REMOVED: dict[str, str] = {
    f"{module}.{name}": _PAPER_B_CALIBRATION
    for module in ("fairstats", "fairstats.calibration")
    for name in (
        "calibration_test",
        "well_calibration_test",
        "score_bins",
        "CalibrationResult",
        "EmptyBinWarning",
    )  # fmt: skip
}


def missing(module: str, name: str) -> AttributeError:
    """The ``AttributeError`` for ``module.name``: what became of it when it left, else Python's own words."""
    why = REMOVED.get(f"{module}.{name}")
    if why is not None:
        return AttributeError(f"{module}.{name} was removed: {why}")
    return AttributeError(f"module {module!r} has no attribute {name!r}")
