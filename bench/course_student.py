"""The course labs run as a student runs them, timed: ``results/bench/course_student.csv`` (+ ``.md``).

For each lab, the **student** notebook (built from ``notebooks/course/<lab>.py``) runs in a real Jupyter
kernel (nbclient, from the repository's root, the lab's full-size parameters), cell by cell, in order. A cell
that holds an exercise's stub runs twice, as a student runs it: first as handed out (its check says "not
yet"), then with the instructor's answer pasted in its place (the same cell of the instructor notebook; its
check must say "right"). The cells that wait for an exercise (``solved(...)``) therefore run once their
exercise is right, as they would for a student who answers in order. The run fails unless every exercise's
last verdict is "right".

What is measured is the machine's part of a student's session: the kernel's start, every cell's execution
and every re-run after an answer, each timed by wall clock around nbclient's ``execute_cell``. The reading,
thinking and typing are not measured here (``docs/course.md`` gives the planned minutes for those, and the
measured machine time beside them).

Usage::

    python bench/course_student.py                     # every lab
    python bench/course_student.py --labs lab3_folds   # one lab (the others' rows are kept)
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "bench" / "course_student.csv"
VERDICT = re.compile(r"^Exercise (?P<exercise>\d+\.\d+): (?P<verdict>right|not yet)\b", re.MULTILINE)
COLUMNS = ["lab", "exercises", "cell_runs", "kernel_start_s", "first_pass_s", "answers_s", "total_s",
           "longest_cell_s", "load_average", "all_right"]


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def run_lab(stem: str) -> dict[str, object]:
    """One lab as a student runs it; the row of :data:`COLUMNS`."""
    from nbclient import NotebookClient

    from compendium.course.build import build_lab

    built = build_lab(ROOT / "notebooks" / "course" / f"{stem}.py")
    student = built.student
    answers = [c for c in built.instructor.cells if c.cell_type == "code"]
    code = [i for i, c in enumerate(student.cells) if c.cell_type == "code"]
    if len(code) != len(answers):
        raise ValueError(f"{stem}: student and instructor notebooks have different code cells")
    client = NotebookClient(student, kernel_name="python3", timeout=1800,
                            resources={"metadata": {"path": str(ROOT)}})
    verdicts: dict[str, str] = {}
    times: list[float] = []
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with client.setup_kernel():
        kernel_start = time.perf_counter() - start
        first = answered = 0.0
        for index, answer in zip(code, answers, strict=True):
            cell = student.cells[index]
            for attempt, source in enumerate((cell.source, answer.source)):
                if attempt == 1 and source == cell.source:
                    break  # not an exercise: run once
                cell.source = source
                t0 = time.perf_counter()
                client.execute_cell(cell, index)
                elapsed = time.perf_counter() - t0
                times.append(elapsed)
                if attempt == 0:
                    first += elapsed
                else:
                    answered += elapsed
                for m in VERDICT.finditer(_stdout(cell)):
                    verdicts[m["exercise"]] = m["verdict"]
    total = time.perf_counter() - start
    return {"lab": stem, "exercises": len(verdicts), "cell_runs": len(times), "kernel_start_s": kernel_start,
            "first_pass_s": first, "answers_s": answered, "total_s": total, "longest_cell_s": max(times),
            "load_average": load, "all_right": all(v == "right" for v in verdicts.values())}


def main(argv: list[str] | None = None) -> int:
    from compendium.course.labs import LABS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labs", nargs="*", help="lab stems to run (default: all)")
    args = parser.parse_args(argv)
    stems = args.labs or [lab.stem for lab in LABS]
    old = pd.read_csv(OUT) if OUT.is_file() else pd.DataFrame(columns=COLUMNS)
    rows = {row["lab"]: row for row in old.to_dict("records")}
    ok = True
    for stem in stems:
        row = run_lab(stem)
        ok &= bool(row["all_right"])
        print(f"{stem}: {row['total_s']:.1f} s ({row['cell_runs']} cell runs, kernel "
              f"{row['kernel_start_s']:.1f} s, "
              f"longest cell {row['longest_cell_s']:.1f} s, load {row['load_average']:.1f}); all right: "
              f"{row['all_right']}", flush=True)
        rows[stem] = row
    order = [lab.stem for lab in LABS]
    table = pd.DataFrame([rows[s] for s in order if s in rows], columns=COLUMNS)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(OUT, index=False, float_format="%.2f")
    shown = table.assign(**{c: table[c].map(lambda v: f"{v:.1f}") for c in COLUMNS if c.endswith("_s")})
    OUT.with_suffix(".md").write_text(
        "# The course labs run as a student runs them (bench/course_student.py)\n\n"
        + shown.to_markdown(index=False) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main())
