"""Experiment: word2vec's two objectives, CBOW and Skip-gram, on one row of characters.

Why the text model's own W_E as the embedding table (used for input and output alike): it is a real
table of character embeddings and nothing needs training here.  It was not trained for word2vec, so
its predictions are close to uniform (p(centre) ≈ 1/V): the lesson asks about the objectives'
structure, which does not depend on the table's quality.  The one quantity a lesson derives, the gradient CBOW's loss sends to each context embedding,
comes from autograd on a private copy of the table, not from the arithmetic a formula would redo.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

WINDOW = 3   # context characters on each side of the centre


def skipgram_pairs(length: int, window: int) -> int:
    """(centre, context) pairs when every position is a centre and windows stop at the row's ends."""
    return sum(min(window, t) + min(window, length - 1 - t) for t in range(length))


@experiment("w2v", M_("word2vec on row 0 with a window of {window} characters each side, the model's W_E as the "
                      "embedding table: w2v.window (1,); w2v.centre (1,) the token at position L//2; w2v.context_ids "
                      "(2w,) the characters around it; w2v.n (1,) = 2w; w2v.context (2w, D) their rows of W_E; w2v.h "
                      "(D,) their mean (CBOW's hidden vector); w2v.cbow_scores (V,) h·W_Eᵀ; w2v.cbow_p (V,) their "
                      "softmax; w2v.y (V,) the centre as one-hot; w2v.grad_context (2w, D) autograd's gradient of "
                      "CBOW's loss −log p(centre) at each context row; w2v.sg_p (2w, V) Skip-gram's distribution "
                      "for each context slot, from the centre's row; w2v.sg_distinct (1,) how many different rows "
                      "w2v.sg_p has; w2v.reversed_change (1,) the largest change of the CBOW scores when the context "
                      "is read in reverse order; w2v.cbow_pairs / w2v.sg_pairs (1,) the (input, target) examples "
                      "each objective makes from row 0 when every position is a centre and windows stop at the "
                      "ends; w2v.top_where (1,) where CBOW's most probable character comes from: 0 the centre, 1 a "
                      "context character, 2 neither; w2v.context_p (2w,) CBOW's probability of each context "
                      "character", window=WINDOW),
            passes=1, copies=1,
            derived={"w2v.h": ("w2v.context",), "w2v.cbow_scores": ("w2v.h", "w2v.context"),
                     "w2v.cbow_p": ("w2v.cbow_scores", "w2v.h", "w2v.context")})
@one_torch_thread
def word2vec(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    table = context.model.W_E.weight.detach().cpu().double()                  # (V, D)
    row = context.tokens[0].cpu()                                             # (L,)
    length = row.shape[0]
    if length < 2 * WINDOW + 1:
        raise ValueError(M_("w2v needs rows of at least {needed} characters, not {length}", needed=2 * WINDOW + 1,
                             length=length))
    t = length // 2
    around = torch.cat([row[t - WINDOW:t], row[t + 1:t + 1 + WINDOW]])        # (2w,)
    leaf = table[around].clone().requires_grad_(True)                         # (2w, D) the input side
    with torch.enable_grad():
        h = leaf.mean(dim=0)                                                  # (D,)
        scores = h @ table.T                                                  # (V,) the output side is W_E too
        loss = -torch.log_softmax(scores, dim=-1)[row[t]]
        grad = torch.autograd.grad(loss, leaf)[0]                             # (2w, D)
    sg_p = torch.softmax(table[row[t]] @ table.T, dim=-1).expand(2 * WINDOW, -1)   # (2w, V) same input each slot
    reversed_scores = table[around.flip(0)].mean(dim=0) @ table.T             # (V,)
    y = torch.nn.functional.one_hot(row[t], table.shape[0]).double()          # (V,)
    top = int(scores.argmax())
    # with one table, a context character's own |e|² sits inside h·e: the question is whether that wins
    top_where = 0 if top == int(row[t]) else 1 if top in around.tolist() else 2
    return {
        "w2v.window": scalar(WINDOW),
        "w2v.centre": scalar(row[t]),
        "w2v.context_ids": to_numpy(around),
        "w2v.n": scalar(2 * WINDOW),
        "w2v.context": to_numpy(leaf),
        "w2v.h": to_numpy(h),
        "w2v.cbow_scores": to_numpy(scores),
        "w2v.cbow_p": to_numpy(torch.softmax(scores, dim=-1)),
        "w2v.y": to_numpy(y),
        "w2v.grad_context": to_numpy(grad),
        "w2v.sg_p": to_numpy(sg_p),
        "w2v.sg_distinct": scalar(torch.unique(sg_p, dim=0).shape[0]),
        "w2v.reversed_change": scalar((reversed_scores - scores).abs().max()),
        "w2v.cbow_pairs": scalar(length),
        "w2v.sg_pairs": scalar(skipgram_pairs(length, WINDOW)),
        "w2v.top_where": scalar(top_where),
        "w2v.context_p": to_numpy(torch.softmax(scores, dim=-1)[around]),
    }
