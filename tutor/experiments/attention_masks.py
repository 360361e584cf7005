"""The padding mask beside the causal one, built on the live model's own attention scores.

The model has no padding support (every training row has one length), so the experiment does
what a batched implementation does: it pads the shorter text, builds the combined mask and
applies it to block 0's real scores.  It pads on the left, as batched generation does (every
row's last token then sits at the end), because that is where the causal mask alone is not
enough: with padding on the right, real queries never see the pads anyway.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import attention_weights, device_of, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

PAD_CHAR = " "        # the id written into pad positions; the mask, not the id, hides them


def padded_batch(tokens, pad_id: int):
    """Two rows from the lesson's input: row 0 whole (L tokens), row 1 cut to L - L//2 tokens and
    padded on the left back to L.  Returns (ids (2, L), real-key mask (2, L), pad count P)."""
    import torch

    length = tokens.shape[1]
    n_pad = length // 2
    first = tokens[0]                                                        # (L,)
    second = tokens[1] if tokens.shape[0] > 1 else tokens[0]                 # (L,)
    short = second[: length - n_pad]                                         # (L - P,)
    pads = torch.full((n_pad,), pad_id, dtype=tokens.dtype, device=tokens.device)
    ids = torch.stack([first, torch.cat([pads, short])])                     # (2, L)
    key_real = torch.ones(2, length, dtype=torch.float64)                    # (2, L)
    key_real[1, :n_pad] = 0.0
    return ids, key_real, n_pad


@experiment("padding", "a padded batch on block 0's real scores: row 0 is the lesson's row 0 (L tokens), "
                       "row 1 its row 1 (row 0 if B = 1) cut to L - P tokens and padded on the LEFT with "
                       "P = L // 2 pad tokens (' '): padding.tokens (2, L), padding.lengths (2,), "
                       "padding.n_pad (1,) = P, padding.key_real (2, L) 1 = real token, 0 = pad, "
                       "padding.causal (L, L) 1 = key not in the future, padding.mask (2, L, L) = causal AND "
                       "key_real (1 = may attend), padding.bias (2, L, L) 0 or -inf, padding.scores "
                       "(2, H, L, L) Q·Kᵀ/√d_k of block 0 on the padded batch, padding.masked (2, H, L, L) "
                       "= scores + bias, padding.pattern (2, H, L, L) its softmax, by torch's own "
                       "scaled_dot_product_attention on q, k and the mask (rows that may see no key are 0), "
                       "padding.unguarded (2, H, L, L) torch.softmax of padding.masked as it is (a row of only "
                       "-inf stays nan), padding.causal_pattern (2, H, L, L) the softmax with the causal mask only, "
                       "padding.leak / padding.leak_masked (2, H, L) the weight each query puts on pad keys "
                       "without / with the padding mask, padding.empty_rows (2, L) 1 where a query may see "
                       "no key at all, padding.alone (H, L - P) block 0's weights of row 1's last query on "
                       "its L - P real tokens run alone, padding.gap / padding.shifted_gap (H,) the largest "
                       "|difference| between those and the padded, masked row's weights on its real keys, "
                       "with the usual positions / with position ids shifted back by P as real code does",
            passes=1, copies=1,
            derived={"padding.masked": ("padding.scores", "padding.bias")})
@one_torch_thread
def padding(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    device = device_of(model)
    pad_id = context.tokenizer.encode(PAD_CHAR)[0]
    ids, key_real, n_pad = padded_batch(context.tokens.cpu(), pad_id)       # (2, L), (2, L)
    length = ids.shape[1]
    with torch.no_grad():
        _, probes = run_with_probes(model, ids.to(device))
    scores = probes["blocks.0.attn.scores"].detach().cpu().double()         # (2, H, L, L)
    causal = torch.ones(length, length, dtype=torch.float64).tril()          # (L, L)
    mask = causal[None] * key_real[:, None, :]                               # (2, L, L)
    bias = torch.zeros_like(mask).masked_fill(mask == 0, float("-inf"))      # (2, L, L)
    masked = scores + bias[:, None]                                          # (2, H, L, L)
    empty = (mask.sum(-1) == 0).double()                                     # (2, L)
    q, k = (probes[f"blocks.0.attn.{n}"].detach().cpu().double() for n in "qk")  # (2, H, L, D_head) each
    pattern = attention_weights(q, k, (mask == 1)[:, None])                  # (2, H, L, L); 0/0 rows -> 0
    causal_bias = torch.zeros_like(causal).masked_fill(causal == 0, float("-inf"))  # (L, L)
    causal_pattern = torch.softmax(scores + causal_bias, dim=-1)             # (2, H, L, L)
    pad_keys = (1.0 - key_real)[:, None, None, :]                            # (2, 1, 1, L)
    shifted_pattern = torch.softmax(shifted_scores(model, ids.to(device), n_pad) + bias[:, None],
                                    dim=-1).nan_to_num(0.0)                  # (2, H, L, L)
    with torch.no_grad():
        _, alone_probes = run_with_probes(model, ids[1:, n_pad:].to(device))
    alone = alone_probes["blocks.0.attn.pattern"][0, :, -1].detach().cpu().double()  # (H, L - P)
    return {
        "padding.tokens": to_numpy(ids.double()),
        "padding.lengths": np.array([float(length), float(length - n_pad)]),
        "padding.n_pad": np.array([float(n_pad)]),
        "padding.key_real": to_numpy(key_real),
        "padding.causal": to_numpy(causal),
        "padding.mask": to_numpy(mask),
        "padding.bias": to_numpy(bias),
        "padding.scores": to_numpy(scores),
        "padding.masked": to_numpy(masked),
        "padding.pattern": to_numpy(pattern),
        "padding.unguarded": to_numpy(torch.softmax(masked, dim=-1)),            # (2, H, L, L); nan rows kept
        "padding.causal_pattern": to_numpy(causal_pattern),
        "padding.leak": to_numpy((causal_pattern * pad_keys).sum(-1)),            # (2, H, L)
        "padding.leak_masked": to_numpy((pattern * pad_keys).sum(-1)),            # (2, H, L)
        "padding.empty_rows": to_numpy(empty),
        "padding.alone": to_numpy(alone),
        "padding.gap": to_numpy((pattern[1, :, -1, n_pad:] - alone).abs().amax(-1)),               # (H,)
        "padding.shifted_gap": to_numpy((shifted_pattern[1, :, -1, n_pad:] - alone).abs().amax(-1)),  # (H,)
    }


def shifted_scores(model, ids, n_pad: int):
    """Block 0's scores with row 1's position ids shifted back by the pad count, as batched code
    does (position = real tokens before it): its real tokens then get the positions they would
    have alone, so the pads leave no trace once masked.  Pads get position 0; the mask hides them."""
    import math

    import torch

    length = ids.shape[1]
    positions = torch.arange(length, device=ids.device).repeat(2, 1)       # (2, L)
    positions[1] = (positions[1] - n_pad).clamp(min=0)
    with torch.no_grad():
        x = model.W_E(ids)                                                   # (2, L, D)
        table = model.position_embedding(0, length, ids.device)              # (L, D) or None
        if table is not None:
            x = x + table[positions]                                         # (2, L, D)
        attn = model.blocks[0].attn
        h = model.blocks[0].ln1(x)                                           # (2, L, D)
        q, k = attn.split_heads(attn.W_Q(h)), attn.split_heads(attn.W_K(h))  # (2, H, L, D_head)
        scores = q @ k.transpose(-2, -1) / math.sqrt(attn.d_head)            # (2, H, L, L)
    return scores.detach().cpu().double()
