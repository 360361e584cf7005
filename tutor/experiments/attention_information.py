"""Experiment: mutual information between a query's position and the key its attention picks.

Why this joint: a head's pattern row A[i] is a distribution over keys for query i, so with the query
position drawn uniformly the pattern is a joint p(i, j) = A[i, j] / L, and I(Q; K) says how much
knowing the query tells about where its weight goes.  The causal mask alone already ties the two
(query i can only pick keys 0..i), so the same number for a head that spreads every row evenly is
given beside it: what a head adds beyond the mask is the difference.  Pointwise mutual information
ln(A[i, j] / p(j)) divides a weight by how much weight key j gets from every query, which is where
the claim "a larger weight means more shared information" can fail: a key that every query reads
gets a large weight and a small PMI.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import probe_tensors, scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


def _information(pattern):
    """I(Q; K) in nats for each head of one row's (H, L, L) pattern, the query uniform over L."""
    import torch

    plogp = torch.where(pattern > 0, pattern * torch.log(pattern), torch.zeros_like(pattern))   # (H, L, L)
    row_entropy = -plogp.sum(-1).mean(-1)                                    # (H,) H(K | Q)
    key = pattern.mean(-2)                                                   # (H, L) p(j)
    key_entropy = -torch.where(key > 0, key * torch.log(key), torch.zeros_like(key)).sum(-1)   # (H,) H(K)
    return key_entropy - row_entropy, key                                    # (H,), (H, L)


@experiment("attn_mi", M_("mutual information between a query's position and the key position its attention "
                          "weight picks, block 0, batch row 0, the query uniform over the L positions, in nats: "
                          "attn_mi.I (H,) for each head, I(Q; K) = H(K) - H(K|Q) with p(i, j) = A[i, j] / L; "
                          "attn_mi.uniform (1,) the same for a head that spreads every query evenly over the keys "
                          "the causal mask lets it see; attn_mi.max (1,) = ln L, the most possible; "
                          "attn_mi.key_share (H, L) p(j), the mean weight each key gets; attn_mi.pmi (H, L, L) "
                          "ln(A[i, j] / p(j)), -inf where masked; attn_mi.top_weight and attn_mi.top_pmi (H, L) "
                          "the key with the largest weight and the key with the largest PMI at each query; "
                          "attn_mi.agree (H,) how many of the L queries they are the same key"),
            passes=1, copies=1)
@one_torch_thread
def attention_information(context: ExperimentContext) -> dict[str, np.ndarray]:
    import math

    import torch

    pattern = probe_tensors(context)["blocks.0.attn.pattern"][0]             # (H, L, L)
    length = pattern.shape[-1]
    information, key = _information(pattern)                                 # (H,), (H, L)
    visible = torch.ones(length, length, dtype=torch.bool).tril()           # (L, L) causal
    even = visible.double() / visible.sum(-1, keepdim=True)                  # (L, L) 1/(i+1) on keys 0..i
    uniform, _ = _information(even[None])                                    # (1,)
    seen = visible & (pattern > 0)                                           # (H, L, L)
    pmi = torch.where(seen, torch.log(pattern.clamp_min(1e-300) / key[:, None, :].clamp_min(1e-300)),
                      torch.full_like(pattern, -math.inf))                   # (H, L, L)
    top_weight = torch.where(visible, pattern, torch.full_like(pattern, -1.0)).argmax(-1)   # (H, L)
    top_pmi = pmi.argmax(-1)                                                 # (H, L)
    return {
        "attn_mi.I": to_numpy(information),
        "attn_mi.uniform": to_numpy(uniform),
        "attn_mi.max": scalar(math.log(length)),
        "attn_mi.key_share": to_numpy(key),
        "attn_mi.pmi": to_numpy(pmi),
        "attn_mi.top_weight": to_numpy(top_weight.double()),
        "attn_mi.top_pmi": to_numpy(top_pmi.double()),
        "attn_mi.agree": to_numpy((top_weight == top_pmi).sum(-1).double()),
    }
