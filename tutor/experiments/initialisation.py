"""Experiment on the scale of the initial weights: the same random draws at std 0.02 and at std 1.0.

Why a twin rather than a second seed: multiplying every weight matrix by one factor keeps the
draws, so every difference the learner sees is the scale alone.  LayerNorm removes the scale of
its input, which makes block 0's normalised input identical in both models; everything after a
projection then grows by the factor, and a product of two projections (the scores) by its square.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import private_copy, scalar, to_numpy, tokens_on_device
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

INIT_STD = 0.02      # the std model/gpt.py draws every weight matrix from
LARGE_STD = 1.0      # the "too large" initialisation the lesson compares it with


def _largest_weight(pattern):
    """Mean over rows (all batch rows, heads and queries) of the largest attention weight."""
    return pattern.amax(dim=-1).mean()


@experiment("init_scale", M_("every weight matrix (W_E, W_pos, Q/K/V/O, MLP, W_U) of a float64 copy multiplied by "
                             "init_scale.factor (1,) = {large_std}/{init_std}, as if drawn with std {large_std} "
                             "instead of {init_std}: init_scale.x (B, L, D) block 0's normalised input in that copy; "
                             "init_scale.ln_diff (1,) its largest difference from the lesson's (LayerNorm's eps); "
                             "init_scale.q (B, H, L, D_head) block 0's queries in that copy; "
                             "init_scale.unit_sigma (1,) the std that would give those queries std 1 "
                             "({large_std} over their measured std: the queries are linear in W_Q); "
                             "init_scale.scores (B, H, L, L) its block-0 scores; "
                             "init_scale.resid_std (2, N+1) std of the residual stream after the embeddings and after "
                             "each block, row 0 the lesson's model, row 1 the scaled copy; init_scale.score_ratio (1,) "
                             "std of block 0's scores, scaled over lesson; init_scale.max_weight (2,) mean largest "
                             "attention weight of a row in block 0 (lesson, scaled); init_scale.logits_std (2,); "
                             "init_scale.grad_norm (2, N) the norm of the gradient of the next-token cross-entropy "
                             "with respect to each block's weight matrices (row 0 the lesson's model, row 1 the "
                             "scaled copy), init_scale.grad_ratio (N,) scaled over lesson, block by block",
                             large_std=LARGE_STD, init_std=INIT_STD),
            passes=2, copies=2)
@one_torch_thread
def init_scale(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    factor = LARGE_STD / INIT_STD
    small, large = private_copy(context.model), private_copy(context.model)
    with torch.no_grad():
        for name, parameter in large.named_parameters():
            if name.endswith("weight") and parameter.dim() == 2:            # matrices; LayerNorm gains stay 1
                parameter.mul_(factor)
        tokens = tokens_on_device(context).cpu()                            # (B, L)
        _, p_small = run_with_probes(small, tokens)
        _, p_large = run_with_probes(large, tokens)
    n_layer = small.config.n_layer
    grads = torch.stack([_block_gradient_norms(small, tokens, n_layer),
                         _block_gradient_norms(large, tokens, n_layer)])           # (2, N)

    def residual_stds(probes):
        stream = [probes["blocks.0.resid_pre"]] + [probes[f"blocks.{i}.resid_post"] for i in range(n_layer)]
        return torch.stack([x.std() for x in stream])                       # (N+1,)

    return {
        "init_scale.factor": scalar(factor),
        "init_scale.x": to_numpy(p_large["blocks.0.ln1.normalized"]),
        "init_scale.ln_diff": scalar((p_large["blocks.0.ln1.normalized"] - p_small["blocks.0.ln1.normalized"]).abs().max()),
        "init_scale.q": to_numpy(p_large["blocks.0.attn.q"]),
        "init_scale.unit_sigma": scalar(LARGE_STD / p_large["blocks.0.attn.q"].std()),
        "init_scale.scores": to_numpy(p_large["blocks.0.attn.scores"]),
        "init_scale.resid_std": to_numpy(torch.stack([residual_stds(p_small), residual_stds(p_large)])),
        "init_scale.score_ratio": scalar(p_large["blocks.0.attn.scores"].std() / p_small["blocks.0.attn.scores"].std()),
        "init_scale.max_weight": to_numpy(torch.stack([_largest_weight(p_small["blocks.0.attn.pattern"]),
                                                       _largest_weight(p_large["blocks.0.attn.pattern"])])),
        "init_scale.logits_std": to_numpy(torch.stack([p_small["logits"].std(), p_large["logits"].std()])),
        "init_scale.grad_norm": to_numpy(grads),
        "init_scale.grad_ratio": to_numpy(grads[1] / grads[0]),
    }


def _block_gradient_norms(model, tokens, n_layer: int):
    """‖∂loss/∂W‖ over each block's weight matrices, for the next-token cross-entropy of the input
    (every position scored: this is about sizes, not about a task)."""
    import torch

    model.zero_grad(set_to_none=True)
    with torch.enable_grad():
        logits = model(tokens)                                                 # (B, L, V)
        torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten()).backward()
    norms = []
    for i in range(n_layer):
        squares = [p.grad.pow(2).sum() for name, p in model.named_parameters()
                   if name.startswith(f"blocks.{i}.") and p.dim() == 2 and p.grad is not None]
        norms.append(torch.stack(squares).sum().sqrt())
    return torch.stack(norms)                                                  # (N,)
