"""The verdicts an executed lab printed, read back: did every check of the lab say "right"?

:func:`compendium.course.grader.check` prints one line per exercise, ``Exercise <n>.<k>: right`` or
``Exercise <n>.<k>: not yet - <hint>``. The workflow's ``run_course_lab`` runs
``python -m compendium.course.executed EXECUTED.ipynb`` after papermill: it exits 1 unless every exercise of
the lab (the lab's number from the file name ``lab<N>_...``; its exercises from
:data:`compendium.course.answers.ANSWERS`) printed exactly one "right", and 2 on a file name it cannot read.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from compendium.course.checks import RIGHT

__all__ = ["executed_verdicts", "main"]

_LINE = re.compile(r"^Exercise (?P<exercise>\d+\.\d+): (?P<verdict>right|not yet)\b", re.MULTILINE)


def executed_verdicts(path: str | os.PathLike) -> dict[str, list[str]]:
    """The verdicts an executed lab notebook printed: ``{exercise: ["right" | "not yet", ...]}``."""
    import nbformat

    text = "".join(output.get("text", "") for cell in nbformat.read(path, as_version=4).cells
                   for output in cell.get("outputs", [])
                   if output.get("output_type") == "stream" and output.get("name") == "stdout")
    verdicts: dict[str, list[str]] = {}
    for m in _LINE.finditer(text):
        verdicts.setdefault(m["exercise"], []).append(m["verdict"])
    return verdicts


def main(argv: list[str] | None = None) -> int:
    """``python -m compendium.course.executed EXECUTED.ipynb``: exit 1 unless every exercise of the lab (its
    number from the file name ``lab<N>_...``) printed exactly one "right"."""
    from compendium.course.answers import ANSWERS

    parser = argparse.ArgumentParser(prog="python -m compendium.course.executed",
                                     description="Were all the checks of an executed lab notebook right?")
    parser.add_argument("notebook", help="an executed instructor notebook, e.g. results/default/course/...")
    args = parser.parse_args(argv)
    m = re.match(r"lab(\d+)_", Path(args.notebook).name)
    if m is None:
        print(f"error: {args.notebook}: the file name does not start with lab<N>_", file=sys.stderr)
        return 2
    expected = sorted(k for k in ANSWERS if k.split(".")[0] == m.group(1))
    verdicts = executed_verdicts(args.notebook)
    bad = [k for k in expected if verdicts.get(k) != [RIGHT]] + sorted(set(verdicts) - set(expected))
    for key in bad:
        print(f"{args.notebook}: exercise {key}: {verdicts.get(key, ['no check printed'])}", file=sys.stderr)
    print(f"{args.notebook}: {len(expected) - len([k for k in bad if k in expected])}/{len(expected)} right")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
