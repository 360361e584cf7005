"""The ln_grad experiment (lesson nu-layernorm-gradients): its variants agree with the real model's
own forward pass, and the LayerNorm gradient has the properties the lesson teaches."""
import numpy as np
import pytest
import torch

from conftest import experiment_context as context
from tutor.experiments import EXPERIMENTS
from tutor.experiments.common import loss_on, private_copy, scored_targets
from tutor.model.copies import seeded_model

ROWS = ["3142>4213", "2718>8721", "9075>5790"]


@pytest.fixture(scope="module", params=["trained", "random"])
def case(request, hub):
    model = hub.model if request.param == "trained" else seeded_model(hub.model.config, 0)
    ctx = context(model, ROWS)
    return model, ctx, EXPERIMENTS["ln_grad"](ctx)


def _block_and_embedding_norms(model):
    norms = [torch.cat([p.grad.flatten() for p in b.parameters()]).norm().item() for b in model.blocks]
    return np.array(norms + [model.W_E.weight.grad.norm().item()])


def test_the_real_variant_is_the_models_own_backward_pass(case):
    model, ctx, out = case
    copy = private_copy(model)
    loss_on(copy, ctx.tokens, scored_targets(ctx)).backward()
    np.testing.assert_allclose(out["ln_grad.norms"][0], _block_and_embedding_norms(copy), rtol=1e-9)


class _Identity(torch.nn.Module):
    """LayerNorm's stand-in: Block.forward passes it probes and a name, which nn.Identity refuses."""

    def forward(self, x, *_):
        return x


def test_without_layernorm_is_the_model_with_identity_norms(case):
    """Built independently: the GPT's own forward with its LayerNorm modules swapped for the
    identity, fed the real model's dL/dlogits."""
    import torch.nn.functional as F

    from tutor.model.formats import IGNORE

    model, ctx, out = case
    real = private_copy(model)
    logits = real(ctx.tokens)                                                  # (B, L, V)
    flat = logits[:, :-1].reshape(-1, logits.size(-1))                         # (B*(L-1), V)
    loss = F.cross_entropy(flat, scored_targets(ctx).reshape(-1), ignore_index=IGNORE)
    signal = torch.autograd.grad(loss, logits)[0]                              # (B, L, V)
    bare = private_copy(model)
    for block in bare.blocks:
        block.ln1, block.ln2 = _Identity(), _Identity()
    bare.ln_final = _Identity()
    bare(ctx.tokens).backward(signal)
    np.testing.assert_allclose(out["ln_grad.norms"][1], _block_and_embedding_norms(bare), rtol=1e-9)
    assert (out["ln_grad.ln_ratio"] < 0.1).all(), "without ln_final the small stream shrinks every gradient"


def test_the_gradient_through_layernorm_is_orthogonal_to_its_input_and_sums_to_zero(case):
    _, _, out = case
    x, g = out["ln_grad.x"], out["ln_grad.g_in"]
    assert np.abs(out["ln_grad.cos"]).max() == pytest.approx(out["ln_grad.cos_max"][0])
    assert out["ln_grad.cos_max"][0] < 0.02
    assert np.abs(g).max() > 1e-3                                               # a real signal, not a zero
    np.testing.assert_allclose(out["ln_grad.g_sum"], 0, atol=1e-10 * np.abs(g).max() * x.shape[-1])


def test_doubling_the_input_halves_the_gradient(case):
    _, _, out = case
    assert out["ln_grad.scale_ratio"][0] == pytest.approx(0.5, abs=0.01)


def test_the_hand_derived_backward_matches_autograd(case):
    _, _, out = case
    G = out["ln_grad.gamma"] * out["ln_grad.g_out"]                             # (L, D)
    xh, s = out["ln_grad.xhat"], out["ln_grad.std"]
    by_hand = (G - G.mean(-1, keepdims=True) - xh * (G * xh).mean(-1, keepdims=True)) / s
    np.testing.assert_allclose(by_hand, out["ln_grad.g_in"], atol=1e-9 * np.abs(out["ln_grad.g_in"]).max())
