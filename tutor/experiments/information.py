"""Experiments on information: entropy, cross-entropy and KL between the model and an untrained student."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import row0_logits, scalar, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


@experiment("info", "information and entropy of the next-token distribution at every position: info.probs "
                    "(B, L, V), info.surprisal (B, L, V) = -ln p, info.entropy (B, L) in nats, info.perplexity "
                    "(B, L) = e^H, info.max_entropy (1,) = ln V, info.next_surprisal (B, L-1) = -ln p of the "
                    "token that actually comes next", passes=1, copies=1)
@one_torch_thread
def information(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)
    with torch.no_grad():
        logits = context.model(tokens).detach().cpu().double()              # (B, L, V)
    logp = torch.log_softmax(logits, dim=-1)                                 # (B, L, V)
    probs = logp.exp()
    entropy = -(probs * logp).sum(-1)                                        # (B, L)
    following = tokens.cpu()[:, 1:, None]                                    # (B, L-1, 1)
    return {
        "info.probs": to_numpy(probs),
        "info.surprisal": to_numpy(-logp),
        "info.entropy": to_numpy(entropy),
        "info.perplexity": to_numpy(entropy.exp()),
        "info.max_entropy": scalar(math.log(logits.shape[-1])),
        "info.next_surprisal": to_numpy(-logp[:, :-1].gather(-1, following)[..., 0]),
    }


@experiment("kl", "teacher p = the lesson's model, student q = an untrained model of the same size (seeded by the "
                  "lesson's seed), both on batch row 0, next-token distributions at the last position: kl.p (V,), "
                  "kl.q (V,), kl.H_p, kl.H_q, kl.H_pq = -sum p ln q, kl.H_qp, kl.KL_pq = sum p ln(p/q), "
                  "kl.KL_qp (1,) each, in nats; kl.KL_gap (1,) = KL_qp - KL_pq", passes=1.2, copies=2)
@one_torch_thread
def kl_divergence(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.copies import seeded_model

    student = seeded_model(context.model.config, context.seed)                # on the CPU
    with torch.no_grad():
        logp = torch.log_softmax(row0_logits(context), -1)                 # (V,)
        logq = torch.log_softmax(student(context.tokens[:1].cpu())[0, -1].double(), -1)  # (V,)
    p, q = logp.exp(), logq.exp()
    return {
        "kl.p": to_numpy(p), "kl.q": to_numpy(q),
        "kl.H_p": scalar(-(p * logp).sum()), "kl.H_q": scalar(-(q * logq).sum()),
        "kl.H_pq": scalar(-(p * logq).sum()), "kl.H_qp": scalar(-(q * logp).sum()),
        "kl.KL_pq": scalar((p * (logp - logq)).sum()), "kl.KL_qp": scalar((q * (logq - logp)).sum()),
        "kl.KL_gap": scalar((q * (logq - logp)).sum() - (p * (logp - logq)).sum()),
    }
