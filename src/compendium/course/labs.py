"""The course's catalogue: each lab's source, title, length, learning goals and test-size parameters.

``LABS`` is read by the workflow (``workflow/rules/course.smk``: which labs to build), the site (the "Course"
page) and the tests (``tests/compendium/workflow/test_course_labs.py``: which parameters shrink a lab for
``make test``).
``compute_seconds`` is the full-size wall-clock time of the instructor notebook through papermill (kernel
start-up included), from the ``benchmark:`` of ``snakemake course --cores 1`` under ``nice`` on the 2-core
development machine, shared and loaded (load average 7-8; see ``docs/course.md``, "Timings").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["LABS", "Lab", "lab"]


@dataclass(frozen=True)
class Lab:
    """One lab of the course.

    Attributes
    ----------
    stem : str
        File stem: source ``notebooks/course/<stem>.py``, notebooks ``<stem>.ipynb``.
    number : int
        1 to 6; its exercises are ``"<number>.<k>"``.
    title : str
    minutes : int
        Planned student time.
    goals : tuple of str
        Learning goals (the guide and the site list them).
    test_parameters : mapping
        papermill parameters that shrink the lab's simulations for ``make test``.
    compute_seconds : float
        Measured full-size compute time of the instructor notebook (papermill, 2 cores, ``nice``).
    """

    stem: str
    number: int
    title: str
    minutes: int
    goals: tuple[str, ...]
    test_parameters: Mapping[str, object] = field(default_factory=dict)
    compute_seconds: float = float("nan")


LABS: tuple[Lab, ...] = (
    Lab("lab1_confusion_table", 1, "What a confusion table hides", 45,
        ("build paper A's group x cell table of COMPAS by hand",
         "compute chi-square, Cramér's V and adjusted residuals with scipy, then with fairstats",
         "say which cells drive the verdict and when the chi-square approximation fails"),
        {"n_resamples": 99}, 34.1),
    Lab("lab2_filters", 2, "Change the filter, change the verdict?", 40,
        ("account for every person a filter removes",
         "re-run one test under several defensible filters",
         "tell a conclusion that survives every filter from one that depends on the choice"),
        {"n_resamples": 99}, 32.8),
    Lab("lab3_folds", 3, "Folds are not independent", 50,
        ("estimate a test's false positive rate by simulation",
         "explain why cross-validation folds are dependent",
         "apply the corrected resampled t (Nadeau-Bengio) to paper B's Table II"),
        {"n_datasets": 8}, 61.0),
    Lab("lab4_multiplicity", 4, "Many tests, few discoveries", 50,
        ("adjust paper B's battery with Holm and Benjamini-Hochberg and say which controls what",
         "show by simulation that the best subgroup's unadjusted p-value means nothing",
         "see the Westfall-Young max-T adjustment hold the family-wise error rate"),
        {"n_null": 6, "n_null_resamples": 39}, 30.1),
    Lab("lab5_power", 5, "How many people do you need?", 45,
        ("compute the minimum detectable disparity of a rate difference",
         "read the three-way verdict (disparity / equivalent / inconclusive) of an audit",
         "estimate power by simulation on subsamples and plan the size of an audit"),
        {"n_subsamples": 40, "n_resamples": 99}, 22.2),
    Lab("lab6_erratum", 6, "Reading a paper critically", 50,
        ("recompute a published statistic from the raw per-fold values",
         "diagnose a formula from the ratio of a printed to a recomputed number",
         "check a distance on a few examples before trusting what is built on it"),
        {"n_pairs": 3}, 25.9),
)


def lab(stem: str) -> Lab:
    """The lab with this stem (``KeyError`` naming the known stems otherwise)."""
    for item in LABS:
        if item.stem == stem:
            return item
    raise KeyError(f"stem: {stem!r} is not a lab of the course (known: {[x.stem for x in LABS]})")
