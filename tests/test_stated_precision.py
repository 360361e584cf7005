"""A prompt's "N decimals" against its tolerance (tutor.grading.stated_precision), and `lessons check`'s warning."""
from pathlib import Path

import numpy as np
import pytest

from tutor.grading.kinds import kind_of
from tutor.grading.kinds.number import NumberQuestion
from tutor.grading.kinds.values import ValuesQuestion
from tutor.grading.stated_precision import precision_problem, stated_decimals


@pytest.mark.parametrize("prompt, count", [
    ("What is it, to 2 decimals?", 2), ("What share does it keep (3 decimals)?", 3), ("Which value? Four decimals.", 4),
    ("Row by row (4 values, 2 decimals).", 2), ("How far? To 1 decimal.", 1), ("to 3 decimal places", 3),
    ("A 2 × 2 piece, rounded to one decimal so it can be done by hand.", None),   # how the prompt's numbers are written
    ("float16 keeps about 3.3 decimal digits", None), ("How many tokens?", None),
])
def test_the_stated_count_of_decimals(prompt, count):
    assert stated_decimals(prompt) == count


def test_the_tolerance_must_keep_the_stated_decimals():
    assert precision_problem("to 2 decimals", 0.01, False) is None
    assert precision_problem("to 2 decimals", 0.005, False) is None
    assert "accepts answers more than one unit off" in precision_problem("to 2 decimals", 0.02, False)
    assert "refuses the true value written to 2 decimals" in precision_problem("to 2 decimals", 0.001, False)
    assert "graded within a share of its size" in precision_problem("to 3 decimals", 0.05, True)
    assert precision_problem("What is it?", 0.3, True) is None


def test_number_and_values_kinds_warn_and_do_not_fail():
    """r7ca: nu-init-scale's "to 3 decimals" graded within 5%; r7op: "two decimals" graded within about 5%."""
    number = NumberQuestion(kind="number", id="n", prompt="What σ, to 3 decimals?", probe="x[0]", tolerance=0.05,
                            relative=True)
    [problem] = kind_of(number).check_text(number)
    assert problem.warning and problem.field == ("tolerance",)
    values = ValuesQuestion(kind="values", id="v", prompt="Row 2, to 2 decimals.", probe="x[0]", tolerance=0.02)
    [problem] = kind_of(values).check_text(values)
    assert problem.warning and "0.005 and 0.01" in problem.message
    assert kind_of(values).check_text(values.model_copy(update={"tolerance": 0.01})) == []


def test_lessons_check_points_at_the_tolerance_line(tmp_path: Path):
    from tutor.authoring.check import check_paths
    from tutor.course.catalog import builtin_lessons_dir

    text = (builtin_lessons_dir() / "la-tensors.yaml").read_text(encoding="utf-8")
    question = ("  - id: decimals-check\n    kind: number\n    prompt: \"What is the first entry, to 2 decimals?\"\n"
                "    probe: \"embed[0, 0, 0]\"\n    tolerance: 0.05\n")
    path = tmp_path / "la-tensors-decimals.yaml"
    text = text.replace("id: la-tensors\n", "id: la-tensors-decimals\n", 1)
    path.write_text(text.replace("questions:\n", "questions:\n" + question, 1), encoding="utf-8")
    report = check_paths([path], live=False)
    [warning] = [w for w in report.warnings if "decimals" in w.message]
    assert warning.field == "questions.0.tolerance" and warning.line == text[:text.index("questions:\n")].count("\n") + 6
    assert report.ok, report.text()


def test_the_truth_written_short_of_the_stated_decimals_hears_so():
    """r8la: 0.9995 for 0.99951 asked to 5 decimals heard "Too low", as if its digits were wrong."""
    from tutor.grading.quiz import grade, truth_for

    question = NumberQuestion(kind="number", id="n", prompt="What is it, to 5 decimals?", probe="x[0]",
                              tolerance=0.00001)
    truth = truth_for(question, {"x": np.array([0.999512])}, {})
    assert grade(question, "0.9995", truth, {}).feedback == \
        "Not quite. That is right to 4 decimals; the question asks for 5."
    assert grade(question, "1", truth, {}).feedback == "Not quite. That is right to 0 decimals; the question asks for 5."
    assert grade(question, "0.9994", truth, {}).feedback == "Not quite. Too low."   # a wrong digit stays wrong
    assert grade(question, "0.99951", truth, {}).correct
