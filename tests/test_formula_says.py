"""An author's sentence for a known mistake (issue 31, contentA #4, reviewc #17).

pr-masked-softmax's usual mistakes (no mask, the mask after the softmax, no 1/√d_k, the scores
transposed) all got "differs at N of its 16 entries", and de-beam-length's log of the negative
totals "All 1 entries of yours differ": the learner could not tell which step was wrong.  A
``reject:`` entry may now carry ``says:``; an answer graded as its form, by the rule ``accept:``
answers are graded by, gets that sentence.  Each test here failed before: ``says`` was an unknown
field of a reject entry."""
from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from tutor.course.overlay import LessonOverlay, apply_overlay, english_prose, source_hash
from tutor.grading.formula_says import sentences, with_sentences
from tutor.grading.kinds.formula import FormulaQuestion, check_answer
from tutor.grading.quiz import grade, truth_for

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
SIZES = {"B": 2, "L": 4, "D": 8, "H": 2, "D_head": 4}
NO_MASK = "Each row still gives weight to the future: where does the mask go?"
LATE_MASK = "Masking after the softmax is too late."
UNSCALED = "Your rows are sharper than the model's."
TRANSPOSED = "Your score table is the wrong way round."
# A lesson whose one formula question carries four sentences.  pr-masked-softmax's pattern question
# was one until issue 31's fourth pass replaced it (its answer repeated la-scaled-scores' formula), then
# la-dot-geometry's cosine-table until its fifth pass (its answer repeated la-one-hot-vs-dense's box).
# The answer has no digits: the overlay's number check compares a copied zh file with the built-in English.
LESSON, QUESTION = "nu-layernorm-gradients", "ln-backward"
PATTERN = dict(kind="formula", id="pattern", prompt="p", answer="softmax(causal_mask(Q @ K.T / sqrt(d_k)))",
               matrices=["Q", "K"], bind={"Q": "blocks.0.attn.q[0, 0]", "K": "blocks.0.attn.k[0, 0]", "d_k": "D_head"},
               probe="blocks.0.attn.pattern[0, 0]",
               reject=[{"expr": "softmax(Q @ K.T / sqrt(d_k))", "says": NO_MASK},
                       {"expr": "causal_mask(softmax(Q @ K.T / sqrt(d_k)))", "says": LATE_MASK},
                       {"expr": "softmax(causal_mask(Q @ K.T))", "says": UNSCALED},
                       {"expr": "softmax(causal_mask(K @ Q.T / sqrt(d_k)))", "says": TRANSPOSED},
                       {"expr": "causal_mask(Q @ K.T / sqrt(d_k))", "nudge": "differs"}])


def _pattern_tensors() -> dict[str, np.ndarray]:
    """One attention layer's q, k and causal pattern, made up: B = H = 2, L = D_head = 4."""
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((2, 2, 4, 4))    # (B, H, L, D_head)
    scores = q @ np.swapaxes(k, -1, -2) / 2                                        # (B, H, L, L)
    scores = np.where(np.triu(np.ones((4, 4), dtype=bool), 1), -np.inf, scores)
    pattern = np.exp(scores - scores.max(-1, keepdims=True))
    return {"blocks.0.attn.q": q, "blocks.0.attn.k": k,
            "blocks.0.attn.pattern": pattern / pattern.sum(-1, keepdims=True)}     # (B, H, L, L)


@pytest.fixture(scope="module")
def pattern():
    question = FormulaQuestion(**PATTERN)
    return question, truth_for(question, _pattern_tensors(), SIZES)


@pytest.mark.parametrize("text,said", [
    ("softmax(Q @ K.T / sqrt(d_k))", NO_MASK), ("softmax(Q·Kᵀ/√d_k)", NO_MASK),      # as typed, or as printed
    ("softmax(Q @ K.T * d_k**(-1/2))", NO_MASK),
    ("causal_mask(softmax(Q @ K.T / sqrt(d_k)))", LATE_MASK),
    ("softmax(causal_mask(Q @ K.T))", UNSCALED), ("softmax(causal_mask(Q·Kᵀ))", UNSCALED),
    ("softmax(causal_mask(K @ Q.T / sqrt(d_k)))", TRANSPOSED), ("softmax(causal_mask((Q @ K.T).T) / sqrt(d_k))", TRANSPOSED),
])
def test_an_answer_graded_as_a_reject_form_gets_its_sentence(pattern, text, said):
    question, truth = pattern
    result = grade(question, text, truth, SIZES)
    assert not result.correct and result.feedback == f"Not quite. {said}", result.feedback   # before: "differs at 12 of its 16"


def test_an_answer_equal_to_a_form_only_at_these_sizes_keeps_the_computed_nudge(pattern):
    """√d_k is 2 here: ``/ 2`` equals the no-mask form on the lesson's draw only, and the draws at
    other sizes tell them apart, as they tell ``/ 2`` from the answer."""
    question, truth = pattern
    for text in ("softmax(Q @ K.T / 2)", "causal_mask(Q @ K.T / sqrt(d_k))", "softmax(causal_mask(Q @ K.T / d_k))"):
        feedback = grade(question, text, truth, SIZES).feedback
        assert not any(said in feedback for said in (NO_MASK, LATE_MASK, UNSCALED, TRANSPOSED)), (text, feedback)
    assert grade(question, "softmax(causal_mask(Q @ K.T) / sqrt(d_k))", truth, SIZES).correct


BREAK_EVEN = dict(kind="formula", id="break-even", prompt="p", answer="log(S1 / S0) / log(n1 / n0)",
                  bind={"S0": "sums[0:1]", "S1": "sums[2:3]", "n0": "lengths[0:1]", "n1": "lengths[2:3]"},
                  probe="alpha_star", tolerance=0.01,
                  reject=[{"expr": "(log(S1) - log(S0)) / (log(n1) - log(n0))",
                           "says": "S0 and S1 are negative: the log of a negative number is undefined."},
                          {"expr": "2 * log(S1 / S0) / log(n1 / n0)", "says": "Twice too much."}])


def test_a_sentence_for_one_number_follows_the_draws_and_sympy():
    """de-beam-length (reviewc #17): log(S1) − log(S0) of the negative totals is NaN on every draw, as
    its reject form is; SymPy tells ``2·x + 1e-9·x`` from the reject form ``2·x`` that the draws cannot."""
    question = FormulaQuestion(**BREAK_EVEN)
    sums, lengths = np.array([-2.1, -5.3, -4.4]), np.array([1.0, 3.0, 4.0])
    tensors = {"sums": sums, "lengths": lengths, "alpha_star": np.array([np.log(sums[2] / sums[0]) / np.log(4.0)])}
    truth = truth_for(question, tensors, {})
    negative = grade(question, "(log(S1)-log(S0))/(log(n1)-log(n0))", truth, {})
    assert negative.feedback == "Not quite. S0 and S1 are negative: the log of a negative number is undefined."
    assert grade(question, "log(S1/S0)*2/log(n1/n0)", truth, {}).feedback == "Not quite. Twice too much."
    near = grade(question, "2*log(S1/S0)/log(n1/n0) + 1e-9*log(S1/S0)", truth, {})   # within 0.01 on every draw
    assert not near.correct and "Twice too much" not in near.feedback, near.feedback
    assert grade(question, "log(-S1) - log(-S0)", truth, {}).feedback.startswith("Not quite. Yours differs")


def test_an_entry_carries_a_nudge_word_or_a_sentence():
    plain = FormulaQuestion(**(PATTERN | {"reject": [{"expr": "Q @ K.T", "nudge": "shape"}]}))
    assert plain.reject[0].says is None and sentences(plain) == []
    for entry in ({"expr": "Q @ K.T"}, {"expr": "Q @ K.T", "nudge": "shape", "says": "Not a pattern."},
                  {"expr": "Q @ K.T", "says": "It is {{ blocks.0.attn.pattern[0, 0, 0, 0] }} here."},
                  {"expr": "Q @ K.T", "says": ""}, {"expr": "Q @ K.T", "says": "x" * 301}):
        with pytest.raises(ValidationError):
            FormulaQuestion(**(PATTERN | {"reject": [entry]}))


def test_the_check_wants_each_sentence_form_refused_with_its_own_sentence(pattern):
    """``lessons check`` grades every sentenced form on every size it runs (its sentence names no size):
    one graded right, and one whose sentence an earlier entry's takes, are the author's to fix."""
    question, truth = pattern
    tensors = _pattern_tensors()
    assert check_answer(question, truth, tensors, SIZES, own_sizes=True) == []
    broken = FormulaQuestion(**(PATTERN | {"reject": [
        *PATTERN["reject"], {"expr": "softmax(causal_mask(Q @ K.T) / sqrt(d_k))", "says": "Right after all."},
        {"expr": "softmax(Q·Kᵀ/√d_k)", "says": "The same mistake again."}]}))
    truth = truth_for(broken, tensors, SIZES)
    for own_sizes in (True, False):   # the sentences are checked at other sizes too; nudge words only at the lesson's
        problems = {problem.field: str(problem.message) for problem in
                    check_answer(broken, truth, tensors, SIZES, own_sizes=own_sizes)}
        assert set(problems) == {("reject", 5, "expr"), ("reject", 6, "says")}, problems
        assert "is graded right" in problems[("reject", 5, "expr")]
        assert NO_MASK in problems[("reject", 6, "says")] and "an earlier entry" in problems[("reject", 6, "says")]


def test_a_translation_carries_the_sentences_and_only_their_lessons_hash_moves():
    from tutor.course.schema import Lesson

    lesson = Lesson.model_validate(yaml.safe_load((LESSONS / f"{LESSON}.yaml").read_text(encoding="utf-8")))
    index = next(i for i, q in enumerate(lesson.questions) if q.id == QUESTION)
    said = sentences(lesson.questions[index])
    assert len(said) >= 4 and english_prose(lesson)["questions"][QUESTION]["says"] == said
    assert all("says" not in prose for id_, prose in english_prose(lesson)["questions"].items() if id_ != QUESTION)
    overlay = LessonOverlay(format_version=1, lesson=lesson.id, source=source_hash(lesson),
                            questions={QUESTION: {"says": ["第一句。"]}})
    translated = sentences(apply_overlay(lesson, overlay).questions[index])
    assert translated[0] == "第一句。" and translated[1:] == ["[EN] " + text for text in said[1:]]
    assert with_sentences(lesson.questions[index], []) is lesson.questions[index]
    from tutor.authoring.overlay_template import overlay_template   # `tutor lessons new ID --lang zh` lists them
    template = overlay_template(lesson, "zh", f"{LESSON}.yaml")
    assert "    # says (English, in this order):\n" in template and all(f"#   - \"{text}\"" in template for text in said)
    assert LessonOverlay.model_validate(yaml.safe_load(template)).questions[QUESTION].says is None
    # a lesson with no sentence keeps the hash its translation records (its prose has no says key)
    softmax = Lesson.model_validate(yaml.safe_load((LESSONS / "pr-softmax.yaml").read_text(encoding="utf-8")))
    recorded = yaml.safe_load((LESSONS / "zh" / "pr-softmax.yaml").read_text(encoding="utf-8"))["source"]
    assert source_hash(softmax) == recorded


def test_the_overlay_check_counts_the_sentences(tmp_path):
    from tutor.authoring.check_overlay import check_overlay
    from tutor.course.catalog import load_catalog

    catalog = load_catalog()
    english = catalog.get(LESSON)
    count = len(english_prose(english.lesson)["questions"][QUESTION]["says"])
    folder = tmp_path / "zh"
    folder.mkdir()
    path = folder / f"{LESSON}.yaml"
    text = (LESSONS / "zh" / f"{LESSON}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data["questions"][QUESTION]["says"] += ["多出来的一句。"]
    other = next(id_ for id_ in data["questions"] if id_ != QUESTION)   # a question with no says
    data["questions"][other]["says"] = ["不该有的一句。"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    errors, _warnings = check_overlay(path, catalog)
    messages = {problem.field: problem.message for problem in errors}
    assert f"the English has {count} says; this has {count + 1}" in str(messages[f"questions.{QUESTION}.says"])
    assert "has no reject: entry with a says: sentence" in str(messages[f"questions.{other}.says"])
    assert check_overlay(LESSONS / "zh" / f"{LESSON}.yaml", catalog) == ([], [])


def test_the_check_warns_at_the_line_of_a_sentence_that_gives_the_answer_away(tmp_path):
    from tutor.authoring.check import check_paths

    text = (LESSONS / f"{LESSON}.yaml").read_text(encoding="utf-8")
    leaking = "Yours misses a part. Write (gamma * gy - mean(gamma * gy) - xh * mean(gamma * gy * xh)) / s."
    first = next(line for line in text.splitlines() if line.strip().startswith("says:"))
    text = text.replace(first, f'        says: "{leaking}"', 1)
    (tmp_path / f"{LESSON}.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "zh").mkdir()
    zh = (LESSONS / "zh" / f"{LESSON}.yaml").read_text(encoding="utf-8")
    zh_first = next(line for line in zh.splitlines() if line.strip().startswith("- ") and "你的式子把 μ 和 s 当成常数" in line)
    zh = zh.replace(zh_first, '      - "写 (gamma * gy - mean(gamma * gy) - xh * mean(gamma * gy * xh)) / s。"', 1)
    (tmp_path / "zh" / f"{LESSON}.yaml").write_text(zh, encoding="utf-8")
    report = check_paths([tmp_path / f"{LESSON}.yaml"])
    warnings = [w for w in report.warnings if "says: sentence" in str(w.message)]
    english_line = text.splitlines().index(f'        says: "{leaking}"') + 1
    zh_line = zh.splitlines().index('      - "写 (gamma * gy - mean(gamma * gy) - xh * mean(gamma * gy * xh)) / s。"') + 1
    assert {(Path(w.path).parent.name, w.line) for w in warnings} == {(tmp_path.name, english_line), ("zh", zh_line)}, \
        [str(w) for w in report.warnings]
    assert any("(gamma * gy - mean(gamma * gy) - xh * mean(gamma * gy * xh)) / s" in str(w.message) for w in warnings), \
        [str(w.message) for w in warnings]
    assert not [p for p in report.problems if "says" in p.field], report.problems


@pytest.mark.parametrize("language,said", [
    ("en", "Yours treats μ and s as constants"), ("zh", "你的式子把 μ 和 s 当成常数")])
async def test_the_feedback_line_shows_the_sentence_in_the_learner_s_language(tmp_path, language, said):
    """nu-layernorm-gradients on the shipped model: the constant-μ-and-s verdict is the author's
    sentence, in Chinese from the lesson's overlay (without a says: entry it would be the computed nudge)."""
    from journey_helpers import open_live_lesson, text_of, type_answer
    from tutor.common.i18n import set_language
    from tutor.course.catalog import load_catalog
    from tutor.ui.app import TutorApp

    questions = load_catalog().get(LESSON).lesson.questions
    position = [question.id for question in questions].index(QUESTION)
    set_language(language)
    try:
        app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_live_lesson(pilot, LESSON, position)
            await type_answer(pilot, "gamma * gy / s")
            feedback = " ".join(text_of(screen, "#feedback", width=400).split())
    finally:
        set_language("en")
    assert said in feedback and "✗" in feedback, feedback
    assert " of its " not in feedback and "mean(gamma" not in feedback


def test_a_result_that_is_not_a_number_says_so():
    """Without a sentence, a NaN where the answer is a number got "All 1 entries of yours differ"."""
    question = FormulaQuestion(**(BREAK_EVEN | {"reject": []}))
    sums, lengths = np.array([-2.1, -5.3, -4.4]), np.array([1.0, 3.0, 4.0])
    tensors = {"sums": sums, "lengths": lengths, "alpha_star": np.array([np.log(sums[2] / sums[0]) / np.log(4.0)])}
    feedback = grade(question, "log(S1) / log(n1 / n0)", truth_for(question, tensors, {}), {}).feedback
    assert feedback == "Not quite. Yours is not a number here (NaN): a log or a square root of a negative number, " \
                       "or 0/0, is somewhere in it.", feedback
    scores = FormulaQuestion(**(PATTERN | {"reject": []}))
    truth = truth_for(scores, _pattern_tensors(), SIZES)
    feedback = grade(scores, "sqrt(causal_mask(Q @ K.T))", truth, SIZES).feedback
    assert "Yours is not a number (NaN) at " in feedback and " of its 16 entries" in feedback, feedback


def test_each_sentence_form_is_computed_once_per_truth_and_each_refusal_once_per_try(pattern, monkeypatch):
    """Review of issue 31's grading: the forms were evaluated again at every wrong try, and
    not_the_formula ran twice per try (matches, then the nudge).  Verdicts are unchanged."""
    import tutor.grading.formula_says as says_module
    import tutor.grading.kinds.formula_verdict as formula_kind

    question, _truth = pattern
    truth = truth_for(question, _pattern_tensors(), SIZES)   # a fresh truth: nothing computed for it yet
    forms, refusals = [], []
    real_results, real_refusal = says_module._results, formula_kind.not_the_formula
    monkeypatch.setattr(says_module, "_results", lambda form, draws: forms.append(form) or real_results(form, draws))
    monkeypatch.setattr(formula_kind, "not_the_formula", lambda *args: refusals.append(args) or real_refusal(*args))
    for text in ("softmax(Q @ K.T)", "causal_mask(Q @ K.T)", "softmax(Q @ K.T / sqrt(d_k))"):
        assert not grade(question, text, truth, SIZES).correct
    assert len(forms) == 4, forms          # the four sentenced forms, at the first wrong try only
    bits = FormulaQuestion(kind="formula", id="bits", prompt="p", answer="-sum(log(p)) / log(2)", bind={"p": "p"},
                           probe="bits")
    p = np.random.default_rng(3).uniform(0.05, 0.9, size=12)
    bits_truth = truth_for(bits, {"p": p, "bits": np.array([-np.sum(np.log2(p))])}, {})
    result = grade(bits, "-sum(log(p)) * 1.4427", bits_truth, {})   # right on every draw, refused: rounded
    assert not result.correct and "the 1.4427 in it is 1/log(2), rounded" in result.feedback
    assert len(refusals) == 1, len(refusals)   # before: twice, by matches and again by the nudge
