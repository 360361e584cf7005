"""Experiment: a text's cross-entropy read as the length of a code, in bits.

Why the totals come from torch's cross_entropy (in nats) and the per-character lengths from
torch.log2: a lesson's formula that turns the model's probabilities into bits with ln and ÷ ln 2
is then compared with numbers computed another way, not with its own arithmetic redone.

Why whole-bit codewords beside the ideal ones: a real prefix code (Shannon's) gives a character
⌈−log₂ p⌉ bits, so rounding costs less than one bit per character; the lesson asks how much.
"""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, scalar, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


@experiment("bits", "batch row 0 coded by the model, every next character scored: bits.p (L-1,) the probability "
                    "the model gave each true next character; bits.bits (L-1,) its ideal codeword length "
                    "-log2 p, by torch.log2; bits.total (1,) torch's cross_entropy summed over the row, in "
                    "nats, divided by ln 2; bits.nats (1,) the same sum in nats; bits.per_char (1,) "
                    "bits.total over the L-1 characters; bits.ppl (1,) the row's perplexity e^(mean nats); "
                    "bits.fixed (1,) the bits per character of a fixed-length code for V symbols, ceil(log2 V); "
                    "bits.whole (1,) the total of whole-bit codewords ceil(-log2 p); bits.rounding (1,) "
                    "bits.whole minus bits.total; bits.rounding_margin (1,) bits.rounding minus L-1; "
                    "bits.random_per_char (1,) bits per character of an untrained model of the same size; bits.n (1,) "
                    "the L-1 characters coded",
            passes=2, copies=1,
            derived={"bits.per_char": ("bits.total",), "bits.ppl": ("bits.nats",), "bits.whole": ("bits.bits",),
                     "bits.rounding": ("bits.whole", "bits.total"), "bits.rounding_margin": ("bits.rounding",)})
@one_torch_thread
def code_length(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    tokens = tokens_on_device(context)[:1]                                   # (1, L)
    targets = tokens[0, 1:]                                                  # (L-1,)
    with torch.no_grad():
        logits = context.model(tokens)[0, :-1].double()                     # (L-1, V)
        fresh = fresh_model(context.model.config, context.seed).to(tokens.device)
        random_logits = fresh(tokens)[0, :-1].double()                      # (L-1, V)
    probs = torch.softmax(logits, dim=-1).gather(-1, targets[:, None])[:, 0]   # (L-1,)
    lengths = -torch.log2(probs)                                             # (L-1,) bits
    nats = F.cross_entropy(logits, targets, reduction="sum")                 # ()
    total = nats / math.log(2)
    n = targets.numel()
    whole = torch.ceil(lengths - 1e-9).sum()        # a codeword of exactly k bits stays k, float noise aside
    random_bits = F.cross_entropy(random_logits, targets, reduction="sum") / math.log(2) / n
    return {
        "bits.p": to_numpy(probs), "bits.bits": to_numpy(lengths),
        "bits.total": scalar(total), "bits.nats": scalar(nats), "bits.per_char": scalar(total / n),
        "bits.ppl": scalar((nats / n).exp()),
        "bits.fixed": scalar(math.ceil(math.log2(logits.shape[-1]))),
        "bits.whole": scalar(whole), "bits.rounding": scalar(whole - total),
        "bits.rounding_margin": scalar(whole - total - n),
        "bits.random_per_char": scalar(random_bits), "bits.n": scalar(n),
    }
