"""Names that left fairstats' public API, and where they went (issue 38).

One home for the library's migration table (``docs/migration.rst`` is its prose): ``RENAMED`` maps an old name
to its new home, which the old one still reaches for one release with a :class:`DeprecationWarning` that names
it; ``REMOVED`` names what is gone for good, with the reason and the new home. :func:`attribute` is what a
module's ``__getattr__`` returns (``def __getattr__(name): return attribute(__name__, name)``): the renamed
object with its warning, or an ``AttributeError`` that says what became of the name. :func:`renamed_keywords`
does the same for a function's keywords, and :func:`renamed_pair` for two keywords that became one pair
(``RENAMED_KEYWORDS`` lists them). ``SUPERSEDED`` names functions that a call of another replaces:
:func:`superseded` makes each warn when called, naming that call; :func:`arrays_replaced` keeps a function's
old call with arrays (``ARRAY_CALLS`` lists them).
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable

__all__ = [
    "ARRAY_CALLS",
    "REMOVED",
    "RENAMED",
    "RENAMED_KEYWORDS",
    "SUPERSEDED",
    "arrays_replaced",
    "attribute",
    "missing",
    "renamed_keywords",
    "renamed_pair",
    "superseded",
]

#: The release in which the deprecated names of ``RENAMED`` go.
REMOVAL = "0.4"

#: Constants that leave the top level (issue 38, item 1): each one's module keeps it, where the function
#: whose options, columns or verdicts it lists documents it.
_CONSTANTS = {
    "CHANGE_METRICS": "disparity_change",
    "CHANGE_VERDICTS": "disparity_change",
    "DISPARITY_CHANGE_COLUMNS": "disparity_change",
    "DEFAULT_MARGIN": "equivalence",
    "DEFAULT_MARGIN_RATIO": "equivalence",
    "DEFAULT_MARGIN_V": "equivalence",
    "DEFAULT_POWER": "power",
    "FOUR_FIFTHS": "impact",
    "FOUR_FIFTHS_VERDICTS": "impact",
    "UNKNOWN_CATEGORY": "impact",
    "MONITOR_METRICS": "monitor",
    "MONITOR_STATES": "monitor",
    "OUTCOME_TESTS": "outcomes",
    "REAL_WITHIN_MARGIN": "multiplicity",
    "REGRESSION_METRICS": "regression",
    "SCORE_DISTRIBUTION_TESTS": "score_distributions",
    "SCORE_TEST_COLUMNS": "score_tests",
    "SEARCH_COLUMNS": "search",
    "SEARCH_METRICS": "search",
}

#: Result classes named after their functions (issue 38, item 1): old name -> (module, new name).
_RESULTS = {
    "CramersVBootstrapResult": ("bootstrap", "BootstrapCramersVResult"),
    "DisparityBootstrapResult": ("bootstrap", "BootstrapDisparityResult"),
    "LevelRatesResult": ("levels", "LevelRateTestsResult"),
    "OrdinalAssociationResult": ("ordinal", "LinearByLinearResult"),
    "RecalibrationResult": ("recalibration", "RecalibrationTestsResult"),
    "BoundedLossResult": ("regression", "BoundedGroupLossResult"),
    "ScoreDistributionResult": ("score_distributions", "ScoreDistributionTestsResult"),
}

#: old qualified name -> new qualified name; the old one works until ``REMOVAL``, with a DeprecationWarning
RENAMED: dict[str, str] = {
    **{f"fairstats.{name}": f"fairstats.{module}.{name}" for name, module in _CONSTANTS.items()},
    **{f"fairstats.{old}": f"fairstats.{new}" for old, (_, new) in _RESULTS.items()},
    **{f"fairstats.{module}.{old}": f"fairstats.{module}.{new}" for old, (module, new) in _RESULTS.items()},
}

_TABLE = "fairstats.ContingencyTable"
_TEST = "fairstats.equal_confusion_test"
#: The equal confusion family, one test over one table (issue 38, item 1): name -> (module, what to call).
_CONFUSION = {
    "confusion_table": ("confusion", f"{_TABLE}.from_frame(data, group=, y_true=, y_pred=).frame()"),
    "equal_confusion_test_table": ("confusion", f"{_TEST}({_TABLE}.from_observed(observed), ...)"),
    "binary_cell_codes": ("scale", f"{_TABLE}.binary_cell_codes(y_true, y_pred=)"),
    "confusion_table_from_codes": ("scale", f"{_TABLE}.from_codes(group_codes, cell_codes, groups=).frame()"),
    "confusion_table_parquet": ("scale", f"{_TABLE}.from_parquet(path, group=, y_true=, y_pred=).frame()"),
    "equal_confusion_test_parquet": ("scale", f"{_TEST}({_TABLE}.from_parquet(path, ...), ...)"),
}

#: function -> the call that replaces it (top level and its module); it works until ``REMOVAL`` and warns
#: when called
SUPERSEDED: dict[str, str] = {
    f"{where}.{name}": use
    for name, (module, use) in _CONFUSION.items()
    for where in ("fairstats", f"fairstats.{module}")
}

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


def attribute(module: str, name: str) -> object:
    """``module.name`` for a module's ``__getattr__``: the object a renamed name now has, with a
    :class:`DeprecationWarning` naming its new home; else the ``AttributeError`` of :func:`missing`."""
    if module == "fairstats" and f"{module}.{name}" in SUPERSEDED:  # warns when called (superseded)
        return getattr(importlib.import_module(f"fairstats.{_CONFUSION[name][0]}"), name)
    new = RENAMED.get(f"{module}.{name}")
    if new is None:
        raise missing(module, name)
    warnings.warn(
        f"{module}.{name} is deprecated since fairstats 0.3 and goes in {REMOVAL}: use {new}",
        DeprecationWarning,
        stacklevel=3,  # the line that looked the name up (past this function and the module's __getattr__)
    )
    home, _, attr = new.rpartition(".")
    return getattr(importlib.import_module(home), attr)


#: function -> {old keyword: new keyword}, filled by :func:`renamed_keywords` (the migration table's rows)
RENAMED_KEYWORDS: dict[str, dict[str, str]] = {}


def renamed_keywords(**renames: str) -> Callable:
    """Decorator: each old keyword (``attributes="group"``) is still accepted until ``REMOVAL``, with a
    :class:`DeprecationWarning` naming the new one; both at once is a ``TypeError``. The signature shown
    (``inspect.signature``, the API docs) is the function's own, with the new names only."""

    def decorate(func: Callable) -> Callable:
        where = f"{func.__module__}.{func.__qualname__}"
        RENAMED_KEYWORDS[where] = dict(renames)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both `{old}` (its old name) and `{new}`: "
                                        f"pass `{new}` only")  # fmt: skip
                    warnings.warn(
                        f"`{old}` of fairstats.{func.__name__} is deprecated since fairstats 0.3 and goes in "
                        f"{REMOVAL}: use `{new}`",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def renamed_pair(new: str, first: str, second: str) -> Callable:
    """Decorator: the two old keywords ``first=a, second=b`` are still accepted together until ``REMOVAL``
    as ``new=(a, b)``, with a :class:`DeprecationWarning` naming it; one without the other, or either with
    ``new``, is a ``TypeError``. The signature shown is the function's own (``new`` only)."""

    def decorate(func: Callable) -> Callable:
        RENAMED_KEYWORDS[f"{func.__module__}.{func.__qualname__}"] = {first: new, second: new}

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            old = [k for k in (first, second) if k in kwargs]
            if old:
                if new in kwargs:
                    raise TypeError(f"{func.__name__}() got both `{old[0]}` (an old name) and `{new}`: pass "
                                    f"`{new}=({first}, {second})` only")  # fmt: skip
                if len(old) == 1:
                    raise TypeError(f"{func.__name__}() got `{old[0]}` without its pair: pass "
                                    f"`{new}=({first}, {second})`")  # fmt: skip
                warnings.warn(
                    f"`{first}` and `{second}` of fairstats.{func.__name__} are deprecated since fairstats "
                    f"0.3 and go in {REMOVAL}: use `{new}=({first}, {second})`",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = (kwargs.pop(first), kwargs.pop(second))
            return func(*args, **kwargs)

        return wrapper

    return decorate


def superseded(func: Callable) -> Callable:
    """Decorator: ``func`` (listed in ``SUPERSEDED``) works until ``REMOVAL``; each call warns with a
    :class:`DeprecationWarning` naming the call that replaces it."""
    where = f"fairstats.{func.__name__}"
    use = SUPERSEDED[where]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        warnings.warn(
            f"{where} is deprecated since fairstats 0.3 and goes in {REMOVAL}: use {use}",
            DeprecationWarning,
            stacklevel=2,
        )
        return func(*args, **kwargs)

    return wrapper


#: function -> its call with a frame and column names, which replaced its call with arrays (issue 38, item 1)
ARRAY_CALLS: dict[str, str] = {}


def arrays_replaced(old: Callable, *, arrays: tuple[str, ...], use: str, stacklevel: int = 2) -> Callable:
    """Decorator: the function now takes ``data`` and column names; its old call with arrays still works
    until ``REMOVAL`` (``old``, the array function, answers it), with a :class:`DeprecationWarning` naming
    ``use``. A call is the old one when it passes two or more positional arguments, no ``data`` at all, or
    one of ``arrays`` (parameters that were always arrays and are now column names) as something other
    than a name: a column name is a string, an array never is, so no call means both. ``stacklevel`` is 3
    under another decorator (:func:`renamed_pair`), so that the warning points at the caller's line."""

    def decorate(func: Callable) -> Callable:
        where = f"fairstats.{func.__name__}"
        ARRAY_CALLS[where] = use

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            not_names = [name for name in arrays if name in kwargs and not isinstance(kwargs[name], str)]
            if len(args) > 1 or (not args and "data" not in kwargs) or not_names:
                warnings.warn(
                    f"{where} with arrays is deprecated since fairstats 0.3 and goes in {REMOVAL}: use {use}",
                    DeprecationWarning,
                    stacklevel=stacklevel,
                )
                return old(*args, **kwargs)
            return func(*args, **kwargs)

        return wrapper

    return decorate
