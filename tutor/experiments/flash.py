"""Experiment: FlashAttention's tiling, the online softmax that makes it exact.

Why replay it on the model's own scores: the claim worth checking is that a softmax computed a tile
of keys at a time, with a running max and a rescaled running sum, gives the model's attention
output exactly, not approximately.  The loop below never holds more than one tile of scores per
query, which is the whole point of the method.  ``flash.l_direct`` is computed beside the loop, over
every key seen so far at once, so a question that asks for the running update is graded against the
plain softmax sum and not against the update redone.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import probe_tensors, scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

TILE = 4   # keys per tile (FlashAttention's block size B_c, tiny so that a short input has several)


@experiment("flash", M_("block 0's attention recomputed in tiles of flash.tile (1,) = {tile} keys with the online "
                        "softmax: flash.z (B, H, L, D_head) the tiled output; flash.max_diff (1,) its largest "
                        "difference from the model's z; for the last query of head 0, batch row 0: flash.tile_max and "
                        "flash.tile_sum (n_tiles,) each tile's own max and its sum of e^(s - tile max), flash.m and "
                        "flash.l (n_tiles,) the running max and running sum after each tile, flash.l_direct "
                        "(n_tiles,) the same sums taken in one go over every key seen so far (torch's logsumexp, "
                        "no running update), flash.m_final and "
                        "flash.l_final (1,); flash.held_full (1,) = L*L scores per head at once without tiling, "
                        "flash.held_tiled (1,) = L*tile with it",
                        tile=TILE), passes=1, copies=1,
            derived={"flash.l": ("flash.tile_sum", "flash.tile_max", "flash.m")})
@one_torch_thread
def flash_attention(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    probes = probe_tensors(context)
    masked = probes["blocks.0.attn.masked_scores"]                          # (B, H, L, L)
    v = probes["blocks.0.attn.v"]                                           # (B, H, L, D_head)
    batch, n_head, length, _ = masked.shape
    m = torch.full((batch, n_head, length, 1), float("-inf"), dtype=torch.float64)   # running max
    l = torch.zeros(batch, n_head, length, 1, dtype=torch.float64)          # running sum of e^(s - m)
    acc = torch.zeros_like(v)                                               # running Σ e^(s - m)·v
    trace = {"tile_max": [], "tile_sum": [], "m": [], "l": [], "l_direct": []}
    for start in range(0, length, TILE):
        s = masked[..., start:start + TILE]                                  # (B, H, L, tile)
        tile_max = s.amax(dim=-1, keepdim=True)                             # (B, H, L, 1)
        new_m = torch.maximum(m, tile_max)                                  # (B, H, L, 1)
        safe_m = torch.where(torch.isinf(new_m), torch.zeros_like(new_m), new_m)  # a query that sees no key yet
        p = torch.exp(s - safe_m)                                           # (B, H, L, tile), 0 where masked
        rescale = torch.exp(m - safe_m)                                     # (B, H, L, 1): old sums to the new max
        l = l * rescale + p.sum(dim=-1, keepdim=True)
        acc = acc * rescale + p @ v[:, :, start:start + TILE]               # (B, H, L, D_head)
        m = new_m
        last = s[0, 0, -1]                                                   # (tile,) the traced query
        trace["tile_max"].append(last.max())
        trace["tile_sum"].append(torch.exp(last - last.max()).sum())
        trace["m"].append(m[0, 0, -1, 0])
        trace["l"].append(l[0, 0, -1, 0])
        seen = masked[0, 0, -1, :start + TILE]                              # (keys so far,) the traced query
        trace["l_direct"].append(torch.exp(torch.logsumexp(seen, dim=-1) - seen.max()))
    z = acc / l                                                             # (B, H, L, D_head)
    out = {f"flash.{name}": to_numpy(torch.stack(values)) for name, values in trace.items()}
    return out | {
        "flash.tile": scalar(TILE),
        "flash.z": to_numpy(z),
        "flash.max_diff": scalar((z - probes["blocks.0.attn.z"]).abs().max()),
        "flash.m_final": scalar(m[0, 0, -1, 0]),
        "flash.l_final": scalar(l[0, 0, -1, 0]),
        "flash.held_full": scalar(length * length),
        "flash.held_tiled": scalar(length * min(TILE, length)),
    }
