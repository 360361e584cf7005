"""The w2v experiment (lesson la-cbow-skipgram): counts by brute force, CBOW's gradient against an
independent finite difference, and the model left as it was."""
import numpy as np
import pytest
import torch

from conftest import experiment_context as context
from tutor.experiments import EXPERIMENTS
from tutor.experiments.word2vec import WINDOW, skipgram_pairs
from tutor.model.checkpoint import load_checkpoint, default_checkpoint_path


@pytest.fixture(scope="module")
def text_model():
    return load_checkpoint(default_checkpoint_path().with_name("text.pt"))[0]


@pytest.mark.parametrize("length", [7, 9, 14, 30])
def test_skipgram_pairs_match_an_enumeration(length):
    pairs = {(c, o) for c in range(length) for o in range(length) if o != c and abs(o - c) <= WINDOW}
    assert skipgram_pairs(length, WINDOW) == len(pairs) == 2 * WINDOW * length - WINDOW * (WINDOW + 1)


def test_cbow_reads_the_models_table_and_its_gradient_is_a_finite_difference(text_model):
    before = text_model.W_E.weight.detach().clone()
    out = EXPERIMENTS["w2v"](context(text_model, ["the value of x"]))
    table = before.double().numpy()
    ids = out["w2v.context_ids"].astype(int)
    centre = int(out["w2v.centre"][0])
    assert centre == context(text_model, ["the value of x"]).tokens[0, 7]
    np.testing.assert_allclose(out["w2v.context"], table[ids])

    def loss(rows):
        scores = rows.mean(0) @ table.T
        return -(scores[centre] - np.log(np.exp(scores - scores.max()).sum()) - scores.max())

    step, rows = 1e-6, table[ids].copy()
    numeric = np.zeros_like(rows[0])
    for d in range(rows.shape[1]):
        up, down = rows.copy(), rows.copy()
        up[0, d] += step
        down[0, d] -= step
        numeric[d] = (loss(up) - loss(down)) / (2 * step)
    np.testing.assert_allclose(out["w2v.grad_context"][0], numeric, atol=1e-7)
    np.testing.assert_allclose(out["w2v.grad_context"], np.broadcast_to(out["w2v.grad_context"][0], (2 * WINDOW, 64)))
    assert torch.equal(text_model.W_E.weight, before) and text_model.W_E.weight.grad is None


def test_skipgram_shares_one_distribution_and_cbow_ignores_order(text_model):
    out = EXPERIMENTS["w2v"](context(text_model, ["which is the"]))
    assert out["w2v.sg_distinct"][0] == 1 and out["w2v.sg_p"].shape == (2 * WINDOW, 96)
    np.testing.assert_allclose(out["w2v.sg_p"].sum(-1), 1)
    assert out["w2v.reversed_change"][0] < 1e-12
    assert out["w2v.cbow_pairs"][0] == 12 and out["w2v.sg_pairs"][0] == skipgram_pairs(12, WINDOW)


def test_rows_too_short_for_a_window_are_refused(text_model):
    with pytest.raises(ValueError, match="at least"):
        EXPERIMENTS["w2v"](context(text_model, ["abc"]))
