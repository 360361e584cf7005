"""The decoding comparison: six strategies on one prompt, measured the same way, on the shipped text model."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tutor.course.schema import ModelSetup
from tutor.experiments import ExperimentContext, run_experiments
from tutor.experiments.decoding_compare import DRAWS, N_NEW, STRATEGIES, distinct_ngrams, repeated_ngrams
from tutor.live.hub import ModelHub, load_named

PROMPT = "The model reads the text one "


@pytest.fixture(scope="module")
def text_run():
    model, tokenizer, _ = load_named("text")
    tokens = torch.tensor([tokenizer.encode(PROMPT)])
    return model, tokenizer, run_experiments(["decoding_compare"], ExperimentContext(model, tokens, tokenizer, {}, 0))


def test_the_measures_on_small_texts():
    assert repeated_ngrams([1, 2, 3, 4, 1, 2, 3, 4], n=4) == pytest.approx(1 / 5)   # 1234 comes back once
    assert repeated_ngrams([1, 2, 3], n=4) == 0.0
    assert distinct_ngrams([[1, 2, 1, 2]]) == pytest.approx(2 / 3)                   # 12, 21, 12
    assert distinct_ngrams([[1, 2], [1, 2]]) == pytest.approx(1 / 2)


def test_every_output_has_one_entry_per_strategy(text_run):
    _, _, out = text_run
    k = len(STRATEGIES)
    shapes = {name: value.shape for name, value in out.items()}
    assert shapes == {"decoding_compare.distinct": (k,), "decoding_compare.distinct_2": (k,),
                      "decoding_compare.logprob": (k,), "decoding_compare.repetition": (k,),
                      "decoding_compare.samples": (k, DRAWS, N_NEW), "decoding_compare.token_probs": (k, DRAWS, N_NEW),
                      "decoding_compare.beam_gain": (1,), "decoding_compare.hot_drop": (1,),
                      "decoding_compare.tail_draws": (k,)}


def test_the_numbers_agree_with_the_samples_they_describe(text_run):
    model, _, out = text_run
    samples = out["decoding_compare.samples"].astype(int)
    for i in range(len(STRATEGIES)):
        texts = [list(row) for row in samples[i]]
        assert out["decoding_compare.distinct"][i] == len({tuple(t) for t in texts})
        assert out["decoding_compare.repetition"][i] == pytest.approx(np.mean([repeated_ngrams(t) for t in texts]))
    # the likelihood is the model's own: rescoring beam's text by hand gives the same number
    ids = load_named("text")[1].encode(PROMPT) + [int(t) for t in samples[1, 0]]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids]))[0].double(), -1)          # (L, V)
    start = len(ids) - N_NEW
    by_hand = np.mean([float(logp[start - 1 + j, ids[start + j]]) for j in range(N_NEW)])
    assert out["decoding_compare.logprob"][1] == pytest.approx(by_hand, abs=1e-5)
    assert out["decoding_compare.beam_gain"][0] == pytest.approx(
        out["decoding_compare.logprob"][1] - out["decoding_compare.logprob"][0])
    assert out["decoding_compare.hot_drop"][0] == pytest.approx(
        out["decoding_compare.logprob"][2] - out["decoding_compare.logprob"][3])
    probs = out["decoding_compare.token_probs"]                                     # (S, DRAWS, N_NEW)
    for i in range(len(STRATEGIES)):   # each strategy's draws the model gives under 1 %, counted by hand
        assert out["decoding_compare.tail_draws"][i] == sum(p < 0.01 for row in probs[i] for p in row)


def test_the_text_model_shows_the_trade_off(text_run):
    """On the shipped text model: greedy and beam are deterministic and likelier, sampling varies,
    a hot temperature is least likely, and greedy loops on this prompt."""
    _, _, out = text_run
    distinct, logprob = out["decoding_compare.distinct"], out["decoding_compare.logprob"]
    assert list(distinct[:2]) == [1, 1] and all(d == DRAWS for d in distinct[2:])
    assert int(np.argmax(logprob)) in (0, 1) and int(np.argmin(logprob)) == 3
    assert out["decoding_compare.repetition"][0] > 0


def test_seeded_runs_repeat_exactly(text_run):
    model, tokenizer, out = text_run
    tokens = torch.tensor([tokenizer.encode(PROMPT)])
    again = run_experiments(["decoding_compare"], ExperimentContext(model, tokens, tokenizer, {}, 0))
    assert all(np.array_equal(out[name], again[name]) for name in out)


def test_a_lesson_can_run_on_the_shipped_text_model():
    from tutor.course.catalog import load_catalog
    from tutor.live.compute import compute_live
    from tutor.live.requirements import facts_of

    setup = ModelSetup(weights="text", text=PROMPT)
    assert setup.cost().over() is None
    hub = ModelHub()
    text = hub.named("text")
    assert hub.named("text") is text                      # loaded once, cached in the hub
    assert facts_of(text).task == "text" and text.label.startswith("shipped text model")
    assert hub.model is None                              # the current model is not touched
    lesson = load_catalog().lessons["de-decoding-comparison"].lesson
    live = compute_live(lesson, hub)
    assert live.weights_label == text.label and live.sizes["D"] == 64
    assert hub.model is None                              # still: the learner's model played no part
    with pytest.raises(ValueError, match="weights: text"):
        ModelSetup(weights="text", requires={"task": "sort"})
    with pytest.raises(ValueError, match="fixed sizes"):
        ModelSetup(weights="text", d_model=8)


def test_every_strategy_axis_is_headed_by_the_strategies_names_in_order():
    """A reveal heads the strategy axis with names, so no reader has to count columns (r4de row 15)."""
    from tutor.experiments.decoding_compare import AXIS
    from tutor.grading.declared_shapes import declared_labels

    names = tuple(AXIS.split("|"))
    assert len(names) == len(STRATEGIES)
    for output in ("distinct", "distinct_2", "logprob", "repetition", "samples", "token_probs"):
        assert declared_labels(f"decoding_compare.{output}")[0] == names, output
