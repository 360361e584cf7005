"""The corpus_ppl experiment: a corpus's perplexity, checked against a computation of its own."""
from __future__ import annotations

import math

import pytest
import torch

from conftest import experiment_context
from tutor.experiments import run_experiments
from tutor.live.hub import load_named
from tutor.model.copies import seeded_model

ROWS = ["If called with the callable and argu", "uuid1(), uuid3(), uuid4(), uuid5() f",
        "Objects that are equal automatically"]


@pytest.fixture(scope="module")
def text_run():
    model, _, _ = load_named("text")
    before = {name: t.clone() for name, t in model.state_dict().items()}
    out = run_experiments(["corpus_ppl"], experiment_context(model, ROWS))
    return model, before, out


def _perplexity_by_hand(model, rows) -> float:
    """exp of the mean −ln p(true next character) over every token, from log_softmax and gather."""
    context = experiment_context(model, rows)
    with torch.no_grad():
        logp = torch.log_softmax(model(context.tokens)[:, :-1].double(), dim=-1)        # (B, L-1, V)
    true = logp.gather(-1, context.tokens[:, 1:, None])[..., 0]                         # (B, L-1)
    return math.exp(float(-true.mean()))


def test_corpus_perplexity_agrees_with_log_softmax(text_run):
    model, _, out = text_run
    assert out["corpus_ppl.ppl"][0] == pytest.approx(_perplexity_by_hand(model, ROWS), rel=1e-6)
    assert out["corpus_ppl.tokens"][0] == len(ROWS) * (len(ROWS[0]) - 1)


def test_rows_equal_in_length_make_it_the_geometric_mean(text_run):
    _, _, out = text_run
    rows = out["corpus_ppl.row_ppl"]
    assert out["corpus_ppl.ppl"][0] == pytest.approx(math.exp(sum(map(math.log, rows)) / len(rows)), rel=1e-9)
    assert out["corpus_ppl.mean_row_ppl"][0] > out["corpus_ppl.ppl"][0]          # Jensen: rows differ here


def test_uniform_is_the_vocabulary_size_and_random_is_a_fresh_model(text_run):
    model, _, out = text_run
    assert out["corpus_ppl.uniform_ppl"][0] == pytest.approx(model.config.vocab_size, rel=1e-12)
    fresh = seeded_model(model.config, 0)
    assert out["corpus_ppl.random_ppl"][0] == pytest.approx(_perplexity_by_hand(fresh, ROWS), rel=1e-6)


def test_the_shared_model_is_unchanged(text_run):
    model, before, _ = text_run
    assert all(torch.equal(before[name], t) for name, t in model.state_dict().items())
