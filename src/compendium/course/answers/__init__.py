"""The expected answer of every exercise of the course, its common wrong answers, and where each comes from.

One module per lab (``lab1`` ... ``lab9``), each a dict ``ANSWERS`` of exercise -> :class:`Number`,
:class:`Proportion` or :class:`Choice` (:mod:`compendium.course.checks`). A number is a constant at full
precision with its provenance (the call and data that produce it, and the committed result table or printed
paper table that holds the same number), or, for what a lab's parameters or another version of the library may
move (the levels of lab 4, the 2 % rule and the impact ratio's interval of lab 8, the subgroup search's
permutations), a function that computes it through the library's public API when the check runs. Simulated
shares are the reference runs' exact counts at the lab's settings (full size and ``make test``'s size;
:class:`compendium.course.checks.Runs`).

A change in the data or in the library that moves a constant makes the instructor notebooks' test fail
(``tests/compendium/workflow/test_course_labs.py``); ``tests/compendium/test_course.py`` recomputes the
data-derived constants and the wrong answers, and checks that every right value is accepted at two and four
significant digits and every wrong one rejected with its own hint.

A student who opens these files sees the answers: the checks are for learning, not for grading (the guide,
``docs/course.md``, has the rubric and the assessment ideas).
"""

from __future__ import annotations

import importlib

from compendium.course.checks import Choice, Number, Proportion

__all__ = ["ANSWERS", "LAB_MODULES"]

#: The per-lab modules, in lab order.
LAB_MODULES = tuple(f"compendium.course.answers.lab{k}" for k in range(1, 10))

ANSWERS: dict[str, Number | Proportion | Choice] = {}
for _name in LAB_MODULES:
    _module = importlib.import_module(_name)
    _clash = set(_module.ANSWERS) & set(ANSWERS)
    if _clash:
        raise ValueError(f"{_name}: exercises {sorted(_clash)} are defined twice")
    ANSWERS.update(_module.ANSWERS)
