"""Experiment: mutual information between neighbouring characters of the built-in prose.

Why counts over the whole corpus rather than the lesson's rows: mutual information is a property of
a joint distribution, and the built-in prose (the text model's training data) is the largest sample
the app has.  I is computed once as the KL divergence between the joint and the product of the
marginals, and the entropies separately from their own tables, so that a lesson can derive one from
the others and the check compares two different computations.  The shuffled corpus keeps every
character's frequency and destroys only the order: its I is what independence gives on a finite
sample.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

GAPS = (1, 2, 4, 8, 16)   # distances between the two characters of a pair, for mi.by_gap
CE_WINDOWS = 16        # mi.model_ce: held-out windows the lesson's model is scored on
CE_WIDTH = 64          # ... each this many characters (at most the block size)


def _joint(ids, vocab: int, gap: int = 1):
    """p(x, y) (V, V) of the character at t and the one at t + gap."""
    import torch

    counts = torch.bincount(ids[:-gap] * vocab + ids[gap:], minlength=vocab * vocab)   # (V*V,)
    return (counts.double() / counts.sum()).view(vocab, vocab)


def _entropy(p):
    """-Σ p log p in nats over every axis, with 0 log 0 = 0."""
    import torch

    return -torch.where(p > 0, p * torch.log(p), torch.zeros_like(p)).sum()


def conditional_entropy(joint):
    """H(Y|X) = Σ_x p(x)·H(p(y|x)) in nats, from the rows of p(x, y) (x indexes rows): measured from
    the conditional tables themselves, not as H(X, Y) − H(X), so that a lesson's symmetry is seen."""
    import torch

    px = joint.sum(1, keepdim=True)                                          # (V, 1)
    conditional = torch.where(px > 0, joint / px.clamp_min(1e-300), torch.zeros_like(joint))   # (V, V) p(y|x)
    row_entropy = -torch.where(conditional > 0, conditional * torch.log(conditional),
                               torch.zeros_like(conditional)).sum(1)          # (V,)
    return (px.squeeze(1) * row_entropy).sum()


def kl_information(joint):
    """I(X; Y) = KL(p(x, y) ‖ p(x)p(y)) in nats."""
    import torch

    product = joint.sum(1, keepdim=True) * joint.sum(0, keepdim=True)       # (V, V)
    seen = joint > 0
    return (joint[seen] * torch.log(joint[seen] / product[seen])).sum()


@experiment("mi", M_("mutual information between neighbouring characters of the built-in prose, in nats: mi.joint "
                     "(V, V) p(x, y) of a character x and the next one y; mi.px, mi.py (V,) the marginals; mi.H_x, "
                     "mi.H_y, mi.H_xy (1,) entropies of X, Y and the pair; mi.H_x_given_y, mi.H_y_given_x (1,) the "
                     "conditional entropies, each Σ p(condition)·H(p(·|condition)) from its own conditional table; mi.I (1,) KL(p(x, y) ‖ p(x)p(y)); mi.I_from_x (1,) H(X) − H(X|Y), "
                     "mi.I_from_y (1,) H(Y) − H(Y|X); mi.I_shuffled (1,) I of the same corpus after a seeded "
                     "shuffle; mi.gaps (5,) = {gaps} and mi.by_gap (5,) I between characters that many apart; "
                     "mi.gap_ratio (5,) mi.by_gap over I; mi.ratio (1,) I over H(Y): the share of the next "
                     "character's uncertainty that the current one removes; mi.asymmetry (1,) (H(Y) − H(Y|X)) − "
                     "(H(X) − H(X|Y)) and mi.asymmetry_abs (1,) its size; mi.model_ce (1,) the lesson's model's mean "
                     "-ln p of each next character over {windows} windows of {width} characters from the last tenth "
                     "of the prose (which the text model never trained on), each predicted from the characters "
                     "before it in its window; mi.context_gain (1,) = H(Y|X) - mi.model_ce",
                     gaps=GAPS, windows=CE_WINDOWS, width=CE_WIDTH), passes=1.5, copies=1,
            derived={"mi.px": ("mi.joint",), "mi.py": ("mi.joint",), "mi.H_x": ("mi.px",), "mi.H_y": ("mi.py",),
                     "mi.H_xy": ("mi.joint",), "mi.H_x_given_y": ("mi.joint",),
                     "mi.H_y_given_x": ("mi.joint",), "mi.I": ("mi.joint", "mi.px", "mi.py"),
                     "mi.I_from_x": ("mi.H_x", "mi.H_x_given_y"), "mi.I_from_y": ("mi.H_y", "mi.H_y_given_x"),
                     "mi.ratio": ("mi.I", "mi.H_y"), "mi.gap_ratio": ("mi.by_gap",),
                     "mi.asymmetry": ("mi.I_from_x", "mi.I_from_y"), "mi.asymmetry_abs": ("mi.asymmetry",)})
@one_torch_thread
def mutual_information(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.data import builtin_text

    ids = torch.tensor(context.tokenizer.encode(builtin_text()), dtype=torch.long)   # (N,)
    vocab = context.model.config.vocab_size
    joint = _joint(ids, vocab)                                               # (V, V)
    px, py = joint.sum(1), joint.sum(0)                                      # (V,), (V,)
    h_x, h_y, h_xy = _entropy(px), _entropy(py), _entropy(joint)
    generator = torch.Generator().manual_seed(context.seed)
    shuffled = ids[torch.randperm(ids.numel(), generator=generator)]         # (N,) same counts, no order
    information = kl_information(joint)
    by_gap = np.array([float(kl_information(_joint(ids, vocab, gap))) for gap in GAPS])   # (5,)
    h_y_given_x, h_x_given_y = conditional_entropy(joint), conditional_entropy(joint.T)
    asymmetry = float((h_y - h_y_given_x) - (h_x - h_x_given_y))
    model_ce = _held_out_cross_entropy(context, ids)
    return {
        "mi.joint": to_numpy(joint),
        "mi.px": to_numpy(px),
        "mi.py": to_numpy(py),
        "mi.H_x": scalar(h_x),
        "mi.H_y": scalar(h_y),
        "mi.H_xy": scalar(h_xy),
        "mi.H_x_given_y": scalar(h_x_given_y),
        "mi.H_y_given_x": scalar(h_y_given_x),
        "mi.I": scalar(information),
        "mi.I_from_x": scalar(h_x - h_x_given_y),
        "mi.I_from_y": scalar(h_y - h_y_given_x),
        "mi.I_shuffled": scalar(kl_information(_joint(shuffled, vocab))),
        "mi.gaps": np.array(GAPS, dtype=np.float64),
        "mi.by_gap": by_gap,
        "mi.ratio": scalar(information / h_y),
        "mi.asymmetry": scalar(asymmetry),
        "mi.asymmetry_abs": scalar(abs(asymmetry)),
        "mi.gap_ratio": by_gap / by_gap[0],
        "mi.model_ce": scalar(model_ce),
        "mi.context_gain": scalar(h_y_given_x - model_ce),
    }


def _held_out_cross_entropy(context: ExperimentContext, ids):
    """The lesson's model on windows from the last tenth of the prose: mean -ln p(next character)."""
    import torch
    import torch.nn.functional as F

    width = min(CE_WIDTH, context.model.config.block_size)
    start = int(ids.numel() * 0.9)
    windows = torch.stack([ids[start + i * width: start + (i + 1) * width] for i in range(CE_WINDOWS)])  # (W, width)
    device = next(context.model.parameters()).device
    with torch.no_grad():
        logits = context.model(windows.to(device))[:, :-1].double().cpu()     # (W, width-1, V)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), windows[:, 1:].reshape(-1))
