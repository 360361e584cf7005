"""Tests for tutor.formulas.parse: safe parsing, faithful rendering, numpy evaluation."""

from __future__ import annotations

import ast
import builtins
import math
import os
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tutor.formulas.display
import tutor.formulas.evaluate
import tutor.formulas.parse
from tutor.formulas.parse import (
    Formula,
    FormulaError,
    compare,
    evaluate_formula,
    formula_latex,
    formula_symbols,
    parse_formula,
    render_formula,
)

MATRICES = ("Q", "K", "V", "X", "W_Q", "W_1", "W_2", "b_1", "b_2", "x", "z")
EXAMPLES = [
    "softmax(causal_mask(Q @ K.T / sqrt(d_k))) @ V",
    "Q @ K.T / sqrt(d_k)",
    "X @ W_Q",
    "(Q @ K.T) @ V",
    "Q @ (K.T @ V)",
    "exp(z - max(z)) / sum(exp(z - max(z)))",
    "(x - mean(x)) / sqrt(var(x) + eps) * gamma + beta",
    "-log(p)",
    "gelu(x @ W_1 + b_1) @ W_2 + b_2",
    "sin(pos / 10000**(2*i/d))",
    "z / T",
]
RNG = np.random.default_rng(1234)


def rand(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


def baseline_line(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


# ------------------------------------------------------------------ rendering

@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_parse_and_render(text: str) -> None:
    for matrices in (MATRICES, ()):
        f = parse_formula(text, matrices=matrices)
        assert isinstance(f, Formula) and f.text == text
        assert render_formula(f).strip()
        assert formula_latex(f).strip()


def test_scaled_scores_keep_q_before_k_transposed() -> None:
    f = parse_formula("Q @ K.T / sqrt(d_k)", matrices=["Q", "K"])
    line = baseline_line(render_formula(f), "Q")
    assert "Q⋅Kᵀ" in line
    assert "dₖ" in render_formula(f)
    assert formula_latex(f) == r"\frac{Q K^{T}}{\sqrt{d_{k}}}"
    q = next(s for s in f.expr.free_symbols if s.name == "Q")
    assert q.is_commutative is False


def test_softmax_keeps_v_on_the_right() -> None:
    f = parse_formula("softmax(Q @ K.T / sqrt(d_k)) @ V", matrices="QKV")
    line = baseline_line(render_formula(f), "softmax")
    assert line.rstrip().endswith("⋅V")
    assert formula_latex(f).endswith(" V")


@pytest.mark.parametrize("text", ["(Q @ K.T) @ V", "Q @ (K.T @ V)"])
def test_associativity_cases_keep_order(text: str) -> None:
    out = render_formula(parse_formula(text, matrices="QKV"))
    assert out.index("Q") < out.index("Kᵀ") < out.index("V")


def test_undeclared_names_still_print_in_author_order() -> None:
    assert render_formula(parse_formula("x @ W")) == "x⋅W"
    assert render_formula(parse_formula("b + a")) == "b + a"


def test_greek_and_subscripts() -> None:
    f = parse_formula("(x - mean(x)) / sqrt(var(x) + eps) * gamma + beta", matrices=["x"])
    out = render_formula(f)
    assert all(ch in out for ch in "γβε")
    assert r"\gamma" in formula_latex(f) and r"\epsilon" in formula_latex(f)
    # one row, as written: lowered onto a second row, the Q read as a wrapped line (issue 33)
    assert render_formula(parse_formula("X @ W_Q", matrices=["X", "W_Q"])) == "X⋅W_Q"
    assert render_formula(parse_formula("X_onehot @ W_E @ W_E.T + b_O", matrices=["X_onehot", "W_E", "b_O"])) \
        == "Xₒₙₑₕₒₜ⋅W_E⋅W_Eᵀ + b_O"
    assert formula_latex(parse_formula("W_Q")) == "W_{Q}"
    assert render_formula(parse_formula("d_k * eta * mu * sigma")) == "dₖ⋅η⋅μ⋅σ"


def test_given_between_subscripts_draws_as_the_conditioning_bar() -> None:
    assert render_formula(parse_formula("H_x - H_x_given_y")) == "Hₓ - H_x|y"


def test_elementwise_product_of_matrices_is_not_drawn_as_matmul() -> None:
    f = parse_formula("x * y @ W", matrices=["x", "y", "W"])
    assert render_formula(f) == "(x ⊙ y)⋅W"
    assert formula_latex(f) == r"\left(x \odot y\right) W"


def test_formula_symbols_uses_author_names() -> None:
    f = parse_formula("(x - mean(x)) / sqrt(var(x) + eps) * gamma + beta")
    assert formula_symbols(f) == {"x", "eps", "gamma", "beta"}


# ------------------------------------------------------------------ numerics

def test_scaled_scores_match_numpy() -> None:
    Q, K = rand(2, 5, 8), rand(2, 7, 8)
    f = parse_formula("Q @ K.T / sqrt(d_k)", matrices="QK")
    got = evaluate_formula(f, {"Q": Q, "K": K, "d_k": 8})
    np.testing.assert_allclose(got, Q @ K.swapaxes(-1, -2) / math.sqrt(8), rtol=0, atol=1e-12)


def test_causal_softmax_rows_sum_to_one_and_future_is_zero() -> None:
    Q, K, V = rand(6, 4), rand(6, 4), rand(6, 3)
    f = parse_formula("softmax(causal_mask(Q @ K.T / sqrt(d_k)))", matrices="QK")
    weights = evaluate_formula(f, {"Q": Q, "K": K, "d_k": 4})
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(weights[np.triu_indices(6, k=1)] == 0.0)
    assert weights[0, 0] == 1.0
    out = evaluate_formula(parse_formula("softmax(causal_mask(Q @ K.T / sqrt(d_k))) @ V"),
                           {"Q": Q, "K": K, "V": V, "d_k": 4})
    assert compare(out, weights @ V) < 1e-12
    scores = evaluate_formula(parse_formula("causal_mask(S)"), {"S": np.zeros((3, 3))})
    assert scores[0, 1] == -np.inf and scores[1, 0] == 0.0


def test_layernorm_matches_manual() -> None:
    x, gamma, beta = rand(3, 4, 16), rand(16), rand(16)
    f = parse_formula("(x - mean(x)) / sqrt(var(x) + eps) * gamma + beta", matrices=["x"])
    got = evaluate_formula(f, {"x": x, "gamma": gamma, "beta": beta, "eps": 1e-5})
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    assert compare(got, (x - mu) / np.sqrt(var + 1e-5) * gamma + beta) < 1e-12


def test_associativity_agrees() -> None:
    values = {"Q": rand(2, 5, 4), "K": rand(2, 6, 4), "V": rand(2, 6, 3)}
    left = evaluate_formula(parse_formula("(Q @ K.T) @ V"), values)
    right = evaluate_formula(parse_formula("Q @ (K.T @ V)"), values)
    assert left.shape == (2, 5, 3) and compare(left, right) < 1e-10


def test_elementwise_functions() -> None:
    z = np.array([[1000.0, 1001.0, 999.0], [-1.0, 0.0, 1.0]])
    sm = evaluate_formula(parse_formula("exp(z - max(z)) / sum(exp(z - max(z)))"), {"z": z})
    assert compare(evaluate_formula(parse_formula("softmax(z)"), {"z": z}), sm) < 1e-15
    x = np.linspace(-4, 4, 17)
    gelu = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    assert compare(evaluate_formula(parse_formula("gelu(x)"), {"x": x}), np.array(gelu)) < 1e-15
    assert compare(evaluate_formula(parse_formula("sigmoid(x)"), {"x": x}), 1 / (1 + np.exp(-x))) < 1e-15
    assert compare(evaluate_formula(parse_formula("relu(x) - abs(x)"), {"x": x}), np.minimum(x, 0)) < 1e-15
    assert evaluate_formula(parse_formula("var(x)"), {"x": [1.0, 3.0]}).tolist() == [1.0]  # ddof=0
    assert evaluate_formula(parse_formula("x.T"), {"x": x}).shape == (17,)  # 1-D: no-op
    assert evaluate_formula(parse_formula("x.T"), {"x": rand(2, 3, 4)}).shape == (2, 4, 3)
    assert evaluate_formula(parse_formula("-log(p)"), {"p": 0.5}) == pytest.approx(math.log(2))
    pe = evaluate_formula(parse_formula("sin(pos / 10000**(2*i/d))"), {"pos": 3, "i": 1, "d": 4})
    assert float(pe) == pytest.approx(math.sin(3 / 100))


def test_missing_symbol_and_shape_errors_are_clear() -> None:
    f = parse_formula("Q @ K.T / sqrt(d_k)", matrices="QK")
    with pytest.raises(FormulaError, match=r"'d_k'.*provided: K, Q"):
        evaluate_formula(f, {"Q": rand(2, 3), "K": rand(2, 3)})
    with pytest.raises(FormulaError, match=r"\(2, 3\) @ \(4, 2\)") as err:
        evaluate_formula(f, {"Q": rand(2, 3), "K": rand(2, 4), "d_k": 3})
    assert err.value.column == 3
    with pytest.raises(FormulaError, match="not numeric"):
        evaluate_formula(parse_formula("x + 1"), {"x": "abc"})


def test_compare() -> None:
    assert compare(np.array([1.0, -np.inf, np.inf]), np.array([1.0, -np.inf, np.inf])) == 0.0
    assert compare(np.array([1.0, 2.0]), np.array([1.5, 2.0])) == 0.5
    assert compare(np.zeros(3), np.zeros(4)) == math.inf
    assert compare(np.array([np.inf]), np.array([1.0])) == math.inf
    assert compare(np.array([np.inf]), np.array([-np.inf])) == math.inf


# ------------------------------------------------------------------ attacks

ATTACKS = [
    "__import__('os').system('touch /tmp/pwned')",
    "().__class__.__base__.__subclasses__()",
    "Q.__class__",
    "Q.T.__class__",
    "(lambda: 1)()",
    "[x for x in ()]",
    "2**2**2**2**2**2",
    "(9**99)**99",
    "x ** 1000",
    '"a"*10',
    "Q[0]",
    "softmax(Q, dim=1)",
    "softmax(Q, Q)",
    "softmax(*Q)",
    "x" * 10_000,
    "(" * 200 + "x" + ")" * 200,
    "-" * 100 + "x",
    "+".join(["x"] * 60),
    "1e400",
    "12345678901",
    "eval('1')",
    "exec('import os')",
    "open('/etc/passwd')",
    "getattr(Q, 'T')",
    "exec",
    "open",
    "getattr",
    "True",
    "1j",
    "x if y else z",
    "x == y",
    "x ^ 2",
    "f'{x}'",
    "_private",
    "sqrt",
    "Q.T()",
    "ｅｖａｌ(1)",
    "x\x00",
    "",
]


@pytest.mark.parametrize("text", ATTACKS, ids=lambda t: repr(t[:30]))
def test_attacks_are_rejected_without_side_effects(text: str, tmp_path: Path) -> None:
    existed = os.path.exists("/tmp/pwned")
    marker = tmp_path / "pwned"
    start = time.perf_counter()
    with pytest.raises(FormulaError) as err:
        parse_formula(text.replace("/tmp/pwned", str(marker)), matrices=["Q"])
    assert time.perf_counter() - start < 1.0
    assert str(err.value)
    assert not marker.exists()
    assert existed or not os.path.exists("/tmp/pwned")


def test_error_messages_name_the_problem_and_column() -> None:
    with pytest.raises(FormulaError, match=r"unknown function 'eval' at column 1; allowed: softmax, ") as e:
        parse_formula("eval('1')")
    assert e.value.column == 1
    with pytest.raises(FormulaError, match=r"attribute '\.__class__' .*not allowed \(only \.T\)") as e:
        parse_formula("Q.__class__")
    assert e.value.column == 3
    with pytest.raises(FormulaError, match="syntax error at column") as e:
        parse_formula("Q @ @ K")
    assert e.value.column is not None
    with pytest.raises(FormulaError, match=r"operator '\^' .* use \*\*"):
        parse_formula("x ^ 2")
    assert isinstance(FormulaError("m", 1), ValueError)


def test_no_dynamic_code_paths_in_source() -> None:
    builtins_banned = {"eval", "exec", "compile", "__import__"}
    sympy_banned = {"sympify", "parse_expr", "lambdify", "S"}
    for module in (tutor.formulas.parse, tutor.formulas.display, tutor.formulas.evaluate):
        tree = ast.parse(Path(module.__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None)
                attr = getattr(node.func, "attr", None)
                assert name not in builtins_banned | sympy_banned, f"{module.__name__} calls {name}"
                assert attr not in sympy_banned, f"{module.__name__} calls .{attr}"


def test_pipeline_never_calls_eval_or_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec called")

    # SymPy loads with the first formula drawn, and its printers import submodules on first use (the
    # import system runs module code with exec): loaded here first, so what is checked is the pipeline
    render_formula(parse_formula("x * y")), formula_latex(parse_formula("x * y"))
    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    for text in EXAMPLES:
        f = parse_formula(text, matrices=MATRICES)
        render_formula(f), formula_latex(f)
        evaluate_formula(f, {name: rand(3, 3) for name in formula_symbols(f)})


# ------------------------------------------------------------------ properties

FORMULA_CHARS = "QKVxyz_T.@*/+-()0123456789e ,^[]'\"softmaxlgqrtcu"


def check_total(text: str) -> None:
    try:
        f = parse_formula(text, matrices=["Q", "K"])
    except FormulaError:
        return
    assert render_formula(f) and formula_latex(f)
    try:
        out = evaluate_formula(f, {name: rand(3, 3) for name in formula_symbols(f)})
    except FormulaError:
        return
    assert isinstance(out, np.ndarray)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_random_text_parses_or_raises_formula_error(text: str) -> None:
    check_total(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=FORMULA_CHARS, max_size=40))
def test_formula_like_text_parses_or_raises_formula_error(text: str) -> None:
    check_total(text)


_atoms = st.sampled_from(["Q", "K", "x", "d_k", "2", "0.5", "1e-3", "gamma"])


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, st.sampled_from("+-*/@"), inner)
    call = st.tuples(st.sampled_from(sorted(tutor.formulas.evaluate.FUNCTIONS)), inner)
    power = st.tuples(_atoms, st.sampled_from(["2", "0.5", "-1", "x"]))
    return st.one_of(
        pair.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        call.map(lambda t: f"{t[0]}({t[1]})"),
        inner.map(lambda a: f"({a}).T"),
        inner.map(lambda a: f"-{a}"),
        power.map(lambda t: f"({t[0]} ** {t[1]})"),
    )


_formulas = st.recursive(_atoms, _extend, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_formulas)
def test_generated_formulas_render_and_evaluate(text: str) -> None:
    f = parse_formula(text, matrices=["Q", "K", "x"])
    assert render_formula(f) and formula_latex(f)
    try:
        evaluate_formula(f, {"Q": rand(3, 3), "K": rand(3, 3), "x": rand(3, 3), "d_k": 3.0, "gamma": 0.7})
    except FormulaError as exc:  # only shape problems are expected, e.g. causal_mask of a scalar
        assert "column" in str(exc)


def test_right_grouped_products_keep_their_brackets():
    from tutor.formulas.parse import formula_latex, parse_formula, render_formula

    right = parse_formula("Q @ (K.T @ V)", matrices=["Q", "K", "V"])
    left = parse_formula("(Q @ K.T) @ V", matrices=["Q", "K", "V"])
    assert "(Kᵀ⋅V)" in render_formula(right)
    assert "(" not in render_formula(left)
    assert formula_latex(right) == r"Q \left(K^{T} V\right)"


def test_a_power_of_a_sum_that_holds_a_power_of_symbols_is_read():
    """A standard deviation written as a square root: the inner square is of symbols, so the printers
    have no number tower to evaluate; numeric towers stay refused (see ATTACKS)."""
    formula = parse_formula("(mean((x - mean(x))**2) + eps) ** 0.5")
    x = np.array([1.0, 2.0, 4.0])
    got = evaluate_formula(formula, {"x": x, "eps": 0.0})
    assert np.allclose(got, np.std(x))
    with pytest.raises(FormulaError):
        parse_formula("(2**x + 9**99)**99")


def test_an_evaluation_error_keeps_its_english_and_is_worded_in_chinese():
    """Before: shape mismatches, missing values and failed functions were English under --lang zh."""
    import numpy as np

    from tutor.common.i18n import message_of, set_language, translated
    from tutor.formulas.evaluate import FormulaError, evaluate_tree

    tree = parse_formula("Q @ K").tree
    with pytest.raises(FormulaError) as caught:
        evaluate_tree(tree, {"Q": np.zeros((2, 3)), "K": np.zeros((2, 3))})
    assert str(caught.value) == "matmul shape mismatch at column 3: (2, 3) @ (2, 3)"
    with pytest.raises(FormulaError) as missing:
        evaluate_tree(tree, {"Q": np.zeros((2, 3))})
    set_language("zh")
    try:
        assert translated(message_of(caught.value)) == "第 3 列的矩阵乘法形状不匹配：(2, 3) @ (2, 3)"
        assert translated(message_of(missing.value)).startswith("符号 'K' 没有值")
    finally:
        set_language("en")


@pytest.mark.parametrize("text, english, chinese_part", [
    ("softmax(Q", "syntax error at column 8: '(' was never closed", "'(' 没有闭合"),
    ("f(a b)", "syntax error at column 3: invalid syntax. Perhaps you forgot a comma?", "逗号"),
    ("(a]", "syntax error at column 3: closing parenthesis ']' does not match opening parenthesis '('", "不匹配"),
    ("2x", "syntax error at column 1: a number runs into a name; write * between them (2*i, not 2i)", "数字"),
    ("1if x else y", "syntax error at column 1: a number runs into a name; write * between them (2*i, not 2i)",
     "数字"),   # before: parsed, with a SyntaxWarning printed to stderr over the screen
    ("a < b", "a comparison is not allowed at column 1", "比较"),
    ("x[0]", "indexing like x[0] is not allowed at column 1", "索引"),
])
def test_python_s_own_words_for_a_formula_that_does_not_parse_are_worded_in_chinese(text, english, chinese_part):
    """Before: the interpreter's wording ("'(' was never closed") and the kind of construct ("comparison")
    stayed English inside an otherwise Chinese sentence."""
    from tutor.common.i18n import message_of, set_language, translated

    with pytest.raises(FormulaError) as caught:
        parse_formula(text)
    assert str(caught.value) == english
    set_language("zh")
    try:
        shown = translated(message_of(caught.value))
    finally:
        set_language("en")
    assert chinese_part in shown and english.split(": ", 1)[-1] not in shown, shown


def test_a_wording_python_may_change_is_shown_as_python_wrote_it():
    from tutor.formulas.syntax_words import syntax_problem

    assert syntax_problem("'(' was never closed").template == "{bracket!r} was never closed"
    assert not hasattr(syntax_problem("some future wording"), "template")


def test_a_relative_formula_tolerance_scales_with_the_value_the_learner_s_model_gives():
    """op-curvature's finite difference was off by 0.2 where u·Hu is 307 (a model trained 100 steps), against
    an absolute tolerance of 0.001 set on the shipped model's 0.028: relative: true says what is meant."""
    import numpy as np

    from tutor.course.schema import FormulaSpec
    from tutor.live.formula_check import check_formula

    def checked(value, approximation, **spec):
        tensors = {"exact": np.array([value]), "approx": np.array([approximation])}
        return check_formula(FormulaSpec(expr="a", translation="-", bind={"a": "approx"}, reproduces="exact",
                                         **spec), tensors, {})

    assert checked(306.72, 306.52, tolerance=0.01, relative=True).ok
    assert checked(0.02798, 0.02800, tolerance=0.01, relative=True).ok
    assert not checked(306.72, 2 * 306.72, tolerance=0.01, relative=True).ok   # a lost factor 2 is still caught
    assert not checked(306.72, 306.52, tolerance=0.01).ok                      # absolute, as before
    verdict = checked(306.72, 306.52, tolerance=0.01, relative=True).message
    assert verdict == "formula and model agree: max |difference| = 0.2 on exact (tolerance 0.01 of its largest " \
                      "|value|: 3.1)"
