"""Formula questions graded right both ways, and never a frozen screen (issue 30).

Each test here failed before the change it names: a right answer refused, a wrong one accepted,
a nudge that did not help, or a SymPy step that never ended."""
import itertools
from pathlib import Path

import numpy as np
import pytest
import yaml

from tutor.course.schema import Lesson
from tutor.formulas.budget import within_budget
from tutor.formulas.parse import FormulaError, parse_formula
from tutor.grading.answers import AnswerError
from tutor.grading.formula_read import Forbidden
from tutor.grading.kinds.formula import FormulaQuestion, Given, nudge_of, read
from tutor.grading.kinds.formula_verdict import symbolic_verdict
from tutor.grading.quiz import grade, truth_for

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
FREEZE = "l1 * exp(m1 - m) + l2 * exp(m2 - m) + 1e-300*(sin(l1)**100 - cos(l2)**100)"


def question(**fields) -> FormulaQuestion:
    return FormulaQuestion(kind="formula", id="q", prompt="p", **fields)


def _forever() -> int:
    while True:
        pass


def test_work_past_its_cpu_budget_is_abandoned_and_reads_as_cannot_tell():
    assert within_budget(sum, [1, 2, 3]) == 6
    assert within_budget(_forever, cpu_seconds=0.05) is None   # before: no budget, this never returned


def test_the_freezing_answer_is_judged_by_the_draws():
    """co-flash-attention: the right answer plus 1e-300·(sin¹⁰⁰ − cos¹⁰⁰) sent simplify into a loop
    on the UI thread for 12.5 minutes; now SymPy gives up within its budget and the draws judge."""
    q = question(answer="l1 * exp(m1 - m) + l2 * exp(m2 - m)", bind={"l1": "l1", "m1": "m1", "l2": "l2", "m2": "m2",
                                                                       "m": "m"}, probe="l")
    values = {"l1": 3.0, "m1": 0.5, "l2": 2.0, "m2": 0.9, "m": 0.9}
    tensors = {k: np.array([v]) for k, v in values.items()}
    tensors["l"] = np.array([3.0 * np.exp(0.5 - 0.9) + 2.0])
    truth = truth_for(q, tensors, {})
    assert symbolic_verdict(q, Given(read(q, FREEZE)), truth, cpu_seconds=0.05) is None
    assert grade(q, FREEZE, truth, {}).correct
    assert symbolic_verdict(q, Given(read(q, "l1*exp(m1 - m) + l2*exp(m2 - m) + 1")), truth) is False


def test_a_draw_never_leaves_the_reference_s_domain():
    """it-corpus-perplexity: the shifted draw made a perplexity negative, the reference was nan there,
    and exp(mean(log(abs(P)))) was refused as a coincidence."""
    q = question(answer="exp(mean(log(P)))", bind={"P": "P"}, probe="ppl")
    rows = np.array([8.9, 223.6, 21.0, 0.7, 0.11])
    truth = truth_for(q, {"P": rows, "ppl": np.array([np.exp(np.mean(np.log(rows)))])}, {})
    assert all(np.isfinite(expected).all() for _draw, expected in truth.value.draws)
    for text in ("exp(mean(log(abs(P))))", "exp(mean(log(P**2))/2)"):
        assert grade(q, text, truth, {}).correct, text


def test_a_distribution_stays_a_distribution_on_every_draw():
    """it-kl-distillation: q*sum(p) - p equals q - p for any distribution p; the draws broke sum(p) = 1."""
    rng = np.random.default_rng(1)
    p, q_ = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    q = question(answer="q - p", bind={"p": "p", "q": "q"}, probe="g")
    truth = truth_for(q, {"p": p, "q": q_, "g": q_ - p}, {})
    for text in ("q*sum(p) - p", "softmax(log(q)) - p", "q/sum(q) - p/sum(p)"):
        assert grade(q, text, truth, {}).correct, text


def test_a_rotation_stays_a_rotation_on_every_draw():
    """co-pe-shift (r8copr): S @ M.T @ M.T @ M equals S @ M.T for every rotation M, and was refused as a
    coincidence because the draws made M any matrix. A permutation (orthogonal too, but non-negative) is
    still drawn as the rows of probabilities it also is."""
    angle = 0.7
    block = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    rotation = np.kron(np.eye(3), block)                                        # (6, 6) block-diagonal
    shifted = np.random.default_rng(2).standard_normal((5, 6))                  # (5, 6)
    q = question(answer="S @ M.T", matrices=["S", "M"], bind={"S": "S", "M": "M"}, probe="back")
    truth = truth_for(q, {"S": shifted, "M": rotation, "back": shifted @ rotation.T}, {})
    for draw, _expected in truth.value.draws:
        m = np.asarray(draw.values["M"])
        assert np.allclose(m.T @ m, np.eye(m.shape[-1]), atol=1e-9)
    assert grade(q, "S @ M.T @ M.T @ M", truth, {}).correct
    assert not grade(q, "S @ M", truth, {}).correct and not grade(q, "S @ M.T @ M.T", truth, {}).correct
    from tutor.grading.formula_draws import _orthogonal
    assert not _orthogonal(np.eye(4)[[2, 0, 3, 1]])                           # a permutation keeps its own rule


def test_an_integer_count_is_compared_exactly():
    """ca-finite-differences: 2nF + 1000 and n(2F + 1) passed within 1e-4 of 3.7e7."""
    n, flops = 64.0, 287232.0
    q = question(answer="2 * n * F", bind={"n": "n", "F": "F"}, probe="total")
    truth = truth_for(q, {"n": np.array([n]), "F": np.array([flops]), "total": np.array([2 * n * flops])}, {})
    assert grade(q, "F * n * 2", truth, {}).correct
    for text in ("2*n*F + 1000", "n*(2*F+1)", "n*F*2.0001", "2*n*(F+1)"):
        result = grade(q, text, truth, {})
        assert not result.correct and "1.00×" not in result.feedback, text


def test_each_entry_is_compared_at_its_own_scale():
    """op-sgd-vs-adam: eps in place of eps/s changes the step only where |g| is tiny; the nudge says so."""
    g = np.concatenate([np.linspace(-1e-2, 1e-2, 60), [1.5e-6, -3e-6]])
    lr, s, eps = 1e-3, 1000.0, 1e-8
    q = question(answer="-lr * s * g / (s * abs(g) + eps)", bind={"g": "g", "s": s, "lr": lr, "eps": eps},
                 probe="step")
    truth = truth_for(q, {"g": g, "step": -lr * s * g / (s * np.abs(g) + eps)}, {})
    assert grade(q, "-lr * g / (abs(g) + eps / s)", truth, {}).correct
    found = nudge_of(q, Given(read(q, "-lr * g / (abs(g) + eps)")), truth)
    assert found.word == "small" and "smallest" in found.text


@pytest.fixture(scope="module")
def shipped(hub):
    from tutor.live.compute import compute_live

    def load(lesson_id: str, question_id: str):
        lesson = Lesson.model_validate(yaml.safe_load((LESSONS / f"{lesson_id}.yaml").read_text(encoding="utf-8")))
        q = next(x for x in lesson.questions if x.id == question_id)
        live = compute_live(lesson, hub)
        return q, truth_for(q, live.tensors, live.sizes)
    return load


@pytest.mark.parametrize("lesson,qid,text,name", [
    ("la-cbow-skipgram", "cbow-gradient", "(p - y) @ E", "the factor changes with n. Which power of n"),           # was "differs at 64 of 64"
    ("la-scaled-scores", "scores-formula", "Q @ K.T", "the factor changes with d_k. Which power of d_k"),
])
def test_a_missing_normaliser_is_named(shipped, lesson, qid, text, name):
    q, truth = shipped(lesson, qid)
    found = nudge_of(q, Given(read(q, text)), truth)
    assert found.word == "factor" and name in found.text, found.text


@pytest.mark.parametrize("lesson,qid,text,shown", [
    ("la-scaled-scores", "scores-formula", "(Q @ K.T / sqrt(d_k)) * 1.01", "1.01×"),   # was "All 25 entries differ"
    ("la-multi-head", "z-from-pattern", "(A @ V) * 1.001", "1.001×"),                      # was "All 20 entries differ"
    ("la-multi-head", "z-from-pattern", "(A @ V) / 1.01", "0.99×"),
])
def test_a_factor_near_one_is_still_a_factor(shipped, lesson, qid, text, shown):
    """Review A row 7b: a factor within 1% of 1 was dropped (so that "1.00×" is never said) and the
    learner heard that every entry differs; it is shown with the digits that tell it from 1."""
    q, truth = shipped(lesson, qid)
    found = nudge_of(q, Given(read(q, text)), truth)
    assert found.word == "factor" and shown in found.text and "1.00×" not in found.text, found.text


def test_a_missing_sum_is_a_factor_that_follows_the_values(shipped):
    q, truth = shipped("pr-temperature", "tempered-from-p")
    found = nudge_of(q, Given(read(q, "p ** (1 / T)")), truth)
    assert found.word == "factor" and "changes with the values" in found.text


def test_a_quadratic_fitted_to_the_draw_sizes_is_refused(shipped):
    """la-scaled-scores: a polynomial in d_k through the three sizes drawn (4, 5, 6) passed (adversary F7);
    with four draws at other sizes five sizes are checked, more than a quadratic can follow."""
    q, truth = shipped("la-scaled-scores", "scores-formula")
    assert len({draw.sizes["D_head"] for draw, _expected in truth.value.draws}) >= 5
    fitted = np.polyfit([4, 5, 6], np.sqrt([4, 5, 6]), 2)
    exact = f"Q @ K.T / ({fitted[2]!r} + {fitted[1]!r}*d_k + {fitted[0]!r}*d_k**2)".replace("np.float64", "")
    for text in (exact, "Q @ K.T / (0.8293 + 0.338*d_k - 0.01132*d_k**2)"):
        assert not grade(q, text, truth, {}).correct, text


def lesson_question(lesson_id: str, question_id: str):
    """A shipped question as written (the YAML only: no model)."""
    lesson = Lesson.model_validate(yaml.safe_load((LESSONS / f"{lesson_id}.yaml").read_text(encoding="utf-8")))
    return next(x for x in lesson.questions if x.id == question_id)


def scores_truth():
    """la-scaled-scores' scores-formula on numpy tensors of the model's shapes (B, H, L, D_head) =
    (2, 2, 4, 4): the draws are made from these exactly as from the model's."""
    q = lesson_question("la-scaled-scores", "scores-formula")
    rng = np.random.default_rng(0)
    queries, keys = rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((2, 2, 4, 4))   # (B, H, L, D_head)
    scores = queries @ np.swapaxes(keys, -1, -2) / 2.0                                   # (B, H, L, L)
    sizes = {"B": 2, "H": 2, "L": 4, "D_head": 4, "D": 8, "V": 96}
    tensors = {"blocks.0.attn.q": queries, "blocks.0.attn.k": keys, "blocks.0.attn.scores": scores,
               "dot_variance.scaled": np.ones(4)}   # (4,): the reveal's view, the scaled variance per d_k
    return q, truth_for(q, tensors, sizes), sizes


def fitted_divisor(sizes: tuple[int, ...]) -> str:
    coefficients = np.polyfit(sizes, np.sqrt(sizes), len(sizes) - 1)
    terms = " + ".join(f"{float(c)!r}*d_k**{len(sizes) - 1 - i}" for i, c in enumerate(coefficients))
    return f"Q @ K.T / ({terms})"


def test_a_polynomial_fitted_to_some_of_the_draw_sizes_is_refused_fast():
    """Adversary F7 without the shipped model: a quadratic in d_k through any three of the head sizes
    graded (or a cubic through any four) is refused; the adversary's own fit through 4, 5, 6 too."""
    q, truth, sizes = scores_truth()
    drawn = sorted({draw.sizes["D_head"] for draw, _expected in truth.value.draws})
    assert len(drawn) >= 5
    assert grade(q, "Q @ K.T / sqrt(d_k)", truth, sizes).correct
    for degree in (2, 3):
        for chosen in itertools.combinations(drawn, degree + 1):
            assert not grade(q, fitted_divisor(chosen), truth, sizes).correct, chosen
    assert not grade(q, "Q @ K.T / (0.8293 + 0.338*d_k - 0.01132*d_k**2)", truth, sizes).correct


def test_pr_temperature_abs_p_is_right_and_its_wrong_forms_are_wrong():
    """The adversary's Low finding: abs(p)**(1/T)/sum(abs(p)**(1/T)) equals the answer for every
    distribution p, and was refused as a coincidence (a shifted draw made p negative).  Graded by the
    formula kind on a softmax of made-up logits: the forms the lesson accepts are right, those it
    rejects wrong, with no model."""
    q = lesson_question("pr-temperature", "tempered-from-p")
    logits = 3.0 * np.random.default_rng(1).standard_normal(96)                   # (V,)
    probs = np.stack([np.exp(logits / t) / np.exp(logits / t).sum() for t in (0.5, 1.0, 2.0, 5.0, 1000.0)])
    truth = truth_for(q, {"temperature.probs": probs}, {})                         # probs: (5, V)
    for text in ["abs(p)**(1/T)/sum(abs(p)**(1/T))", q.answer, *q.accept]:
        result = grade(q, text, truth, {})
        assert result.correct, (text, result.feedback)
    for rejected in q.reject:
        assert not grade(q, rejected.expr, truth, {}).correct, rejected.expr


def test_a_forbidden_name_costs_nothing_and_says_why():
    q = question(answer="(x - mean(x)) / sqrt(mean((x - mean(x)) ** 2) + eps)", bind={"x": "x", "eps": 1e-5},
                 probe="y", forbid=["var"])
    with pytest.raises(Forbidden, match="without var"):
        read(q, "(x - mean(x)) / sqrt(var(x) + eps)")
    assert isinstance(Forbidden("x"), AnswerError)   # an AnswerError: the screen spends no try on it
    with pytest.raises(ValueError, match="neither a bound symbol nor a function"):
        question(answer="x", bind={"x": "x"}, probe="y", forbid=["nothing"])


SCORES = dict(answer="Q @ K.T / sqrt(d_k)", matrices=["Q", "K"], bind={"Q": "q", "K": "k", "d_k": "D_head"},
              probe="s")


@pytest.mark.parametrize("text", ["Q @ K^T / sqrt(d_k)", "Q @ K.mT / √d_k", "Q @ K.transpose(-2, -1) / sqrt(d_k)",
                                  "Q @ K.transpose(-1, -2) / sqrt(d_k)", "QKᵀ/√d_k", "Q Kᵀ/√dₖ", "Q·Kᵀ/√d_k"])
def test_common_spellings_of_the_transpose_read(text):
    q = question(**SCORES)
    assert str(read(q, text).expr) == str(read(q, "Q @ K.T / sqrt(d_k)").expr), text


@pytest.mark.parametrize("text,same", [
    ("softmax(x, dim=-1)", "softmax(x)"), ("softmax(x, -1)", "softmax(x)"), ("sum(x, axis=-1)", "sum(x)"),
    ("mean(x, dim=-1, keepdim=True)", "mean(x)"), ("ℯ^x", "exp(x)"), ("e^(x - 1)", "exp(x - 1)"),
    ("eˣ⁻¹", "exp(x - 1)"), ("Xᵀ(P − Y)", "X.T @ (P - Y)"),
])
def test_torch_and_paper_spellings_read(text, same):
    q = question(answer="x", matrices=["X", "P", "Y"], bind={"x": "x", "X": "X", "P": "P", "Y": "Y"}, probe="s")
    assert str(read(q, text).expr) == str(read(q, same).expr), text


def test_other_axes_are_still_refused_with_a_message():
    q = question(answer="x", bind={"x": "x"}, probe="s")
    for text in ("softmax(x, dim=0)", "sum(x, 0)", "x.transpose(0, 1)"):
        with pytest.raises(AnswerError):
            read(q, text)


def test_every_shipped_formula_question_carries_its_own_tests():
    """STACK's question tests: at least 3 answers that must grade right and 3 that must grade wrong."""
    short = []
    for path in sorted(LESSONS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for q in (data or {}).get("questions", []) if isinstance(data, dict) else []:
            if q.get("kind") == "formula":
                rejects = len(q.get("reject", [])) + len(q.get("wrong", []))
                if len(q.get("accept", [])) < 3 or rejects < 3:
                    short.append(f"{path.stem}/{q['id']}: {len(q.get('accept', []))} accept, {rejects} reject")
    assert not short, short


def test_the_check_runs_accept_and_reject(tmp_path):
    from tutor.authoring.check import check_paths

    data = yaml.safe_load((LESSONS / "la-scaled-scores.yaml").read_text(encoding="utf-8"))
    formula = next(q for q in data["questions"] if q["kind"] == "formula")
    formula.update(accept=["Q @ K.T", "Q @ K^T / sqrt(d_k)"], reject=[{"expr": "Q @ K.T / sqrt(d_k)", "nudge": "factor"}])
    path = tmp_path / "la-scaled-scores.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    messages = [p.message for p in check_paths([path]).problems]
    assert any("'Q @ K.T' is graded wrong" in m and "an accept: expression" in m for m in messages), messages
    assert not any("K^T" in m for m in messages), messages
    assert any("is graded right; a reject: expression must be refused" in m for m in messages), messages


def test_lessons_try_prints_one_line_per_answer(capsys):
    from tutor.cli.main import main

    answers = ["l1 * ℯ^(m1 − m) + l2 * ℯ^(m2 − m)", "l1 + l2", "l1 *", FREEZE]
    assert main(["lessons", "try", "co-flash-attention", "merge-formula", *answers]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["right", "wrong", "unreadable", "right"]
    assert lines[1].split("\t")[1] == "l1 + l2" and "measured against their own max" in lines[1]   # its says: sentence
    assert main(["lessons", "try", "co-flash-attention", "no-such-question", "x"]) == 1


def test_max_and_min_of_two_read_elementwise_and_can_be_forbidden():
    """r7co6: 'max(m1, m2)' for FlashAttention's merged max was refused as unreadable ("max() works on the
    last axis only"). Two arguments are the elementwise larger (torch.maximum); one is still the row max."""
    from tutor.formulas.parse import evaluate_formula, render_formula

    tree = parse_formula("l1 * exp(m1 - max(m1, m2)) + min(l2, 0) - max(v)")
    values = {"l1": 2.0, "m1": 1.0, "m2": 4.0, "l2": np.array([-1.0, 3.0]), "v": np.array([5.0, 7.0])}
    assert np.allclose(evaluate_formula(tree, values), [2 * np.exp(-3) - 1 - 7, 2 * np.exp(-3) - 7])
    assert "max(m₁, m₂)" in render_formula(tree) and "min(l₂, 0)" in render_formula(tree)
    with pytest.raises(FormulaError, match="last axis only"):
        parse_formula("max(a, b, c)")
    q = question(answer="l1 * exp(m1 - m) + l2 * exp(m2 - m)", probe="y", forbid=["max"],
                 bind={"l1": "l1", "m1": "m1", "l2": "l2", "m2": "m2", "m": "m"})
    with pytest.raises(Forbidden, match="without max"):
        read(q, "l1*exp(m1 - max(m1, m2)) + l2*exp(m2 - max(m1, m2))")
    truth = truth_for(q, {"l1": np.array(2.0), "m1": np.array(1.0), "l2": np.array(3.0), "m2": np.array(4.0),
                          "m": np.array(4.0), "y": np.array(2 * np.exp(-3.0) + 3)}, {})
    assert grade(q, "l2*exp(m2 - m) + l1*exp(m1 - m)", truth, {}).correct
