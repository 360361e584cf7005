"""√d_k on the model's own attention: the same q·k with and without the scale.

The dot-variance lesson shows the √d_k argument on random vectors; this experiment shows what
it means for the live model: without the scale the scores spread √d_k times wider, the softmax
saturates (lower entropy, one key takes nearly all the weight), and the softmax's Jacobian,
the factor every gradient through attention is multiplied by, shrinks.
"""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import device_of, scalar, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


def row_entropy(pattern):
    """H(p) = -Σ p log p per row, in nats; 0·log 0 counts as 0.  (..., L, L) -> (..., L)."""
    import torch

    logs = torch.where(pattern > 0, pattern.log(), torch.zeros_like(pattern))
    return -(pattern * logs).sum(-1)


def softmax_jacobian_norm(pattern):
    """Frobenius norm of ∂p/∂s = diag(p) - p pᵀ for every row: (..., L, L) -> (..., L).

    ‖diag(p) - p pᵀ‖² = Σ p_i² - 2 Σ p_i³ + (Σ p_i²)², computed without building the L×L matrix.
    """
    square = (pattern ** 2).sum(-1)
    cube = (pattern ** 3).sum(-1)
    return (square - 2 * cube + square ** 2).clamp(min=0).sqrt()


@experiment("attn_scale", "block 0's own q·k with and without the 1/√d_k scale (causal mask applied to both): "
                          "attn_scale.d_k (1,), attn_scale.q_std / attn_scale.k_std (1,) the standard deviation "
                          "of every entry of the queries / keys, attn_scale.independent_std (1,) = q_std·k_std·√d_k, "
                          "the spread of q·k if queries and keys were drawn independently, attn_scale.spread_ratio "
                          "(1,) = std_raw / independent_std, attn_scale.hidden_ratio (1,) the same ratio over the pairs the causal mask "
                          "hides (key > query; 0 when there are none); attn_scale.raw (B, H, L, L) = Q·Kᵀ, attn_scale.scaled "
                          "(B, H, L, L) = Q·Kᵀ/√d_k (the model's scores), attn_scale.std_raw / .std_scaled (1,) "
                          "the standard deviation of the visible scores (key ≤ query), "
                          "attn_scale.pattern_raw / .pattern_scaled (B, H, L, L) their softmax, "
                          "attn_scale.entropy_raw / .entropy_scaled (B, H, L) each row's entropy in nats, "
                          "attn_scale.top_raw / .top_scaled (B, H, L) each row's largest weight, "
                          "attn_scale.jacobian_raw / .jacobian_scaled (B, H, L) the Frobenius norm of each "
                          "row's softmax Jacobian diag(p) - p·pᵀ; means over the rows that see two keys or "
                          "more (query ≥ 1): attn_scale.mean_entropy_raw / _scaled, .mean_top_raw / _scaled, "
                          ".mean_jacobian_raw / _scaled (1,); attn_scale.entropy_kept (B, H, L) = "
                          "entropy_scaled - entropy_raw, attn_scale.rows (1,) how many rows see two keys or "
                          "more, attn_scale.rows_jacobian_up (1,) how many of them have a LARGER Jacobian "
                          "norm without the scale",
            passes=1, copies=1,
            derived={"attn_scale.scaled": ("attn_scale.raw", "attn_scale.d_k"),
                     "attn_scale.std_scaled": ("attn_scale.scaled", "attn_scale.raw"),
                     "attn_scale.entropy_kept": ("attn_scale.entropy_raw", "attn_scale.entropy_scaled"),
                     "attn_scale.independent_std": ("attn_scale.q_std", "attn_scale.k_std", "attn_scale.d_k"),
                     "attn_scale.spread_ratio": ("attn_scale.std_raw", "attn_scale.independent_std"),
                     "attn_scale.hidden_ratio": ("attn_scale.raw", "attn_scale.independent_std")})
@one_torch_thread
def attention_scale(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    with torch.no_grad():
        _, probes = run_with_probes(model, context.tokens.to(device_of(model)))
    q = probes["blocks.0.attn.q"].cpu().double()                             # (B, H, L, D_head)
    k = probes["blocks.0.attn.k"].cpu().double()                             # (B, H, L, D_head)
    d_k, length = q.shape[-1], q.shape[-2]
    raw = q @ k.transpose(-2, -1)                                            # (B, H, L, L)
    scaled = raw / math.sqrt(d_k)                                            # (B, H, L, L)
    visible = torch.ones(length, length, dtype=torch.bool).tril()            # (L, L)
    hidden_bias = torch.zeros(length, length, dtype=torch.float64).masked_fill(~visible, float("-inf"))
    out = {"attn_scale.d_k": scalar(d_k), "attn_scale.raw": to_numpy(raw), "attn_scale.scaled": to_numpy(scaled)}
    later_rows = slice(1, None) if length > 1 else slice(0, None)            # row 0 sees one key: always 1
    for name, scores in (("raw", raw), ("scaled", scaled)):
        pattern = torch.softmax(scores + hidden_bias, dim=-1)                # (B, H, L, L)
        entropy, top = row_entropy(pattern), pattern.amax(-1)                # (B, H, L) each
        jacobian = softmax_jacobian_norm(pattern)                            # (B, H, L)
        out |= {
            f"attn_scale.std_{name}": scalar(scores[..., visible].std(unbiased=False)),
            f"attn_scale.pattern_{name}": to_numpy(pattern),
            f"attn_scale.entropy_{name}": to_numpy(entropy),
            f"attn_scale.top_{name}": to_numpy(top),
            f"attn_scale.jacobian_{name}": to_numpy(jacobian),
            f"attn_scale.mean_entropy_{name}": scalar(entropy[..., later_rows].mean()),
            f"attn_scale.mean_top_{name}": scalar(top[..., later_rows].mean()),
            f"attn_scale.mean_jacobian_{name}": scalar(jacobian[..., later_rows].mean()),
        }
    # the scaled-scores argument: q·k of vectors with independent entries spreads as σ_q·σ_k·√d_k. A trained
    # head's queries and keys vary together along a few shared directions, so its products spread wider; the
    # pairs the mask hides (a query with later keys, never attended) show that this is not a query aimed at
    # the keys it attends to
    q_std, k_std = q.std(unbiased=False), k.std(unbiased=False)
    independent = q_std * k_std * math.sqrt(d_k)
    out |= {"attn_scale.q_std": scalar(q_std), "attn_scale.k_std": scalar(k_std),
            "attn_scale.independent_std": scalar(independent),
            "attn_scale.spread_ratio": scalar(out["attn_scale.std_raw"][0] / float(independent)),
            "attn_scale.hidden_ratio": scalar(raw[..., ~visible].std(unbiased=False) / independent
                                              if length > 1 else 0.0)}
    rows_up = out["attn_scale.jacobian_raw"][..., later_rows] > out["attn_scale.jacobian_scaled"][..., later_rows]
    out |= {"attn_scale.entropy_kept": out["attn_scale.entropy_scaled"] - out["attn_scale.entropy_raw"],
            "attn_scale.rows": scalar(rows_up.size), "attn_scale.rows_jacobian_up": scalar(rows_up.sum())}
    return out
