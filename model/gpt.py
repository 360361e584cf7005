"""A small decoder-only GPT, written to be read next to the lessons.

Every intermediate tensor the lessons talk about is recorded under a TransformerLens-style
name when a ``probes`` dict is passed to ``forward``.  The explicit attention path
(scores -> mask -> softmax -> z) exists so that those tensors can be looked at; the fused
path (``scaled_dot_product_attention``) is what training uses for speed.  A test proves that
both paths agree.  ``GPT.decode`` is a third, leaner path for generation only: see ``KVCache``.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal

import torch
import torch.nn as nn
import torch.nn.functional as F

PositionKind = Literal["learned", "sinusoidal", "none"]
Probes = dict[str, torch.Tensor]


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int = 96      # the CharTokenizer's printable ASCII + newline
    block_size: int = 64     # longest context the model can see
    n_layer: int = 2
    n_head: int = 2
    d_model: int = 8         # D; D_head = D / H
    mlp_ratio: int = 4       # the MLP's hidden width is mlp_ratio * D
    positions: PositionKind = "learned"
    fused_attention: bool = True   # used when no probes are requested
    bias: bool = True

    def __post_init__(self) -> None:
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_head={self.n_head}")
        if self.positions not in ("learned", "sinusoidal", "none"):
            raise ValueError(f"positions must be learned, sinusoidal or none, not {self.positions!r}")
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "d_model", "mlp_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_head

    def to_dict(self) -> dict:
        return asdict(self)


def sinusoidal_table(length: int, d_model: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same angle)."""
    position = torch.arange(length, dtype=torch.float32)[:, None]            # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)                 # (ceil(D/2),)
    angle = position / torch.pow(10000.0, two_i / d_model)                   # (L, ceil(D/2))
    table = torch.zeros(length, d_model)                                     # (L, D)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table


def _record(probes: Probes | None, name: str, tensor: torch.Tensor) -> None:
    if probes is not None:
        probes[name] = tensor.detach()


class LayerNorm(nn.Module):
    """Pre-LN normalisation; records the normalised x before gamma/beta are applied."""

    def __init__(self, d_model: int, bias: bool) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model)) if bias else None
        self.eps = 1e-5

    def forward(self, x: torch.Tensor, probes: Probes | None = None, name: str = "") -> torch.Tensor:
        if probes is None:
            return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps)
        mean = x.mean(dim=-1, keepdim=True)                                  # (B, L, 1)
        var = x.var(dim=-1, keepdim=True, unbiased=False)                    # (B, L, 1)
        normalized = (x - mean) / torch.sqrt(var + self.eps)                 # (B, L, D)
        _record(probes, f"{name}.normalized", normalized)
        out = normalized * self.weight                                       # (B, L, D)
        return out + self.bias if self.bias is not None else out


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head, self.d_head = config.n_head, config.d_head
        self.fused = config.fused_attention
        self.W_Q = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_K = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_V = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.W_O = nn.Linear(config.d_model, config.d_model, bias=config.bias)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        B, L, _ = x.shape
        return x.view(B, L, self.n_head, self.d_head).transpose(1, 2)        # (B, H, L, D_head)

    def forward(
        self,
        x: torch.Tensor,
        probes: Probes | None = None,
        name: str = "",
        past: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        B, L, D = x.shape
        q = self.split_heads(self.W_Q(x))                                    # (B, H, L, D_head)
        k = self.split_heads(self.W_K(x))                                    # (B, H, L, D_head)
        v = self.split_heads(self.W_V(x))                                    # (B, H, L, D_head)
        if past is not None:  # KV cache: earlier positions' keys and values
            k = torch.cat([past[0], k], dim=2)                               # (B, H, T, D_head)
            v = torch.cat([past[1], v], dim=2)                               # (B, H, T, D_head)
        present = (k, v)
        if probes is None and self.fused and (past is None or L == 1):
            # a single query row (cached decoding) may see every key: no mask needed.  Several
            # new rows after a cache need an offset mask, which the explicit path builds.
            z = F.scaled_dot_product_attention(q, k, v, is_causal=past is None and L > 1)
        else:
            z = self.explicit_attention(q, k, v, probes, name)               # (B, H, L, D_head)
        merged = z.transpose(1, 2).contiguous().view(B, L, D)                # (B, L, D)
        return self.W_O(merged), present

    def explicit_attention(self, q, k, v, probes: Probes | None, name: str) -> torch.Tensor:
        """scores -> causal mask (-inf) -> softmax -> z, each step recorded for the lessons."""
        L, T = q.shape[-2], k.shape[-2]
        _record(probes, f"{name}.q", q)
        _record(probes, f"{name}.k", k)
        _record(probes, f"{name}.v", v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)            # (B, H, L, T)
        _record(probes, f"{name}.scores", scores)
        # query i sits at absolute position T-L+i and may see keys 0..T-L+i
        future = torch.ones(L, T, dtype=torch.bool, device=q.device).triu(T - L + 1)  # (L, T)
        masked = scores.masked_fill(future, float("-inf"))                   # (B, H, L, T)
        _record(probes, f"{name}.masked_scores", masked)
        pattern = torch.softmax(masked, dim=-1)                              # (B, H, L, T)
        _record(probes, f"{name}.pattern", pattern)
        z = pattern @ v                                                      # (B, H, L, D_head)
        _record(probes, f"{name}.z", z)
        return z


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        hidden = config.mlp_ratio * config.d_model
        self.W_in = nn.Linear(config.d_model, hidden, bias=config.bias)
        self.W_out = nn.Linear(hidden, config.d_model, bias=config.bias)

    def forward(self, x: torch.Tensor, probes: Probes | None = None, name: str = "") -> torch.Tensor:
        pre = self.W_in(x)                                                   # (B, L, 4D)
        _record(probes, f"{name}.pre", pre)
        post = F.gelu(pre)                                                   # (B, L, 4D)
        _record(probes, f"{name}.post", post)
        return self.W_out(post)                                              # (B, L, D)


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln1 = LayerNorm(config.d_model, config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln2 = LayerNorm(config.d_model, config.bias)
        self.mlp = MLP(config)

    def forward(self, x, probes: Probes | None = None, name: str = "", past=None):
        _record(probes, f"{name}.resid_pre", x)
        attn_out, present = self.attn(self.ln1(x, probes, f"{name}.ln1"), probes, f"{name}.attn", past)
        _record(probes, f"{name}.attn_out", attn_out)
        x = x + attn_out                                                     # (B, L, D)
        _record(probes, f"{name}.resid_mid", x)
        mlp_out = self.mlp(self.ln2(x, probes, f"{name}.ln2"), probes, f"{name}.mlp")
        _record(probes, f"{name}.mlp_out", mlp_out)
        x = x + mlp_out                                                      # (B, L, D)
        _record(probes, f"{name}.resid_post", x)
        return x, present


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.W_E = nn.Embedding(config.vocab_size, config.d_model)
        self.W_pos = nn.Embedding(config.block_size, config.d_model) if config.positions == "learned" else None
        if config.positions == "sinusoidal":
            self.register_buffer("pe_table", sinusoidal_table(config.block_size, config.d_model), persistent=False)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_final = LayerNorm(config.d_model, config.bias)
        self.W_U = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def position_embedding(self, start: int, length: int, device) -> torch.Tensor | None:
        positions = torch.arange(start, start + length, device=device)      # (L,)
        if self.W_pos is not None:
            return self.W_pos(positions)                                     # (L, D)
        if self.config.positions == "sinusoidal":
            return self.pe_table[positions]                                  # (L, D)
        return None

    def forward(
        self,
        idx: torch.Tensor,
        probes: Probes | None = None,
        past_kv: list | None = None,
        use_cache: bool = False,
    ):
        """Return logits (B, L, V); with ``use_cache`` also the per-layer (k, v) cache."""
        B, L = idx.shape
        start = past_kv[0][0].shape[2] if past_kv else 0
        if start + L > self.config.block_size:
            raise ValueError(f"sequence of {start + L} tokens exceeds block_size={self.config.block_size}")
        x = self.W_E(idx)                                                    # (B, L, D)
        _record(probes, "embed", x)
        pos = self.position_embedding(start, L, idx.device)                  # (L, D) or None
        if pos is not None:
            _record(probes, "pos_embed", pos.expand(B, L, -1))
            x = x + pos                                                      # (B, L, D)
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, probes, f"blocks.{i}", past_kv[i] if past_kv else None)
            presents.append(present)
        x = self.ln_final(x, probes, "ln_final")                             # (B, L, D)
        logits = self.W_U(x)                                                 # (B, L, V)
        _record(probes, "logits", logits)
        if use_cache:
            return logits, presents
        return logits

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def decode(self, idx: torch.Tensor, cache: KVCache) -> torch.Tensor:
        """Logits (B, V) for the token after ``idx`` (B, L), whose keys and values join ``cache``.

        ``forward``'s arithmetic in fewer PyTorch calls, for generation: at batch 1 a step of
        a small model is a few microseconds of arithmetic and every call costs about as much,
        so the number of calls is the speed.  No module calls and no probes; Q, K and V come
        from one matmul; keys and values are written in place; only the last position is
        unembedded.  Call it under ``torch.inference_mode()`` (as ``model.sample`` does).
        """
        B, L = idx.shape
        start, end = cache.length, cache.length + L
        if cache.model is not self or end > cache.capacity:
            raise ValueError(f"{end} tokens do not fit this model's cache of {cache.capacity} positions")
        D, eps = self.config.d_model, self.ln_final.eps
        W_E, W_pos, layers, (ln_w, ln_b, W_U_t) = cache.weights()
        x = W_E.index_select(0, idx.reshape(-1))                             # (BL, D)
        if W_pos is not None:
            x.view(B, L, D).add_(W_pos[start:end])                           # (BL, D)
        heads = (B, L, 3, self.config.n_head, self.config.d_head)
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
            raise ValueError(f"a cache holds 1 to block_size={c.block_size} positions, not {capacity}")
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
