"""The course's answers as a whole (compendium.course.answers): every right value is accepted at two, three
and four significant digits and at full precision; every listed wrong answer is turned down with its own hint,
at full precision and rounded; hints never give the value away; multiple choice is balanced and not guessable
by length; every exercise is checked once in its lab, with the settings its answer needs.

The exercises' settings (``check("4.2", answer, family_alpha=family_alpha)``) are read from the lab sources:
each keyword's expression is evaluated in the lab's parameters cell, so the answers are judged at the lab's
defaults, and each reference run of a simulated share at its own settings.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Decimal

import jupytext
import pytest
from repo_paths import ROOT

from compendium.course import Choice, Proportion, Raised, Share, evaluate
from compendium.course.answers import ANSWERS
from compendium.course.checks import needed_settings, reading
from compendium.course.labs import LABS

SOURCES = ROOT / "notebooks" / "course"
NUMERIC = sorted(k for k, v in ANSWERS.items() if not isinstance(v, Choice))
CHOICES = sorted(k for k, v in ANSWERS.items() if isinstance(v, Choice))
# A wrong answer that two significant digits cannot tell from the right one: the right value rounded to two
# digits is then right with a note ("one more digit would tell them apart"), and the wrong one rounded to two
# digits is right too. Listed here, each with why it is kept: the guide names it as a common wrong answer.
AMBIGUOUS_AT_TWO_DIGITS = {
    ("3.5", 2.840387591054069),  # the pooled t (2.84) against the corrected t (2.78) of Table II, LR
    # the family-level interval's upper end, 0.8068, against the same without the 2 % rule (0.8120) and with
    # LL144's three groupings (0.8140): all three are 0.81 at two digits (issue 39's all-pairs intervals)
    ("8.4", 0.8119613474354822),
    ("8.4", 0.8139861543916357),
}


def _lab_calls() -> dict[str, dict[str, object]]:
    """{exercise: settings of its check call, evaluated in its lab's parameters cell}."""
    calls: dict[str, dict[str, object]] = {}
    for lab in LABS:
        notebook = jupytext.read(SOURCES / f"{lab.stem}.py", fmt="py:percent")
        parameters: dict = {}
        for cell in notebook.cells:
            if "parameters" in cell.metadata.get("tags", []):
                exec(cell.source, parameters)  # noqa: S102 - the lab's own parameters cell
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
                    exercise = ast.literal_eval(node.args[0])
                    assert exercise not in calls, f"{exercise} is checked twice"
                    calls[exercise] = {kw.arg: eval(compile(ast.Expression(kw.value), "<kw>", "eval"),  # noqa: S307
                                                    dict(parameters)) for kw in node.keywords}
    return calls


CALLS = _lab_calls()


def _settings_runs(exercise: str) -> list[dict[str, object]]:
    """The settings an exercise is judged at: its lab's defaults; for a simulated share, every reference "
      "run."""
    expected = ANSWERS[exercise]
    if isinstance(expected, Proportion):
        runs = expected.runs
        return [dict(zip(runs.settings, key, strict=True)) for key in runs.counts]
    return [CALLS[exercise]]


def _truth(exercise: str, settings: dict) -> float:
    expected = ANSWERS[exercise]
    if isinstance(expected, Proportion):
        key = tuple(settings[s] for s in expected.runs.settings)
        return expected.runs.counts[key][expected.column] / settings["n"]
    value = expected.expected
    return float(value(**{k: settings[k] for k in needed_settings(expected) if k in settings})
                 if callable(value) else value)


def _wrong_values(exercise: str, settings: dict) -> list[tuple[float, str]]:
    expected = ANSWERS[exercise]
    out = []
    for w in expected.wrong:
        if isinstance(w.value, Raised):
            continue
        if isinstance(w.value, Share):
            key = tuple(settings[s] for s in expected.runs.settings)
            out.append((expected.runs.counts[key][w.value.column] / settings["n"], w.hint))
        elif callable(w.value):
            import inspect

            names = inspect.signature(w.value).parameters
            out.append((float(w.value(**{k: settings[k] for k in names})), w.hint))
        else:
            out.append((float(w.value), w.hint))
    return out


def _sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


# ------------------------------------------------------------------------------------------ the catalogue


def test_every_exercise_of_the_answers_is_checked_once_in_its_lab_with_the_settings_it_needs():
    assert sorted(CALLS) == sorted(ANSWERS)
    for exercise, settings in CALLS.items():
        expected = ANSWERS[exercise]
        assert sorted(settings) == sorted(needed_settings(expected)), exercise
        # the defaults a check falls back on are the lab's parameters
        defaults = (expected.runs.lab if isinstance(expected, Proportion)
                    else getattr(expected, "defaults", {}))
        assert {k: v for k, v in defaults.items() if k in settings} == settings, exercise
        assert isinstance(expected, Choice) or isinstance(expected.value, float | int), exercise
    assert {k.split(".")[0] for k in ANSWERS} == {str(lab.number) for lab in LABS}


def test_every_lab_has_numeric_answers_and_each_numeric_answer_lists_its_common_wrong_answers():
    for lab in LABS:
        numeric = [k for k in NUMERIC if k.split(".")[0] == str(lab.number)]
        assert len(numeric) >= 2, f"lab {lab.number}"
    for exercise in NUMERIC:
        expected = ANSWERS[exercise]
        assert expected.source and expected.hint and expected.wrong, exercise
        hints = [w.hint for w in expected.wrong]
        assert len(set(hints)) == len(hints) and expected.hint not in hints, f"{exercise}: hints not distinct"


def test_the_reference_runs_of_every_simulated_share_include_the_lab_size_and_make_tests_size():
    for exercise in (k for k in NUMERIC if isinstance(ANSWERS[k], Proportion)):
        lab = next(lab for lab in LABS if str(lab.number) == exercise.split(".")[0])
        runs = ANSWERS[exercise].runs
        keys = {tuple(CALLS[exercise][s] for s in runs.settings)}
        # the settings of the test-size run: the lab's call with make test's parameters
        source = (SOURCES / f"{lab.stem}.py").read_text(encoding="utf-8")
        call = re.search(rf'check\("{re.escape(exercise)}", [^)]*\)', source).group(0)
        params = dict(CALLS[exercise])
        for name, expr in re.findall(r"(\w+)=(\w+)", call):
            if expr in lab.test_parameters:
                params[name] = lab.test_parameters[expr]
        keys.add(tuple(params[s] for s in runs.settings))
        assert keys <= set(runs.counts), f"{exercise}: reference runs {sorted(runs.counts)} lack {keys}"


# ------------------------------------------------------------------------------- right values, any precision


@pytest.mark.parametrize("exercise", NUMERIC)
def test_the_right_value_is_right_at_two_three_and_four_significant_digits_and_in_full(exercise):
    for settings in _settings_runs(exercise):
        truth = _truth(exercise, settings)
        for answer in (truth, _sig(truth, 4), _sig(truth, 3), _sig(truth, 2), f"{truth:.4g}",
                       Decimal(f"{truth:.3g}")):
            res = evaluate(exercise, answer, ANSWERS[exercise], **settings)
            assert res.right, f"{exercise} at {settings}: {answer!r} -> {res.message}"
            if answer == truth:
                assert res.message == "right", f"{exercise}: the full value should be plainly right"


@pytest.mark.parametrize("exercise", NUMERIC)
def test_every_wrong_answer_is_turned_down_with_its_own_hint_in_full_and_rounded(exercise):
    for settings in _settings_runs(exercise):
        truth = _truth(exercise, settings)
        wrongs = _wrong_values(exercise, settings)
        for value, hint in wrongs:
            if math.isclose(value, truth, rel_tol=1e-9, abs_tol=1e-12):
                continue  # at this run the misconception happens to give the right share (e.g. 0 of 6)
            for digits in (None, 4, 3, 2):
                answer = value if digits is None else _sig(value, digits)
                res = evaluate(exercise, answer, ANSWERS[exercise], **settings)
                if digits == 2 and (exercise, value) in AMBIGUOUS_AT_TWO_DIGITS:
                    assert res.right and "one more digit" in res.message
                    continue
                assert not res.right, f"{exercise} at {settings}: wrong {answer!r} accepted"
                # rounded, two wrong answers can agree (1,215 and 1,231 are both 1,200): either hint is fair
                unit = reading(answer)[1]
                fair = {h for v, h in wrongs if abs(answer - v) <= max(unit / 2 * (1 + 1e-9), 1e-9 * abs(v))}
                assert res.message.removeprefix("not yet - ") in fair | {hint}, f"{exercise}: {answer!r}"
                if digits in (None, 4) and len(fair) <= 1:
                    assert res.message == f"not yet - {hint}", f"{exercise}: {answer!r} -> {res.message}"


@pytest.mark.parametrize("exercise", NUMERIC)
def test_the_right_value_at_two_digits_is_told_apart_from_the_wrong_ones_except_where_listed(exercise):
    for settings in _settings_runs(exercise):
        truth = _truth(exercise, settings)
        res = evaluate(exercise, _sig(truth, 2), ANSWERS[exercise], **settings)
        wrongs = [v for v, _ in _wrong_values(exercise, settings)
                  if not math.isclose(v, truth, rel_tol=1e-9, abs_tol=1e-12)]
        if any((exercise, v) in AMBIGUOUS_AT_TWO_DIGITS for v in wrongs):
            assert res.right and "one more digit" in res.message
        else:
            assert res.message == "right", f"{exercise} at {settings}: {res.message}"


@pytest.mark.parametrize("exercise", NUMERIC)
def test_no_hint_gives_the_right_value_away(exercise):
    for settings in _settings_runs(exercise):
        truth = _truth(exercise, settings)
        expected = ANSWERS[exercise]
        shown = {f"{truth:.{d}g}" for d in (2, 3, 4)} | {f"{truth:.{d}f}" for d in (2, 3)}
        shown = {s for s in shown if len(s.strip("-0.")) >= 2}  # "0.8" or "1" say nothing by themselves
        for hint in [expected.hint] + [w.hint for w in expected.wrong]:
            for text in shown:
                assert not re.search(rf"(?<![\d.]){re.escape(text)}(?![\d])", hint), (exercise, text, hint)


def test_an_error_the_lab_expects_gets_its_own_hint():
    res = evaluate("6.4", ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0"),
                   ANSWERS["6.4"])
    assert not res.right and "rowvar=False" in res.message


# ------------------------------------------------------------------------------------------ multiple choice


def _options() -> dict[str, dict[str, str]]:
    """{exercise: {letter: option text}} from the labs' Markdown."""
    found: dict[str, dict[str, str]] = {}
    for lab in LABS:
        notebook = jupytext.read(SOURCES / f"{lab.stem}.py", fmt="py:percent")
        for cell in notebook.cells:
            head = re.search(r"\*\*Exercise (\d+\.\d+)\.\*\*", cell.source)
            if cell.cell_type != "markdown" or head is None:
                continue
            options = re.findall(r"^- \*\*([a-d])\.\*\* (.*(?:\n  .*)*)", cell.source, re.MULTILINE)
            if options:
                found[head.group(1)] = {k: " ".join(t.split()) for k, t in options}
    return found


OPTIONS = _options()


def test_every_choice_has_four_options_in_its_lab_and_a_hint_for_each_wrong_one():
    assert sorted(OPTIONS) == CHOICES
    for exercise in CHOICES:
        expected = ANSWERS[exercise]
        assert expected.options == ("a", "b", "c", "d") == tuple(sorted(OPTIONS[exercise]))
        assert expected.answer not in expected.hints and expected.source


def test_the_right_letters_are_balanced_over_the_course():
    letters = [ANSWERS[k].answer for k in CHOICES]
    counts = {letter: letters.count(letter) for letter in "abcd"}
    assert max(counts.values()) - min(counts.values()) <= 1, counts


def test_the_right_option_cannot_be_guessed_by_its_length():
    longest = [k for k in CHOICES
               if max(OPTIONS[k], key=lambda letter: len(OPTIONS[k][letter])) == ANSWERS[k].answer]
    shortest = [k for k in CHOICES
                if min(OPTIONS[k], key=lambda letter: len(OPTIONS[k][letter])) == ANSWERS[k].answer]
    # a guesser by length would be right a quarter of the time by chance
    assert len(longest) <= len(CHOICES) / 4 + 1, f"right option the longest in {longest}"
    assert len(shortest) <= len(CHOICES) / 4 + 1, f"right option the shortest in {shortest}"
