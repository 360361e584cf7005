"""An intermediate the question rules out: a formula question's ``forbid_shapes:`` (issue 31).

co-linear-attention asks for linear attention's output "without forming the (L, L) table", but
``(phi_Q @ phi_K.T) @ V`` equals ``phi_Q @ (phi_K.T @ V)`` to the last rounding error, so no draw
tells them apart and ``forbid:`` refuses names only: the first was graded right.  The tests that
grade it failed before (``forbid_shapes`` was an unknown field; the lesson's accept: held the table)."""
from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from tutor.grading.declared_shapes import declare, declared_axes
from tutor.grading.kinds.formula import FormulaQuestion, check_answer
from tutor.grading.quiz import grade, truth_for

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
SIZES = {"B": 2, "L": 4, "D": 8, "H": 2, "D_head": 4}    # L = D_head: only the draws at other sizes tell them apart
LINEAR = dict(kind="formula", id="linear-form", prompt="p", answer="(Q @ (K.T @ V)) / (Q @ sum(K.T))",
              matrices=["Q", "K", "V"], forbid_shapes=[["L", "L"]],
              bind={"Q": "blocks.0.attn.q[0, 0]", "K": "blocks.0.attn.k[0, 0]", "V": "blocks.0.attn.v[0, 0]"},
              probe="blocks.0.attn.z[0, 0]")


def _tensors() -> dict[str, np.ndarray]:
    """Positive features (as φ = elu + 1 gives), and linear attention's output the quadratic way."""
    rng = np.random.default_rng(1)
    q, k, v = (rng.uniform(0.1, 2.0, (2, 2, 4, 4)) for _ in range(3))      # (B, H, L, D_head) each
    table = q @ np.swapaxes(k, -1, -2)                                       # (B, H, L, L)
    return {"blocks.0.attn.q": q, "blocks.0.attn.k": k, "blocks.0.attn.v": v,
            "blocks.0.attn.z": table / table.sum(-1, keepdims=True) @ v}     # (B, H, L, D_head)


@pytest.fixture(scope="module")
def linear():
    question = FormulaQuestion(**LINEAR)
    return question, truth_for(question, _tensors(), SIZES)


@pytest.mark.parametrize("text,part", [
    ("(Q @ K.T @ V) / (Q @ sum(K.T))", "Q @ K.T"), ("((Q @ K.T) @ V) / sum(Q @ K.T)", "Q @ K.T"),
    ("(Q @ (K.T @ V)) / sum(Q @ K.T)", "Q @ K.T"), ("(Q·Kᵀ·V) / (Q·sum(Kᵀ))", "Q @ K.T"),
])
def test_an_answer_that_builds_the_forbidden_table_is_refused_and_told_which_part(linear, text, part):
    question, truth = linear
    result = grade(question, text, truth, SIZES)
    assert not result.correct, text   # before: Right, the values cannot tell the groupings apart
    assert f"Yours builds {part}, an (L, L) intermediate" in result.feedback, result.feedback


def test_the_cheap_grouping_is_right_though_its_part_is_square_where_l_equals_d_head(linear):
    question, truth = linear
    for text in ("(Q @ (K.T @ V)) / (Q @ sum(K.T))", "Q·(Kᵀ·V) / (Q·sum(Kᵀ))", "(Q @ (K.T @ V)) / sum(Q * sum(K.T).T)"):
        assert grade(question, text, truth, SIZES).correct, text


def test_a_wrong_answer_with_an_authors_sentence_keeps_it(linear):
    question = FormulaQuestion(**(LINEAR | {"reject": [{"expr": "softmax(Q @ K.T) @ V", "says": "No softmax here."}]}))
    truth = truth_for(question, _tensors(), SIZES)
    assert grade(question, "softmax(Q @ K.T) @ V", truth, SIZES).feedback == "Not quite. No softmax here."
    assert "builds Q @ K.T" in grade(question, "Q @ K.T @ V", truth, SIZES).feedback


def test_lessons_check_reports_an_answer_that_builds_it_and_a_size_no_draw_separates():
    tensors = _tensors()
    builds = FormulaQuestion(**(LINEAR | {"answer": "(Q @ K.T @ V) / sum(Q @ K.T)"}))
    problems = check_answer(builds, truth_for(builds, tensors, SIZES), tensors, SIZES, own_sizes=True)
    assert [p.field for p in problems] == [("forbid_shapes",)] and "itself builds Q @ K.T" in str(problems[0].message)
    fixed = FormulaQuestion(**(LINEAR | {"forbid_shapes": [["L", "B"]]}))   # B is no axis of what it binds
    problems = check_answer(fixed, truth_for(fixed, tensors, SIZES), tensors, SIZES, own_sizes=True)
    assert [p.field for p in problems] == [("forbid_shapes",)] and "no draw gives B" in str(problems[0].message)
    good = FormulaQuestion(**LINEAR)
    assert check_answer(good, truth_for(good, tensors, SIZES), tensors, SIZES, own_sizes=True) == []


def test_a_shape_names_sizes_only():
    with pytest.raises(ValidationError):
        FormulaQuestion(**(LINEAR | {"forbid_shapes": [["L", "n"]]}))


def test_outputs_joined_by_and_share_the_shape_declared_after_them():
    """linear_attn.phi_q was undeclared ("phi_q and phi_k (B, H, L, D_head)"), so the draws kept its
    lengths, every draw at other sizes failed, and L and D_head were never told apart."""
    declare("joined_test", "joined_test.a and joined_test.b (B, L), joined_test.c / .d (H,)")
    assert declared_axes("joined_test.a") == declared_axes("joined_test.b") == ("batch", "position")
    assert declared_axes("joined_test.c") == declared_axes("joined_test.d") == ("head",)


def test_co_linear_attention_forbids_the_table_and_accepts_no_answer_that_builds_it():
    lesson = yaml.safe_load((LESSONS / "co-linear-attention.yaml").read_text(encoding="utf-8"))
    question = next(q for q in lesson["questions"] if q["id"] == "linear-form")
    assert question["forbid_shapes"] == [["L", "L"]]
    assert {"expr": "(phi_Q @ phi_K.T @ V) / sum(phi_Q @ phi_K.T)", "nudge": "builds"} in question["reject"]
