"""The generation path: one step of the GPT from a preallocated key/value cache.

``GPT.forward`` is written to be read and probed; generating with it costs a few dozen PyTorch
calls per layer per token, and at batch 1 each call costs about as much as the arithmetic of
this small model.  Here the same numbers come from fewer calls: Q, K and V from one matmul,
keys and values written in place into a cache allocated once, only the last position unembedded.
tests/test_decode_fast.py proves that the tokens never change.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .gpt import GPT
from .messages import M_


def decode(model: GPT, idx: torch.Tensor, cache: KVCache) -> torch.Tensor:
    """Logits (B, V) for the token after ``idx`` (B, L), whose keys and values join ``cache``.

    ``forward``'s arithmetic in fewer PyTorch calls, for generation: at batch 1 a step of
    a small model is a few microseconds of arithmetic and every call costs about as much,
    so the number of calls is the speed.  No module calls and no probes; Q, K and V come
    from one matmul; keys and values are written in place; only the last position is
    unembedded.  Call it under ``torch.inference_mode()`` (as ``model.sample`` does).
    """
    B, L = idx.shape
    start, end = cache.length, cache.length + L
    if cache.model is not model or end > cache.capacity:
        raise ValueError(M_("{count} tokens do not fit this model's cache of {capacity} positions", count=end, capacity=cache.capacity))
    D, eps = model.config.d_model, model.ln_final.eps
    W_E, W_pos, layers, (ln_w, ln_b, W_U_t) = cache.weights()
    x = W_E.index_select(0, idx.reshape(-1))                             # (BL, D)
    if W_pos is not None:
        x.view(B, L, D).add_(W_pos[start:end])                           # (BL, D)
    heads = (B, L, 3, model.config.n_head, model.config.d_head)
    mask = None
    if L > 1 and start > 0:   # query i sits at start + i and may see keys 0..start+i
        mask = torch.ones(L, end, dtype=torch.bool, device=idx.device).tril(start)  # (L, T)
    for kv, (ln1_w, ln1_b, W_QKV_t, b_QKV, W_O_t, b_O, ln2_w, ln2_b, W_in_t, b_in, W_out_t, b_out) in zip(
            cache.layers, layers):
        h = F.layer_norm(x, (D,), ln1_w, ln1_b, eps)                     # (BL, D)
        qkv = _affine(h, W_QKV_t, b_QKV).view(heads).permute(2, 0, 3, 1, 4)  # (3, B, H, L, D_head)
        kv[:, :, :, start:end] = qkv[1:]                                 # (2, B, H, L, D_head)
        k, v = kv[:, :, :, :end]                                         # (B, H, T, D_head) each
        z = F.scaled_dot_product_attention(qkv[0], k, v, attn_mask=mask,
                                           is_causal=start == 0 and L > 1)  # (B, H, L, D_head)
        z = z.reshape(B, D) if L == 1 else z.transpose(1, 2).reshape(B * L, D)  # (BL, D)
        x = _affine(z, W_O_t, b_O).add_(x)                               # (BL, D)
        h = F.layer_norm(x, (D,), ln2_w, ln2_b, eps)                     # (BL, D)
        h = F.gelu(_affine(h, W_in_t, b_in))                             # (BL, 4D)
        x = _affine(h, W_out_t, b_out).add_(x)                           # (BL, D)
    cache.length = end
    x = F.layer_norm(x.view(B, L, D)[:, -1], (D,), ln_w, ln_b, eps)      # (B, D)
    return x @ W_U_t                                                     # (B, V)

def _affine(x: torch.Tensor, weight_t: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """x @ W.T + b in one call, as F.linear computes it for 2-D input."""
    return x @ weight_t if bias is None else torch.addmm(bias, x, weight_t)


class KVCache:
    """Every layer's keys and values for ``GPT.decode``, in one tensor allocated up front.

    Growing a cache with ``torch.cat`` allocates and copies all earlier keys at every step;
    here a step writes one column in place and attention reads a view of the filled part.
    The cache also holds the weights as ``decode`` wants them, gathered once rather than
    looked up through the modules at every step, so the modules, the checkpoint format and
    the probes stay as they are.
    """

    def __init__(self, model: GPT, batch: int, capacity: int) -> None:
        c, w = model.config, model.W_E.weight
        if not 1 <= capacity <= c.block_size:
            raise ValueError(M_("a cache holds 1 to block_size={block} positions, not {capacity}", block=c.block_size, capacity=capacity))
        self.kv = torch.zeros(c.n_layer, 2, batch, c.n_head, capacity, c.d_head,
                              dtype=w.dtype, device=w.device)                # (N, 2, B, H, T, D_head)
        self.layers = list(self.kv)                                          # N x (2, B, H, T, D_head)
        self.model, self.capacity, self.length = model, capacity, 0
        self._qkv = [p for b in model.blocks for lin in (b.attn.W_Q, b.attn.W_K, b.attn.W_V)
                     for p in (lin.weight, lin.bias) if p is not None]
        self._versions: list[int] | None = None
        self._weights: tuple = ()

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep (and repeat) the batch rows ``rows``: beam search's surviving beams."""
        self.kv = self.kv.index_select(2, rows)                              # (N, 2, B', H, T, D_head)
        self.layers = list(self.kv)

    def weights(self) -> tuple:
        """(W_E, position table or None, per-layer weights, (ln_final gamma, beta, W_U.T)).

        Views of the parameters, which follow in-place training (the dashboard samples while
        it trains), except W_Q, W_K, W_V stacked into one (D, 3D) matrix: a copy, restacked
        whenever one of them has changed since.
        """
        versions = [p._version for p in self._qkv]
        if versions != self._versions:
            m = self.model
            layers = [(b.ln1.weight, b.ln1.bias,
                       torch.cat([b.attn.W_Q.weight, b.attn.W_K.weight, b.attn.W_V.weight]).t(),  # (D, 3D)
                       None if b.attn.W_Q.bias is None else
                       torch.cat([b.attn.W_Q.bias, b.attn.W_K.bias, b.attn.W_V.bias]),           # (3D,)
                       b.attn.W_O.weight.t(), b.attn.W_O.bias, b.ln2.weight, b.ln2.bias,
                       b.mlp.W_in.weight.t(), b.mlp.W_in.bias, b.mlp.W_out.weight.t(), b.mlp.W_out.bias)
                      for b in m.blocks]
            positions = m.W_pos.weight if m.W_pos is not None else getattr(m, "pe_table", None)
            self._weights = (m.W_E.weight, positions, layers, (m.ln_final.weight, m.ln_final.bias, m.W_U.weight.t()))
            self._versions = versions
        return self._weights
