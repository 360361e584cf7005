"""The mi experiment (lesson it-mutual-information): its information agrees with an independent
count in plain Python, is symmetric and non-negative, and fades with distance and shuffling."""
from collections import Counter
import math

import numpy as np
import pytest

from conftest import experiment_context as context
from tutor.experiments import EXPERIMENTS
from tutor.model import CharTokenizer
from tutor.model.data import builtin_text


@pytest.fixture(scope="module")
def out(hub):
    return EXPERIMENTS["mi"](context(hub.model, ["the value of x"]))


def test_information_matches_a_plain_python_count(out):
    text = CharTokenizer().encode(builtin_text())     # characters outside the vocabulary read as '?'
    pairs = Counter(zip(text, text[1:]))
    n = sum(pairs.values())
    first, second = Counter(text[:-1]), Counter(text[1:])
    expected = sum(c / n * math.log((c / n) / (first[a] / n * second[b] / n)) for (a, b), c in pairs.items())
    assert out["mi.I"][0] == pytest.approx(expected, rel=1e-9)
    h_pair = -sum(c / n * math.log(c / n) for c in pairs.values())
    assert out["mi.H_xy"][0] == pytest.approx(h_pair, rel=1e-9)


def test_information_is_symmetric_and_equals_every_entropy_form(out):
    i = out["mi.I"][0]
    for name in ("mi.I_from_x", "mi.I_from_y"):
        assert out[name][0] == pytest.approx(i, abs=1e-12)
    assert out["mi.H_x"][0] + out["mi.H_y"][0] - out["mi.H_xy"][0] == pytest.approx(i, abs=1e-12)
    assert out["mi.asymmetry_abs"][0] < 1e-9
    np.testing.assert_allclose(out["mi.joint"].sum(), 1)


def test_shuffling_leaves_only_the_finite_sample_bias(out):
    assert 0 < out["mi.I_shuffled"][0] < 0.05 * out["mi.I"][0]
    k, pairs = np.count_nonzero(out["mi.px"]), len(builtin_text()) - 1
    assert out["mi.I_shuffled"][0] == pytest.approx((k - 1) ** 2 / (2 * pairs), rel=0.5)   # Miller-Madow bias


def test_information_falls_with_distance(out):
    by_gap = out["mi.by_gap"]
    assert (np.diff(by_gap) < 0).all() and by_gap[0] == pytest.approx(out["mi.I"][0])
    np.testing.assert_allclose(out["mi.gap_ratio"], by_gap / by_gap[0])


def test_conditional_entropies_come_from_the_conditional_tables(out):
    """contentB #21: H(Y|X) is Σ_x p(x)·H(p(y|x)) counted row by row in plain Python, so the
    symmetry the lesson shows is measured, not an identity of H(X, Y) − H(X)."""
    text = CharTokenizer().encode(builtin_text())
    pairs = Counter(zip(text, text[1:]))
    n = sum(pairs.values())
    by_first, by_second = Counter(), Counter()
    for (a, b), c in pairs.items():
        by_first[a] += c
        by_second[b] += c
    h_y_given_x = -sum(c / n * math.log(c / by_first[a]) for (a, b), c in pairs.items())
    h_x_given_y = -sum(c / n * math.log(c / by_second[b]) for (a, b), c in pairs.items())
    assert out["mi.H_y_given_x"][0] == pytest.approx(h_y_given_x, rel=1e-9)
    assert out["mi.H_x_given_y"][0] == pytest.approx(h_x_given_y, rel=1e-9)


def test_the_text_model_beats_one_character_of_context_on_held_out_prose(hub):
    """contentB #20: it-mutual-information compares H(Y|X) with the text model's own cross-entropy on
    prose it never trained on; the shipped text model, reading 63 characters back, is well below it."""
    text_model = hub.named("text").model
    out = EXPERIMENTS["mi"](context(text_model, ["the value of x"]))
    assert 0 < out["mi.model_ce"][0] < out["mi.H_y_given_x"][0]
    assert out["mi.context_gain"][0] == pytest.approx(out["mi.H_y_given_x"][0] - out["mi.model_ce"][0])
