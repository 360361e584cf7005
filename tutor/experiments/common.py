"""Helpers every experiment module shares: the lesson's tokens and probes, private model copies,
the trainer's loss, and numpy conversions.

Experiments never change the lesson's model (it is shared by every lesson and the dashboard), so
anything that trains, perturbs or differentiates works on ``private_copy``.  Losses follow the
trainer (``model/train.py``): next-token cross-entropy, and in a row that contains the task
separator ``>`` only the targets after it (the answer) are scored.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.registry import ExperimentContext
from tutor.model.formats import DIGITS, IGNORE, SEPARATOR


def device_of(model):
    return next(model.parameters()).device


def tokens_on_device(context: ExperimentContext):
    """The lesson's tokens (B, L) on the model's device."""
    return context.tokens.to(device_of(context.model))


def probe_tensors(context: ExperimentContext) -> dict:
    """Every probe of the lesson's input, as float64 CPU tensors."""
    from tutor.model import run_with_probes

    _, probes = run_with_probes(context.model, tokens_on_device(context))
    return {name: t.detach().cpu().double() for name, t in probes.items()}


def to_numpy(tensor) -> np.ndarray:
    return tensor.detach().cpu().double().numpy()


def scalar(value) -> np.ndarray:
    """A single number as shape (1,); a tensor that carries a gradient is detached first."""
    return np.array([float(value.detach() if hasattr(value, "detach") else value)], dtype=np.float64)


def row0_logits(context: ExperimentContext):
    """The logits (V,) for the token after batch row 0, in float64."""
    import torch

    with torch.no_grad():
        logits = context.model(tokens_on_device(context)[:1])[0, -1]                  # (V,)
    return logits.detach().cpu().double()


def twin(model, **changes):
    """A copy of ``model`` with a changed config and the same weights (global RNG untouched)."""
    from tutor.model.copies import copy_model

    return copy_model(model, **changes)   # W_pos may be absent on either side


def private_copy(model, double: bool = True):
    """A private copy of ``model`` (float64 by default) that gradients and steps may touch."""
    import torch

    from tutor.model.copies import copy_model

    return copy_model(model, dtype=torch.float64 if double else torch.float32, trainable=True)


def fresh_model(config, seed: int):
    """An untrained GPT with ``config``, initialised from ``seed`` without touching global RNG."""
    from tutor.model.copies import seeded_model

    return seeded_model(config, seed)


def scored_targets(context: ExperimentContext):
    """Targets (B, L-1) for next-token prediction; IGNORE where the trainer does not score.

    In a row holding ``>``, target j (the token at position j+1) is scored only when it comes
    after the separator, as in the sort/reverse training data; other rows score every target.
    """
    import torch

    tokens = tokens_on_device(context)                                              # (B, L)
    targets = tokens[:, 1:].clone()                                         # (B, L-1)
    sep = context.tokenizer.encode(SEPARATOR)[0]
    for b in range(tokens.shape[0]):
        hits = (tokens[b] == sep).nonzero().flatten()
        if hits.numel():
            first = int(hits[0])
            positions = torch.arange(targets.shape[1], device=tokens.device)
            targets[b, positions < first] = IGNORE                           # inputs 0..sep-1
    return targets


def loss_on(model, tokens, targets):
    """Mean cross-entropy over the scored targets; logits (B, L, V) -> a scalar."""
    import torch.nn.functional as F

    logits = model(tokens)                                                  # (B, L, V)
    flat = logits[:, :-1].reshape(-1, logits.size(-1))                      # (B*(L-1), V)
    return F.cross_entropy(flat, targets.reshape(-1), ignore_index=IGNORE)


def digit_ids(context: ExperimentContext) -> list[int]:
    return context.tokenizer.encode(DIGITS)


def attention_weights(q, k, allowed):
    """Attention weights (B, H, L, L) computed by torch's own scaled_dot_product_attention.

    Why: a lesson that checks softmax(S + M) against weights the experiment computed as
    softmax(scores + bias) would only see its own arithmetic again.  Attending with the identity as
    the values makes torch's attention return its weights themselves (weights · I = weights), from
    the model's q and k and the boolean mask ``allowed`` (L, L) or (B, 1, L, L): True = may attend.
    A query that may attend to no key gets 0 weights, not NaN.
    """
    import torch

    length = q.shape[-2]
    identity = torch.eye(length, dtype=q.dtype).expand(*q.shape[:-1], length)   # (B, H, L, L) as values
    weights = torch.nn.functional.scaled_dot_product_attention(q, k, identity, attn_mask=allowed)
    return weights.nan_to_num(0.0)                                          # (B, H, L, L)
