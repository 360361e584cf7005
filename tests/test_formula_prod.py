"""``prod``, the product of a tensor's entries along the last axis (issue 31, today's readers): the
natural answer to pr-ngram-markov's row-loglik, ``log(p1 * prod(q))``, was refused as unreadable
("unknown function 'prod'") while ``sum`` read.  Every test here failed before ``prod`` existed."""
import numpy as np

from tutor.formulas.cost import evaluation_cost
from tutor.formulas.display import expr_latex
from tutor.formulas.parse import evaluate_formula, parse_formula, render_formula
from tutor.grading.kinds.formula import FormulaQuestion
from tutor.grading.quiz import grade, truth_for

RNG = np.random.default_rng(31)
P1, Q = np.array([0.07]), RNG.uniform(0.02, 0.6, size=9)
ROW = FormulaQuestion(kind="formula", id="row-loglik", prompt="p", answer="log(p1) + sum(log(q))",
                      bind={"p1": "p1", "q": "q"}, probe="loglik")
TENSORS = {"p1": P1, "q": Q, "loglik": np.array([np.log(P1[0]) + np.sum(np.log(Q))])}


def test_prod_multiplies_the_last_axis_and_keeps_it():
    x = np.array([[1.0, 2.0, 3.0], [0.5, 4.0, 2.0]])
    formula = parse_formula("prod(x)", matrices=frozenset())
    assert np.array_equal(evaluate_formula(formula, {"x": x}), [[6.0], [4.0]])
    assert np.array_equal(evaluate_formula(parse_formula("prod(x, dim=-1)", matrices=frozenset()), {"x": x}),
                          [[6.0], [4.0]])
    assert evaluate_formula(formula, {"x": np.array(3.0)}).shape == ()


def test_prod_is_drawn_by_name_and_costed_as_a_reduction():
    formula = parse_formula("log(p1 * prod(q))", matrices=frozenset())
    assert render_formula(formula) == "log(p₁⋅prod(q))"
    assert r"\operatorname{prod}" in expr_latex(formula.expr)
    # (4, 9) -> (4, 1): only a reduction's shape can multiply a (1, 5) row
    work, largest = evaluation_cost(parse_formula("prod(x) @ y", matrices=frozenset()).tree, {"x": (4, 9), "y": (1, 5)})
    assert largest == 36 and work > 0


def test_the_product_form_of_row_loglik_reads_and_grades():
    truth = truth_for(ROW, TENSORS, {})
    right = ["log(p1 * prod(q))", "log(p1) + log(prod(q))", "log(p1 * prod(q, dim=-1))"]
    wrong = ["log(prod(q))", "log(p1 + prod(q))", "p1 * prod(q)"]
    for text in right:
        result = grade(ROW, text, truth, {})
        assert result.correct, (text, result.feedback)
    for text in wrong:
        result = grade(ROW, text, truth, {})
        assert not result.correct and "unknown function" not in result.feedback, (text, result.feedback)
