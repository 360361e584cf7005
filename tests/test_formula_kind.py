"""kind: formula — the learner writes the expression and the live model checks it (issue 20)."""
from pathlib import Path

import numpy as np
import pytest
import yaml
from textual.widgets import Input

from journey_helpers import graded, open_live_lesson, text_of, type_answer
from tutor.formulas.parse import parse_formula, render_formula
from tutor.grading.answer_text import formula_shown
from tutor.grading.answers import AnswerError
from tutor.grading.formula_nudges import constant_factor
from tutor.grading.formula_read import UnknownSymbol
from tutor.grading.kinds.formula import FormulaQuestion, Given, Unreadable, nudge_of, preview, read
from tutor.grading.kinds.formula_verdict import symbolic_verdict
from tutor.grading.quiz import grade, truth_for

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
SCORES = dict(kind="formula", id="scores-formula", prompt="p", answer="Q @ K.T / sqrt(d_k)", matrices=["Q", "K"],
              bind={"Q": "blocks.0.attn.q[0, 0]", "K": "blocks.0.attn.k[0, 0]", "d_k": "D_head"},
              probe="blocks.0.attn.scores[0, 0]")


def printed(question, text):
    return str(read(question, text).expr)


@pytest.mark.parametrize("text", ["Q @ K.T / sqrt(d_k)", "Q·Kᵀ/√d_k", "Q⋅Kᵀ / √(d_k)", "(Q @ K.T) / sqrt(d_k)",
                                  "Ｑ＠Ｋ．Ｔ／ｓｑｒｔ（ｄ＿ｋ）", "Q·Kᵀ/√dₖ", "Q@K.T*d_k**(-1/2)"])
def test_as_written_forms_read_as_the_same_formula(text):
    question = FormulaQuestion(**SCORES)
    reference = read(question, "Q @ K.T / sqrt(d_k)").tree
    assert read(question, text).tree.kind == reference.kind
    if text != "Q@K.T*d_k**(-1/2)":
        assert printed(question, text) == printed(question, "Q @ K.T / sqrt(d_k)")


def test_greek_and_superscripts_match_the_offered_symbols():
    question = FormulaQuestion(kind="formula", id="adam", prompt="p", answer="m / (1 - beta1**t)",
                               bind={"m": "m", "beta1": 0.9, "t": 3.0}, probe="mhat")
    assert printed(question, "m/(1−β₁ᵗ)") == printed(question, "m / (1 - beta1**t)")
    assert printed(question, "m / (1 - β1^t)") == printed(question, "m / (1 - beta1**t)")


def test_what_does_not_read_costs_no_try_and_says_where():
    question = FormulaQuestion(**SCORES)
    with pytest.raises(Unreadable) as error:
        read(question, "Q @ K.T / sqrt(d_k")
    assert error.value.column == 15 and "never closed" in str(error.value)
    with pytest.raises(UnknownSymbol, match="V is not a symbol this question offers; it offers Q, K, d_k"):
        read(question, "Q @ V")
    shown = preview(question, "Q @ K.T / sqrt(d_k").splitlines()
    assert shown[0] == "Q @ K.T / sqrt(d_k" and shown[1] == " " * 14 + "^" and "never closed" in shown[2]
    assert preview(question, "") is None


def test_the_preview_prints_as_the_lessons_formula_prints():
    question = FormulaQuestion(**SCORES)
    lesson_formula = render_formula(parse_formula("Q @ K.T / sqrt(d_k)", matrices=["Q", "K"]))
    assert preview(question, "Q·Kᵀ/√d_k") == lesson_formula


@pytest.mark.parametrize("text", ["Q @ K.T / sqrt(d_k)", "Q·Kᵀ/√d_k", "Q @ K.T * (1 / sqrt(d_k))",
                                  "(K @ Q.T).T / sqrt(d_k)"])
def test_right_answers_are_right(scores, text):
    question, live, truth = scores
    assert grade(question, text, truth, live.sizes).correct


@pytest.mark.parametrize("text,word,words", [
    ("Q @ K.T", "factor", ["2.00×", "changes with d_k", "Which power of d_k"]),   # the power is the learner's step
    ("Q @ K.T / d_k", "factor", ["0.50×", "changes with d_k"]),
    ("K @ Q.T / sqrt(d_k)", "transposed", []),
    ("-Q @ K.T / sqrt(d_k)", "sign", []),
    ("Q @ K.T / 2", "size", ["only by coincidence", "Write it as √d_k"]),   # √d_k is 2 here, and only here
    ("Q.T @ K / sqrt(d_k)", "shape", ["(D_head, D_head)", "(L, L)"]),   # L = D_head = 4 here
    ("Q @ K / sqrt(d_k)", "compute", ["(5, 4) @ (5, 4)"]),      # L = 5, D_head = 4: no product at all
    ("causal_mask(Q @ K.T / sqrt(d_k))", "mask", []),
    ("softmax(Q @ K.T / sqrt(d_k))", "differs", []),
    ("Q @ Q.T / sqrt(d_k)", "differs", []),
])
def test_wrong_answers_get_a_nudge_from_both_results(scores, text, word, words):
    question, live, truth = scores
    result = grade(question, text, truth, live.sizes)
    assert not result.correct
    found = nudge_of(question, Given(read(question, text)), truth)
    assert found.word == word and found.text in result.feedback
    for piece in words:
        assert piece in found.text, found.text
    assert "sqrt(d_k)" not in result.feedback and "Q @ K.T / sqrt" not in result.feedback


def test_a_scalar_formula_is_checked_with_other_values_and_by_sympy():
    tensors = {"m": np.array(0.3), "mhat": np.array(0.3 / (1 - 0.9 ** 3))}
    question = FormulaQuestion(kind="formula", id="adam", prompt="p", answer="m / (1 - beta1**t)",
                               bind={"m": "m", "beta1": 0.9, "t": 3.0}, probe="mhat")
    truth = truth_for(question, tensors, {})
    assert grade(question, "m/(1−β₁ᵗ)", truth, {}).correct
    assert grade(question, "m * 1 / (1 - beta1**t)", truth, {}).correct
    assert symbolic_verdict(question, Given(read(question, "m/(1 - beta1**t)")), truth) is True
    assert symbolic_verdict(question, Given(read(question, "m/(1 + beta1**t)")), truth) is False   # apart at 30 digits on the draws
    assert symbolic_verdict(question, Given(read(question, "m/(1 - beta1**t) + 1")), truth) is False
    wrong = grade(question, "m / (1 - beta1**3)", truth, {})   # t is 3 here: equal only by coincidence
    assert not wrong.correct and "coincidence" in wrong.feedback and "Write it as t" in wrong.feedback
    assert "constant factor: 2.00×" in grade(question, "2 * m / (1 - beta1**t)", truth, {}).feedback
    # one number is always some multiple of another: that is no constant factor
    assert "too low" in grade(question, "m", truth, {}).feedback


def test_a_factor_is_not_named_after_a_size_when_no_draw_changed_the_sizes():
    tensors = {"n": np.array([64.0]), "F": np.array([3.0e6]), "total": np.array([2 * 64 * 3.0e6])}
    question = FormulaQuestion(kind="formula", id="fd", prompt="p", answer="2 * n * F",
                               bind={"n": "n", "F": "F"}, probe="total")
    sizes = {"H": 4, "D": 64, "D_head": 16}                     # 1/√H is 0.5 here, and only here
    truth = truth_for(question, tensors, sizes)
    feedback = grade(question, "n * F", truth, sizes).feedback
    assert "constant factor: 0.50×" in feedback and "the factor changes with" not in feedback


def test_a_factor_is_not_named_after_a_size_that_no_draw_changed():
    tensors = {"n": np.array([8.0]), "F": np.array([3.0e6]), "total": np.array([2 * 8 * 3.0e6])}
    question = FormulaQuestion(kind="formula", id="fd", prompt="p", answer="2 * n * F",
                               bind={"n": "n", "F": "F"}, probe="total")
    sizes = {"B": 1, "L": 11, "H": 4, "D": 64, "D_head": 16}   # the axis of 1 is redrawn as B; H stays 4
    truth = truth_for(question, tensors, sizes)
    feedback = grade(question, "n * F", truth, sizes).feedback
    assert "constant factor: 0.50×" in feedback and "the factor changes with" not in feedback


def test_a_zero_bias_left_out_is_caught_by_the_shifted_draw():
    rng = np.random.default_rng(0)
    tensors = {"x": rng.standard_normal((3, 4)), "W": rng.standard_normal((4, 5)), "b": np.zeros(5)}
    tensors["y"] = tensors["x"] @ tensors["W"]
    question = FormulaQuestion(kind="formula", id="lin", prompt="p", answer="x @ W + b", matrices=["x", "W"],
                               bind={"x": "x", "W": "W", "b": "b"}, probe="y")
    truth = truth_for(question, tensors, {})
    assert grade(question, "x @ W + b", truth, {}).correct
    assert not grade(question, "x @ W", truth, {}).correct


def test_an_expression_over_the_compute_budget_costs_no_try():
    tensors = {"X": np.zeros((512, 512)), "Y": np.zeros((512, 512))}
    question = FormulaQuestion(kind="formula", id="big", prompt="p", answer="X", matrices=["X"],
                               bind={"X": "X"}, probe="Y")
    truth = truth_for(question, tensors, {})
    with pytest.raises(AnswerError, match="too long to evaluate"):
        grade(question, "X @ X @ X @ X @ X", truth, {})


@pytest.mark.parametrize("text,found", [
    ("so the scores are Q·Kᵀ/√d_k, one per pair", "Q·Kᵀ/√d_k"),
    ("we compute (Q @ K.T) / sqrt(d_k) for each head", "(Q @ K.T) / sqrt(d_k)"),
    ("Q·Kᵀ compares queries with keys; √d_k is the head size's root", None),
])
def test_the_leak_search_finds_the_formula_as_typed_or_printed(text, found):
    question = FormulaQuestion(**SCORES)
    reference = printed(question, question.answer)

    def same(candidate):
        try:
            return printed(question, candidate) == reference
        except AnswerError:
            return False
    hit = formula_shown(text, {"Q", "K", "d_k"}, same)
    assert (text[hit[0]:hit[1]] if hit else None) == found


def _scores_lesson(tmp_path, model: dict | None = None, **changes) -> Path:
    data = yaml.safe_load((LESSONS / "la-scaled-scores.yaml").read_text(encoding="utf-8"))
    data["model"].update(model or {})
    question = next(q for q in data["questions"] if q["kind"] == "formula")
    question.update(changes)
    path = tmp_path / "la-scaled-scores.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_the_check_verifies_the_reference_against_the_probe(tmp_path):
    from tutor.authoring.check import check_paths

    report = check_paths([_scores_lesson(tmp_path, answer="Q @ K.T / d_k", wrong=[])])
    assert not report.ok
    assert any(p.field.endswith("answer") and "does not reproduce blocks.0.attn.scores[0, 0]" in p.message
               for p in report.problems), report.text()


def test_the_check_grades_every_wrong_expression(tmp_path):
    from tutor.authoring.check import check_paths

    wrong = [{"expr": "Q @ K.T", "nudge": "sign"}, {"expr": "K.T @ Q.T.T.T / sqrt(d_k)", "nudge": "shape"},
             {"expr": "Q @ K.T / sqrt(d_k)", "nudge": "factor"}, {"expr": "Q @ K.T", "nudge": "factor"}]
    report = check_paths([_scores_lesson(tmp_path, wrong=wrong)])
    messages = {p.field: p.message for p in report.problems}
    assert "gets a 'factor' nudge, not 'sign'" in messages[next(f for f in messages if "wrong.0" in f)]
    assert any("wrong.2" in f and "is graded right" in m for f, m in messages.items()), report.text()
    assert not any("wrong.3" in f for f in messages), report.text()


def test_the_check_finds_the_answer_in_the_text_before_the_question(tmp_path):
    from tutor.authoring.check import check_paths

    path = _scores_lesson(tmp_path, hints=["It is (Q·Kᵀ)/√d_k."])
    report = check_paths([path])
    assert any("hints" in p.field and "gives away the answer" in p.message and "(Q·Kᵀ)/√d_k" in p.message
               for p in report.problems), report.text()


async def test_the_scores_formula_in_the_app(tmp_path):
    """Issue 20's done-when: `Q @ K.T` gets a nudge naming a constant factor; the scaled one is right."""
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_live_lesson(pilot, "la-scaled-scores", question_index=3)
        assert screen.question.kind == "formula"
        await pilot.press(*"Q @ K.T")
        await pilot.pause()
        assert "Q⋅Kᵀ" in text_of(screen, "#answer-preview")
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        feedback = text_of(screen, "#feedback")
        assert "constant factor" in feedback and "changes with d_k" in feedback and "√d_k" not in feedback and "2 tries left" in feedback
        screen.query_one("#answer", Input).value = ""
        await type_answer(pilot, "Q @ K.T / sqrt(d_k)")
        assert "Right" in text_of(screen, "#feedback")
        assert not screen.query_one("#answer-preview").display   # nothing to preview after the reveal


def test_the_check_refuses_a_reference_that_holds_only_while_two_sizes_are_equal(tmp_path):
    from tutor.authoring.check import check_paths

    # texts of 4 tokens: L = D_head = 4 at the lesson's own sizes, so Q @ K computes there and only there
    report = check_paths([_scores_lesson(tmp_path, model={"text": ["3141", "2718"]},
                                         answer="Q @ K.T / sqrt(d_k) + 0 * (Q @ K)", wrong=[])])
    assert any(p.field.endswith("answer") and "cannot be evaluated" in p.message and "tell every size name apart"
               in p.message for p in report.problems), report.text()


def test_a_factor_is_found_past_entries_that_are_zero_up_to_round_off():
    """A Hessian with orthogonal columns holds 1e-17 where it means 0; those ratios are noise."""
    expected = np.array([[2.0, 0.3, 8e-17], [0.3, 2.0, -1e-17], [8e-17, -1e-17, 2.0]])
    yours = 0.5 * expected
    yours[0, 2], yours[2, 0] = 4e-17, 5e-17      # round-off of its own, not half of the answer's
    assert constant_factor(yours, expected, 1e-6) == pytest.approx(0.5)
    yours[0, 1] = 0.2                            # a real difference is still no factor
    assert constant_factor(yours, expected, 1e-6) is None


def test_a_formula_that_cannot_be_computed_is_explained_in_the_learners_language():
    """Issue 32 U1: the compute nudge kept the evaluator's English message instead of its translation."""
    from tutor.common.i18n import set_language

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    tensors = {"A": a, "B": b, "C": a @ b}
    question = FormulaQuestion(kind="formula", id="mul", prompt="p", answer="A @ B", bind={"A": "A", "B": "B"},
                               probe="C")
    set_language("zh")
    try:
        truth = truth_for(question, tensors, {})
        feedback = grade(question, "A * B", truth, {}).feedback
    finally:
        set_language("en")
    assert "无法广播形状 (2, 3) 和 (3, 2)" in feedback and "broadcast" not in feedback, feedback


def test_chinese_formula_messages_read_as_chinese_sentences():
    """Issue 32 U4, U9, U12: no '？。' after a missing operator, an unknown symbol is not shown as the
    reading and its list is written with 、, and every entry off reads as 'all of them'."""
    from tutor.common.i18n import set_language
    from tutor.grading.formula_nudges import Outcome, nudge

    question = FormulaQuestion(**SCORES)
    set_language("zh")
    try:
        syntax = preview(question, "Q @ K.T / (2 3)")
        unknown = preview(question, "Q @ K.T / z")
        yours, expected = np.random.default_rng(1).normal(size=(2, 9, 9))
        all_off = nudge([Outcome(None, yours, expected)], question.tolerance, False).text
    finally:
        set_language("en")
    assert "运算符" in syntax and "？" not in syntax, syntax
    lines = unknown.splitlines()
    assert lines[0] == "Q @ K.T / z" and lines[1].startswith("暂时无法解析：z "), unknown
    assert "Q、K、d_k" in lines[1], unknown
    assert all_off == "你的结果 81 个元素全都与答案不同。", all_off


def test_a_symbol_left_out_that_moves_no_entry_past_the_tolerance_is_still_refused():
    """Adam's first step on a loss scaled by s (op-sgd-vs-adam asked it until issue 31's fourth pass):
    eps/s is far below every |g|, so -lr*g/abs(g) matches the probe within the tolerance, yet it
    leaves out eps and s, which the answer depends on."""
    g = np.random.default_rng(0).uniform(1e-3, 5e-2, (4, 6)) * np.where(np.arange(24).reshape(4, 6) % 2, 1, -1)
    tensors = {"g": g, "step": -0.01 * 1000 * g / (1000 * np.abs(g) + 1e-8)}
    question = FormulaQuestion(kind="formula", id="scaled", prompt="p", answer="-lr * s * g / (s * abs(g) + eps)",
                               bind={"g": "g", "s": 1000, "lr": 0.01, "eps": 1e-8}, probe="step", tolerance=0.0001)
    truth = truth_for(question, tensors, {})
    assert grade(question, "-lr * g / (abs(g) + eps / s)", truth, {}).correct
    feedback = grade(question, "-lr*g/abs(g)", truth, {})
    assert not feedback.correct and "Yours leaves out eps and s." in feedback.feedback


def test_two_names_bound_to_one_size_are_one_symbol():
    """la-scaled-scores calls the head size D_head and the formula d_k (r5fa #7): bound to the same size,
    Q @ K.T / sqrt(D_head) is the answer written with the lesson's other name, not d_k left out; a
    product with the head size in it twice is still off by that size."""
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    tensors = {"blocks.0.attn.q": q, "blocks.0.attn.k": k, "blocks.0.attn.scores": q @ k.T / 2.0}
    question = FormulaQuestion(kind="formula", id="alias", prompt="p", answer="Q @ K.T / sqrt(d_k)", matrices=["Q", "K"],
                               bind={"Q": "blocks.0.attn.q", "K": "blocks.0.attn.k", "d_k": "D_head",
                                     "D_head": "D_head"},
                               probe="blocks.0.attn.scores", tolerance=0.0001)
    sizes = {"L": 5, "D_head": 4, "D": 12, "H": 3}
    truth = truth_for(question, tensors, sizes)
    assert grade(question, "Q @ K.T / sqrt(D_head)", truth, sizes).correct
    assert grade(question, "Q @ K.T * d_k ** -0.5", truth, sizes).correct
    assert not grade(question, "Q @ K.T / sqrt(d_k * D_head)", truth, sizes).correct
