"""Experiments for the information-theory, structure, numerics and decoding lessons.

Each function is registered by name with :func:`tutor.experiments.registry.experiment` and returns
numpy arrays named ``<experiment>.<tensor>``.  They read the lesson's model and input
(``context.model``, ``context.tokens``), never change the model's weights or mode, and
take a few milliseconds on a CPU.  Numbers that are a single value are returned with shape
(1,), so that a formula's reductions (which keep their axis) can reproduce them.

Unless an experiment says otherwise, "the position" is the last position of batch row 0,
and "the next-token distribution" is the softmax of the logits there.
"""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import SEPARATOR

WINDOW = 3            # attn_window: each query sees itself and the WINDOW - 1 keys before it
PE_SHIFT = 3          # pe_shift: the shift k in PE(pos + k) = PE(pos) @ M_k
TOP_K = 3             # decode: top-k filter
TOP_P = 0.9           # decode: top-p (nucleus) filter
HOT_T = 2.0           # decode: the "hotter" temperature
N_DRAWS = 1000        # decode: how many samples are counted
N_NEW = 10            # generate: how many tokens each continuation has
BEAM_WIDTH = 3        # beam: partial sequences kept at each step
ABLATED_HEAD = 2      # heads: the head that is switched off (the last one if there are fewer)


def _tokens(context: ExperimentContext):
    """The lesson's tokens (B, L) on the model's device."""
    return context.tokens.to(next(context.model.parameters()).device)


def _probes(context: ExperimentContext) -> dict:
    """Every probe of the lesson's input, as float64 CPU tensors."""
    from tutor.model import run_with_probes

    _, probes = run_with_probes(context.model, _tokens(context))
    return {name: t.detach().cpu().double() for name, t in probes.items()}


def _np(tensor) -> np.ndarray:
    return tensor.detach().cpu().double().numpy()


def _scalar(value) -> np.ndarray:
    return np.array([float(value)], dtype=np.float64)


def _twin(model, **changes):
    """A copy of ``model`` with a changed config and the same weights (global RNG untouched)."""
    from tutor.model.copies import copy_model

    return copy_model(model, **changes)   # W_pos may be absent on either side


def _row0_logits(context: ExperimentContext):
    """The logits (V,) for the token after batch row 0, in float64."""
    import torch

    with torch.no_grad():
        logits = context.model(_tokens(context)[:1])[0, -1]                  # (V,)
    return logits.detach().cpu().double()


# --------------------------------------------------------------------------------------
# co: permutations and positions


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
                       "shuffled input, shuffle.full_z_permuted = P @ full_z, shuffle.full_same (B, L)")
@one_torch_thread
def shuffled_input(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    tokens = context.tokens.cpu()                                            # (B, L)
    length = tokens.shape[1]
    perm = torch.cat([torch.arange(length - 2, -1, -1), torch.tensor([length - 1])])  # (L,)
    first, last = "blocks.0.resid_post", f"blocks.{model.config.n_layer - 1}.resid_post"
    no_pos = model if model.config.positions == "none" else _twin(model, positions="none")
    with_pos = model if model.config.positions != "none" else _twin(model, positions="sinusoidal")

    def run(net, ids):
        device = next(net.parameters()).device
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
        "shuffle.perm": _np(perm),
        "shuffle.P": torch.eye(length, dtype=torch.float64)[perm].numpy(),
        "shuffle.q": _np(before["blocks.0.attn.q"]),
        "shuffle.k": _np(before["blocks.0.attn.k"]),
        "shuffle.v": _np(before["blocks.0.attn.v"]),
        "shuffle.out": _np(out),
        "shuffle.out_shuffled": _np(out_s),
        "shuffle.same_token": _np(same),
        "shuffle.last_change": _np(last_change(before, after, first)),
        "shuffle.last_change_deep": _np(last_change(before, after, last)),
        "shuffle.last_change_pe": _np(last_change(pe_before, pe_after, first)),
        "shuffle.full_z": _np(full),
        "shuffle.full_z_shuffled": _np(full_s),
        "shuffle.full_z_permuted": _np(full[:, :, perm]),
        "shuffle.full_same": _np(full_same),
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
                        "sinusoid.cos (L, D/2) the odd columns, sinusoid.table (L, D)")
def sinusoid_parts(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    length, d_model = context.tokens.shape[1], context.model.config.d_model
    table = _pe_table(context.model, length)                                 # (L, D)
    return {
        "sinusoid.pos": torch.arange(length, dtype=torch.float64)[:, None].numpy(),
        "sinusoid.i": torch.arange((d_model + 1) // 2, dtype=torch.float64).numpy(),
        "sinusoid.sin": _np(table[:, 0::2]),
        "sinusoid.cos": _np(table[:, 1::2]),
        "sinusoid.table": _np(table),
    }


@experiment("pe_shift", f"the shift PE(pos + k) = PE(pos) @ M_k for k = {PE_SHIFT}: pe_shift.k (1,), pe_shift.M (D, D) "
                        "block-diagonal 2x2 rotations [[cos kw, -sin kw], [sin kw, cos kw]] (even D), "
                        "pe_shift.shifted (L, D) = PE(pos + k) for pos = 0..L-1, pe_shift.rotated (L, D) = "
                        "PE(pos) @ M_k, pe_shift.omega (D/2,) the angular rates w = 1/10000^(2i/D)")
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
        "pe_shift.k": _scalar(PE_SHIFT),
        "pe_shift.M": _np(rotation),
        "pe_shift.shifted": _np(table[PE_SHIFT:]),
        "pe_shift.rotated": _np(table[:length] @ rotation),
        "pe_shift.omega": _np(omega[: d_model // 2]),
    }


# --------------------------------------------------------------------------------------
# co: the cost of attention, windows, linear attention, heads


@experiment("attn_window", f"a sliding window of w = {WINDOW} keys on block 0: attn_window.mask (L, L) 1 = kept, "
                           "attn_window.bias (L, L) 0 or -inf, attn_window.pattern (B, H, L, L) = softmax(scores + "
                           "bias), attn_window.kept (1,) kept entries per head, attn_window.causal_kept (1,) = "
                           "L(L+1)/2, attn_window.full (1,) = L*L")
@one_torch_thread
def attention_window(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    scores = _probes(context)["blocks.0.attn.scores"]                        # (B, H, L, L)
    length = scores.shape[-1]
    i = torch.arange(length)[:, None]                                        # (L, 1)
    j = torch.arange(length)[None, :]                                        # (1, L)
    keep = (j <= i) & (j > i - WINDOW)                                       # (L, L)
    bias = torch.zeros(length, length, dtype=torch.float64).masked_fill(~keep, float("-inf"))  # (L, L)
    return {
        "attn_window.mask": _np(keep),
        "attn_window.bias": _np(bias),
        "attn_window.pattern": _np(torch.softmax(scores + bias, dim=-1)),
        "attn_window.kept": _scalar(keep.sum()),
        "attn_window.causal_kept": _scalar(length * (length + 1) // 2),
        "attn_window.full": _scalar(length * length),
    }


@experiment("linear_attn", "both orders of (Q Kᵀ) V on block 0's own q, k, v (no softmax, float64): "
                           "linear_attn.qk (B, H, L, L), linear_attn.kv (B, H, D_head, D_head), linear_attn.qk_v and "
                           "linear_attn.q_kv (B, H, L, D_head), linear_attn.max_diff (1,)")
@one_torch_thread
def linear_attention(context: ExperimentContext) -> dict[str, np.ndarray]:
    probes = _probes(context)
    q, k, v = (probes[f"blocks.0.attn.{n}"] for n in "qkv")                  # (B, H, L, D_head) each
    qk = q @ k.transpose(-2, -1)                                             # (B, H, L, L)
    kv = k.transpose(-2, -1) @ v                                             # (B, H, D_head, D_head)
    qk_v, q_kv = qk @ v, q @ kv                                              # (B, H, L, D_head) each
    return {
        "linear_attn.qk": _np(qk), "linear_attn.kv": _np(kv),
        "linear_attn.qk_v": _np(qk_v), "linear_attn.q_kv": _np(q_kv),
        "linear_attn.max_diff": _scalar((qk_v - q_kv).abs().max()),
    }


@experiment("heads", f"switch off one head of block 0 (head {ABLATED_HEAD}, or the last if fewer): heads.ablated "
                     "(1,), heads.merged (B, L, D) the heads' z side by side before W_O, heads.merged_ablated "
                     "(B, L, D) the same with that head's z zeroed, heads.changed (D,) 1 where a merged feature "
                     "changes, heads.out_changed (D,) 1 where attn_out (after W_O) changes, "
                     "heads.favourite (H, L) the key each head weights most at each query of row 0")
@one_torch_thread
def switch_off_head(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    w_o = context.model.blocks[0].attn.W_O
    probes = _probes(context)
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
    return {
        "heads.ablated": _scalar(head),
        "heads.merged": _np(merged),
        "heads.merged_ablated": _np(merged_off),
        "heads.changed": _np((merged - merged_off).abs().amax(dim=(0, 1)) > 0),
        "heads.out_changed": _np((out - out_off).abs().amax(dim=(0, 1)) > 0),
        "heads.favourite": _np(probes["blocks.0.attn.pattern"][0].argmax(dim=-1)),   # (H, L)
    }


# --------------------------------------------------------------------------------------
# nu: numerics and architecture


@experiment("fp16", "softmax of the next-token logits in float16: fp16.row (V,) the logits, fp16.exp16 (V,) "
                    "exp(row) in float16 (inf above ln 65504), fp16.overflow (1,) how many entries are inf, "
                    "fp16.naive_sum (1,) the float16 sum of exp(row), fp16.naive (V,) exp/sum (inf/inf = nan), "
                    "fp16.stable (V,) exp(row - max)/sum in float16, fp16.limit (1,) = ln(65504), "
                    "fp16.max (3,) the largest float16, bfloat16 and float32")
@one_torch_thread
def float16_softmax(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    row = _row0_logits(context).float()                                      # (V,)
    half = row.half()                                                        # (V,)
    exp16 = torch.exp(half)                                                  # (V,) float16
    naive_sum = exp16.sum()                                                  # float16
    shifted = torch.exp(half - half.max())                                   # (V,) float16, all <= 1
    stable = shifted / shifted.sum()                                         # (V,) float16
    with np.errstate(invalid="ignore"):
        naive = _np(exp16 / naive_sum)
    return {
        "fp16.row": _np(row),
        "fp16.exp16": _np(exp16),
        "fp16.overflow": _scalar(torch.isinf(exp16).sum()),
        "fp16.naive_sum": _scalar(naive_sum),
        "fp16.naive": naive,
        "fp16.stable": _np(stable),
        "fp16.limit": _scalar(math.log(torch.finfo(torch.float16).max)),
        "fp16.max": np.array([torch.finfo(t).max for t in (torch.float16, torch.bfloat16, torch.float32)]),
    }


@experiment("norm_axes", "LayerNorm versus BatchNorm statistics of block 0's input x = resid_pre: "
                         "norm_axes.ln_mean (B, L, 1) one mean per token (over D), norm_axes.bn_mean (1, 1, D) one "
                         "mean per feature (over B and L), norm_axes.bn (B, L, D) x normalised per feature, "
                         "norm_axes.bn_row_mean (B, L) the mean of each token's row after that")
@one_torch_thread
def norm_axes(context: ExperimentContext) -> dict[str, np.ndarray]:
    x = _probes(context)["blocks.0.resid_pre"]                               # (B, L, D)
    bn_mean = x.mean(dim=(0, 1), keepdim=True)                               # (1, 1, D)
    bn_var = x.var(dim=(0, 1), keepdim=True, unbiased=False)                 # (1, 1, D)
    bn = (x - bn_mean) / (bn_var + 1e-5).sqrt()                              # (B, L, D)
    return {
        "norm_axes.ln_mean": _np(x.mean(dim=-1, keepdim=True)),              # (B, L, 1)
        "norm_axes.bn_mean": _np(bn_mean),
        "norm_axes.bn": _np(bn),
        "norm_axes.bn_row_mean": _np(bn.mean(dim=-1)),
    }


@experiment("residual_grad", "how much gradient of out = sum(last block's output at the last position) reaches "
                             "each block's input, with the skip connections (x + F(x)) and with them removed (F(x)): "
                             "residual_grad.with_skip / .without_skip (N,) gradient norms at blocks 0..N-1 (row 0), "
                             "residual_grad.input_with_skip / .input_without_skip (L, D) the gradient at "
                             "block 0's input")
@one_torch_thread
def residual_gradient(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model, tokens = context.model, _tokens(context)[:1]                      # (1, L)
    with torch.no_grad():
        x0 = model.W_E(tokens)                                               # (1, L, D)
        pos = model.position_embedding(0, tokens.shape[1], tokens.device)   # (L, D) or None
        if pos is not None:
            x0 = x0 + pos

    def gradients(skip: bool):
        x = x0.detach().clone().requires_grad_(True)                         # (1, L, D)
        inputs = []
        with torch.enable_grad():
            h = x
            for block in model.blocks:
                inputs.append(h)
                a, _ = block.attn(block.ln1(h))
                h = h + a if skip else a                                     # (1, L, D)
                m = block.mlp(block.ln2(h))
                h = h + m if skip else m                                     # (1, L, D)
            grads = torch.autograd.grad(h[0, -1].sum(), inputs)              # leaves no .grad on the weights
        return torch.stack([g.norm() for g in grads]), grads[0][0]

    norms_with, first_with = gradients(True)
    norms_without, first_without = gradients(False)
    return {
        "residual_grad.with_skip": _np(norms_with),
        "residual_grad.without_skip": _np(norms_without),
        "residual_grad.input_with_skip": _np(first_with),
        "residual_grad.input_without_skip": _np(first_without),
    }


@experiment("activations", "block 0's MLP pre-activations x = mlp.pre through two activations: activations.phi "
                           "(B, L, 4D) = Φ(x), the standard normal CDF, activations.relu (B, L, 4D) = max(x, 0), "
                           "activations.dead (1,) hidden units whose x is <= 0 at every position of every row")
@one_torch_thread
def activations(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    x = _probes(context)["blocks.0.mlp.pre"]                                 # (B, L, 4D)
    return {
        "activations.phi": _np(0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))),
        "activations.relu": _np(torch.relu(x)),
        "activations.dead": _scalar((x <= 0).all(dim=1).all(dim=0).sum()),
    }


# --------------------------------------------------------------------------------------
# it: information, entropy, cross-entropy, KL


@experiment("info", "information and entropy of the next-token distribution at every position: info.probs "
                    "(B, L, V), info.surprisal (B, L, V) = -ln p, info.entropy (B, L) in nats, info.perplexity "
                    "(B, L) = e^H, info.max_entropy (1,) = ln V, info.next_surprisal (B, L-1) = -ln p of the "
                    "token that actually comes next")
@one_torch_thread
def information(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = _tokens(context)
    with torch.no_grad():
        logits = context.model(tokens).detach().cpu().double()              # (B, L, V)
    logp = torch.log_softmax(logits, dim=-1)                                 # (B, L, V)
    probs = logp.exp()
    entropy = -(probs * logp).sum(-1)                                        # (B, L)
    following = tokens.cpu()[:, 1:, None]                                    # (B, L-1, 1)
    return {
        "info.probs": _np(probs),
        "info.surprisal": _np(-logp),
        "info.entropy": _np(entropy),
        "info.perplexity": _np(entropy.exp()),
        "info.max_entropy": _scalar(math.log(logits.shape[-1])),
        "info.next_surprisal": _np(-logp[:, :-1].gather(-1, following)[..., 0]),
    }


@experiment("kl", "teacher p = the lesson's model, student q = an untrained model of the same size (seeded by the "
                  "lesson's seed), both on batch row 0, next-token distributions at the last position: kl.p (V,), "
                  "kl.q (V,), kl.H_p, kl.H_q, kl.H_pq = -sum p ln q, kl.H_qp, kl.KL_pq = sum p ln(p/q), "
                  "kl.KL_qp (1,) each, in nats; kl.KL_gap (1,) = KL_qp - KL_pq")
@one_torch_thread
def kl_divergence(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.copies import seeded_model

    student = seeded_model(context.model.config, context.seed)                # on the CPU
    with torch.no_grad():
        logp = torch.log_softmax(_row0_logits(context), -1)                 # (V,)
        logq = torch.log_softmax(student(context.tokens[:1].cpu())[0, -1].double(), -1)  # (V,)
    p, q = logp.exp(), logq.exp()
    return {
        "kl.p": _np(p), "kl.q": _np(q),
        "kl.H_p": _scalar(-(p * logp).sum()), "kl.H_q": _scalar(-(q * logq).sum()),
        "kl.H_pq": _scalar(-(p * logq).sum()), "kl.H_qp": _scalar(-(q * logp).sum()),
        "kl.KL_pq": _scalar((p * (logp - logq)).sum()), "kl.KL_qp": _scalar((q * (logq - logp)).sum()),
        "kl.KL_gap": _scalar((q * (logq - logp)).sum() - (p * (logp - logq)).sum()),
    }


# --------------------------------------------------------------------------------------
# de: decoding (model/sample.py's own functions)


@experiment("decode", f"the token after batch row 0 through model/sample.py's filters: decode.logits (V,), "
                      f"decode.probs (V,) at T=1, decode.probs_T2 (V,) at T={HOT_T:g}, decode.topk_probs (V,) top-k "
                      f"k={TOP_K}, decode.topp_probs (V,) top-p p={TOP_P} (renormalised; decode.topk_kept / "
                      f"decode.topp_kept: the T=1 probabilities with the dropped tokens set to 0), "
                      f"decode.sorted_ids / decode.sorted_probs / "
                      f"decode.cumsum (10,) the 10 most likely tokens, decode.ratio (2,) p(1st)/p(2nd) at T=1 and "
                      f"T={HOT_T:g}, decode.greedy_token (1,) the argmax id, decode.sample_counts (V,) how often each "
                      f"token comes up in {N_DRAWS} draws at T=1 (seeded)")
@one_torch_thread
def decode(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import filter_logits

    logits = _row0_logits(context).float()                                   # (V,)
    probs = torch.softmax(logits, -1)                                        # (V,)
    top_k = filter_logits(logits, 1.0, top_k=TOP_K)                          # (V,) -inf outside the top k
    top_p = filter_logits(logits, 1.0, top_p=TOP_P)                          # (V,) -inf outside the nucleus
    top = torch.topk(probs, min(10, probs.numel()))
    gap = float(torch.topk(logits, 2).values.diff().neg()) if logits.numel() > 1 else 0.0
    generator = torch.Generator().manual_seed(context.seed)
    draws = torch.multinomial(probs, N_DRAWS, replacement=True, generator=generator)  # (N,)
    return {
        "decode.logits": _np(logits),
        "decode.probs": _np(probs),
        "decode.probs_T2": _np(torch.softmax(filter_logits(logits, HOT_T), -1)),
        "decode.topk_kept": _np(probs.masked_fill(torch.isinf(top_k), 0.0)),
        "decode.topk_probs": _np(torch.softmax(top_k, -1)),
        "decode.topp_kept": _np(probs.masked_fill(torch.isinf(top_p), 0.0)),
        "decode.topp_probs": _np(torch.softmax(top_p, -1)),
        "decode.sorted_ids": _np(top.indices),
        "decode.sorted_probs": _np(top.values),
        "decode.cumsum": _np(top.values.cumsum(-1)),
        "decode.ratio": np.array([math.exp(gap), math.exp(gap / HOT_T)]),
        "decode.greedy_token": _scalar(logits.argmax()),
        "decode.sample_counts": np.bincount(draws.numpy(), minlength=logits.numel()).astype(np.float64),
    }


def _prompt_before_separator(context: ExperimentContext) -> list[int]:
    """Row 0's tokens before its first '>' (when there is one after the first token), else the whole row."""
    ids = context.tokens[0].tolist()
    separator = context.tokenizer.encode(SEPARATOR)[0]
    return ids[: ids.index(separator)] if separator in ids[1:] else ids


@experiment("generate", f"{N_NEW} new tokens after batch row 0 with model/sample.py's generate: generate.greedy "
                        f"({N_NEW},) token ids at temperature 0, generate.greedy_rerun_diff (1,) positions where a "
                        f"second greedy run differs, generate.sampled (2, {N_NEW}) two runs at T=1 with seeds s and "
                        f"s+1, generate.sampled_diff (1,) positions where they differ, generate.input_greedy "
                        f"({N_NEW},) greedy after only the row's digits before '>'")
@one_torch_thread
def generate_tokens(context: ExperimentContext) -> dict[str, np.ndarray]:
    from tutor.model.sample import generate

    model, ids = context.model, context.tokens[0].tolist()
    # greedy never draws, but a seed keeps generate from touching the global random state
    greedy = generate(model, ids, N_NEW, temperature=0, seed=0)
    again = generate(model, ids, N_NEW, temperature=0, seed=0)
    input_only = generate(model, _prompt_before_separator(context), N_NEW, temperature=0, seed=0)
    sampled = [generate(model, ids, N_NEW, temperature=1.0, seed=context.seed + i) for i in (0, 1)]
    return {
        "generate.greedy": np.array(greedy, dtype=np.float64),
        "generate.greedy_rerun_diff": _scalar(sum(a != b for a, b in zip(greedy, again))),
        "generate.sampled": np.array(sampled, dtype=np.float64),
        "generate.sampled_diff": _scalar(sum(a != b for a, b in zip(*sampled))),
        "generate.input_greedy": np.array(input_only, dtype=np.float64),
    }


@experiment("beam", f"two steps of beam search (width k = {BEAM_WIDTH}) after batch row 0, the way model/sample.py's "
                    "beam_search scores them: beam.step1_tokens / beam.step1_scores (k,), beam.step1_probs (k,) their "
                    "probabilities, beam.next_best (k,) the probability of the best token after each, "
                    "beam.candidates (k, V) the "
                    "total log-probability of every one-token extension, beam.step2_tokens (k, 2), "
                    "beam.step2_scores (k,) = ln p1 + ln p2, beam.p_first / beam.p_second (k,) the two tokens' "
                    "probabilities; beam_search itself for 6 new tokens: beam.best (n,), greedy: beam.greedy (n,), "
                    "their total log-probabilities beam.best_score / beam.greedy_score (1,)")
@one_torch_thread
def beam(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import beam_search, generate

    model = context.model
    device = next(model.parameters()).device
    ids = context.tokens[0].tolist()[-(model.config.block_size - 8):]        # room for 6 new tokens

    def logprobs(seqs: list[list[int]]) -> torch.Tensor:                    # n sequences -> (n, V)
        with torch.no_grad():
            return torch.log_softmax(model(torch.tensor(seqs, device=device))[:, -1].cpu().double(), -1)

    first = logprobs([ids])[0]                                               # (V,)
    scores1, tokens1 = torch.topk(first, BEAM_WIDTH)                         # (k,) each
    second = logprobs([ids + [t] for t in tokens1.tolist()])                 # (k, V)
    candidates = scores1[:, None] + second                                   # (k, V)
    scores2, flat = torch.topk(candidates.reshape(-1), BEAM_WIDTH)           # (k,) each
    rows, tokens2 = flat // second.shape[1], flat % second.shape[1]          # (k,) each

    def total(new: list[int]) -> float:
        return float(sum(logprobs([ids + new[:i]])[0, t] for i, t in enumerate(new)))

    best = beam_search(model, ids, 6, beam_width=BEAM_WIDTH)
    greedy = generate(model, ids, 6, temperature=0, seed=0)
    return {
        "beam.step1_tokens": _np(tokens1), "beam.step1_scores": _np(scores1),
        "beam.step1_probs": _np(scores1.exp()), "beam.next_best": _np(second.max(dim=-1).values.exp()),
        "beam.candidates": _np(candidates),
        "beam.step2_tokens": _np(torch.stack([tokens1[rows], tokens2], dim=1)),
        "beam.step2_scores": _np(scores2),
        "beam.p_first": _np(first[tokens1[rows]].exp()),
        "beam.p_second": _np(second[rows, tokens2].exp()),
        "beam.best": np.array(best, dtype=np.float64), "beam.greedy": np.array(greedy, dtype=np.float64),
        "beam.best_score": _scalar(total(best)), "beam.greedy_score": _scalar(total(greedy)),
    }
