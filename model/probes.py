"""Named probes: the contract between lessons and the model.

Names mirror TransformerLens so that what a learner reads here carries over.  Shapes use
B (batch), L (sequence length), D (d_model), H (heads), D_head = D / H, V (vocabulary).
"""
from __future__ import annotations

import torch

from .gpt import GPT, GPTConfig
from .messages import M_, Message

BLOCK_PROBES: dict[str, str] = {
    "resid_pre": "(B, L, D)",
    "ln1.normalized": "(B, L, D)",
    "ln1.out": "(B, L, D)",
    "attn.q": "(B, H, L, D_head)",
    "attn.k": "(B, H, L, D_head)",
    "attn.v": "(B, H, L, D_head)",
    "attn.scores": "(B, H, L, L)",
    "attn.masked_scores": "(B, H, L, L)",
    "attn.pattern": "(B, H, L, L)",
    "attn.z": "(B, H, L, D_head)",
    "attn_out": "(B, L, D)",
    "resid_mid": "(B, L, D)",
    "ln2.normalized": "(B, L, D)",
    "ln2.out": "(B, L, D)",
    "mlp.pre": "(B, L, 4D)",
    "mlp.post": "(B, L, 4D)",
    "mlp_out": "(B, L, D)",
    "resid_post": "(B, L, D)",
}
GLOBAL_PROBES_BEFORE: dict[str, str] = {"embed": "(B, L, D)", "pos_embed": "(B, L, D)"}
GLOBAL_PROBES_AFTER: dict[str, str] = {"ln_final.normalized": "(B, L, D)", "ln_final.out": "(B, L, D)",
                                       "logits": "(B, L, V)"}

# English, kept as templates so that the probe listing can show them translated (M_ marks them for the catalog)
PROBE_DESCRIPTIONS: dict[str, Message] = {
    "embed": M_("token embeddings looked up from W_E"),
    "pos_embed": M_("position embeddings added to the token embeddings"),
    "resid_pre": M_("the residual stream entering the block"),
    "ln1.normalized": M_("(x - mean) / sqrt(var + eps) before attention, before gamma and beta"),
    "ln1.out": M_("LayerNorm's output: ln1.normalized * gamma + beta, what attention reads"),
    "attn.q": M_("queries, one row per position per head"),
    "attn.k": M_("keys, one row per position per head"),
    "attn.v": M_("values, one row per position per head"),
    "attn.scores": M_("Q·Kᵀ/√D_head, before the causal mask"),
    "attn.masked_scores": M_("scores with -inf above the diagonal"),
    "attn.pattern": M_("softmax of the masked scores: each row sums to 1"),
    "attn.z": M_("pattern · V, per head"),
    "attn_out": M_("heads concatenated and projected by W_O"),
    "resid_mid": M_("residual stream after adding attention"),
    "ln2.normalized": M_("normalised residual before the MLP"),
    "ln2.out": M_("LayerNorm's output: ln2.normalized * gamma + beta, what the MLP reads"),
    "mlp.pre": M_("x·W_in + b_in, before GELU"),
    "mlp.post": M_("GELU(mlp.pre)"),
    "mlp_out": M_("the MLP's output, projected back to D"),
    "resid_post": M_("residual stream leaving the block"),
    "ln_final.normalized": M_("the final LayerNorm before unembedding"),
    "ln_final.out": M_("the final LayerNorm's output after gamma and beta, what W_U reads"),
    "logits": M_("unnormalised next-token scores"),
}


def probe_shapes(config: GPTConfig) -> dict[str, str]:
    """Every probe name this config produces, with its symbolic shape, in forward order."""
    shapes = {"embed": GLOBAL_PROBES_BEFORE["embed"]}
    if config.positions != "none":
        shapes["pos_embed"] = GLOBAL_PROBES_BEFORE["pos_embed"]
    for i in range(config.n_layer):
        shapes.update({f"blocks.{i}.{name}": shape for name, shape in BLOCK_PROBES.items()})
    shapes.update(GLOBAL_PROBES_AFTER)
    return shapes


def describe_probe(name: str) -> str:
    """The plain-words description of a probe, block index stripped: a Message (English, translated where
    it is shown), or "" for a name without one."""
    parts = name.split(".")
    key = ".".join(parts[2:]) if parts[0] == "blocks" and len(parts) > 2 else name
    return PROBE_DESCRIPTIONS.get(key, "")


@torch.no_grad()
def run_with_probes(model: GPT, tokens: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Run the explicit path once and return (logits, every named intermediate tensor)."""
    if tokens.dim() == 1:
        tokens = tokens[None, :]                                             # (1, L)
    was_training = model.training
    model.eval()
    probes: dict[str, torch.Tensor] = {}
    try:
        logits = model(tokens, probes=probes)                                # (B, L, V)
    finally:
        model.train(was_training)
    return logits, probes
