"""A result off by a scale of each row or column, and a masked table the wrong way round (issue 31,
grade3 #2 and #4).  Each test failed before its change: LayerNorm's backward pass without its final
``/ s`` got "differs at 512 of its 576 entries" (one row of the answer was zeros), and
``softmax(causal_mask(Q@K.T)).T`` got "matches except at its 15 smallest entries"."""
import numpy as np

from tutor.grading.kinds.formula import FormulaQuestion
from tutor.grading.quiz import grade, truth_for

RNG = np.random.default_rng(7)


def question(**fields) -> FormulaQuestion:
    return FormulaQuestion(kind="formula", id="q", prompt="p", **fields)


def feedback(q, tensors, text):
    result = grade(q, text, truth_for(q, tensors, {}), {})
    assert not result.correct
    return result.feedback


G = RNG.normal(size=(5, 8))
G[-1] = 0.0                                    # a token that got no gradient: a row of zeros
S = RNG.uniform(0.05, 0.1, size=(5, 1))        # one spread per token
ROWS = question(answer="G / s", bind={"G": "G", "s": "s"}, probe="out")
GAIN = RNG.uniform(0.5, 2.0, size=(8,))        # one gain per feature
COLUMNS = question(answer="G * gain", bind={"G": "G", "gain": "gain"}, probe="out")


def test_a_missing_per_row_scale_is_named_even_beside_a_row_of_zeros():
    said = feedback(ROWS, {"G": G, "s": S, "out": G / S}, "G")
    assert "a different number on each row" in said, said
    assert "a different number on each row" in feedback(ROWS, {"G": G, "s": S, "out": G / S}, "G * s")


def test_a_missing_per_column_scale_is_named():
    said = feedback(COLUMNS, {"G": G, "gain": GAIN, "out": G * GAIN}, "G")
    assert "a different number in each column" in said, said


def test_a_plain_factor_and_an_added_term_are_not_row_scales():
    tensors = {"G": G, "s": S, "out": G / S}
    assert "constant factor" in feedback(ROWS, tensors, "G / s * 2")
    assert "different number on each row" not in feedback(ROWS, tensors, "G / s + 1")


T = 4
Q, K = RNG.normal(size=(T, 3)), RNG.normal(size=(T, 3))


def _pattern(scores):
    masked = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, scores)
    e = np.exp(masked - masked.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_masked_table_the_wrong_way_round_is_called_so_not_small_entries():
    q = question(answer="softmax(causal_mask(Q @ K.T / sqrt(d_k)))", bind={"Q": "Q", "K": "K", "d_k": 3},
                 probe="A", matrices=["Q", "K"])
    tensors = {"Q": Q, "K": K, "A": _pattern(Q @ K.T / np.sqrt(3))}
    said = feedback(q, tensors, "softmax(causal_mask(Q @ K.T)).T")
    assert "wrong way round" in said and "smallest" not in said, said
    assert "the answer transposed" in feedback(q, tensors, "softmax(causal_mask(Q @ K.T / sqrt(d_k))).T")
