"""Experiment: how LayerNorm and the skip connections change the gradient that reaches each layer.

Why the trainer's own loss on a private float64 copy: the comparison is about the gradients that
training would really apply, and the copy lets three variants of the forward pass (the real one,
one with every LayerNorm replaced by the identity, one with every skip removed) share the same
weights without touching the shared model.  The LayerNorm Jacobian outputs come from autograd
through block 0's first LayerNorm alone, so a lesson can derive them by hand and be checked
against what backward() computed, not against the same arithmetic done twice.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import private_copy, scalar, scored_targets, to_numpy, tokens_on_device
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

VARIANTS = ("real", "no_ln", "no_skip")   # the order of the variant axis of every (3, ...) output
SCALE = 2.0                               # how much the LayerNorm input is scaled for ln_grad.scale_ratio


def _normed(norm, x, use: bool):
    return norm(x) if use else x


def _logits(model, tokens, *, ln: bool, skip: bool, taps: list | None = None):
    """The model's forward pass with LayerNorm and/or the skips switched off; ``taps`` receives the
    tensor that enters block 0's first LayerNorm (a separate node, so its gradient is the one that
    flows back through that LayerNorm alone)."""
    x = model.W_E(tokens)                                                    # (B, L, D)
    pos = model.position_embedding(0, tokens.shape[1], tokens.device)       # (L, D) or None
    x = x + pos if pos is not None else x
    for i, block in enumerate(model.blocks):
        entering = x.clone()                                                 # (B, L, D)
        if taps is not None and i == 0:
            taps.append(entering)
        a, _ = block.attn(_normed(block.ln1, entering, ln))                  # (B, L, D)
        x = x + a if skip else a
        m = block.mlp(_normed(block.ln2, x, ln))                             # (B, L, D)
        x = x + m if skip else m
    return model.W_U(_normed(model.ln_final, x, ln))                         # (B, L, V)


def _loss(logits, targets):
    import torch.nn.functional as F

    from tutor.model.formats import IGNORE

    flat = logits[:, :-1].reshape(-1, logits.size(-1))                       # (B*(L-1), V)
    return F.cross_entropy(flat, targets.reshape(-1), ignore_index=IGNORE)


def _layer_norms(model) -> list[float]:
    """Gradient norm of each block's parameters, then of the embedding table W_E."""
    import torch

    norms = [torch.cat([p.grad.flatten() for p in block.parameters()]).norm() for block in model.blocks]
    return [float(n) for n in norms] + [float(model.W_E.weight.grad.norm())]


@experiment("ln_grad", M_("the trainer's loss back-propagated on a float64 copy, through the real model, with every "
                          "LayerNorm replaced by the identity (no_ln), and with every skip connection removed (no_skip): "
                          "ln_grad.norms (3, N+1) the gradient norm of each block's parameters and of W_E, rows real, "
                          "no_ln, no_skip; ln_grad.ln_ratio / ln_grad.skip_ratio (N+1,) those norms without LayerNorm "
                          "/ without skips over the real ones; ln_grad.x (L, D) row 0's stream entering block 0's "
                          "first LayerNorm; ln_grad.xhat (L, D) x normalised; ln_grad.std (L, 1) √(var + ε) of each token; ln_grad.gamma (D,) its gain; ln_grad.g_out (L, D) the gradient of the loss "
                          "at that LayerNorm's output; ln_grad.g_in (L, D) the gradient at its input, through the "
                          "LayerNorm alone; ln_grad.cos (L,) cosine between each token's x and g_in; ln_grad.cos_max "
                          "(1,) the largest |cosine| of the row; ln_grad.g_sum (L,) each token's g_in summed over D; ln_grad.scale (1,) "
                          "= {scale}; ln_grad.scale_ratio (1,) the norm of the input gradient when x is scaled by it "
                          "(same output gradient) over the norm at x",
                          scale=SCALE),
            derived={"ln_grad.xhat": ("ln_grad.x",), "ln_grad.std": ("ln_grad.x",), "ln_grad.cos": ("ln_grad.x", "ln_grad.g_in"),
                     "ln_grad.ln_ratio": ("ln_grad.norms",), "ln_grad.skip_ratio": ("ln_grad.norms",)},
            passes=9, copies=1)
@one_torch_thread
def layernorm_gradients(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = private_copy(context.model)
    tokens, targets = tokens_on_device(context).cpu(), scored_targets(context).cpu()   # (B, L), (B, L-1)
    norms = []
    with torch.enable_grad():
        real = _logits(model, tokens, ln=True, skip=True)                    # (B, L, V)
        signal = torch.autograd.grad(_loss(real, targets), real)[0]          # (B, L, V) dL/dlogits of the real model
        for variant in VARIANTS:
            model.zero_grad(set_to_none=False)
            _logits(model, tokens, ln=variant != "no_ln", skip=variant != "no_skip").backward(signal)
            norms.append(_layer_norms(model))
        taps: list = []
        ln1 = model.blocks[0].ln1
        captured = {}
        handle = ln1.register_forward_hook(lambda _m, _i, out: captured.setdefault("out", out))
        loss = _loss(_logits(model, tokens, ln=True, skip=True, taps=taps), targets)
        handle.remove()
        g_in, g_out = torch.autograd.grad(loss, [taps[0], captured["out"]])  # (B, L, D) each
        x, g, g_y = taps[0][0].detach(), g_in[0], g_out[0]                    # (L, D) each
        doubled = (SCALE * x).requires_grad_(True)                           # (L, D)
        g_doubled = torch.autograd.grad(ln1(doubled), doubled, g_y)[0]       # (L, D) same signal, input scaled
    norms_t = torch.tensor(norms, dtype=torch.float64)                        # (3, N+1)
    std = (x.var(dim=-1, keepdim=True, unbiased=False) + ln1.eps).sqrt()     # (L, 1)
    cos = (x * g).sum(-1) / (x.norm(dim=-1) * g.norm(dim=-1)).clamp(min=1e-300)   # (L,)
    return {
        "ln_grad.norms": to_numpy(norms_t),
        "ln_grad.ln_ratio": to_numpy(norms_t[1] / norms_t[0]),
        "ln_grad.skip_ratio": to_numpy(norms_t[2] / norms_t[0]),
        "ln_grad.x": to_numpy(x),
        "ln_grad.xhat": to_numpy((x - x.mean(dim=-1, keepdim=True)) / std),
        "ln_grad.std": to_numpy(std),
        "ln_grad.gamma": to_numpy(ln1.weight),
        "ln_grad.g_out": to_numpy(g_y),
        "ln_grad.g_in": to_numpy(g),
        "ln_grad.cos": to_numpy(cos),
        "ln_grad.cos_max": scalar(cos.abs().max()),
        "ln_grad.g_sum": to_numpy(g.sum(-1)),
        "ln_grad.scale": scalar(SCALE),
        "ln_grad.scale_ratio": scalar(g_doubled.norm() / g.norm()),
    }
