"""Training objectives beyond plain cross-entropy: label smoothing and the KL penalty of alignment.

Both start from the live model's own next-token distributions, so what the lessons compute is
what this model would be trained towards.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.experiments.common import scalar, scored_targets, to_numpy, tokens_on_device
from tutor.model.formats import IGNORE

SMOOTHING = 0.1                       # label_smoothing: ε, the mass spread over the whole vocabulary
BETAS = (0.1, 0.3, 1.0, 3.0)          # kl_penalty: strengths β of the KL penalty


@experiment("label_smoothing", M_("cross-entropy against a smoothed target, ε = {smoothing:g}, on the trainer's scored "
                                  "targets of the lesson's input (float64): label_smoothing.eps (1,), "
                                  "label_smoothing.on / .off (1,) the target's weight on the true token (1 - ε + ε/V) "
                                  "and on every other token (ε/V), label_smoothing.target (V,) the smoothed target at "
                                  "the last scored position of row 0, label_smoothing.true (1,) its true token id, "
                                  "label_smoothing.probs (V,) the model's distribution there, "
                                  "label_smoothing.onehot (V,) the one-hot of its true token, "
                                  "label_smoothing.dlogits (V,) torch's gradient of the smoothed cross-entropy of "
                                  "that one position with respect to its logits, "
                                  "label_smoothing.ce_hard (1,) the usual mean cross-entropy, "
                                  "label_smoothing.ce_uniform (1,) the mean over scored positions of the average "
                                  "-log p over all V tokens, label_smoothing.ce_vocab_sum (1,) the same with -log p "
                                  "summed over the V tokens instead of averaged, "
                                  "label_smoothing.ce_smooth (1,) torch's cross_entropy "
                                  "with label_smoothing = ε, label_smoothing.floor (1,) the smallest smoothed loss "
                                  "any model can reach (the target's own entropy), label_smoothing.best_gap (1,) "
                                  "= ln(on/off), the logit lead of the true token that reaches it, "
                                  "label_smoothing.gap (1,) the model's lead at that position (true logit minus the "
                                  "largest other)",
                                  smoothing=SMOOTHING), passes=1, copies=1)
@one_torch_thread
def label_smoothing(context: ExperimentContext) -> dict[str, np.ndarray]:
    import math

    import torch
    import torch.nn.functional as F

    with torch.no_grad():
        logits = context.model(tokens_on_device(context)).double()[:, :-1]            # (B, L-1, V)
    targets = scored_targets(context)                                       # (B, L-1)
    vocab = logits.shape[-1]
    scored = targets != IGNORE
    if not bool(scored.any()):
        raise ValueError(M_("label_smoothing needs at least one scored target: give the input two tokens or more"))
    logp = torch.log_softmax(logits, dim=-1)[scored]                         # (N, V)
    true = targets[scored]                                                   # (N,)
    on, off = 1 - SMOOTHING + SMOOTHING / vocab, SMOOTHING / vocab
    row0 = scored[0].nonzero().flatten()
    last_row, last_pos = (0, int(row0[-1])) if row0.numel() else tuple(int(i) for i in scored.nonzero()[-1])
    last_true = int(targets[last_row, last_pos])
    target = torch.full((vocab,), off, dtype=torch.float64)
    target[last_true] = on
    last_logits = logits[last_row, last_pos]                                 # (V,)
    others = torch.cat([last_logits[:last_true], last_logits[last_true + 1:]])
    with torch.enable_grad():                 # autograd's own derivative, for the learner's p − q to meet
        leaf = last_logits.detach().clone().requires_grad_(True)            # (V,)
        F.cross_entropy(leaf[None], torch.tensor([last_true], device=leaf.device),
                        label_smoothing=SMOOTHING).backward()
    flat_logits, flat_targets = logits.reshape(-1, vocab), targets.reshape(-1)
    return {
        "label_smoothing.eps": scalar(SMOOTHING),
        "label_smoothing.on": scalar(on),
        "label_smoothing.off": scalar(off),
        "label_smoothing.target": to_numpy(target),
        "label_smoothing.true": scalar(last_true),
        "label_smoothing.probs": to_numpy(torch.softmax(last_logits, dim=-1)),
        "label_smoothing.onehot": to_numpy(F.one_hot(torch.tensor(last_true), vocab).double()),
        "label_smoothing.dlogits": to_numpy(leaf.grad),
        # the true token's own p and gradient entry: whether smoothing pushes a confident true logit down
        "label_smoothing.p_true": scalar(torch.softmax(last_logits, dim=-1)[last_true]),
        "label_smoothing.dlogit_true": scalar(leaf.grad[last_true]),
        "label_smoothing.ce_hard": scalar(-logp.gather(1, true[:, None]).mean()),
        "label_smoothing.ce_uniform": scalar(-logp.mean(-1).mean()),
        # V times ce_uniform: a lesson can give the whole vocabulary's sum, so that the even part's weight ε/V is the
        # learner's step and no number on screen is the answer with its decimal point moved
        "label_smoothing.ce_vocab_sum": scalar(-logp.sum(-1).mean()),
        "label_smoothing.ce_smooth": scalar(F.cross_entropy(flat_logits, flat_targets, ignore_index=IGNORE,
                                                          label_smoothing=SMOOTHING)),
        "label_smoothing.floor": scalar(-(on * math.log(on) + (vocab - 1) * off * math.log(off))),
        "label_smoothing.best_gap": scalar(math.log(on / off)),
        "label_smoothing.gap": scalar(last_logits[last_true] - others.max()),
    }


@experiment("kl_penalty", M_("the KL-regularised optimum of alignment on the next-token distribution after batch "
                             "row 0: the reference π_ref is the lesson's model, the reward r is 1 for the token "
                             "π_ref ranks second and 0 for every other, and for each penalty strength β in "
                             "{betas} the policy maximising E_π[r] - β·KL(π ‖ π_ref) "
                             "is π(y) ∝ π_ref(y)·exp(r(y)/β): kl_penalty.ref (V,), kl_penalty.rewarded (1,) the "
                             "rewarded token id, kl_penalty.p_ref (1,) its reference probability, kl_penalty.reward "
                             "(V,), kl_penalty.betas (4,), kl_penalty.policy (4, V), kl_penalty.p_rewarded (4,) the "
                             "rewarded token's probability under each policy, kl_penalty.kl (4,) KL(π ‖ π_ref) in "
                             "nats, kl_penalty.objective (4,) = p_rewarded - β·KL, kl_penalty.log_z (4,) = "
                             "ln Σ π_ref·exp(r/β), so that objective = β·log_z; kl_penalty.ascent (V,) the β = 1 "
                             "policy found numerically instead, by L-BFGS on E_π[r] - β·KL(π ‖ π_ref) over the "
                             "policy's logits, starting from π_ref",
                             betas=", ".join(f"{b:g}" for b in BETAS)), passes=1, copies=1)
@one_torch_thread
def kl_penalty(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    with torch.no_grad():
        logits = context.model(tokens_on_device(context)[:1])[0, -1].double()         # (V,)
    ref = torch.softmax(logits, dim=-1)                                      # (V,)
    rewarded = int(ref.argsort(descending=True)[1])
    reward = torch.zeros_like(ref)
    reward[rewarded] = 1.0
    betas = torch.tensor(BETAS, dtype=torch.float64)                          # (4,)
    log_weights = torch.log_softmax(logits, dim=-1)[None] + reward[None] / betas[:, None]  # (4, V)
    policy = torch.softmax(log_weights, dim=-1)                               # (4, V)
    kl = (policy * (policy.clamp_min(1e-300).log() - ref.clamp_min(1e-300).log()[None])).sum(-1)  # (4,)
    p_rewarded = policy[:, rewarded]                                          # (4,)
    return {
        "kl_penalty.ref": to_numpy(ref),
        "kl_penalty.rewarded": scalar(rewarded),
        "kl_penalty.p_ref": scalar(ref[rewarded]),
        "kl_penalty.reward": to_numpy(reward),
        "kl_penalty.betas": to_numpy(betas),
        "kl_penalty.policy": to_numpy(policy),
        "kl_penalty.p_rewarded": to_numpy(p_rewarded),
        "kl_penalty.kl": to_numpy(kl),
        "kl_penalty.objective": to_numpy(p_rewarded - betas * kl),
        "kl_penalty.log_z": to_numpy(torch.logsumexp(log_weights, dim=-1)),
        "kl_penalty.ascent": to_numpy(_maximise_reward_minus_kl(ref, reward, beta=1.0)),
    }


def _maximise_reward_minus_kl(ref, reward, beta: float):
    """The policy that maximises E_π[r] − β·KL(π ‖ π_ref), found by climbing the objective itself
    rather than by the closed form: a lesson checks the closed form against it, so the two must
    not share arithmetic.  L-BFGS over free logits, from π_ref (where tuning starts); 50 steps
    reach the optimum to about 1e-7 on the shipped and on untrained models."""
    import torch

    log_ref = ref.clamp_min(1e-300).log()                                    # (V,)
    logits = log_ref.clone().requires_grad_(True)                            # (V,)
    search = torch.optim.LBFGS([logits], lr=1, max_iter=50, history_size=20, tolerance_grad=1e-14,
                               tolerance_change=1e-16, line_search_fn="strong_wolfe")

    def loss():
        search.zero_grad()
        log_pi = torch.log_softmax(logits, dim=-1)                           # (V,)
        pi = log_pi.exp()                                                    # (V,)
        value = -((pi * reward).sum() - beta * (pi * (log_pi - log_ref)).sum())
        value.backward()
        return value

    with torch.enable_grad():
        search.step(loss)
    return torch.softmax(logits.detach(), dim=-1)                            # (V,)
