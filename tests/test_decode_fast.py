"""The fast decode path (model.decode: decode + KVCache) only saves work: it must never change the tokens."""
import pytest
import torch

from tutor.model import GPT, GPTConfig, CharTokenizer
from tutor.model.checkpoint import load_default_model
from tutor.model.decode import KVCache, decode
from tutor.model.sample import _Context, beam_search, generate, sample_text

TOK = CharTokenizer()


@pytest.fixture(scope="module")
def shipped():
    model, tok, meta = load_default_model()
    return model, tok, meta


def old_greedy(model: GPT, prompt: list[int], n: int) -> list[int]:
    """The decode loop before the fast path: forward(past_kv=...), the cache grown by torch.cat."""
    seqs, cache, out = torch.tensor([prompt]), None, []
    with torch.no_grad():
        for _ in range(n):
            if seqs.size(1) > model.config.block_size:
                logits, cache = model(seqs[:, -model.config.block_size:]), None
            elif cache is None:
                logits, cache = model(seqs, use_cache=True)
            else:
                logits, cache = model(seqs[:, -1:], past_kv=cache, use_cache=True)
            out.append(int(logits[0, -1].argmax()))
            seqs = torch.cat([seqs, torch.tensor([[out[-1]]])], dim=1)
    return out


@pytest.mark.parametrize("prompt", ["3141>", "90210>", "5>", "31415926>", "hello"])
def test_shipped_greedy_is_unchanged(shipped, prompt):
    model, tok, _ = shipped
    ids = tok.encode(prompt)
    fast = generate(model, ids, 30, temperature=0)
    assert fast == old_greedy(model, ids, 30) == generate(model, ids, 30, temperature=0, use_cache=False)


def test_shipped_answers_with_every_decoder(shipped):
    model, tok, meta = shipped
    for beam in (None, 1, 4):
        assert sample_text(model, tok, "3141>", 20, temperature=0, beam=beam, stop=meta["stop"]) == "1134\n"
        assert sample_text(model, tok, "77007>", 20, temperature=0, beam=beam, stop="\n") == "00777\n"


@pytest.mark.parametrize("prompt", ["3141>", "8>", "123456>"])
def test_shipped_beam_is_the_same_with_and_without_the_cache(shipped, prompt):
    model, tok, _ = shipped
    ids = tok.encode(prompt)
    for kwargs in (dict(beam_width=4), dict(beam_width=3, stop_ids=tok.encode("\n")), dict(beam_width=6)):
        assert beam_search(model, ids, 25, **kwargs) == beam_search(model, ids, 25, use_cache=False, **kwargs)


def test_long_generation_up_to_and_past_the_block_size(shipped):
    model, _, _ = shipped
    block = model.config.block_size
    up_to = generate(model, [1], block - 1, temperature=0)          # fills the cache exactly
    assert up_to == generate(model, [1], block - 1, temperature=0, use_cache=False)
    past = generate(model, [1], 2 * block, temperature=0)           # then the window slides
    assert past == generate(model, [1], 2 * block, temperature=0, use_cache=False) == old_greedy(model, [1], 2 * block)
    assert past[: block - 1] == up_to
    sampled = dict(temperature=0.9, top_k=5, seed=3)
    assert generate(model, [1], block + 10, **sampled) == generate(model, [1], block + 10, use_cache=False, **sampled)


def test_the_cache_never_holds_more_than_block_size(shipped):
    model, _, _ = shipped
    context = _Context(model, torch.tensor([[1, 2, 3]]), use_cache=True, max_new_tokens=10**9)
    assert context.cache.capacity == model.config.block_size
    assert _Context(model, torch.tensor([[1, 2, 3]]), True, 5).cache.capacity == 3 + 4
    with pytest.raises(ValueError, match="block_size"):
        KVCache(model, 1, model.config.block_size + 1)


@pytest.fixture(params=[("learned", True), ("sinusoidal", True), ("none", False)])
def small(request):
    kind, bias = request.param
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=16, n_layer=2, n_head=2, d_model=16,
                          positions=kind, bias=bias))
    with torch.no_grad():
        model.W_U.weight.mul_(40)
    return model.double().eval()


def test_decode_equals_forward_for_prefill_chunks_and_single_tokens(small):
    tokens = torch.randint(0, TOK.vocab_size, (3, 16))                       # (B, T)
    with torch.inference_mode():
        full = small(tokens)                                                  # (B, T, V)
        cache = KVCache(small, 3, 16)
        torch.testing.assert_close(decode(small, tokens[:, :5], cache), full[:, 4])
        torch.testing.assert_close(decode(small, tokens[:, 5:9], cache), full[:, 8])   # several rows after a cache
        for t in range(9, 16):
            torch.testing.assert_close(decode(small, tokens[:, t:t + 1], cache), full[:, t])
        assert cache.length == 16
        with pytest.raises(ValueError, match="do not fit"):
            decode(small, tokens[:, :1], cache)


def test_sampling_and_beams_agree_with_and_without_the_cache(small):
    prompt = TOK.encode("ab3")
    for kwargs in (dict(temperature=0), dict(temperature=1.0, seed=1), dict(top_p=0.8, seed=2)):
        assert generate(small, prompt, 30, **kwargs) == generate(small, prompt, 30, use_cache=False, **kwargs)
    stop = generate(small, prompt, 3, temperature=0)[-1]
    for kwargs in (dict(beam_width=5), dict(beam_width=4, stop_ids=[stop]), dict(beam_width=3, length_penalty=1.0)):
        assert beam_search(small, prompt, 20, **kwargs) == beam_search(small, prompt, 20, use_cache=False, **kwargs)


def test_stacked_qkv_follows_in_place_weight_changes(small):
    tokens = torch.tensor([TOK.encode("hello")])
    with torch.inference_mode():
        cache = KVCache(small, 1, 5)
        decode(small, tokens[:, :2], cache)
    attn = small.blocks[0].attn
    with torch.no_grad():                     # in place, as an optimizer step would (the dashboard trains live)
        attn.W_K.weight.mul_(3)
        small.blocks[1].mlp.W_in.weight.add_(0.1)
    with torch.inference_mode():
        stacked = cache.weights()[2][0][2]                                    # (D, 3D)
        torch.testing.assert_close(stacked, torch.cat([attn.W_Q.weight, attn.W_K.weight, attn.W_V.weight]).t())
        torch.testing.assert_close(decode(small, tokens, KVCache(small, 1, 5)), small(tokens)[:, -1])


def test_a_cache_belongs_to_one_model(small):
    other = GPT(small.config).double().eval()
    with torch.inference_mode(), pytest.raises(ValueError):
        decode(other, torch.tensor([[1]]), KVCache(small, 1, 4))
