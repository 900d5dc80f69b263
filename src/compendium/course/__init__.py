"""The fairstats course: nine labs on the vendored data whose exercises check themselves.

* :mod:`compendium.course.labs` — the catalogue (title, length, learning goals, test-size parameters);
* :mod:`compendium.course.checks` — the kinds of answer and how each is judged (:func:`evaluate`);
* :mod:`compendium.course.grader` — :func:`check` ("right", or "not yet" with a hint, never the answer),
  :func:`solved` (a cell that shows an answer waits for its check) and :func:`attempt`;
* :mod:`compendium.course.answers` — the expected answers and their common wrong answers, with provenance;
* :mod:`compendium.course.data` — the COMPAS presets the labs and the answers read;
* :mod:`compendium.course.build` — one jupytext source per lab -> student and instructor notebooks;
* :mod:`compendium.course.executed` — the verdicts an executed lab printed (the workflow's final check);
* :mod:`compendium.course.paths` — :func:`repository_path`, so a lab finds ``data/raw`` from any folder.

The lab sources are ``notebooks/course/*.py``; the student notebooks, built from them, are committed in
``notebooks/course/student/``; ``snakemake course`` builds both versions and executes the instructor one. The
instructor's guide is ``docs/course.md``.
"""

from compendium.course.checks import (
           CheckResult,
           Choice,
           Number,
           Proportion,
           Raised,
           Runs,
           Share,
           Wrong,
           evaluate,
)
from compendium.course.grader import attempt, check, solved
from compendium.course.paths import repository_path

__all__ = ["CheckResult", "Choice", "Number", "Proportion", "Raised", "Runs", "Share", "Wrong", "attempt",
           "check", "evaluate", "repository_path", "solved"]
