"""Experiments on information: entropy, cross-entropy and KL between the model and an untrained student."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.common import row0_logits, scalar, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

DISTILL_T = 4.0       # kl: the distillation temperature that softens teacher and student


@experiment("info", "information and entropy of the next-token distribution at every position: info.probs "
                    "(B, L, V), info.surprisal (B, L, V) = -ln p, info.entropy (B, L) in nats (torch's "
                    "Categorical.entropy), info.perplexity "
                    "(B, L) = e^H, info.max_entropy (1,) = ln V, info.next_surprisal (B, L-1) = -ln p of the "
                    "token that actually comes next", passes=1, copies=1,
            derived={"info.perplexity": ("info.entropy",), "info.surprisal": ("info.probs",)})
@one_torch_thread
def information(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)
    with torch.no_grad():
        logits = context.model(tokens).detach().cpu().double()              # (B, L, V)
    logp = torch.log_softmax(logits, dim=-1)                                 # (B, L, V)
    probs = logp.exp()
    # torch's own entropy of the categorical, not -Σ p log p redone: the lesson's formula is that sum
    entropy = torch.distributions.Categorical(logits=logits).entropy()       # (B, L)
    following = tokens.cpu()[:, 1:, None]                                    # (B, L-1, 1)
    return {
        "info.probs": to_numpy(probs),
        "info.surprisal": to_numpy(-logp),
        "info.entropy": to_numpy(entropy),
        "info.perplexity": to_numpy(entropy.exp()),
        "info.max_entropy": scalar(math.log(logits.shape[-1])),
        "info.next_surprisal": to_numpy(-logp[:, :-1].gather(-1, following)[..., 0]),
    }


@experiment("kl", M_("teacher p = the lesson's model, student q = an untrained model of the same size (seeded by the "
                  "lesson's seed), both on batch row 0, next-token distributions at the last position: kl.p (V,), "
                  "kl.q (V,), kl.H_p, kl.H_q, kl.H_pq = -sum p ln q, kl.H_qp, kl.KL_pq = sum p ln(p/q), "
                  "kl.KL_qp (1,) each, in nats; kl.KL_gap (1,) = KL_qp - KL_pq; kl.KL_pu (1,) = KL(p ‖ u) "
                  "against the uniform u = 1/V and kl.KL_up (1,) = KL(u ‖ p), by kl_div; kl.grad_z (V,) autograd's "
                  "gradient of KL(p ‖ q) with respect to the student's logits (what distillation follows); "
                  "kl.grad_z_rev (V,) autograd's gradient of the reverse KL(q ‖ p) with respect to them; "
                  "H_pq, H_qp by torch's soft-target cross_entropy, the KLs by its kl_div; kl.H_pq_bits (1,) "
                  "= -sum p log2 q, in bits; distillation at temperature kl.T (1,) = {temperature:g}: kl.p_T and kl.q_T (V,) "
                  "the softened softmax(z / T) of teacher and student, kl.KL_T (1,) = KL(p_T ‖ q_T), kl.grad_z_T (V,) autograd's gradient of "
                  "KL(p_T ‖ q_T) with respect to the student's unsoftened logits; kl.top_ids (2,) the teacher's "
                  "two most likely tokens and kl.top_ratio / kl.top_ratio_T (1,) the first's probability over "
                  "the second's at T = 1 and at T", temperature=DISTILL_T),
            passes=1.2, copies=2, derived={"kl.H_p": ("kl.p",), "kl.H_q": ("kl.q",)})
@one_torch_thread
def kl_divergence(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.copies import seeded_model

    student = seeded_model(context.model.config, context.seed)                # on the CPU
    with torch.no_grad():
        teacher_logits = row0_logits(context)                              # (V,)
        logp = torch.log_softmax(teacher_logits, -1)                       # (V,)
        student_logits = student(context.tokens[:1].cpu())[0, -1].double()  # (V,)
        logq = torch.log_softmax(student_logits, -1)                       # (V,)
    p, q = logp.exp(), logq.exp()
    with torch.enable_grad():                 # the teacher is fixed: only the student's logits move
        z = student_logits.clone().requires_grad_(True)                     # (V,)
        (p * (logp - torch.log_softmax(z, -1))).sum().backward()
        z_rev = student_logits.clone().requires_grad_(True)                 # (V,)
        logq_rev = torch.log_softmax(z_rev, -1)                             # (V,)
        (logq_rev.exp() * (logq_rev - logp)).sum().backward()              # KL(q ‖ p), weighted by q
        z_soft = student_logits.clone().requires_grad_(True)                # (V,)
        logp_t = torch.log_softmax(teacher_logits / DISTILL_T, -1)          # (V,)
        (logp_t.exp() * (logp_t - torch.log_softmax(z_soft / DISTILL_T, -1))).sum().backward()
    top = logp.argsort(descending=True)[:2]                                 # (2,) the teacher's two favourites
    # the cross-entropies and divergences the lessons' formulas are compared with come from torch's own loss
    # functions (soft-target cross_entropy, kl_div), not from the sums those formulas write out
    functional = torch.nn.functional
    cross = lambda target, logits: functional.cross_entropy(logits[None], target[None])        # noqa: E731
    kl = lambda log_a, log_b: functional.kl_div(log_b, log_a, reduction="sum", log_target=True)  # noqa: E731  KL(a‖b)
    return {
        "kl.p": to_numpy(p), "kl.q": to_numpy(q),
        "kl.H_p": scalar(-(p * logp).sum()), "kl.H_q": scalar(-(q * logq).sum()),
        "kl.H_pq": scalar(cross(p, student_logits)), "kl.H_qp": scalar(cross(q, teacher_logits)),
        "kl.KL_pq": scalar(kl(logp, logq)), "kl.KL_qp": scalar(kl(logq, logp)),
        "kl.KL_gap": scalar(kl(logq, logp) - kl(logp, logq)),
        "kl.KL_pu": scalar(kl(logp, torch.full_like(logp, -math.log(logp.numel())))),   # against uniform 1/V
        "kl.KL_up": scalar(kl(torch.full_like(logp, -math.log(logp.numel())), logp)),   # uniform as reference
        "kl.grad_z": to_numpy(z.grad),
        "kl.grad_z_rev": to_numpy(z_rev.grad),
        "kl.H_pq_bits": scalar(-(p * torch.log2(q)).sum()),
        "kl.T": scalar(DISTILL_T),
        "kl.p_T": to_numpy(logp_t.exp()), "kl.q_T": to_numpy(torch.softmax(student_logits / DISTILL_T, -1)),
        "kl.KL_T": scalar(kl(logp_t, torch.log_softmax(student_logits / DISTILL_T, -1))),
        "kl.grad_z_T": to_numpy(z_soft.grad),
        "kl.top_ids": to_numpy(top),
        "kl.top_ratio": scalar((logp[top[0]] - logp[top[1]]).exp()),
        "kl.top_ratio_T": scalar((logp_t[top[0]] - logp_t[top[1]]).exp()),
    }
