"""Experiments on permutations and positions: shuffled inputs, the sinusoidal table and its shifts."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import device_of, scalar, to_numpy, twin
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

PE_SHIFT = 3          # pe_shift: the shift k in PE(pos + k) = PE(pos) @ M_k

@experiment("shuffle", "the input with its first L-1 tokens reversed (the last stays put), run through the lesson's "
                       "weights with the position embeddings removed and with positions (the model's own, or "
                       "sinusoidal if it has none): shuffle.perm (L,), shuffle.P (L, L) with (P @ X)[i] = X[perm[i]]; "
                       "without positions: shuffle.q / .k / .v (B, H, L, D_head) block 0 on the original input, "
                       "shuffle.out / shuffle.out_shuffled (B, L, D) block 0's output (resid_post), "
                       "shuffle.same_token (B, L) 1 where a token's block-0 output survives the shuffle, "
                       "shuffle.last_change (B,) the largest change of the last position's block-0 output, "
                       "shuffle.last_change_deep (B,) the same after every block; with positions: "
                       "shuffle.last_change_pe (B,); unmasked attention softmax(QKᵀ/√d)V of block 0 without "
                       "positions: shuffle.full_z / shuffle.full_z_shuffled (B, H, L, D_head) for the original and the "
                       "shuffled input, shuffle.full_z_permuted = P @ full_z, shuffle.full_same (B, L)",
            passes=4.5, copies=2)
@one_torch_thread
def shuffled_input(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    tokens = context.tokens.cpu()                                            # (B, L)
    length = tokens.shape[1]
    perm = torch.cat([torch.arange(length - 2, -1, -1), torch.tensor([length - 1])])  # (L,)
    first, last = "blocks.0.resid_post", f"blocks.{model.config.n_layer - 1}.resid_post"
    no_pos = model if model.config.positions == "none" else twin(model, positions="none")
    with_pos = model if model.config.positions != "none" else twin(model, positions="sinusoidal")

    def run(net, ids):
        device = device_of(net)
        _, probes = run_with_probes(net, ids.to(device))
        return {name: t.detach().cpu().double() for name, t in probes.items()}

    def last_change(before, after, name):
        return (after[name][:, -1] - before[name][:, -1]).abs().amax(-1)    # (B,)

    before, after = run(no_pos, tokens), run(no_pos, tokens[:, perm])
    out, out_s = before[first], after[first]                                 # (B, L, D) each
    tol = 1e-5 * (1.0 + float(out.abs().max()))
    same = ((out_s - out[:, perm]).abs().amax(-1) <= tol).double()           # (B, L)
    pe_before, pe_after = run(with_pos, tokens), run(with_pos, tokens[:, perm])

    def full_attention(probes):
        q, k, v = (probes[f"blocks.0.attn.{n}"] for n in "qkv")              # (B, H, L, D_head) each
        weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)  # (B, H, L, L)
        return weights @ v                                                   # (B, H, L, D_head)

    full, full_s = full_attention(before), full_attention(after)
    tol = 1e-6 * (1.0 + float(full.abs().max()))
    full_same = ((full_s - full[:, :, perm]).abs().amax(dim=(1, 3)) <= tol).double()  # (B, L)
    return {
        "shuffle.perm": to_numpy(perm),
        "shuffle.P": torch.eye(length, dtype=torch.float64)[perm].numpy(),
        "shuffle.q": to_numpy(before["blocks.0.attn.q"]),
        "shuffle.k": to_numpy(before["blocks.0.attn.k"]),
        "shuffle.v": to_numpy(before["blocks.0.attn.v"]),
        "shuffle.out": to_numpy(out),
        "shuffle.out_shuffled": to_numpy(out_s),
        "shuffle.same_token": to_numpy(same),
        "shuffle.last_change": to_numpy(last_change(before, after, first)),
        "shuffle.last_change_deep": to_numpy(last_change(before, after, last)),
        "shuffle.last_change_pe": to_numpy(last_change(pe_before, pe_after, first)),
        "shuffle.full_z": to_numpy(full),
        "shuffle.full_z_shuffled": to_numpy(full_s),
        "shuffle.full_z_permuted": to_numpy(full[:, :, perm]),
        "shuffle.full_same": to_numpy(full_same),
    }


def _pe_table(model, length: int):
    """The model's own sinusoidal table when it has one, else model.gpt's formula: (L, D) float64."""
    from tutor.model import sinusoidal_table

    if model.config.positions == "sinusoidal" and length <= model.pe_table.shape[0]:
        return model.pe_table[:length].detach().cpu().double()
    return sinusoidal_table(length, model.config.d_model).double()


@experiment("sinusoid", "the sinusoidal table's parts for L positions: sinusoid.pos (L, 1) = 0..L-1, "
                        "sinusoid.i (ceil(D/2),) = 0, 1, 2, ... the pair index, "
                        "sinusoid.sin (L, ceil(D/2)) the even columns, "
                        "sinusoid.cos (L, D/2) the odd columns, sinusoid.table (L, D), "
                        "sinusoid.similarity (L,) the dot product PE(0)·PE(pos) of each position with position 0, "
                        "sinusoid.pair_gap (L, D/2) the distance between position pos and position 0 within each "
                        "(sin, cos) pair", passes=1, copies=1)
def sinusoid_parts(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    length, d_model = context.tokens.shape[1], context.model.config.d_model
    table = _pe_table(context.model, length)                                 # (L, D)
    paired = table[:, : 2 * (d_model // 2)].reshape(length, d_model // 2, 2)  # (L, D/2, 2) (sin, cos)
    pairs = paired - paired[:1]                                              # (L, D/2, 2) minus position 0
    return {
        "sinusoid.pos": torch.arange(length, dtype=torch.float64)[:, None].numpy(),
        "sinusoid.i": torch.arange((d_model + 1) // 2, dtype=torch.float64).numpy(),
        "sinusoid.sin": to_numpy(table[:, 0::2]),
        "sinusoid.cos": to_numpy(table[:, 1::2]),
        "sinusoid.table": to_numpy(table),
        "sinusoid.similarity": to_numpy(table @ table[0]),                  # (L,)
        "sinusoid.pair_gap": to_numpy(pairs.norm(dim=-1)),                  # (L, D/2)
    }


@experiment("pe_shift", M_("the shift PE(pos + k) = PE(pos) @ M_k for k = {k}: pe_shift.k (1,), pe_shift.M (D, D) "
                           "block-diagonal 2x2 rotations [[cos kw, -sin kw], [sin kw, cos kw]] (even D), "
                           "pe_shift.shifted (L, D) = PE(pos + k) for pos = 0..L-1, pe_shift.rotated (L, D) = "
                           "PE(pos) @ M_k, pe_shift.omega (D/2,) the angular rates w = 1/10000^(2i/D), "
                           "pe_shift.period (D/2,) = 2π/w, how many positions each pair takes for a full turn",
                           k=PE_SHIFT),
            passes=1, copies=1, derived={"pe_shift.period": ("pe_shift.omega",)})
def pe_shift(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    length, d_model = context.tokens.shape[1], context.model.config.d_model
    table = _pe_table(context.model, length + PE_SHIFT)                      # (L + k, D)
    omega = 1.0 / torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (ceil(D/2),)
    rotation = torch.zeros(d_model, d_model, dtype=torch.float64)            # (D, D)
    for j in range(d_model // 2):
        c, s = math.cos(PE_SHIFT * float(omega[j])), math.sin(PE_SHIFT * float(omega[j]))
        rotation[2 * j: 2 * j + 2, 2 * j: 2 * j + 2] = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    return {
        "pe_shift.k": scalar(PE_SHIFT),
        "pe_shift.M": to_numpy(rotation),
        "pe_shift.shifted": to_numpy(table[PE_SHIFT:]),
        "pe_shift.rotated": to_numpy(table[:length] @ rotation),
        "pe_shift.omega": to_numpy(omega[: d_model // 2]),
        "pe_shift.period": to_numpy(2 * math.pi / omega[: d_model // 2]),
    }
