"""The leak check: a question's live answer may not appear in the text shown before it."""
from pathlib import Path

import numpy as np
import pytest
from session_helpers import FIXTURE_LESSONS

from tutor.authoring.check import check_paths
from tutor.grading.answer_text import number_shown, shape_shown, symbolic_shown, values_shown
from tutor.cli.lessons import template_text


@pytest.mark.parametrize("text", ["the shape is (2, 4, 8)", "a [2,4,8] tensor", "2x4x8 numbers", "2 × 4 × 8 entries"])
def test_a_shape_is_found_in_its_written_forms(text):
    assert shape_shown(text, (2, 4, 8))


@pytest.mark.parametrize("text", ["pattern[2, 4, 8] is a probe index", "B = 2 rows of L = 4 tokens, D = 8",
                                  "(2, 4) then (4, 8)", "D (8) features", "(2, 4, 8, 1)"])
def test_sizes_and_probe_indices_are_not_shapes(text):
    assert not shape_shown(text, (2, 4, 8))


def test_a_one_axis_shape_only_with_its_comma():
    assert shape_shown("a vector of shape (8,)", (8,)) and not shape_shown("D (8)", (8,))


@pytest.mark.parametrize("text,value", [("a minimum of about −0.17", -0.1699), ("the floor 0.0003", 0.0003),
                                        ("about 58%", 0.5812), ("at most 1/4", 0.2495), ("≈ 58 after ten", 57.67),
                                        ("the results add up to exactly 1.", 1.0), ("its variance is 256", 261.6),
                                        ("x = 1e-3", 0.001)])
def test_numbers_at_their_shown_precision(text, value):
    assert number_shown(text, value, is_sum=True)


@pytest.mark.parametrize("text,value", [
    ("row 2 of head 1", 2.0),                       # an index
    ("with D = 8 features", 8.0),                   # a size the learner reasons from
    ("rates 1, 0.1, 0.01, 0.001", 0.007),           # 0.01 is not a statement of 0.007
    ("how many are exactly 0?", 0.0),               # asked, not stated
    ("45 = 1 + 2 + … + 9", 1.0),                    # a term of a sum
    ("the loss is 0 at p = 1", 2.6e-5),             # a small whole number never states a non-whole answer
    ("newline is 0", 0.0),                          # 0 only after '=', 'equals' or 'sums to'
])
def test_what_is_not_a_statement_of_the_answer(text, value):
    assert not number_shown(text, value)


def test_a_sum_is_stated_only_for_a_sum_and_counts_are_left_alone():
    assert not number_shown("the weights still sum to 1", 1.0)
    assert number_shown("the weights still sum to 1", 1.0, is_sum=True)
    assert not number_shown("e^0 = 1", 1.0, counting=True)


def test_values_as_a_whole_sequence():
    assert values_shown("its weights are 1, 0, 0, 0 here", np.array([1.0, 0, 0, 0]), 0.001)
    assert not values_shown("weights 1 and 0", np.array([1.0, 0, 0, 0]), 0.001)


def test_symbolic_shapes_compare_as_formulas():
    assert symbolic_shown("so the scores are (B, H, L, L)", "(B,H,L,L)")
    assert symbolic_shown("(B, H, L, D_head)", "(B, H, L, D/H)")
    assert not symbolic_shown("(B, H, L, D)", "(B, H, L, D/H)")


def test_the_check_reports_the_leak_at_its_line_and_column(tmp_path):
    text = template_text("leaky", "Leaky", "pr", 100, Path("leaky.yaml"), ["pr"])
    old = "  weights one position gives to the positions it may look at."
    assert old in text
    text = text.replace(old, "  weights one position gives to the positions it may look at; they are (2, 3, 5, 5).")
    path = tmp_path / "leaky.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path])
    [problem] = report.problems
    line = text.splitlines()[problem.line - 1]
    assert problem.field == "explanation" and "question 1 (questions.0, 'pattern-shape')" in problem.message
    assert line[problem.column - 1:].startswith("(2, 3, 5, 5)"), (line, problem.column)


def test_a_live_number_in_a_placeholder_is_checked_as_the_learner_sees_it(tmp_path):
    text = template_text("leaky", "Leaky", "pr", 100, Path("leaky.yaml"), ["pr"])
    hint = '      - "One row of weights per query position, one column per key position."'
    assert hint in text
    text = text.replace(hint, '      - "Row 0 reads {{ blocks.0.attn.pattern[0, 0, 0, 0:2] | .2f }}."')
    path = tmp_path / "leaky.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path])
    # the row's values give away question 3, and its 1.00 the row sum of question 4
    problem, also = report.problems
    assert problem.field == also.field == "questions.0.hints.0", report.text()
    assert "question 3 (questions.2, 'first-row')" in problem.message and "question 4 (questions.3, 'row-sum')" in also.message
    assert "'1.00, 0.00'" in problem.message
    line = text.splitlines()[problem.line - 1]
    assert line[problem.column - 1:].startswith("{{ blocks.0.attn.pattern"), (line, problem.column)


def test_the_title_is_read_too(tmp_path):
    """The title stays on screen above every question: la-tensors' old title, "a batch of sentences is
    (B, L, D)", answered its own symbolic-shape question and no check read it."""
    source = (FIXTURE_LESSONS / "fixture-tensors.yaml").read_text(encoding="utf-8")
    old = 'title: "Tensors (test fixture): how a batch of sentences is laid out"'
    assert old in source
    text = source.replace(old, 'title: "Tensors: a batch of sentences is (B, L, D)"').replace(
        "id: fixture-tensors", "id: la-tensors-copy")
    path = tmp_path / "la-tensors-copy.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path], variants=0)
    leaks = [p for p in report.problems if p.field == "title"]
    assert leaks and "(questions.3, 'symbolic')" in leaks[0].message, report.text()
    line = text.splitlines()[leaks[0].line - 1]
    assert line[leaks[0].column - 1:].startswith("(B, L, D)"), (line, leaks[0].column)
