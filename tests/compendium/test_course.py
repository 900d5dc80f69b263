"""The course's check helper, lab builder and answers (compendium.course)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from compendium.course import Choice, Number, Proportion, check, evaluate, repository_path
from compendium.course.answers import ANSWERS
from compendium.course.build import build_lab, build_lab_files, main
from compendium.course.labs import LABS, lab

ROOT = repository_path("pyproject.toml").parent
A = ROOT / "results" / "default" / "compas" / "propublica_violent" / "tables"


# ------------------------------------------------------------------------------------------------ checks


def test_a_number_is_right_within_its_tolerance_and_not_yet_outside_with_its_hint():
    expected = Number(10.0, hint="count again", source="test", atol=0.5, rtol=0.0)
    assert evaluate("9.1", 10.4, expected).right
    assert evaluate("9.1", 9.5, expected).right
    res = evaluate("9.1", 10.6, expected)
    assert not res.right and res.message == "not yet - count again"
    assert "10" not in res.message  # never the answer


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


def test_a_proportion_tolerance_follows_the_number_of_data_sets():
    expected = Proportion(0.2, hint="h", source="s")
    assert expected.tolerance(100) == pytest.approx(4 * math.sqrt(0.2 * 0.8 / 100) + 0.02)
    assert evaluate("9.3", 0.3, expected, n=100).right  # 0.1 < 0.18
    assert not evaluate("9.3", 0.3, expected, n=10_000).right  # 0.1 > 0.0162
    assert not evaluate("9.3", 1.5, expected, n=10).right
    with pytest.raises(ValueError, match="n: exercise 9.3"):
        evaluate("9.3", 0.2, expected)


def test_a_choice_gives_the_hint_of_the_wrong_letter_and_accepts_case_and_spaces():
    expected = Choice("b", {"a": "hint a", "c": "hint c"}, source="s")
    assert expected.options == ("a", "b", "c")
    assert evaluate("9.4", " B ", expected).right
    assert evaluate("9.4", "c", expected).message == "not yet - hint c"
    assert "one of a, b, c" in evaluate("9.4", "z", expected).message


def test_check_prints_one_line_and_refuses_an_unknown_exercise(capsys):
    res = check("1.1", ...)
    out = capsys.readouterr().out
    assert out == "Exercise 1.1: not yet - no answer yet: replace the `...` with your answer\n"
    assert res.to_record() == {"exercise": "1.1", "right": False, "message": res.message}
    with pytest.raises(KeyError, match="'0.9' is not an exercise"):
        check("0.9", 1)
    with pytest.raises(TypeError, match="expected: exercise 9.9"):
        evaluate("9.9", 1, 1.0)


# ------------------------------------------------------------------------------------------------ answers


def test_every_choice_has_a_hint_for_each_wrong_option_and_every_answer_a_source():
    for key, expected in ANSWERS.items():
        assert expected.source and expected.hint if not isinstance(expected, Choice) else expected.source
        if isinstance(expected, Choice):
            assert expected.answer not in expected.hints and len(expected.options) == 4, key


def test_every_lab_has_a_numeric_answer_computed_from_the_data():
    for item in LABS:
        numbers = [k for k, v in ANSWERS.items() if k.startswith(f"{item.number}.") and isinstance(v, Number)]
        assert numbers, f"lab {item.number} has no numeric answer"


def test_the_data_answers_agree_with_the_committed_result_tables():
    observed = pd.read_csv(A / "race_observed.csv", index_col="group")
    residuals = pd.read_csv(A / "race_residuals.csv", index_col="group")
    tests = pd.read_csv(A / "equal_confusion_tests.csv").set_index("grouping")
    report = pd.read_csv(A / "filter_report.csv").set_index("condition")
    assert ANSWERS["1.1"].value == observed.loc["African-American", "FP"]
    assert ANSWERS["1.2"].value == pytest.approx(tests.loc["race", "statistic"], rel=1e-12)
    assert ANSWERS["1.3"].value == pytest.approx(tests.loc["race", "cramers_v"], rel=1e-12)
    assert ANSWERS["1.4"].value == pytest.approx(residuals.loc["African-American", "TN"], rel=1e-12)
    assert ANSWERS["2.1"].value == report.loc["|days_b_screening_arrest| > 30", "rows_removed"]
    erratum = pd.read_csv(ROOT / "results" / "default" / "nij" / "clean" / "tables" / "paper_b_erratum.csv")
    lr = erratum[(erratum["table"] == "II") & (erratum["row"] == "Logistic Regression")].iloc[0]
    assert "corrected t 2.776" in lr["evidence"] and f"{ANSWERS['3.5'].value:.3f}" == "2.776"
    assert f"{ANSWERS['6.3'].value:.2f}" == lr["published"] == "31.76"  # paper B, Table II, as printed


def test_every_exercise_is_checked_once_in_its_lab_source():
    for item in LABS:
        source = (ROOT / "notebooks" / "course" / f"{item.stem}.py").read_text(encoding="utf-8")
        for key in (k for k in ANSWERS if k.startswith(f"{item.number}.")):
            assert source.count(f'check("{key}", ') == 1, key
    assert lab("lab6_erratum").number == 6
    with pytest.raises(KeyError, match="'lab9' is not a lab"):
        lab("lab9")


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
