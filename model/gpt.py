"""A small decoder-only GPT, written to be read next to the lessons.

Every intermediate tensor the lessons talk about is recorded under a TransformerLens-style
name when a ``probes`` dict is passed to ``forward``.  The explicit attention path
(scores -> mask -> softmax -> z) exists so that those tensors can be looked at; the fused
path (``scaled_dot_product_attention``) is what training uses for speed.  A test proves that
both paths agree.  ``model.decode`` is a third, leaner path for generation only.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal

import torch
import torch.nn as nn
import torch.nn.functional as F

from .messages import M_

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
            raise ValueError(M_("d_model={d_model} is not divisible by n_head={n_head}", d_model=self.d_model, n_head=self.n_head))
        if self.positions not in ("learned", "sinusoidal", "none"):
            raise ValueError(M_("positions must be learned, sinusoidal or none, not {positions!r}", positions=self.positions))
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "d_model", "mlp_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(M_("{name} must be at least 1", name=name))

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
    """Pre-LN normalisation; records the normalised x before gamma/beta are applied, and the
    output after them, so a lesson can read either instead of rebuilding the scale and shift."""

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
        out = out + self.bias if self.bias is not None else out              # (B, L, D)
        _record(probes, f"{name}.out", out)
        return out


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
            raise ValueError(M_("sequence of {count} tokens exceeds block_size={block}", count=start + L, block=self.config.block_size))
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
