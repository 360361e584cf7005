"""Decoding guarantees: seeds, the KV cache, greedy equivalences, filters, beams, streaming."""
import pytest
import torch

from tutor.model import GPT, GPTConfig, CharTokenizer
from tutor.model.sample import (beam_search, filter_logits, generate, next_token_distribution, sample_text,
                          stream, stream_text)

TOK = CharTokenizer()




@pytest.fixture(scope="module", params=["learned", "sinusoidal", "none"])
def model(request):
    torch.manual_seed(0)
    m = GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=12, n_layer=2, n_head=2, d_model=16,
                      positions=request.param))
    with torch.no_grad():   # sharper than the 0.02 init, so sampling and beams have real choices
        m.W_U.weight.mul_(40)
    return m.double().eval()


PROMPT = TOK.encode("ab3")


def test_same_seed_same_tokens(model):
    a = generate(model, PROMPT, 10, temperature=1.0, seed=7)
    assert a == generate(model, PROMPT, 10, temperature=1.0, seed=7)
    assert a != generate(model, PROMPT, 10, temperature=1.0, seed=8)


@pytest.mark.parametrize("kwargs", [dict(temperature=0), dict(temperature=1.0, seed=3),
                                    dict(temperature=0.7, top_k=5, seed=4), dict(top_p=0.8, seed=5)])
def test_kv_cache_gives_the_same_tokens_even_past_block_size(model, kwargs):
    n = 20   # 3 + 20 tokens > block_size 12: the window slides
    assert generate(model, PROMPT, n, use_cache=True, **kwargs) == generate(model, PROMPT, n, use_cache=False, **kwargs)


def test_cached_forward_equals_full_forward_for_chunks(model):
    tokens = torch.tensor([TOK.encode("hello world!")])                       # (1, 12)
    full = model(tokens)                                                      # (1, 12, V)
    _, cache = model(tokens[:, :5], use_cache=True)
    chunk, cache = model(tokens[:, 5:9], past_kv=cache, use_cache=True)      # several rows after a cache
    one, _ = model(tokens[:, 9:10], past_kv=cache, use_cache=True)
    torch.testing.assert_close(chunk, full[:, 5:9])
    torch.testing.assert_close(one, full[:, 9:10])


def test_greedy_equivalences(model):
    greedy = generate(model, PROMPT, 12, temperature=0)
    assert generate(model, PROMPT, 12, temperature=1.0, top_k=1, seed=11) == greedy
    assert generate(model, PROMPT, 12, temperature=2.0, top_k=1, seed=12, use_cache=False) == greedy
    assert beam_search(model, PROMPT, 12, beam_width=1) == greedy
    assert beam_search(model, PROMPT, 12, beam_width=1, use_cache=False) == greedy
    stop = greedy[4]
    assert beam_search(model, PROMPT, 12, beam_width=1, stop_ids=[stop]) == generate(
        model, PROMPT, 12, temperature=0, stop_ids=[stop])


def test_wide_beam_finds_the_most_likely_two_token_continuation(model):
    ctx = torch.tensor([PROMPT])
    first = torch.log_softmax(model(ctx)[0, -1], -1)                          # (V,)
    both = torch.cat([ctx.repeat(TOK.vocab_size, 1), torch.arange(TOK.vocab_size)[:, None]], 1)  # (V, 4)
    second = torch.log_softmax(model(both)[:, -1], -1)                        # (V, V)
    total = first[:, None] + second                                           # (V, V)
    a, b = divmod(int(total.argmax()), TOK.vocab_size)
    assert beam_search(model, PROMPT, 2, beam_width=TOK.vocab_size) == [a, b]
    assert beam_search(model, PROMPT, 2, beam_width=TOK.vocab_size, use_cache=False) == [a, b]


def test_beam_stops_at_a_stop_token(model):
    greedy = generate(model, PROMPT, 10, temperature=0)
    out = beam_search(model, PROMPT, 10, beam_width=3, stop_ids=[greedy[0]])
    assert len(out) <= 10 and (out[-1] == greedy[0] or len(out) == 10)


def test_filters():
    logits = torch.tensor([3.0, 2.0, 1.0, 0.0, -1.0])
    assert torch.isfinite(filter_logits(logits, top_k=2)).tolist() == [True, True, False, False, False]
    probs = torch.softmax(logits, -1)                       # 0.636, 0.234, 0.086, ...
    kept = torch.isfinite(filter_logits(logits, top_p=0.8)).tolist()
    assert kept == [True, True, False, False, False]        # 0.636 < 0.8 <= 0.870
    assert torch.isfinite(filter_logits(logits, top_p=0.5)).sum() == 1
    assert torch.isfinite(filter_logits(logits, top_p=1.0)).all()
    assert torch.isfinite(filter_logits(logits, temperature=0)).tolist() == [True] + [False] * 4
    torch.testing.assert_close(filter_logits(logits, temperature=2.0), logits / 2)
    assert probs.sum() == pytest.approx(1)
    for bad in (dict(temperature=-1), dict(top_k=0), dict(top_p=0.0), dict(top_p=1.5)):
        with pytest.raises(ValueError):
            filter_logits(logits, **bad)


def test_distribution_before_and_after_filtering(model):
    plain = next_token_distribution(model, PROMPT)
    torch.testing.assert_close(plain.before, plain.after)
    assert plain.before.sum().item() == pytest.approx(1)
    d = next_token_distribution(model, PROMPT, temperature=0.5, top_k=3)
    assert (d.after > 0).sum() == 3 and d.after.sum().item() == pytest.approx(1)
    top = d.top(5, TOK)
    assert [c.p_before for c in top] == sorted((c.p_before for c in top), reverse=True)
    assert sum(c.p_after > 0 for c in top) == 3
    assert top[0].text == TOK.token_label(top[0].token_id)
    assert d.top(3, by="after")[0].p_after == pytest.approx(d.after.max().item())


def test_streaming_yields_the_same_tokens_one_at_a_time(model):
    it = stream(model, PROMPT, 6, temperature=0.9, seed=2)
    first = next(it)
    assert [first, *it] == generate(model, PROMPT, 6, temperature=0.9, seed=2)
    text = "".join(stream_text(model, TOK, "ab3", 6, temperature=0.9, seed=2))
    assert text == TOK.decode(generate(model, PROMPT, 6, temperature=0.9, seed=2))


def test_text_helpers_stop_and_truncate(model):
    out = sample_text(model, TOK, "ab3", 10, temperature=0)
    greedy = TOK.decode(generate(model, PROMPT, 10, temperature=0))
    assert out == greedy
    stop = greedy[2]
    assert sample_text(model, TOK, "ab3", 10, temperature=0, stop=stop) == greedy[: greedy.index(stop) + 1]
    two = greedy[1:3]
    assert sample_text(model, TOK, "ab3", 10, temperature=0, stop=two).endswith(two)
    long_prompt = "x" * 50 + "ab3"   # longer than block_size: truncated from the left
    assert sample_text(model, TOK, long_prompt, 3, temperature=0) == TOK.decode(
        generate(model, TOK.encode(long_prompt)[-12:], 3, temperature=0))
    with pytest.raises(ValueError):
        sample_text(model, TOK, "", 3)


def test_every_strategy_on_the_default_checkpoint_sorts():
    from tutor.model.checkpoint import load_default_model
    model, tok, meta = load_default_model()
    for kwargs in (dict(temperature=0), dict(temperature=1.0, seed=0), dict(top_k=3, seed=1),
                   dict(top_p=0.9, seed=2), dict(beam=3), dict(temperature=0, use_cache=False)):
        assert sample_text(model, tok, "3141>", 20, stop=meta["stop"], **kwargs) == "1134\n", kwargs
    for digits in ("90210", "5", "77007", "31415926"):
        assert sample_text(model, tok, digits + ">", 20, temperature=0, stop="\n") == "".join(sorted(digits)) + "\n"
