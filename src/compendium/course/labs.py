"""The course's catalogue: each lab's source, title, length, learning goals and test-size parameters.

``LABS`` is read by the workflow (``workflow/rules/course.smk``: which labs to build), the site (the "Course"
page) and the tests (``tests/compendium/workflow/test_course_labs.py``: which parameters shrink a lab for
``make test``). ``compute_seconds`` is the full-size instructor notebook's computing through papermill, kernel
included: the CPU seconds (user + system) of the job in the ``benchmark:`` files of ``make course CORES=1``
(``results/default/benchmarks/course/run_course_lab/<lab>.tsv``, column ``cpu_time``). CPU time, not wall
clock, because the development machine is shared (load average 8-13 when measured, 2 cores): the same job's
wall clock ran from 53 s to 152 s for lab 3 (19.7 CPU s); ``docs/course.md`` gives both and the measured run
of a student (``bench/course_student.py``).
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
        1 to 9; its exercises are ``"<number>.<k>"``.
    title : str
    minutes : int
        Planned student time.
    goals : tuple of str
        Learning goals (the guide and the site list them).
    test_parameters : mapping
        papermill parameters that shrink the lab's simulations for ``make test``.
    compute_seconds : float
        Measured CPU seconds of the full-size instructor notebook through papermill (module docstring).
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
        {"n_resamples": 99}, 5.5),
    Lab("lab2_filters", 2, "Change the filter, change the verdict?", 40,
        ("account for every person a filter removes",
         "re-run one test under several defensible filters",
         "tell a conclusion that survives every filter from one that depends on the choice"),
        {"n_resamples": 99}, 5.0),
    Lab("lab3_folds", 3, "Folds are not independent", 50,
        ("estimate a test's false positive rate by simulation",
         "explain why cross-validation folds are dependent",
         "apply the corrected resampled t (Nadeau-Bengio) to paper B's Table II"),
        {"n_datasets": 8}, 19.7),
    Lab("lab4_multiplicity", 4, "Many tests, few discoveries", 50,
        ("adjust paper B's battery with Holm and Benjamini-Hochberg and say which controls what",
         "show by simulation that the best subgroup's unadjusted p-value means nothing",
         "see the Westfall-Young max-T adjustment hold the family-wise error rate"),
        {"n_null": 6, "n_null_resamples": 39}, 8.6),
    Lab("lab5_power", 5, "How many people do you need?", 45,
        ("compute the minimum detectable disparity of a rate difference",
         "read the three-way verdict (disparity / equivalent / inconclusive) of an audit",
         "estimate power by simulation on subsamples and plan the size of an audit"),
        {"n_subsamples": 40, "n_resamples": 99}, 5.3),
    Lab("lab6_erratum", 6, "Reading a paper critically", 50,
        ("recompute a published statistic from the raw per-fold values",
         "diagnose a formula from the ratio of a printed to a recomputed number",
         "check a distance on a few examples before trusting what is built on it"),
        {"n_pairs": 3}, 7.6),
    Lab("lab7_compas_debate", 7, "The COMPAS debate: can a score be fair both ways?", 50,
        ("compute error rates and predictive values per group, and test both claims on the same data",
         "test calibration within groups with the library's recalibration test",
         "show with Chouldechova's identity and Kleinberg et al.'s result why the two criteria conflict"),
        {"n_resamples": 0}, 6.3),
    Lab("lab8_four_fifths", 8, "The four-fifths rule and NYC Local Law 144", 45,
        ("compute selection rates and impact ratios as LL144 defines them, with its 2 % rule",
         "read an impact ratio's family-level interval and its three-way verdict",
         "say how many decisions would move a ratio across four fifths"),
        {}, 7.3),
    Lab("lab9_intersections", 9, "Intersections: small cells, many comparisons", 45,
        ("count how small intersectional cells get and when a test's approximation fails",
         "compare Bonferroni with the subgroup search's Westfall-Young family-wise p",
         "shrink a small cell's rate toward the overall rate, and say what that estimate is for"),
        {"n_resamples": 199}, 3.9),
)


def lab(stem: str) -> Lab:
    """The lab with this stem (``KeyError`` naming the known stems otherwise)."""
    for item in LABS:
        if item.stem == stem:
            return item
    raise KeyError(f"stem: {stem!r} is not a lab of the course (known: {[x.stem for x in LABS]})")
