"""Experiments on numerics and architecture: float16 softmax, LayerNorm vs BatchNorm axes, residual gradients, activation functions."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import probe_tensors, row0_logits, scalar, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

SCALED_BY = 10.0      # norm_axes: the factor one token's stream is multiplied by
# norm_axes: a normalised entry "changes" when it moves by more than this.  The scaled token's own
# x̂ moves by about |x̂|·ε/(2σ²): 0.006 on the shipped model, so 0.01 sat too close; 0.05 keeps room for
# a stream with σ² from about 40·ε up, while BatchNorm's shifts (most of them above 0.1) still count
CHANGED = 0.05


@experiment("fp16", "softmax of the next-token logits in float16: fp16.row (V,) the logits, fp16.exp16 (V,) "
                    "exp(row) in float16 (inf above ln 65504), fp16.overflow (1,) how many entries are inf, "
                    "fp16.naive_sum (1,) the float16 sum of exp(row), fp16.naive (V,) exp/sum (inf/inf = nan), "
                    "fp16.stable (V,) exp(row - max)/sum in float16, fp16.limit (1,) = ln(65504), "
                    "fp16.max (3,) the largest float16, bfloat16 and float32; fp16.bf16_row (V,) the logits "
                    "rounded to bfloat16, fp16.bf16_overflow (1,) how many exp(row) are inf in bfloat16, "
                    "fp16.f32_sum (1,) and fp16.bf16_sum (1,) the naive sum of exp(row) in float32 and in bfloat16, "
                    "fp16.sum_gap (1,) |bf16_sum - f32_sum| / f32_sum, fp16.top_below (1,) the float16 number "
                    "just below the largest entry of fp16.stable", passes=1, copies=1)
@one_torch_thread
def float16_softmax(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    row = row0_logits(context).float()                                      # (V,)
    half = row.half()                                                        # (V,)
    exp16 = torch.exp(half)                                                  # (V,) float16
    naive_sum = exp16.sum()                                                  # float16
    shifted = torch.exp(half - half.max())                                   # (V,) float16, all <= 1
    stable = shifted / shifted.sum()                                         # (V,) float16
    top = stable.max()                                                       # float16
    top_below = torch.nextafter(top, torch.zeros_like(top))                  # float16: its lower neighbour
    bf16_row = row.bfloat16()                                                   # (V,) bfloat16
    exp_bf16 = torch.exp(bf16_row)                                              # (V,) bfloat16: float32's range
    bf16_sum = exp_bf16.sum().float()                                        # bfloat16, read as float32
    f32_sum = torch.exp(row).sum()                                           # float32
    with np.errstate(invalid="ignore"):
        naive = to_numpy(exp16 / naive_sum)
    return {
        "fp16.row": to_numpy(row),
        "fp16.exp16": to_numpy(exp16),
        "fp16.overflow": scalar(torch.isinf(exp16).sum()),
        "fp16.naive_sum": scalar(naive_sum),
        "fp16.naive": naive,
        "fp16.stable": to_numpy(stable),
        "fp16.limit": scalar(math.log(torch.finfo(torch.float16).max)),
        "fp16.max": np.array([torch.finfo(t).max for t in (torch.float16, torch.bfloat16, torch.float32)]),
        "fp16.bf16_row": to_numpy(bf16_row.float()),
        "fp16.bf16_overflow": scalar(torch.isinf(exp_bf16).sum()),
        "fp16.f32_sum": scalar(f32_sum),
        "fp16.bf16_sum": scalar(bf16_sum),
        "fp16.sum_gap": scalar((bf16_sum - f32_sum).abs() / f32_sum),
        "fp16.top_below": scalar(top_below),
    }


@experiment("norm_axes", "LayerNorm versus BatchNorm statistics of block 0's input x = resid_pre: "
                         "norm_axes.ln_mean (B, L, 1) one mean per token (over D), norm_axes.bn_mean (1, 1, D) one "
                         "mean per feature (over B and L), norm_axes.bn (B, L, D) x normalised per feature, "
                         "norm_axes.bn_row_mean (B, L) the mean of each token's row after that; norm_axes.ln_var (B, L) the "
                         "variance over D of each token's row of LayerNorm's x̂, σ²/(σ² + ε); one token (row 0, "
                         "position L // 2) multiplied by 10, everything else as it was: norm_axes.scaled_changed (1,) and "
                         "norm_axes.bn_scaled_changed (1,) how many of the B·L·D entries of LayerNorm's x̂ (no gain, "
                         "no shift) and of the BatchNorm above change by more than 0.05, norm_axes.scaled_shift (1,) "
                         "the largest change of x̂", passes=1.2, copies=1)
@one_torch_thread
def norm_axes(context: ExperimentContext) -> dict[str, np.ndarray]:
    x = probe_tensors(context)["blocks.0.resid_pre"]                               # (B, L, D)
    bn_mean = x.mean(dim=(0, 1), keepdim=True)                               # (1, 1, D)
    bn = _batch_norm(x)                                                      # (B, L, D)
    scaled = x.clone()
    scaled[0, x.shape[1] // 2] *= SCALED_BY                                  # (B, L, D), one token scaled
    ln_shift = (_layer_norm(scaled) - _layer_norm(x)).abs()                  # (B, L, D)
    return {
        "norm_axes.ln_mean": to_numpy(x.mean(dim=-1, keepdim=True)),              # (B, L, 1)
        "norm_axes.bn_mean": to_numpy(bn_mean),
        "norm_axes.bn": to_numpy(bn),
        "norm_axes.bn_row_mean": to_numpy(bn.mean(dim=-1)),
        "norm_axes.ln_var": to_numpy(_layer_norm(x).var(dim=-1, unbiased=False)),  # (B, L)
        "norm_axes.scaled_changed": scalar((ln_shift > CHANGED).sum()),
        "norm_axes.bn_scaled_changed": scalar(((_batch_norm(scaled) - bn).abs() > CHANGED).sum()),
        "norm_axes.scaled_shift": scalar(ln_shift.max()),
    }


def _layer_norm(x):
    """x̂ over the last axis, as the model's LayerNorm computes it before its gain and shift."""
    return (x - x.mean(dim=-1, keepdim=True)) / (x.var(dim=-1, keepdim=True, unbiased=False) + 1e-5).sqrt()


def _batch_norm(x):
    """x normalised per feature over the batch and positions, as norm_axes.bn is."""
    mean, var = x.mean(dim=(0, 1), keepdim=True), x.var(dim=(0, 1), keepdim=True, unbiased=False)  # (1, 1, D)
    return (x - mean) / (var + 1e-5).sqrt()


@experiment("residual_grad", "how much gradient of out = sum(last block's output at the last position) reaches "
                             "each block's input, with the skip connections (x + F(x)) and with them removed (F(x)): "
                             "residual_grad.with_skip / .without_skip (N,) gradient norms at blocks 0..N-1 (row 0), "
                             "residual_grad.input_with_skip / .input_without_skip (L, D) the gradient at "
                             "block 0's input", passes=1.5, copies=3)
@one_torch_thread
def residual_gradient(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model, tokens = context.model, tokens_on_device(context)[:1]                      # (1, L)
    with torch.no_grad():
        x0 = model.W_E(tokens)                                               # (1, L, D)
        pos = model.position_embedding(0, tokens.shape[1], tokens.device)   # (L, D) or None
        if pos is not None:
            x0 = x0 + pos

    def gradients(skip: bool):
        x = x0.detach().clone().requires_grad_(True)                         # (1, L, D)
        inputs = []
        with torch.enable_grad():
            h = x
            for block in model.blocks:
                inputs.append(h)
                a, _ = block.attn(block.ln1(h))
                h = h + a if skip else a                                     # (1, L, D)
                m = block.mlp(block.ln2(h))
                h = h + m if skip else m                                     # (1, L, D)
            grads = torch.autograd.grad(h[0, -1].sum(), inputs)              # leaves no .grad on the weights
        return torch.stack([g.norm() for g in grads]), grads[0][0]

    norms_with, first_with = gradients(True)
    norms_without, first_without = gradients(False)
    return {
        "residual_grad.with_skip": to_numpy(norms_with),
        "residual_grad.without_skip": to_numpy(norms_without),
        "residual_grad.input_with_skip": to_numpy(first_with),
        "residual_grad.input_without_skip": to_numpy(first_without),
    }


@experiment("activations", "block 0's MLP pre-activations x = mlp.pre through two activations: activations.phi "
                           "(B, L, 4D) = Φ(x), the standard normal CDF, activations.relu (B, L, 4D) = max(x, 0), "
                           "activations.dead (1,) hidden units whose x is <= 0 at every position of every row; "
                           "activations.pdf (B, L, 4D) = φ(x), the standard normal density, activations.gelu_grad "
                           "(B, L, 4D) GELU's slope at x by autograd through F.gelu, activations.falling (B, L, 4D) 1 where "
                           "that slope is negative (GELU falls there), else 0; at the most negative x: "
                           "activations.pre_min, .phi_at_min, .pdf_at_min, .grad_at_min (1,) x, Φ(x), φ(x) and the "
                           "autograd slope there",
            passes=1, copies=1)
@one_torch_thread
def activations(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    x = probe_tensors(context)["blocks.0.mlp.pre"]                                 # (B, L, 4D)
    phi = 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))                             # (B, L, 4D)
    pdf = torch.exp(-x * x / 2) / math.sqrt(2 * math.pi)                          # (B, L, 4D)
    with torch.enable_grad():       # the slope from autograd through torch's own GELU, not from Φ + x·φ
        leaf = x.clone().requires_grad_(True)                                     # (B, L, 4D)
        torch.nn.functional.gelu(leaf).sum().backward()
    slope = leaf.grad                                                             # (B, L, 4D)
    lowest = int(x.argmin())
    return {
        "activations.phi": to_numpy(phi),
        "activations.relu": to_numpy(torch.relu(x)),
        "activations.dead": scalar((x <= 0).all(dim=1).all(dim=0).sum()),
        "activations.pdf": to_numpy(pdf),
        "activations.gelu_grad": to_numpy(slope),
        "activations.falling": to_numpy((slope < 0).float()),
        "activations.pre_min": scalar(x.flatten()[lowest]),
        "activations.phi_at_min": scalar(phi.flatten()[lowest]),
        "activations.pdf_at_min": scalar(pdf.flatten()[lowest]),
        "activations.grad_at_min": scalar(slope.flatten()[lowest]),
    }
