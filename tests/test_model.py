"""The model's contract with the lessons: probe names, shapes and the attention math."""
import math

import pytest
import torch
import torch.nn.functional as F

from tutor.model import GPT, GPTConfig, CharTokenizer, probe_shapes, run_with_probes

B, L, D, H = 2, 4, 8, 2


@pytest.fixture
def tiny():
    torch.manual_seed(0)
    config = GPTConfig(d_model=D, n_head=H, n_layer=2, block_size=16)
    model = GPT(config)
    tokens = torch.randint(0, config.vocab_size, (B, L))
    logits, probes = run_with_probes(model, tokens)
    return config, model, tokens, logits, probes


def test_probe_names_match_the_documented_list(tiny):
    config, _, _, _, probes = tiny
    assert list(probes) == list(probe_shapes(config))


def test_probe_shapes_for_the_lesson_sizes(tiny):
    _, _, _, logits, probes = tiny
    d_head = D // H
    assert probes["embed"].shape == (B, L, D)
    assert probes["pos_embed"].shape == (B, L, D)
    for name in ("q", "k", "v", "z"):
        assert probes[f"blocks.0.attn.{name}"].shape == (B, H, L, d_head)
    for name in ("scores", "masked_scores", "pattern"):
        assert probes[f"blocks.1.attn.{name}"].shape == (B, H, L, L)
    assert probes["blocks.0.mlp.pre"].shape == (B, L, 4 * D)
    assert probes["blocks.0.resid_post"].shape == (B, L, D)
    assert logits.shape == (B, L, 96)
    assert probes["logits"].shape == (B, L, 96)


def test_masked_softmax_is_zero_above_the_diagonal_and_rows_sum_to_one(tiny):
    _, _, _, _, probes = tiny
    masked = probes["blocks.0.attn.masked_scores"]
    pattern = probes["blocks.0.attn.pattern"]
    above = torch.ones(L, L, dtype=torch.bool).triu(1)
    assert torch.isneginf(masked[..., above]).all()
    assert torch.isfinite(masked[..., ~above]).all()
    assert (pattern[..., above] == 0).all()
    torch.testing.assert_close(pattern.sum(-1), torch.ones(B, H, L))


def test_scores_are_scaled_dot_products(tiny):
    _, _, _, _, probes = tiny
    q, k = probes["blocks.0.attn.q"], probes["blocks.0.attn.k"]
    expected = q @ k.transpose(-2, -1) / math.sqrt(D // H)
    torch.testing.assert_close(probes["blocks.0.attn.scores"], expected)


def test_explicit_attention_equals_scaled_dot_product_attention(tiny):
    _, _, _, _, probes = tiny
    q, k, v = (probes[f"blocks.0.attn.{n}"] for n in "qkv")
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(probes["blocks.0.attn.z"], fused, atol=1e-6, rtol=1e-5)


def test_fused_and_explicit_forward_agree(tiny):
    config, model, tokens, logits, _ = tiny
    model.eval()
    with torch.no_grad():
        fused_logits = model(tokens)
    torch.testing.assert_close(fused_logits, logits, atol=1e-5, rtol=1e-5)


def test_position_switches():
    torch.manual_seed(0)
    tokens = torch.randint(0, 96, (1, 5))
    for kind in ("learned", "sinusoidal", "none"):
        config = GPTConfig(d_model=8, n_head=2, positions=kind)
        _, probes = run_with_probes(GPT(config), tokens)
        assert ("pos_embed" in probes) == (kind != "none")


def test_sequence_longer_than_block_size_is_a_clear_error():
    model = GPT(GPTConfig(block_size=4))
    with pytest.raises(ValueError, match="block_size"):
        model(torch.zeros(1, 5, dtype=torch.long))


def test_bad_config_is_a_clear_error():
    with pytest.raises(ValueError, match="divisible"):
        GPTConfig(d_model=10, n_head=3)


def test_tokenizer_round_trip_and_unknown_characters():
    tok = CharTokenizer()
    assert tok.decode(tok.encode("Hello, 123!\n")) == "Hello, 123!\n"
    assert tok.decode(tok.encode("é")) == "?"
