"""Experiments for the linear-algebra, probability, calculus and optimisation tracks.

Each function below is registered with :func:`tutor.experiments.registry.experiment` and returns named
numpy tensors (``name.*``) that lessons read like probes.  Whatever trains, perturbs or
differentiates works on a *copy* of the lesson's model: the trained model is shared by every
lesson and the dashboard, so it is never modified here.

Losses follow the trainer (``model/train.py``): next-token cross-entropy, and in a row that
contains the task separator ``>`` only the targets after it (the answer) are scored, because
the digits before it are random and the trainer never asks the model to predict them.
"""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import DIGITS, IGNORE, SEPARATOR



def _np(tensor) -> np.ndarray:
    return tensor.detach().cpu().double().numpy()


def _device(model):
    return next(model.parameters()).device


def _tokens(context: ExperimentContext):
    return context.tokens.to(_device(context.model))


def _copy(model, double: bool = True):
    """A private copy of ``model`` (float64 by default) that gradients and steps may touch."""
    import torch

    from tutor.model.copies import copy_model

    return copy_model(model, dtype=torch.float64 if double else torch.float32, trainable=True)


def _scored_targets(context: ExperimentContext):
    """Targets (B, L-1) for next-token prediction; IGNORE where the trainer does not score.

    In a row holding ``>``, target j (the token at position j+1) is scored only when it comes
    after the separator, as in the sort/reverse training data; other rows score every target.
    """
    import torch

    tokens = _tokens(context)                                              # (B, L)
    targets = tokens[:, 1:].clone()                                         # (B, L-1)
    sep = context.tokenizer.encode(SEPARATOR)[0]
    for b in range(tokens.shape[0]):
        hits = (tokens[b] == sep).nonzero().flatten()
        if hits.numel():
            first = int(hits[0])
            positions = torch.arange(targets.shape[1], device=tokens.device)
            targets[b, positions < first] = IGNORE                           # inputs 0..sep-1
    return targets


def _loss(model, tokens, targets):
    """Mean cross-entropy over the scored targets; logits (B, L, V) -> a scalar."""
    import torch.nn.functional as F

    logits = model(tokens)                                                  # (B, L, V)
    flat = logits[:, :-1].reshape(-1, logits.size(-1))                      # (B*(L-1), V)
    return F.cross_entropy(flat, targets.reshape(-1), ignore_index=IGNORE)


def _fresh_model(config, seed: int):
    """An untrained GPT with ``config``, initialised from ``seed`` without touching global RNG."""
    from tutor.model.copies import seeded_model

    return seeded_model(config, seed)


def _digit_ids(context: ExperimentContext) -> list[int]:
    return context.tokenizer.encode(DIGITS)


# ---------------------------------------------------------------------------- linear algebra

@experiment("embedding", "token ids and their one-hot rows next to the embedding lookup: "
                         "embedding.ids (B, L), embedding.one_hot (B, L, V), embedding.lookup (B, L, D); "
                         "cosine tables of the digits 0-9: embedding.digit_onehot_cos (10, 10), "
                         "embedding.digit_cos (10, 10) from W_E, embedding.digit_W_E (10, D), "
                         "embedding.digit_norm (10, 1) the length of each digit's row, "
                         "embedding.digit_nearest (10,) each digit's most similar other digit (largest cosine)")
@one_torch_thread
def embedding_lookup(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = _tokens(context)                                               # (B, L)
    vocab = context.model.config.vocab_size
    W_E = context.model.W_E.weight.detach().double()                        # (V, D)
    one_hot = torch.nn.functional.one_hot(tokens, vocab).double()           # (B, L, V)
    digits = torch.tensor(_digit_ids(context), device=W_E.device)           # (10,)
    rows = W_E[digits]                                                      # (10, D)
    unit = rows / rows.norm(dim=-1, keepdim=True)                           # (10, D)
    onehot_digits = torch.eye(vocab, dtype=torch.float64, device=W_E.device)[digits]  # (10, V)
    return {
        "embedding.ids": _np(tokens),
        "embedding.one_hot": _np(one_hot),
        "embedding.lookup": _np(W_E[tokens]),                               # (B, L, D)
        "embedding.digit_onehot_cos": _np(onehot_digits @ onehot_digits.T),  # (10, 10)
        "embedding.digit_cos": _np(unit @ unit.T),                          # (10, 10)
        "embedding.digit_W_E": _np(rows),
        "embedding.digit_norm": _np(rows.norm(dim=-1, keepdim=True)),
        "embedding.digit_nearest": _np((unit @ unit.T).fill_diagonal_(-2.0).argmax(dim=-1)),   # (10,)
    }


@experiment("svd", "singular value decomposition of the embedding matrix W_E = U·Sigma·V.T: "
                   "svd.U (V, r), svd.S (r,) largest first, svd.Sigma (r, r) = diag(S), svd.V (D, r) "
                   "with r = min(V, D); svd.energy (r,) "
                   "cumulative share of sum(S**2); svd.digit_coords (10, 2): the digits 0-9 on the "
                   "first two principal directions")
@one_torch_thread
def embedding_svd(context: ExperimentContext) -> dict[str, np.ndarray]:
    W = context.model.W_E.weight.detach().cpu().double().numpy()           # (V, D)
    U, S, Vt = np.linalg.svd(W, full_matrices=False)                        # (V, r), (r,), (r, D)
    # An SVD fixes each direction only up to sign: make the largest entry of each row of Vt
    # positive so the picture is the same on every run.
    signs = np.sign(Vt[np.arange(len(S)), np.abs(Vt).argmax(axis=1)])
    signs[signs == 0] = 1.0
    U, Vt = U * signs, Vt * signs[:, None]
    digits = W[_digit_ids(context)]                                         # (10, D)
    return {
        "svd.U": U,
        "svd.S": S,
        "svd.Sigma": np.diag(S),
        "svd.V": Vt.T,
        "svd.energy": np.cumsum(S ** 2) / np.sum(S ** 2),
        "svd.digit_coords": digits @ Vt[:2].T,                              # (10, 2)
    }


@experiment("dot_variance", "dot products of random unit-variance vectors: dot_variance.d (4,) = "
                            "4, 16, 64, 256; dot_variance.raw (4,) variance of q·k; "
                            "dot_variance.scaled (4,) variance of q·k/sqrt(d) (4096 pairs each)")
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
                            "MLP with GELU removed; mlp_collapse.gap (B, L) max |real MLP - linear|")
@one_torch_thread
def mlp_collapse(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    model = context.model
    _, probes = run_with_probes(model, _tokens(context))
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
    return {
        "mlp_collapse.x": _np(x),
        "mlp_collapse.W": _np(W),
        "mlp_collapse.xW": _np(x @ W),
        "mlp_collapse.linear_out": _np(linear),
        "mlp_collapse.gap": _np((real - linear).abs().amax(dim=-1)),       # (B, L)
    }


def _bias(linear, size: int, like):
    import torch

    if linear.bias is None:
        return torch.zeros(size, dtype=torch.float64, device=like.device)
    return linear.bias.detach().double()


# ------------------------------------------------------------------------------ probability

@experiment("next_token", "next-token probabilities and the max-subtraction trick: next_token.probs "
                          "(B, L, V) = softmax(logits); next_token.shifted (B, L, V) = logits - "
                          "row max; next_token.exp_shifted (B, L, V); next_token.exp_big (B, L, V) "
                          "= exp(logits + 100) in float32 (overflows); next_token.naive_big (B, L, V) "
                          "naive float32 softmax of logits + 100; next_token.stable_big (B, L, V) "
                          "max-subtracted softmax of logits + 100; next_token.shift_gap (B, L) "
                          "max |that - probs|; "
                          "the five most likely tokens: next_token.top_ids, .top_probs, .top_logits (B, L, 5)")
@one_torch_thread
def next_token(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    with torch.no_grad():
        logits = context.model(_tokens(context)).float()                    # (B, L, V)
    shifted = logits.double() - logits.double().amax(dim=-1, keepdim=True)  # (B, L, V)
    big = logits + 100.0                                                     # float32
    exp_big = torch.exp(big)                                                 # inf where > 88.7
    naive = exp_big / exp_big.sum(dim=-1, keepdim=True)                      # nan after inf/inf
    stable_big = torch.softmax(big, dim=-1)                                 # max-subtracted inside
    probs = torch.softmax(logits.double(), dim=-1)                          # (B, L, V)
    top = probs.topk(5, dim=-1)
    return {
        "next_token.probs": _np(probs),
        "next_token.top_ids": _np(top.indices),
        "next_token.top_probs": _np(top.values),
        "next_token.top_logits": _np(logits.double().gather(-1, top.indices)),
        "next_token.shift_gap": _np((stable_big.double() - probs).abs().amax(dim=-1)),
        "next_token.shifted": _np(shifted),
        "next_token.exp_shifted": _np(shifted.exp()),
        "next_token.exp_big": _np(exp_big),
        "next_token.naive_big": _np(naive),
        "next_token.stable_big": _np(stable_big),
    }


TEMPERATURES = (0.5, 1.0, 2.0, 5.0, 1000.0)


@experiment("temperature", "softmax(z / T) of the next-token logits z at the last position of "
                           "row 0, through the sampler's own filter: temperature.T (5,) = 0.5, 1, 2, "
                           "5, 1000; temperature.probs (5, V); temperature.top (5,) largest p at each T; "
                           "temperature.winner (5,) its token id; temperature.hot_change (1,) top at T=5 "
                           "minus top at T=1")
@one_torch_thread
def temperature(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import filter_logits

    with torch.no_grad():
        z = context.model(_tokens(context))[0, -1].double()                 # (V,)
    probs = torch.stack([torch.softmax(filter_logits(z, t), dim=-1) for t in TEMPERATURES])  # (5, V)
    return {"temperature.T": np.array(TEMPERATURES), "temperature.probs": _np(probs),
            "temperature.top": _np(probs.amax(dim=-1)), "temperature.winner": _np(probs.argmax(dim=-1)),
            # its sign is the answer to "does the favourite rise or fall when T grows?" on any model
            "temperature.hot_change": _np(probs[3].max() - probs[1].max()).reshape(1)}


@experiment("nll", "the probability the model gives each real next token and its cross-entropy: "
                   "nll.targets (B, L-1) ids; nll.onehot (B, L-1, V); nll.p_true (B, L-1); "
                   "nll.loss (B, L-1) = -log p_true; nll.scored (B, L-1) 1 where the trainer scores "
                   "(after '>'); nll.mean (1,) over scored; nll.answer_prob (B, 1) product of "
                   "p_true over the scored targets; the same for an untrained model of the same "
                   "size: nll.random_p_true, nll.random_loss (B, L-1), nll.random_mean (1,)")
@one_torch_thread
def negative_log_likelihood(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = _tokens(context)
    targets = tokens[:, 1:]                                                 # (B, L-1)
    scored = (_scored_targets(context) != IGNORE).double()                  # (B, L-1)
    out: dict[str, np.ndarray] = {
        "nll.targets": _np(targets),
        "nll.onehot": _np(torch.nn.functional.one_hot(targets, context.model.config.vocab_size)),
        "nll.scored": _np(scored),
    }
    fresh = _fresh_model(context.model.config, context.seed).to(tokens.device)
    for prefix, model in (("nll.", context.model), ("nll.random_", fresh)):
        with torch.no_grad():
            logp = torch.log_softmax(model(tokens)[:, :-1].double(), dim=-1)  # (B, L-1, V)
        logp_true = logp.gather(-1, targets[..., None])[..., 0]            # (B, L-1)
        out[prefix + "p_true"] = _np(logp_true.exp())
        out[prefix + "loss"] = _np(-logp_true)
        mean = (-logp_true * scored).sum() / scored.sum().clamp(min=1)
        out[prefix + "mean"] = _np(mean.reshape(1))
        if prefix == "nll.":
            out["nll.answer_prob"] = _np((logp_true * scored).sum(dim=-1, keepdim=True).exp())
    return out


@experiment("autoregressive", "causality check: the input with its last token replaced: "
                              "autoregressive.tokens (B, L) the edited ids; autoregressive.logits "
                              "(B, L, V) for the edited input; autoregressive.change (B, L) max "
                              "|logits difference| at each position")
@one_torch_thread
def autoregressive(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = _tokens(context)
    edited = tokens.clone()
    replacement = context.tokenizer.encode("9")[0]
    edited[:, -1] = torch.where(edited[:, -1] == replacement, replacement - 1, replacement)
    with torch.no_grad():
        before = context.model(tokens).double()                             # (B, L, V)
        after = context.model(edited).double()                              # (B, L, V)
    return {"autoregressive.tokens": _np(edited), "autoregressive.logits": _np(after),
            "autoregressive.change": _np((after - before).abs().amax(dim=-1))}


# --------------------------------------------------------------------------------- calculus

@experiment("ce_grad", "one backward pass of the trainer's loss on a float64 copy: ce_grad.loss (1,); "
                       "ce_grad.N (1,) scored targets; ce_grad.scored (B, L-1); ce_grad.probs and "
                       "ce_grad.onehot (B, L-1, V); ce_grad.dlogits (B, L-1, V) = dL/dlogits; "
                       "ce_grad.x_final (B, L-1, D) the input of W_U; ce_grad.dx_final (B, L-1, D); "
                       "ce_grad.dW_U (D, V) in the (in, out) layout of params.W_U")
@one_torch_thread
def cross_entropy_grad(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    model = _copy(context.model)
    tokens, targets = _tokens(context), _scored_targets(context)
    captured = {}
    handle = model.W_U.register_forward_hook(lambda mod, inp, out: captured.update(x=inp[0], z=out))
    try:
        with torch.enable_grad():
            model(tokens)
            x, z = captured["x"], captured["z"]                             # (B, L, D), (B, L, V)
            x.retain_grad()
            z.retain_grad()
            loss = F.cross_entropy(z[:, :-1].reshape(-1, z.size(-1)), targets.reshape(-1),
                                   ignore_index=IGNORE)
            loss.backward()
    finally:
        handle.remove()
    scored = (targets != IGNORE)
    safe = targets.clamp(min=0)
    onehot = F.one_hot(safe, z.size(-1)).double() * scored[..., None]       # (B, L-1, V)
    return {
        "ce_grad.loss": _np(loss.reshape(1)),
        "ce_grad.N": np.array([float(scored.sum())]),
        "ce_grad.scored": _np(scored.double()),
        "ce_grad.probs": _np(torch.softmax(z[:, :-1], dim=-1)),
        "ce_grad.onehot": _np(onehot),
        "ce_grad.dlogits": _np(z.grad[:, :-1]),
        "ce_grad.x_final": _np(x[:, :-1]),
        "ce_grad.dx_final": _np(x.grad[:, :-1]),
        "ce_grad.dW_U": _np(model.W_U.weight.grad.T),                       # (D, V)
    }


FD_STEP = 1e-4


@experiment("finite_diff", "partial derivatives two ways on a float64 copy: finite_diff.index (4, 2) "
                           "entries (row, col) of W_U (in, out layout) with the largest gradient; "
                           "finite_diff.partial (4,) from backward(); finite_diff.loss_plus / "
                           "finite_diff.loss_minus (4,) the loss with that entry moved by +-h, "
                           "h = finite_diff.h (1,) = 1e-4; finite_diff.gain (9,) the loss change for a "
                           "step of length 1e-3 along the gradient (entry 0) and 8 random directions")
@one_torch_thread
def finite_differences(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = _copy(context.model)
    tokens, targets = _tokens(context), _scored_targets(context)
    with torch.enable_grad():
        loss = _loss(model, tokens, targets)
        loss.backward()
    base = float(loss.detach())
    weight = model.W_U.weight                                               # (V, D): out, in
    grad = weight.grad.T.clone()                                            # (D, V)
    flat = grad.abs().flatten().topk(4).indices
    index = torch.stack([flat // grad.shape[1], flat % grad.shape[1]], dim=1)  # (4, 2) (in, out)
    plus, minus = [], []
    with torch.no_grad():
        for row, col in index.tolist():
            for sign, store in ((1.0, plus), (-1.0, minus)):
                weight[col, row] += sign * FD_STEP
                store.append(float(_loss(model, tokens, targets)))
                weight[col, row] -= sign * FD_STEP
        params = [p for p in model.parameters()]
        grads = [p.grad.clone() for p in params]
        norm = torch.sqrt(sum((g ** 2).sum() for g in grads))
        generator = torch.Generator().manual_seed(context.seed)
        directions = [[g / norm for g in grads]]
        for _ in range(8):
            d = [torch.randn(p.shape, generator=generator, dtype=torch.float64).to(p.device) for p in params]
            d_norm = torch.sqrt(sum((x ** 2).sum() for x in d))
            directions.append([x / d_norm for x in d])
        gain = []
        for direction in directions:
            for p, d in zip(params, direction):
                p += 1e-3 * d
            gain.append(float(_loss(model, tokens, targets)) - base)
            for p, d in zip(params, direction):
                p -= 1e-3 * d
    return {
        "finite_diff.index": _np(index),
        "finite_diff.partial": _np(grad[index[:, 0], index[:, 1]]),
        "finite_diff.loss_plus": np.array(plus),
        "finite_diff.loss_minus": np.array(minus),
        "finite_diff.h": np.array([FD_STEP]),
        "finite_diff.gain": np.array(gain),
    }


@experiment("autograd", "what backward() fills in, on a float64 copy: autograd.grad_before (1,) 1 if "
                        ".grad was None before backward(); autograd.W_E_rows (V,) norm of each row "
                        "of dL/dW_E; autograd.W_pos_rows (L,) the same for the position table; "
                        "autograd.once / autograd.twice (D,) dL/d(ln_final gain) after one and after "
                        "two backward() calls without zero_grad; autograd.graph_nodes (1,) "
                        "operations recorded in the graph")
@one_torch_thread
def autograd_demo(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = _copy(context.model)
    tokens, targets = _tokens(context), _scored_targets(context)
    before = float(model.ln_final.weight.grad is None)
    with torch.enable_grad():
        loss = _loss(model, tokens, targets)
        nodes, stack = set(), [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in nodes:
                continue
            nodes.add(node)
            stack.extend(next_fn for next_fn, _ in node.next_functions)
        loss.backward(retain_graph=True)
        once = model.ln_final.weight.grad.clone()
        W_E_rows = model.W_E.weight.grad.norm(dim=-1)                       # (V,)
        length = tokens.shape[1]
        W_pos_rows = (model.W_pos.weight.grad[:length].norm(dim=-1) if model.W_pos is not None
                      else torch.zeros(length, dtype=torch.float64))
        loss.backward()
    return {
        "autograd.grad_before": np.array([before]),
        "autograd.W_E_rows": _np(W_E_rows),
        "autograd.W_pos_rows": _np(W_pos_rows),
        "autograd.once": _np(once),
        "autograd.twice": _np(model.ln_final.weight.grad),
        "autograd.graph_nodes": np.array([float(len(nodes))]),
    }


CHAIN_DEPTH = 12


@experiment("vanish", "products of derivatives: vanish.pre (B, L, 4D) block 0's real MLP pre-"
                      "activations; vanish.sigmoid_grad and vanish.gelu_grad (B, L, 4D) the "
                      "derivative of sigmoid / GELU there, by autograd; vanish.sigmoid_chain (12,) "
                      "d x_n / d x_0 for x_(k+1) = sigmoid(x_k), x_0 = 0, n = 1..12; vanish.bound (12,) "
                      "= 0.25**n; vanish.linear_chain (2, 12) the same for x_(k+1) = a*x_k, a = 0.5, 1.5")
@one_torch_thread
def vanishing(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    _, probes = run_with_probes(context.model, _tokens(context))
    with torch.enable_grad():
        pre = probes["blocks.0.mlp.pre"].double().clone().requires_grad_(True)  # (B, L, 4D)
        sigmoid_grad, = torch.autograd.grad(torch.sigmoid(pre).sum(), pre)
        gelu_grad, = torch.autograd.grad(torch.nn.functional.gelu(pre).sum(), pre)
        chains = []
        for step in (torch.sigmoid, lambda x: 0.5 * x, lambda x: 1.5 * x):
            x0 = torch.zeros((), dtype=torch.float64, requires_grad=True)
            x, grads = x0, []
            for _ in range(CHAIN_DEPTH):
                x = step(x)
                grads.append(torch.autograd.grad(x, x0, retain_graph=True)[0])
            chains.append(torch.stack(grads))
    depth = np.arange(1, CHAIN_DEPTH + 1, dtype=float)
    return {
        "vanish.pre": _np(pre),
        "vanish.sigmoid_grad": _np(sigmoid_grad),
        "vanish.gelu_grad": _np(gelu_grad),
        "vanish.sigmoid_chain": _np(chains[0]),
        "vanish.bound": 0.25 ** depth,
        "vanish.linear_chain": _np(torch.stack(chains[1:])),
    }


# ------------------------------------------------------------------------------ optimisation

GD_RATES = (0.01, 1.0, 10.0)
GD_STEPS = 20


@experiment("gradient_descent", "plain gradient descent W <- W - lr*grad on copies: "
                                "gradient_descent.lr (3,) = 0.01, 1, 10; gradient_descent.curves (3, 21) "
                                "the loss before each of 20 steps and after the last (inf once it "
                                "diverges); gradient_descent.grad_W_U (D, V) the first gradient of W_U; "
                                "gradient_descent.W_U_after (D, V) W_U after one step with lr = 1")
@one_torch_thread
def gradient_descent(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens, targets = _tokens(context), _scored_targets(context)
    curves, grad_W_U, after = [], None, None
    for lr in GD_RATES:
        model = _copy(context.model, double=False)
        curve = []
        for step in range(GD_STEPS + 1):
            with torch.enable_grad():
                model.zero_grad(set_to_none=True)
                loss = _loss(model, tokens, targets)
                value = float(loss.detach())
                curve.append(value if math.isfinite(value) else math.inf)
                if step == GD_STEPS or not math.isfinite(value):
                    break
                loss.backward()
            with torch.no_grad():
                if grad_W_U is None:
                    grad_W_U = model.W_U.weight.grad.T.clone()
                for p in model.parameters():
                    p -= lr * p.grad
            if lr == 1.0 and step == 0:
                after = model.W_U.weight.detach().T.clone()
        curves.append(curve + [math.inf] * (GD_STEPS + 1 - len(curve)))
    return {
        "gradient_descent.lr": np.array(GD_RATES),
        "gradient_descent.curves": np.array(curves),
        "gradient_descent.grad_W_U": _np(grad_W_U),
        "gradient_descent.W_U_after": _np(after),
    }


MOMENTUM = 0.9
MOMENTUM_STEPS = 6


@experiment("momentum", "mini-batches and torch's SGD with momentum 0.9 (lr 0.1) on a copy, one input "
                        "row per step: momentum.row_grads (P, B) the gradient of W_U (flattened, "
                        "P = D*V) from each row alone; momentum.full_grad (P, 1) from the whole "
                        "batch; momentum.row_cos (B,) cosine of each row's gradient with the full one; "
                        "momentum.grads / momentum.buffers (6, P) each step's gradient and torch's "
                        "momentum buffer; momentum.grad_cos / momentum.buffer_cos (5,) cosine between "
                        "consecutive steps; momentum.const_ratio (100,) |buffer|/|g| after 1..100 steps "
                        "of one constant g")
@one_torch_thread
def momentum(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens, targets = _tokens(context), _scored_targets(context)
    batch = tokens.shape[0]
    model = _copy(context.model)
    rows = []
    with torch.enable_grad():
        for b in range(batch):
            model.zero_grad(set_to_none=True)
            _loss(model, tokens[b:b + 1], targets[b:b + 1]).backward()
            rows.append(model.W_U.weight.grad.T.flatten().clone())           # (P,)
        model.zero_grad(set_to_none=True)
        _loss(model, tokens, targets).backward()
        full = model.W_U.weight.grad.T.flatten().clone()                    # (P,)
    row_grads = torch.stack(rows, dim=1)                                    # (P, B)
    cos = torch.nn.functional.cosine_similarity(row_grads, full[:, None], dim=0)  # (B,)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=MOMENTUM)
    grads, buffers = [], []
    for step in range(MOMENTUM_STEPS):
        b = step % batch
        optimizer.zero_grad(set_to_none=True)
        with torch.enable_grad():
            _loss(model, tokens[b:b + 1], targets[b:b + 1]).backward()
        grads.append(model.W_U.weight.grad.T.flatten().clone())
        optimizer.step()
        buffers.append(optimizer.state[model.W_U.weight]["momentum_buffer"].T.flatten().clone())
    grads, buffers = torch.stack(grads), torch.stack(buffers)               # (6, P) each
    consecutive = lambda m: torch.nn.functional.cosine_similarity(m[1:], m[:-1], dim=1)  # noqa: E731

    probe = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    constant = torch.optim.SGD([probe], lr=0.0, momentum=MOMENTUM)
    g, ratios = torch.tensor([1.0, -2.0, 2.0], dtype=torch.float64), []
    for _ in range(100):
        probe.grad = g.clone()
        constant.step()
        ratios.append(float(constant.state[probe]["momentum_buffer"].norm() / g.norm()))
    return {
        "momentum.row_grads": _np(row_grads),
        "momentum.full_grad": _np(full[:, None]),
        "momentum.row_cos": _np(cos),
        "momentum.grads": _np(grads),
        "momentum.buffers": _np(buffers),
        "momentum.grad_cos": _np(consecutive(grads)),
        "momentum.buffer_cos": _np(consecutive(buffers)),
        "momentum.const_ratio": np.array(ratios),
    }


ADAM_STEPS = 3


@experiment("adam", "three steps of the trainer's own AdamW (make_optimizer, lr 0.01, betas 0.9/0.99) "
                    "on a copy; for the final LayerNorm's gain (D,), which has no weight decay: "
                    "adam.grads (3, D) the gradient at each step; adam.exp_avg / adam.exp_avg_sq (D,) "
                    "torch's first and second moments after step 3; adam.m_hat / adam.v_hat (D,) "
                    "bias-corrected; adam.correction (2,) = 1/(1-0.9**3), 1/(1-0.99**3); "
                    "adam.first_ratio (D,) exp_avg after step 1 divided by the first gradient; "
                    "adam.first_step (D,) how far each gain moved in step 1, adam.first_move (D,) its "
                    "size, adam.first_move_in_lr (D,) that size divided by the learning rate; adam.lr (1,)")
@one_torch_thread
def adam(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.train import TrainConfig, make_optimizer

    config = TrainConfig(lr=0.01, beta1=0.9, beta2=0.99, device="cpu")
    model = _copy(context.model, double=False)
    tokens, targets = _tokens(context), _scored_targets(context)
    optimizer = make_optimizer(model, config)
    gain = model.ln_final.weight
    grads, first_ratio, first_step = [], None, None
    for step in range(ADAM_STEPS):
        optimizer.zero_grad(set_to_none=True)
        with torch.enable_grad():
            _loss(model, tokens, targets).backward()
        grads.append(gain.grad.detach().clone())
        before = gain.detach().clone()
        optimizer.step()
        if step == 0:
            first_ratio = optimizer.state[gain]["exp_avg"] / grads[0]
            first_step = gain.detach() - before
    state = optimizer.state[gain]
    t = float(state["step"])
    m, v = state["exp_avg"].double(), state["exp_avg_sq"].double()
    correction = torch.tensor([1 / (1 - config.beta1 ** t), 1 / (1 - config.beta2 ** t)])
    return {
        "adam.grads": _np(torch.stack(grads)),
        "adam.exp_avg": _np(m),
        "adam.exp_avg_sq": _np(v),
        "adam.m_hat": _np(m * correction[0]),
        "adam.v_hat": _np(v * correction[1]),
        "adam.correction": _np(correction),
        "adam.first_ratio": _np(first_ratio),
        "adam.first_step": _np(first_step),
        "adam.first_move": _np(first_step.abs()),
        "adam.first_move_in_lr": _np(first_step.abs() / config.lr),
        "adam.lr": np.array([config.lr]),
    }


SCHEDULE_STEPS = 1500      # the shipped checkpoint's run: 1500 steps, lr 3e-3, 100 warm-up steps
WARMUP_SAMPLES = (0, 24, 49, 99)
COSINE_SAMPLES = (100, 450, 800, 1150, 1499)


@experiment("lr_schedule", "the trainer's lr_at() for the shipped model's run (1500 steps, lr 3e-3, "
                           "100 warm-up steps, floor 10%): lr_schedule.warmup_steps / .warmup (4,) at "
                           "steps 0, 24, 49, 99; lr_schedule.cosine_steps / .cosine (5,) at steps 100, "
                           "450, 800, 1150, 1499; lr_schedule.progress (5,) the cosine's progress 0..1; "
                           "lr_schedule.curve (1500,) every step")
@one_torch_thread
def lr_schedule(context: ExperimentContext) -> dict[str, np.ndarray]:
    from tutor.model.train import TrainConfig, lr_at

    config = TrainConfig(steps=SCHEDULE_STEPS, lr=3e-3, warmup_steps=100, min_lr_ratio=0.1, device="cpu")
    warmup = min(config.warmup_steps, config.steps - 1)
    progress = [(s - warmup) / max(1, config.steps - 1 - warmup) for s in COSINE_SAMPLES]
    return {
        "lr_schedule.warmup_steps": np.array(WARMUP_SAMPLES, dtype=float),
        "lr_schedule.warmup": np.array([lr_at(s, config) for s in WARMUP_SAMPLES]),
        "lr_schedule.cosine_steps": np.array(COSINE_SAMPLES, dtype=float),
        "lr_schedule.cosine": np.array([lr_at(s, config) for s in COSINE_SAMPLES]),
        "lr_schedule.progress": np.array(progress),
        "lr_schedule.curve": np.array([lr_at(s, config) for s in range(config.steps)]),
    }


LANDSCAPE_POINTS = 21


@experiment("landscape", "the loss along straight lines through weight space, on a copy: "
                         "landscape.alpha (21,) from -1 to 1; landscape.line (21,) the loss at "
                         "W + alpha*d for a random direction d scaled per tensor to the weights' "
                         "norm; landscape.t (21,) from 0 to 1; landscape.path (21,) the loss at "
                         "(1-t)*W0 + t*W from a fresh untrained W0 (same size, seed) to the weights W; "
                         "landscape.bend (19,) = path[k] + path[k+2] - 2*path[k+1], negative where the "
                         "path bends downwards (impossible for a convex loss)")
@one_torch_thread
def landscape(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = _copy(context.model)
    tokens, targets = _tokens(context), _scored_targets(context)
    params = list(model.parameters())
    weights = [p.detach().clone() for p in params]
    fresh = _fresh_model(context.model.config, context.seed).double().to(weights[0].device)
    start = [p.detach().clone() for p in fresh.parameters()]
    generator = torch.Generator().manual_seed(context.seed + 1)
    direction = []
    for w in weights:
        d = torch.randn(w.shape, generator=generator, dtype=torch.float64).to(w.device)
        direction.append(d * (w.norm() / d.norm().clamp(min=1e-12)) if w.norm() > 0 else torch.zeros_like(w))
    alpha = np.linspace(-1.0, 1.0, LANDSCAPE_POINTS)
    t = np.linspace(0.0, 1.0, LANDSCAPE_POINTS)
    line, path = [], []
    with torch.no_grad():
        for a in alpha:
            for p, w, d in zip(params, weights, direction):
                p.copy_(w + float(a) * d)
            line.append(float(_loss(model, tokens, targets)))
        for s in t:
            for p, w, w0 in zip(params, weights, start):
                p.copy_((1 - float(s)) * w0 + float(s) * w)
            path.append(float(_loss(model, tokens, targets)))
    path = np.array(path)
    return {"landscape.alpha": alpha, "landscape.line": np.array(line),
            "landscape.t": t, "landscape.path": path, "landscape.bend": path[:-2] + path[2:] - 2 * path[1:-1]}
