"""The course's check helper, lab builder and answers (compendium.course)."""

from __future__ import annotations

import math
from decimal import Decimal

import pandas as pd
import pytest

from compendium.course import (
    Choice,
    Number,
    Proportion,
    Raised,
    Runs,
    Share,
    Wrong,
    attempt,
    check,
    evaluate,
    repository_path,
    solved,
)
from compendium.course.answers import ANSWERS
from compendium.course.build import build_lab, build_lab_files, main
from compendium.course.checks import reading
from compendium.course.grader import forget
from compendium.course.labs import LABS, lab

ROOT = repository_path("pyproject.toml").parent
A = ROOT / "results" / "default" / "compas" / "propublica_violent" / "tables"


# ------------------------------------------------------------------------------------------------ checks

CHI2 = Number(214.7982262967671, hint="count again", source="test",
              wrong=(Wrong(71.51721885047257, "a 2 x 2 table"), Wrong(2.06e-37, "the p-value")))


@pytest.mark.parametrize("answer, value, unit", [
    (214.80, 214.8, 0.1), ("214.80", 214.8, 0.01), (0.2, 0.2, 0.01), (470, 470.0, 10.0),
    (-13.08, -13.08, 0.01),
    (2.776, 2.776, 0.001), (1.3e-05, 1.3e-05, 1e-06), (Decimal("0.1335"), 0.1335, 0.0001), (0, 0.0, 0.0),
])
def test_an_answer_is_read_at_the_precision_it_is_written_in_with_two_significant_digits_at_least(
        answer, value, unit):
    read_value, read_unit = reading(answer)
    assert read_value == pytest.approx(value) and read_unit == pytest.approx(unit)


def test_a_float32_is_read_at_its_own_precision():
    import numpy as np

    assert reading(np.float32(0.1335)) == pytest.approx((0.1335, 0.0001))


@pytest.mark.parametrize("answer", [214.7982262967671, 214.80, 214.8, 215, 210, "214.798", 2.148e2,
                                    214.7982263])
def test_a_number_is_right_when_the_value_rounds_to_it(answer):
    assert evaluate("9.1", answer, CHI2).message == "right"


@pytest.mark.parametrize("answer", [214.7, 214.9, 216, 220, 200, "214.70", 214.79])
def test_a_number_that_the_value_does_not_round_to_is_not_yet_with_the_general_hint(answer):
    res = evaluate("9.1", answer, CHI2)
    assert not res.right and res.message == "not yet - count again"
    assert "214" not in res.message  # never the answer


@pytest.mark.parametrize("answer, hint", [(71.5, "a 2 x 2 table"), (72, "a 2 x 2 table"), (71.517, "a 2 x 2 "
                                                                                                   "table"),
                                          (2.1e-37, "the p-value"), (2.06e-37, "the p-value")])
def test_a_common_wrong_answer_gets_its_own_hint_at_any_precision(answer, hint):
    assert evaluate("9.1", answer, CHI2).message == f"not yet - {hint}"


def test_a_right_answer_that_also_agrees_with_a_wrong_one_is_right_with_a_note():
    close = Number(2.7763245098538407, hint="h", source="s", wrong=(Wrong(2.840387591054069, "pooled"),))
    assert evaluate("9.1", 2.8, close).message.startswith("right (at this precision it also agrees")
    assert evaluate("9.1", 2.776, close).message == "right"
    assert evaluate("9.1", 2.84, close).message == "not yet - pooled"


def test_the_floor_of_a_check_accepts_what_a_printed_input_allows():
    ratio = Number(31.75649868021885 / 2.840387591054069, rtol=0.005 / 31.76, hint="h", source="s")
    assert evaluate("9.1", 31.76 / 2.840387591054069, ratio).right  # 11.1815... from the printed 31.76
    assert not evaluate("9.1", 31.8 / 2.840387591054069, ratio).right


def test_a_value_computed_when_the_check_runs_takes_the_settings_it_names():
    calls = []

    def value(level):
        calls.append(level)
        return 10 * level

    expected = Number(value, hint="h", source="s", wrong=(Wrong(lambda level: 20 * level, "double"),))
    assert evaluate("9.1", 1.0, expected, level=0.1).right
    assert evaluate("9.1", 2.0, expected, level=0.1).message == "not yet - double"
    assert evaluate("9.1", 1.0, expected, level=0.1).right and calls == [0.1]  # computed once per setting
    with pytest.raises(ValueError, match="level: exercise 9.1 is computed when the check runs"):
        evaluate("9.1", 1.0, expected)
    # the lab's defaults fill a setting the check is not given, and are what .value is computed at
    labbed = Number(value, hint="h", source="s", defaults={"level": 0.2})
    assert labbed.value == 2.0 and evaluate("9.1", 2.0, labbed).right
    assert evaluate("9.1", 1.0, labbed, level=0.1).right
    with pytest.raises(ValueError, match="n: exercise 9.2 takes no settings"):
        evaluate("9.2", 1.0, CHI2, n=3)


@pytest.mark.parametrize("empty", [..., None, "ten", float("nan"), float("inf"), [1.0, 2.0], True])
def test_no_check_passes_on_an_empty_or_malformed_answer(empty):
    assert not evaluate("9.1", empty, Number(1.0, hint="h", source="s", atol=10)).right
    assert not evaluate("9.2", empty, Choice("a", {"b": "h"}, source="s")).right


def test_numpy_scalars_and_one_element_arrays_are_numbers():
    import numpy as np

    expected = Number(3.0, hint="h", source="s")
    assert evaluate("9.1", np.float64(3.0), expected).right
    assert evaluate("9.1", np.int64(3), expected).right
    assert evaluate("9.1", pd.Series([3.0]), expected).right
    assert evaluate("9.1", np.array([[3.0]]), expected).right


RUNS = Runs(settings=("n", "seed", "k"), counts={(300, 1, 10): {"corrected": 24, "paired": 61},
                                                  (8, 1, 10): {"corrected": 1, "paired": 1}}, source="test")
SHARE = Proportion(RUNS, "corrected", hint="count the corrected column", source="s",
                   wrong=(Wrong(0.05, "alpha"), Wrong(Share("paired"), "the paired column")))


def test_a_simulated_share_at_a_reference_run_is_exact_and_tells_the_misconceptions_apart():
    assert SHARE.value == 24 / 300  # the lab's run: the first of the reference runs
    assert evaluate("9.3", 0.05, SHARE).message == "not yet - alpha"  # settings not given: the lab's
    assert evaluate("9.3", 0.05, SHARE, n=300).message == "not yet - alpha"
    at = {"n": 300, "seed": 1, "k": 10}
    for right in (0.08, 0.080, "0.0800", 24 / 300):
        assert evaluate("9.3", right, SHARE, **at).message == "right"
    assert evaluate("9.3", 0.05, SHARE, **at).message == "not yet - alpha"
    assert evaluate("9.3", 0.2033, SHARE, **at).message == "not yet - the paired column"
    assert evaluate("9.3", 0.09, SHARE, **at).message == "not yet - count the corrected column"
    assert "divide by n" in evaluate("9.3", 24, SHARE, **at).message
    assert "between 0 and 1" in evaluate("9.3", 1.5, SHARE, **at).message


def test_a_misconception_that_is_right_at_a_run_is_not_held_against_the_answer():
    # with 8 data sets the paired and the corrected t happen to reject in the same one
    assert evaluate("9.3", 0.125, SHARE, n=8, seed=1, k=10).message == "right"
    assert evaluate("9.3", 0.12, SHARE, n=8, seed=1, k=10).message == "right"


def test_a_simulated_share_at_other_settings_is_checked_to_its_monte_carlo_error_or_not_at_all():
    other = {"n": 100, "seed": 7, "k": 10}
    assert SHARE.tolerance(100, 0.08) == pytest.approx(4 * math.sqrt(0.08 * 0.92 / 100) + 0.02)
    res = evaluate("9.3", 0.12, SHARE, **other)
    assert res.right and "checked to the Monte Carlo error of 100 data sets" in res.message
    assert not evaluate("9.3", 0.3, SHARE, **other).right
    design = evaluate("9.3", 0.08, SHARE, n=300, seed=1, k=5)
    assert not design.right and "knows the lab's design (k=10)" in design.message
    with pytest.raises(ValueError, match="n: exercise 9.3 is a simulated share; n is the number"):
        evaluate("9.3", 0.2, SHARE, n=0, seed=1, k=10)


def test_a_choice_gives_the_hint_of_the_wrong_letter_and_accepts_case_and_spaces():
    expected = Choice("b", {"a": "hint a", "c": "hint c"}, source="s")
    assert expected.options == ("a", "b", "c")
    assert evaluate("9.4", " B ", expected).right
    assert evaluate("9.4", "c", expected).message == "not yet - hint c"
    assert "one of a, b, c" in evaluate("9.4", "z", expected).message


def test_an_error_reaches_the_check_through_attempt_and_gets_its_hint():
    import numpy as np

    expected = Number(1.4142135623730951, rtol=1e-3, hint="h", source="s",
                      wrong=(Wrong(Raised(ValueError, "matmul"), "use rowvar=False"),))
    error = attempt(lambda: np.ones(3) @ np.ones((2, 2)))
    assert isinstance(error, ValueError)
    assert evaluate("9.5", error, expected).message == "not yet - use rowvar=False"
    other = evaluate("9.5", KeyError("x"), expected).message
    assert other.startswith("not yet - your code raised KeyError") and other.endswith("h")
    assert attempt(lambda: 1.5) == 1.5


def test_check_prints_one_line_remembers_what_is_solved_and_refuses_an_unknown_exercise(capsys):
    forget()
    res = check("1.1", ...)
    out = capsys.readouterr().out
    assert out == "Exercise 1.1: not yet - no answer yet: replace the `...` with your answer\n"
    assert res.to_record() == {"exercise": "1.1", "right": False, "message": res.message}
    assert not solved("1.1") and "runs once it is right" in capsys.readouterr().out
    check("1.1", 468)
    assert solved("1.1") and capsys.readouterr().out == "Exercise 1.1: right\n"
    check("1.1", 154)
    assert not solved("1.1")
    forget()
    with pytest.raises(KeyError, match="'0.9' is not an exercise"):
        check("0.9", 1)
    with pytest.raises(KeyError, match="'0.9' is not an exercise"):
        solved("0.9")
    with pytest.raises(TypeError, match="expected: exercise 9.9"):
        evaluate("9.9", 1, 1.0)


# ------------------------------------------------------------------------------------------------ answers


def test_the_data_answers_agree_with_the_committed_result_tables():
    observed = pd.read_csv(A / "race_observed.csv", index_col="group")
    residuals = pd.read_csv(A / "race_residuals.csv", index_col="group")
    tests = pd.read_csv(A / "equal_confusion_tests.csv").set_index("grouping")
    assert ANSWERS["1.1"].value == observed.loc["African-American", "FP"]
    assert ANSWERS["1.2"].value == pytest.approx(tests.loc["race", "statistic"], rel=1e-12)
    assert ANSWERS["1.3"].value == pytest.approx(tests.loc["race", "cramers_v"], rel=1e-12)
    assert ANSWERS["1.4"].value == pytest.approx(residuals.loc["African-American", "TN"], rel=1e-12)
    erratum = pd.read_csv(ROOT / "results" / "default" / "nij" / "clean" / "tables" / "paper_b_erratum.csv")
    lr = erratum[(erratum["table"] == "II") & (erratum["row"] == "Logistic Regression")].iloc[0]
    assert "corrected t 2.776" in lr["evidence"] and f"{ANSWERS['3.5'].value:.3f}" == "2.776"
    published = pd.read_csv(ROOT / "data" / "published" / "paper-b-tables.csv", comment="#", dtype=str)
    rf = published[(published["table"] == "II") & (published["row"] == "Random Forest")
                   & (published["column"] == "Test Statistic")]
    # paper B, Table II, as printed
    assert f"{ANSWERS['6.3'].value:.2f}" == rf["published"].iloc[0] == "112.19"


def test_the_data_answers_are_what_the_data_give():
    """Constants of the answers recomputed from the vendored data by the shortest independent route (the
    instructor notebooks compute them the way a student would)."""
    import warnings

    import fairstats
    from compendium.course.data import compas_preset

    general = compas_preset("propublica_general", report=True).set_index("condition")
    assert ANSWERS["2.1"].value == general.loc["|days_b_screening_arrest| > 30", "rows_removed"]
    assert ANSWERS["2.2"].value == len(compas_preset("propublica_violent", changes={"day_window": 0}))
    strictest = compas_preset("violent_high_only", changes={"day_window": 0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fairstats.SmallExpectedCountWarning)
        age = fairstats.equal_confusion_test(strictest, group="age_cat", y_true="y_true", y_pred="y_pred",
                                             n_resamples=9, rng=0)
    assert ANSWERS["2.3"].value == pytest.approx(age.statistic, rel=1e-12)
    two = compas_preset("propublica_general")
    two = two[two["race"].isin(["African-American", "Caucasian"])]
    rates = fairstats.group_metrics(two, group="race", y_true="y_true", y_pred="y_pred", form="wide")
    rates = rates.set_index("race")
    assert ANSWERS["7.1"].value == pytest.approx(rates.loc["African-American", "fpr"], rel=1e-12)
    assert ANSWERS["7.2"].value == pytest.approx(rates.loc["African-American", "ppv"]
                                                 - rates.loc["Caucasian", "ppv"], rel=1e-12)


def test_the_battery_table_the_checks_count_holds_the_labs_p_values():
    from compendium.course.answers.lab4 import BATTERY
    from compendium.paper_b.authors import authors_battery

    table = pd.read_csv(ROOT / BATTERY)
    table = table[table["pvalue_corrected"].notna()].reset_index(drop=True)
    lab = authors_battery(ROOT / "data" / "raw" / "paper-b-authors", alpha=0.05)  # what lab 4 computes
    assert table["pvalue_corrected"].tolist() == lab["pvalue_corrected"].tolist()
    assert table["alpha"].tolist() == lab["alpha"].tolist()


def test_the_answers_computed_when_the_check_runs_give_the_documented_numbers_at_the_labs_defaults():
    assert ANSWERS["4.1"].expected(alpha=0.05) == ANSWERS["4.1"].value == 18
    assert ANSWERS["4.2"].expected(family_alpha=0.10) == ANSWERS["4.2"].value == 15
    assert ANSWERS["4.3"].expected(family_alpha=0.10) == ANSWERS["4.3"].value == 20
    bonferroni = ANSWERS["4.2"].wrong[0].value(family_alpha=0.10)
    assert bonferroni == 11  # Bonferroni does not pass as Holm at the lab's level
    assert ANSWERS["8.1"].expected(min_share=0.02) == pytest.approx(1200 / 1918 / (1197 / 1459), rel=1e-12)
    assert ANSWERS["8.2"].expected(min_share=0.02) == 81
    assert ANSWERS["8.3"].expected(min_share=0.02) == 59
    low = ANSWERS["8.4"].wrong[1].value(min_share=0.02, alpha=0.05)
    high = ANSWERS["8.4"].expected(min_share=0.02, alpha=0.05)
    assert low < ANSWERS["8.1"].expected(min_share=0.02) < high  # the interval holds the estimate


def test_every_exercise_is_checked_once_in_its_lab_source():
    for item in LABS:
        source = (ROOT / "notebooks" / "course" / f"{item.stem}.py").read_text(encoding="utf-8")
        for key in (k for k in ANSWERS if k.startswith(f"{item.number}.")):
            assert source.count(f'check("{key}", ') == 1, key
    assert lab("lab6_erratum").number == 6
    with pytest.raises(KeyError, match="'lab10' is not a lab"):
        lab("lab10")


# ------------------------------------------------------------------------------------------------ builder

SOURCE = '''# %% [markdown]
# # A lab

# %% tags=["parameters"]
n: int = 3  # help

# %%
x = 1
# BEGIN SOLUTION
secret = x + 41
# END SOLUTION
# STUB: secret = ...
print(secret)

# %% [markdown] tags=["solution"]
# The answer is 42 because reasons.
'''


def test_the_builder_removes_solutions_for_students_and_keeps_them_for_instructors(tmp_path):
    src = tmp_path / "lab.py"
    src.write_text(SOURCE, encoding="utf-8")
    built = build_lab_files(src, student=tmp_path / "s.ipynb", instructor=tmp_path / "i.ipynb")
    student = "\n".join(c.source for c in built.student.cells)
    teacher = "\n".join(c.source for c in built.instructor.cells)
    assert "secret = ..." in student and "x + 41" not in student and "42 because" not in student
    assert "secret = x + 41" in teacher and "42 because" in teacher and "..." not in teacher
    assert "BEGIN" not in student + teacher and "STUB" not in student + teacher
    assert built.solutions == ("secret = x + 41", "The answer is 42 because reasons.")
    assert [c["id"] for c in built.student.cells] == ["cell-01", "cell-02", "cell-03"]
    first = (tmp_path / "s.ipynb").read_bytes()
    build_lab_files(src, student=tmp_path / "s.ipynb")
    assert (tmp_path / "s.ipynb").read_bytes() == first  # deterministic


@pytest.mark.parametrize("body, message", [
    ("# BEGIN SOLUTION\nx = 1\n", "never closed"),
    ("x = 1\n# END SOLUTION\n", "without"),
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION\n", "inside a solution block"),
])
def test_unbalanced_markers_are_refused_naming_file_cell_and_line(tmp_path, body, message):
    src = tmp_path / "bad.py"
    src.write_text('# %% tags=["parameters"]\nn = 1\n\n# %%\n' + body, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as err:
        build_lab(src)
    assert "bad.py, cell 2" in str(err.value)
    assert main([str(src), "--student", str(tmp_path / "s.ipynb")]) == 2
    assert not (tmp_path / "s.ipynb").exists()  # nothing half-written


def test_a_lab_needs_exactly_one_parameters_cell(tmp_path):
    src = tmp_path / "lab.py"
    src.write_text("# %%\nx = 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="0 cells tagged 'parameters'"):
        build_lab(src)


def test_repository_path_finds_a_relative_path_from_a_subfolder(tmp_path, monkeypatch):
    (tmp_path / "data" / "raw").mkdir(parents=True)
    sub = tmp_path / "notebooks" / "course" / "student"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert repository_path("data/raw", start=sub) == tmp_path / "data" / "raw"
    with pytest.raises(FileNotFoundError, match="'nowhere' not found"):
        repository_path("nowhere", start=sub)


# ------------------------------------------------------------------------------- executed notebooks, site


def _executed(tmp_path, name: str, lines: list[str]):
    import nbformat

    cell = nbformat.v4.new_code_cell("check(...)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="".join(f"{x}\n" for x in lines))]
    path = tmp_path / name
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    return path


def test_the_course_target_fails_unless_every_check_of_the_lab_is_right(tmp_path, capsys):
    from compendium.course.executed import executed_verdicts
    from compendium.course.executed import main as checks_main

    six = [f"Exercise 6.{k}: right" for k in range(1, 6)]
    good = _executed(tmp_path, "lab6_erratum.ipynb", six)
    assert executed_verdicts(good) == {f"6.{k}": ["right"] for k in range(1, 6)}
    assert checks_main([str(good)]) == 0 and "5/5 right" in capsys.readouterr().out
    bad = _executed(tmp_path, "lab6_x.ipynb", six[:-1] + ["Exercise 6.5: not yet - hint"])
    assert checks_main([str(bad)]) == 1 and "exercise 6.5: ['not yet']" in capsys.readouterr().err
    missing = _executed(tmp_path, "lab6_y.ipynb", six[:-1])
    assert checks_main([str(missing)]) == 1 and "no check printed" in capsys.readouterr().err
    assert checks_main([str(_executed(tmp_path, "notes.ipynb", six))]) == 2


def test_the_site_links_only_rendered_labs_and_refuses_one_without_its_notebook(tmp_path):
    from compendium.publish.site import _course

    (tmp_path / "course").mkdir()
    assert _course(tmp_path) == []
    (tmp_path / "course" / f"{LABS[1].stem}.html").write_text("<html></html>")
    with pytest.raises(ValueError, match="has no notebook beside it"):
        _course(tmp_path)
    (tmp_path / "course" / f"{LABS[1].stem}.ipynb").write_text("{}")
    [only] = _course(tmp_path)
    assert only["number"] == 2 and only["href"] == f"course/{LABS[1].stem}.html"


def test_course_open_passes_allow_root_to_jupyter_as_root_only(tmp_path):
    """`make course-open` as root: Jupyter refuses to start without --allow-root (the recipe, run with a
    stand-in for `id` and `echo` for JupyterLab)."""
    import os
    import stat
    import subprocess

    res = subprocess.run(["make", "-n", "course-open", "JUPYTER_ARGS=--no-browser"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    [line] = [x for x in res.stdout.splitlines() if "jupyter lab" in x]
    command = "echo" + line.split("jupyter lab", 1)[1]
    for uid, as_root in (("0", True), ("1000", False)):
        fake = tmp_path / uid
        fake.mkdir()
        (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
        (fake / "id").chmod(stat.S_IRWXU)
        out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}).stdout
        assert ("--allow-root" in out) == as_root and "--no-browser" in out, (uid, out)
