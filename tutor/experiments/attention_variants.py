"""Experiments on attention's cost and variants: sliding windows, linear attention, switching off a head."""
from __future__ import annotations


from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import attention_weights, probe_tensors, scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

WINDOW = 3            # attn_window: each query sees itself and the WINDOW - 1 keys before it
ABLATED_HEAD = 2      # heads: the head that is switched off (the last one if there are fewer)

@experiment("attn_window", M_("a sliding window of w = {window} keys on block 0: attn_window.mask (L, L) 1 = kept, "
                              "attn_window.bias (L, L) 0 or -inf, attn_window.pattern (B, H, L, L) = softmax(scores + "
                              "bias) by torch's scaled_dot_product_attention, attn_window.kept (1,) kept entries "
                              "per head, attn_window.causal_kept (1,) = "
                              "L(L+1)/2, attn_window.full (1,) = L*L; the same window plus one global token at "
                              "position attn_window.global_pos (1,) = L // 2, which attends to every earlier key and "
                              "which every later query attends to (Longformer's pattern, kept causal): "
                              "attn_window.global_mask (L, L), attn_window.global_bias (L, L), "
                              "attn_window.global_kept (1,), attn_window.global_pattern (B, H, L, L) by torch's "
                              "attention; attn_window.hops and attn_window.global_hops (1,) the fewest layers after "
                              "which the last token can have read the first (repeated products of the mask), "
                              "attn_window.reader_hops (1,) the same for a one-sided global token that reads every "
                              "earlier key but is read only through the window, and "
                              "attn_window.global_gain (1,) the weight head 0's last query gives the global token "
                              "under the global mask minus under the plain causal pattern (batch row 0); "
                              "attn_window.far_vs_even (1,) the weight head 0's last query gives the keys the window "
                              "drops (more than w - 1 back) minus (L - w)/L, an even spread's (batch row 0)",
                              window=WINDOW), passes=1, copies=1)
@one_torch_thread
def attention_window(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    probes = probe_tensors(context)
    q, k = probes["blocks.0.attn.q"], probes["blocks.0.attn.k"]              # (B, H, L, D_head) each
    length = q.shape[-2]
    i = torch.arange(length)[:, None]                                        # (L, 1)
    j = torch.arange(length)[None, :]                                        # (1, L)
    keep = (j <= i) & (j > i - WINDOW)                                       # (L, L)
    hub = length // 2
    with_global = keep | ((j <= i) & ((i == hub) | (j == hub)))              # (L, L)
    reader_only = keep | ((j <= i) & (i == hub))                             # (L, L) its row only
    global_pattern = attention_weights(q, k, with_global)                    # (B, H, L, L)
    causal = probes["blocks.0.attn.pattern"]                                 # (B, H, L, L) the model's own
    return {
        "attn_window.mask": to_numpy(keep),
        "attn_window.bias": to_numpy(_bias(keep)),
        "attn_window.pattern": to_numpy(attention_weights(q, k, keep)),      # torch's attention, not softmax redone
        "attn_window.kept": scalar(keep.sum()),
        "attn_window.causal_kept": scalar(length * (length + 1) // 2),
        "attn_window.full": scalar(length * length),
        "attn_window.global_pos": scalar(hub),
        "attn_window.global_mask": to_numpy(with_global),
        "attn_window.global_bias": to_numpy(_bias(with_global)),
        "attn_window.global_kept": scalar(with_global.sum()),
        "attn_window.global_pattern": to_numpy(global_pattern),
        "attn_window.hops": scalar(hops(keep)),
        "attn_window.global_hops": scalar(hops(with_global)),
        "attn_window.reader_hops": scalar(hops(reader_only)),
        "attn_window.global_gain": scalar(global_pattern[0, 0, -1, hub] - causal[0, 0, -1, hub]),
        # where a trained head looks, against the even spread a learner might assume
        "attn_window.far_vs_even": scalar(causal[0, 0, -1, :length - WINDOW].sum() - (length - WINDOW) / length),
    }


def _bias(keep):
    """0 where a key is kept, -inf elsewhere: the additive form of a boolean mask."""
    import torch

    return torch.zeros(keep.shape, dtype=torch.float64).masked_fill(~keep, float("-inf"))   # (L, L)


def hops(keep) -> int:
    """The fewest stacked layers with this mask after which the last token can have read the first:
    the smallest n with (keep^n)[-1, 0] > 0, found by spreading the set of reachable tokens."""
    reach = keep[-1].clone()                                                 # (L,) tokens the last one reads in 1 layer
    hops = 1
    while not bool(reach[0]) and hops < keep.shape[0]:
        reach = (keep[reach].any(dim=0)) | reach                             # (L,) one layer more
        hops += 1
    return hops


@experiment("linear_attn", "both orders of (Q Kᵀ) V on block 0's own q, k, v (no softmax, float64): "
                           "linear_attn.qk (B, H, L, L), linear_attn.kv (B, H, D_head, D_head), linear_attn.qk_v and "
                           "linear_attn.q_kv (B, H, L, D_head), linear_attn.max_diff (1,); the multiply-adds of one "
                           "head's two orders, linear_attn.cost_qk_v (1,) = 2·L²·D_head and linear_attn.cost_q_kv "
                           "(1,) = 2·L·D_head²; linear attention with the feature map φ(x) = elu(x) + 1: "
                           "linear_attn.phi_q and linear_attn.phi_k (B, H, L, D_head), and linear_attn.phi_out "
                           "(B, H, L, D_head) computed the quadratic way, each row of the (L, L) table φ(Q)·φ(K)ᵀ "
                           "divided by its sum, then times V", passes=1, copies=1)
@one_torch_thread
def linear_attention(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch.nn.functional as F

    probes = probe_tensors(context)
    q, k, v = (probes[f"blocks.0.attn.{n}"] for n in "qkv")                  # (B, H, L, D_head) each
    qk = q @ k.transpose(-2, -1)                                             # (B, H, L, L)
    kv = k.transpose(-2, -1) @ v                                             # (B, H, D_head, D_head)
    qk_v, q_kv = qk @ v, q @ kv                                              # (B, H, L, D_head) each
    length, d_head = q.shape[-2], q.shape[-1]
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1                                # (B, H, L, D_head) each, all > 0
    # The quadratic order on purpose: a lesson asks for the linear order and is graded against this.
    table = phi_q @ phi_k.transpose(-2, -1)                                  # (B, H, L, L)
    phi_out = (table / table.sum(dim=-1, keepdim=True)) @ v                  # (B, H, L, D_head)
    return {
        "linear_attn.qk": to_numpy(qk), "linear_attn.kv": to_numpy(kv),
        "linear_attn.qk_v": to_numpy(qk_v), "linear_attn.q_kv": to_numpy(q_kv),
        "linear_attn.max_diff": scalar((qk_v - q_kv).abs().max()),
        "linear_attn.cost_qk_v": scalar(2 * length * length * d_head),
        "linear_attn.cost_q_kv": scalar(2 * length * d_head * d_head),
        "linear_attn.phi_q": to_numpy(phi_q), "linear_attn.phi_k": to_numpy(phi_k),
        "linear_attn.phi_out": to_numpy(phi_out),
    }


@experiment("heads", M_("switch off one head of block 0 (head {head}, or the last if fewer): heads.ablated "
                        "(1,), heads.merged (B, L, D) the heads' z side by side before W_O, heads.merged_ablated "
                        "(B, L, D) the same with that head's z zeroed, heads.changed (D,) 1 where a merged feature "
                        "changes, heads.out_changed (D,) 1 where attn_out (after W_O) changes, heads.out_rank (1,) "
                        "the rank of that change in batch row 0, an (L, D) table, "
                        "heads.favourite (H, L) the key each head weights most at each query of row 0, "
                        "heads.qk_rank (H,) the rank of each head's (D, D) bilinear form W_Q^h W_K^hᵀ, "
                        "with which its score compares a query token with a key token (biases aside), and "
                        "heads.qk_blind (H,) = D minus that rank, the directions a query token can move in "
                        "without changing any of the head's scores, and heads.qk_blind_axes (H,) how many of the D "
                        "single features (axis directions) a query token can move along alone without changing them",
                        head=ABLATED_HEAD),
            passes=1, copies=1)
@one_torch_thread
def switch_off_head(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    w_o = context.model.blocks[0].attn.W_O
    probes = probe_tensors(context)
    z = probes["blocks.0.attn.z"]                                            # (B, H, L, D_head)
    batch, n_head, length, d_head = z.shape
    head = min(ABLATED_HEAD, n_head - 1)
    off = z.clone()
    off[:, head] = 0.0
    merged = z.transpose(1, 2).reshape(batch, length, n_head * d_head)      # (B, L, D)
    merged_off = off.transpose(1, 2).reshape(batch, length, n_head * d_head)  # (B, L, D)
    weight = w_o.weight.detach().cpu().double()                              # (D, D) as (out, in)
    bias = w_o.bias.detach().cpu().double() if w_o.bias is not None else torch.zeros(weight.shape[0])
    out, out_off = merged @ weight.T + bias, merged_off @ weight.T + bias   # (B, L, D) each
    attn = context.model.blocks[0].attn
    w_q = attn.W_Q.weight.detach().cpu().double().view(n_head, d_head, -1)   # (H, D_head, D) as (out, in)
    w_k = attn.W_K.weight.detach().cpu().double().view(n_head, d_head, -1)   # (H, D_head, D)
    forms = w_q.transpose(1, 2) @ w_k                                        # (H, D, D) = W_Q^h W_K^hᵀ
    rank = torch.linalg.matrix_rank(forms)                                   # (H,)
    return {
        "heads.ablated": scalar(head),
        "heads.merged": to_numpy(merged),
        "heads.merged_ablated": to_numpy(merged_off),
        "heads.changed": to_numpy((merged - merged_off).abs().amax(dim=(0, 1)) > 0),
        "heads.out_changed": to_numpy((out - out_off).abs().amax(dim=(0, 1)) > 0),
        "heads.out_rank": scalar(torch.linalg.matrix_rank(out[0] - out_off[0])),  # (L, D) change: rank <= min(L, D_head)
        "heads.favourite": to_numpy(probes["blocks.0.attn.pattern"][0].argmax(dim=-1)),   # (H, L)
        "heads.qk_rank": to_numpy(rank.double()),                                          # (H,)
        "heads.qk_blind": to_numpy((forms.shape[-1] - rank).double()),                     # (H,) left null space
        # A feature is ignored alone only if its whole row of the form is 0: a direction, not a slot, is what is blind.
        "heads.qk_blind_axes": to_numpy((forms.abs().amax(dim=-1) <= 1e-12 * forms.abs().amax(dim=(1, 2))[:, None])
                                        .sum(dim=-1).double()),                              # (H,)
    }
