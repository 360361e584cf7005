"""The bits experiment (it-bits): a sentence's code length under the text model, in bits and nats."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from conftest import experiment_context
from tutor.experiments import run_experiments
from tutor.live.hub import load_named

SENTENCE = ["The value of the function is returned as a string."]


@pytest.fixture(scope="module")
def bits_run():
    model, _, _ = load_named("text")
    return model, run_experiments(["bits"], experiment_context(model, SENTENCE))


def test_the_bit_total_is_the_summed_cross_entropy_over_ln_2(bits_run):
    model, out = bits_run
    context = experiment_context(model, SENTENCE)
    with torch.no_grad():
        logp = torch.log_softmax(model(context.tokens)[0, :-1].double(), dim=-1)      # (L-1, V)
    nats = float(-logp.gather(-1, context.tokens[0, 1:, None]).sum())
    assert out["bits.nats"][0] == pytest.approx(nats, rel=1e-9)
    assert out["bits.total"][0] == pytest.approx(nats / math.log(2), rel=1e-9)
    assert out["bits.total"][0] == pytest.approx(out["bits.bits"].sum(), rel=1e-9)     # log2 per character agrees
    assert out["bits.per_char"][0] == pytest.approx(math.log2(out["bits.ppl"][0]), rel=1e-9)
    assert out["bits.n"][0] == len(SENTENCE[0]) - 1


def test_whole_bit_codewords_cost_less_than_a_bit_per_character(bits_run):
    _, out = bits_run
    assert out["bits.whole"][0] == np.ceil(out["bits.bits"] - 1e-9).sum()
    assert 0 <= out["bits.rounding"][0] < out["bits.n"][0]
    assert out["bits.rounding_margin"][0] < 0
    assert out["bits.fixed"][0] == 7                                                   # 64 < 96 <= 128


def test_an_untrained_model_spends_about_log2_v(bits_run):
    _, out = bits_run
    assert abs(out["bits.random_per_char"][0] - math.log2(96)) < 0.3
    assert out["bits.per_char"][0] < out["bits.random_per_char"][0] / 3                # the trained model compresses
