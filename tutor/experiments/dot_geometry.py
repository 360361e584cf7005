"""Experiment: attention scores as geometry, and a product small enough to do by hand.

Why round the hand-sized block: the learner multiplies the numbers they see, so the truth is the
product of exactly those numbers (one decimal), not of the unrounded ones.  The geometric tensors
(lengths and angles) are computed from the model's own q and k, so a formula built from them and
compared with the model's scores checks the identity q·k = |q||k|cos θ, not the same product twice.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import probe_tensors, scalar, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


@experiment("qk_geometry", "block 0's queries and keys as lengths and angles: qk_geometry.q_len (B, H, L, 1) |q|, "
                           "qk_geometry.k_len (B, H, 1, L) |k|, qk_geometry.theta (B, H, L, L) the angle between "
                           "query i and key j in radians, qk_geometry.cos (B, H, L, L) its cosine (torch's "
                           "cosine_similarity); "
                           "qk_geometry.Q2 (2, 2) and qk_geometry.K2 (2, 2): features 0-1 of head 0, batch row 0, for "
                           "the last two queries and the first two keys, rounded to one decimal, and "
                           "qk_geometry.Q2_tenths, qk_geometry.K2_tenths (2, 2) the same entries in tenths (-3 for -0.3); qk_geometry.QK2 "
                           "(2, 2) = Q2 K2ᵀ; qk_geometry.pair (2,) the visible (query, key) of head 0, row 0, with "
                           "the widest angle, qk_geometry.pair_angle (1,) that angle in degrees, "
                           "qk_geometry.pair_q_len, qk_geometry.pair_k_len (1,) the two lengths, "
                           "qk_geometry.pair_score (1,) the model's score there, qk_geometry.pair_floor (1,) "
                           "-|q||k|/√d_k, the lowest score that query could give a key as long as that one (at 180°)",
            passes=1, copies=1,
            derived={"qk_geometry.theta": ("qk_geometry.cos",)})
@one_torch_thread
def qk_geometry(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    probes = probe_tensors(context)
    q, k = probes["blocks.0.attn.q"], probes["blocks.0.attn.k"]            # (B, H, L, D_head) each
    scores = probes["blocks.0.attn.scores"]                                 # (B, H, L, L)
    q_len = q.norm(dim=-1, keepdim=True)                                    # (B, H, L, 1)
    k_len = k.norm(dim=-1, keepdim=True).transpose(-2, -1)                  # (B, H, 1, L)
    # torch's cosine, pair by pair: the lesson asks the learner for (Q·Kᵀ)/(|q||k|), so the truth must not be that
    pairs = torch.nn.functional.cosine_similarity(q[..., :, None, :], k[..., None, :, :], dim=-1)  # (B, H, L, L)
    cos = pairs.clamp(-1.0, 1.0)                                            # (B, H, L, L)
    theta = torch.arccos(cos)                                               # (B, H, L, L)
    length = q.shape[2]
    visible = torch.ones(length, length, dtype=torch.bool).tril()           # (L, L) keys a query may see
    head0 = cos[0, 0].masked_fill(~visible, 2.0)                            # (L, L)
    i, j = divmod(int(head0.argmin()), length)
    q2 = torch.round(q[0, 0, -2:, 0:2], decimals=1) + 0.0                    # (2, 2); + 0.0 turns -0.0 into 0.0
    k2 = torch.round(k[0, 0, 0:2, 0:2], decimals=1) + 0.0                    # (2, 2)
    return {
        "qk_geometry.q_len": to_numpy(q_len),
        "qk_geometry.k_len": to_numpy(k_len),
        "qk_geometry.theta": to_numpy(theta),
        "qk_geometry.cos": to_numpy(cos),
        "qk_geometry.Q2": to_numpy(q2),
        "qk_geometry.K2": to_numpy(k2),
        # whole tenths for the prompt: a one-decimal entry (-0.1) can coincide with another answer
        # (obtuse-floor's −|q||k|/√d_k is about −0.10 on untrained weights); a digit 0-9 states none
        "qk_geometry.Q2_tenths": to_numpy(torch.round(q2 * 10) + 0.0),
        "qk_geometry.K2_tenths": to_numpy(torch.round(k2 * 10) + 0.0),
        "qk_geometry.QK2": to_numpy(q2 @ k2.T),
        "qk_geometry.pair": np.array([float(i), float(j)]),
        "qk_geometry.pair_angle": scalar(torch.rad2deg(theta[0, 0, i, j])),
        "qk_geometry.pair_q_len": scalar(q_len[0, 0, i, 0]),
        "qk_geometry.pair_k_len": scalar(k_len[0, 0, 0, j]),
        "qk_geometry.pair_score": scalar(scores[0, 0, i, j]),
        # the same two lengths at 180°: what turning the key (not lengthening it) can do at most
        "qk_geometry.pair_floor": scalar(-q_len[0, 0, i, 0] * k_len[0, 0, 0, j] / q.shape[-1] ** 0.5),
    }
