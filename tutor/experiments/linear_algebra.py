"""Experiments for the linear-algebra track: embedding lookups, SVD, dot-product variance, the MLP without its nonlinearity."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import digit_ids, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


UNSEEN = "é€日?"   # outside the vocabulary (an accent, a currency sign, a CJK character), then '?'


@experiment("embedding", "token ids and their one-hot rows next to the embedding lookup: "
                         "embedding.ids (B, L), embedding.one_hot (B, L, V), embedding.lookup (B, L, D); "
                         "cosine tables of the digits 0-9: embedding.digit_onehot_cos (10, 10), "
                         "embedding.digit_cos (10, 10) from W_E (torch's cosine_similarity), embedding.digit_W_E (10, D), "
                         "embedding.digit_norm (10, 1) the length of each digit's row, "
                         "embedding.digit_nearest (10,) each digit's most similar other digit (largest cosine); "
                         "embedding.digit_neighbours (1,) how many digits have that nearest digit one away "
                         "on the number line (d - 1 or d + 1); "
                         "embedding.onehot_macs / embedding.lookup_macs (1,) multiply-adds torch's FlopCounterMode "
                         "counts for row 0 as one_hot[0] @ W_E and as the lookup W_E[ids[0]] (half its FLOPs); "
                         "embedding.unseen_ids (4,) the ids the model's tokenizer gives 'é', '€', '日' and '?'",
            passes=1, copies=1, derived={"embedding.digit_nearest": ("embedding.digit_cos",),
                                         "embedding.digit_neighbours": ("embedding.digit_cos",)})
@one_torch_thread
def embedding_lookup(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)                                               # (B, L)
    vocab = context.model.config.vocab_size
    W_E = context.model.W_E.weight.detach().double()                        # (V, D)
    one_hot = torch.nn.functional.one_hot(tokens, vocab).double()           # (B, L, V)
    digits = torch.tensor(digit_ids(context), device=W_E.device)           # (10,)
    rows = W_E[digits]                                                      # (10, D)
    # torch's own cosine, not rows·rowsᵀ over the norms: the lesson's formula does that division
    cos = torch.nn.functional.cosine_similarity(rows[:, None], rows[None], dim=-1)  # (10, 10)
    onehot_digits = torch.eye(vocab, dtype=torch.float64, device=W_E.device)[digits]  # (10, V)
    # Counted, not computed from the sizes: FlopCounterMode sees what torch actually multiplies.
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as counted:
        one_hot[0] @ W_E                                                    # (L, D), counted only
    onehot_macs = counted.get_total_flops() / 2
    with FlopCounterMode(display=False) as counted:
        W_E[tokens[0]]                                                      # (L, D), counted only
    lookup_macs = counted.get_total_flops() / 2
    nearest = cos.clone().fill_diagonal_(-2.0).argmax(dim=-1).cpu()          # (10,) most similar other digit
    return {
        "embedding.ids": to_numpy(tokens),
        "embedding.one_hot": to_numpy(one_hot),
        "embedding.lookup": to_numpy(W_E[tokens]),                               # (B, L, D)
        "embedding.digit_onehot_cos": to_numpy(onehot_digits @ onehot_digits.T),  # (10, 10)
        "embedding.digit_cos": to_numpy(cos),                                    # (10, 10)
        "embedding.digit_W_E": to_numpy(rows),
        "embedding.digit_norm": to_numpy(rows.norm(dim=-1, keepdim=True)),
        "embedding.digit_nearest": to_numpy(nearest),                             # (10,)
        "embedding.digit_neighbours": np.array([float(((nearest - torch.arange(10)).abs() == 1).sum())]),
        "embedding.onehot_macs": np.array([float(onehot_macs)]),
        "embedding.lookup_macs": np.array([float(lookup_macs)]),
        # three characters outside any ASCII vocabulary, then the tokenizer's own unknown marker
        "embedding.unseen_ids": np.array(context.tokenizer.encode(UNSEEN), dtype=np.float64),
    }


@experiment("svd", "singular value decomposition of the embedding matrix W_E = U·Sigma·V.T: "
                   "svd.U (V, r), svd.S (r,) largest first, svd.Sigma (r, r) = diag(S), svd.V (D, r) "
                   "with r = min(V, D); svd.energy (r,) "
                   "cumulative share of sum(S**2); svd.digit_coords (10, 2): the digits 0-9 on the "
                   "first two singular directions; svd.stretch (2,) the lengths |W_E @ x| for the unit "
                   "vectors x = V[:, 0] and x = (V[:, 0] + V[:, 1])/sqrt(2), multiplied out with W_E itself",
            passes=1.2, copies=1)
@one_torch_thread
def embedding_svd(context: ExperimentContext) -> dict[str, np.ndarray]:
    W = context.model.W_E.weight.detach().cpu().double().numpy()           # (V, D)
    U, S, Vt = np.linalg.svd(W, full_matrices=False)                        # (V, r), (r,), (r, D)
    # An SVD fixes each direction only up to sign: make the largest entry of each row of Vt
    # positive so the picture is the same on every run.
    signs = np.sign(Vt[np.arange(len(S)), np.abs(Vt).argmax(axis=1)])
    signs[signs == 0] = 1.0
    U, Vt = U * signs, Vt * signs[:, None]
    digits = W[digit_ids(context)]                                         # (10, D)
    # What the matrix does to a vector, measured by multiplying with W itself (not read off S),
    # so that "a unit vector along v1 comes out sigma_1 long" is evidence, not a restatement.
    probes = np.stack([Vt[0], (Vt[0] + Vt[1]) / np.sqrt(2.0)], axis=1)        # (D, 2) unit columns
    return {
        "svd.U": U,
        "svd.S": S,
        "svd.Sigma": np.diag(S),
        "svd.V": Vt.T,
        "svd.energy": np.cumsum(S ** 2) / np.sum(S ** 2),
        "svd.digit_coords": digits @ Vt[:2].T,                              # (10, 2)
        "svd.stretch": np.linalg.norm(W @ probes, axis=0),                   # (2,)
    }


@experiment("dot_variance", "dot products of random unit-variance vectors: dot_variance.d (4,) = "
                            "4, 16, 64, 256; dot_variance.raw (4,) variance of q·k; "
                            "dot_variance.scaled (4,) variance of q·k/sqrt(d) (4096 pairs each)", passes=2, copies=1)
@one_torch_thread
def dot_variance(context: ExperimentContext) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(context.seed)
    dims = np.array([4.0, 16.0, 64.0, 256.0])
    raw, scaled = [], []
    for d in dims.astype(int):
        q = rng.standard_normal((4096, d))
        k = rng.standard_normal((4096, d))
        dots = np.sum(q * k, axis=1)                                        # (4096,)
        raw.append(dots.var())
        scaled.append((dots / math.sqrt(d)).var())
    return {"dot_variance.d": dims, "dot_variance.raw": np.array(raw),
            "dot_variance.scaled": np.array(scaled)}


@experiment("mlp_collapse", "block 0's MLP with and without its GELU: mlp_collapse.x (B, L, D) the "
                            "MLP's input; mlp_collapse.W (D, D) = W_in @ W_out; mlp_collapse.xW "
                            "(B, L, D) = x @ mlp_collapse.W; mlp_collapse.linear_out (B, L, D) the "
                            "MLP with GELU removed; mlp_collapse.gap (B, L) max |real MLP - linear|; "
                            "mlp_collapse.b (D,) the bias of the collapsed map: the MLP's own two Linear "
                            "modules, without GELU, run on a zero input",
            passes=1, copies=1)
@one_torch_thread
def mlp_collapse(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    _, probes = run_with_probes(model, tokens_on_device(context))
    block = model.blocks[0]
    with torch.no_grad():
        x = block.ln2(probes["blocks.0.resid_mid"]).double()               # (B, L, D)
        W_in = block.mlp.W_in.weight.double().T                             # (D, 4D)
        W_out = block.mlp.W_out.weight.double().T                           # (4D, D)
        b_in = _bias(block.mlp.W_in, W_in.shape[1], x)
        b_out = _bias(block.mlp.W_out, W_out.shape[1], x)
        W = W_in @ W_out                                                    # (D, D)
        linear = (x @ W_in + b_in) @ W_out + b_out                          # (B, L, D)
        real = block.mlp(x.to(block.mlp.W_in.weight.dtype)).double()       # (B, L, D)
        # x·W + b at x = 0 is b: the modules' own forward, not this function's arithmetic above
        zero = torch.zeros(1, x.shape[-1], dtype=block.mlp.W_in.weight.dtype, device=x.device)
        collapsed_bias = block.mlp.W_out(block.mlp.W_in(zero))[0].double()  # (D,)
    return {
        "mlp_collapse.x": to_numpy(x),
        "mlp_collapse.W": to_numpy(W),
        "mlp_collapse.xW": to_numpy(x @ W),
        "mlp_collapse.linear_out": to_numpy(linear),
        "mlp_collapse.gap": to_numpy((real - linear).abs().amax(dim=-1)),       # (B, L)
        "mlp_collapse.b": to_numpy(collapsed_bias),
    }


def _bias(linear, size: int, like):
    import torch

    if linear.bias is None:
        return torch.zeros(size, dtype=torch.float64, device=like.device)
    return linear.bias.detach().double()
