"""Static against contextual embeddings: one token, several contexts, the residual stream.

A word2vec-style table gives a token one vector whatever surrounds it; that is W_E's row.  A
Transformer's residual stream starts there and then mixes in the context, block by block.  The
experiment puts the same token at the end of every batch row (the rows keep their own
contexts) and follows that last position's vector through the blocks.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import device_of, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

SAME = 1e-9   # two vectors count as one when they differ by less than this (relative)


def distinct_rows(vectors) -> int:
    """How many different vectors there are among the rows of ``vectors`` (B, D)."""
    kept: list = []
    for row in vectors:
        scale = 1.0 + float(row.abs().max())
        if not any(float((row - other).abs().max()) <= SAME * scale for other in kept):
            kept.append(row)
    return len(kept)


@experiment("contextual", "one token in B contexts: every row's last token is replaced by row 0's last token "
                          "t (the rows keep their own earlier tokens), and that position is followed through "
                          "the residual stream; stage 0 is the stream entering block 0 (W_E[t] plus the "
                          "position), stage i the stream after block i-1 (N + 1 stages): "
                          "contextual.tokens (B, L) the input used, contextual.token (1,) = t, "
                          "contextual.static (D,) = W_E[t], contextual.embed (B, D) the lookup W_E[t] in "
                          "each row, contextual.stream (N+1, B, D), contextual.cos_static (N+1, B) the cosine "
                          "of each stage's vector with W_E[t], contextual.cos_rows (N+1,) the mean cosine "
                          "between the rows' vectors (1 when B = 1), contextual.distinct (N+1,) how many "
                          "different vectors the B rows give at each stage, contextual.distinct_embed (1,) "
                          "the same for the lookup alone",
            passes=1, copies=1,
            derived={"contextual.cos_static": ("contextual.stream", "contextual.static"),
                     "contextual.cos_rows": ("contextual.stream",)})
@one_torch_thread
def contextual(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    from tutor.model import run_with_probes

    model = context.model
    tokens = context.tokens.cpu().clone()                                    # (B, L)
    token = int(tokens[0, -1])
    tokens[:, -1] = token
    with torch.no_grad():
        _, probes = run_with_probes(model, tokens.to(device_of(model)))
    n_layer = model.config.n_layer
    names = ["blocks.0.resid_pre"] + [f"blocks.{i}.resid_post" for i in range(n_layer)]
    stream = torch.stack([probes[n][:, -1].cpu().double() for n in names])  # (N+1, B, D)
    static = model.W_E.weight[token].detach().cpu().double()                 # (D,)
    embed = probes["embed"][:, -1].cpu().double()                            # (B, D)
    cos_static = F.cosine_similarity(stream, static.expand_as(stream), dim=-1)  # (N+1, B)
    unit = F.normalize(stream, dim=-1)                                       # (N+1, B, D)
    gram = unit @ unit.transpose(-2, -1)                                     # (N+1, B, B)
    batch = stream.shape[1]
    off_diagonal = ~torch.eye(batch, dtype=torch.bool)
    cos_rows = gram[:, off_diagonal].mean(-1) if batch > 1 else torch.ones(n_layer + 1, dtype=torch.float64)
    return {
        "contextual.tokens": to_numpy(tokens.double()),
        "contextual.token": np.array([float(token)]),
        "contextual.static": to_numpy(static),
        "contextual.embed": to_numpy(embed),
        "contextual.stream": to_numpy(stream),
        "contextual.cos_static": to_numpy(cos_static),
        "contextual.cos_rows": to_numpy(cos_rows),
        "contextual.distinct": np.array([float(distinct_rows(stage)) for stage in stream]),
        "contextual.distinct_embed": np.array([float(distinct_rows(embed))]),
    }
