"""Experiments for the calculus track: the cross-entropy gradient, finite differences, autograd, vanishing products."""
from __future__ import annotations


from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import loss_on, private_copy, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import IGNORE


TEMPERATURE = 2.0   # ce_grad's second loss divides the logits by it; not 1, so the 1/T step shows


@experiment("ce_grad", "one backward pass of the trainer's loss on a float64 copy: ce_grad.loss (1,); "
                       "ce_grad.N (1,) scored targets; ce_grad.scored (B, L-1); ce_grad.probs and "
                       "ce_grad.onehot (B, L-1, V); ce_grad.dlogits (B, L-1, V) = dL/dlogits; "
                       "ce_grad.x_final (B, L-1, D) the input of W_U; ce_grad.dx_final (B, L-1, D); "
                       "ce_grad.dW_U (D, V) in the (in, out) layout of params.W_U; ce_grad.dW_U_norm (V,) the "
                       "length of each of its columns; ce_grad.dprobs (B, L-1, V) "
                       "= dL/dprobs, the same loss written as -log p of the target; ce_grad.T (1,) a temperature, 2; "
                       "ce_grad.probs_T (B, L-1, V) softmax(logits / T); ce_grad.dlogits_T (B, L-1, V) the gradient "
                       "at the logits of the same mean loss on logits / T", passes=1.2, copies=3)
@one_torch_thread
def cross_entropy_grad(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    model = private_copy(context.model)
    tokens, targets = tokens_on_device(context), scored_targets(context)
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
    # the gradient one step before the logits, at the probabilities: where dL/dz saturates, dL/dp does not
    with torch.enable_grad():
        probs = torch.softmax(z[:, :-1].detach(), dim=-1).requires_grad_()     # (B, L-1, V)
        p_target = probs.gather(-1, safe[..., None]).squeeze(-1)                # (B, L-1)
        p_target = torch.where(scored, p_target, torch.ones_like(p_target))    # log 1 = 0 off the scored targets
        (-(torch.log(p_target) * scored).sum() / scored.sum()).backward()
    # the same loss on logits / T, as distillation and calibration score them: a loss whose row the learner derives
    with torch.enable_grad():
        z_raw = z[:, :-1].detach().clone().requires_grad_()                     # (B, L-1, V)
        F.cross_entropy((z_raw / TEMPERATURE).reshape(-1, z.size(-1)), targets.reshape(-1),
                        ignore_index=IGNORE).backward()
    return {
        "ce_grad.loss": to_numpy(loss.reshape(1)),
        "ce_grad.N": np.array([float(scored.sum())]),
        "ce_grad.scored": to_numpy(scored.double()),
        "ce_grad.probs": to_numpy(torch.softmax(z[:, :-1], dim=-1)),
        "ce_grad.onehot": to_numpy(onehot),
        "ce_grad.dlogits": to_numpy(z.grad[:, :-1]),
        "ce_grad.x_final": to_numpy(x[:, :-1]),
        "ce_grad.dx_final": to_numpy(x.grad[:, :-1]),
        "ce_grad.dW_U": to_numpy(model.W_U.weight.grad.T),                       # (D, V)
        "ce_grad.dW_U_norm": to_numpy(model.W_U.weight.grad.norm(dim=1)),       # (V,): one per token's column
        "ce_grad.dprobs": to_numpy(probs.grad),                                 # (B, L-1, V)
        "ce_grad.T": np.array([TEMPERATURE]),
        "ce_grad.probs_T": to_numpy(torch.softmax(z[:, :-1].detach() / TEMPERATURE, dim=-1)),   # (B, L-1, V)
        "ce_grad.dlogits_T": to_numpy(z_raw.grad),                              # (B, L-1, V)
    }


FD_STEP = 1e-4


@experiment("finite_diff", "partial derivatives two ways on a float64 copy: finite_diff.index (4, 2) "
                           "entries (row, col) of W_U (in, out layout) with the largest gradient; "
                           "finite_diff.partial (4,) from backward(); finite_diff.loss_plus / "
                           "finite_diff.loss_minus (4,) the loss with that entry moved by +-h, "
                           "h = finite_diff.h (1,) = 1e-4; finite_diff.gain (9,) the loss change for a "
                           "step of length 1e-3 along the gradient (entry 0) and 8 random directions; "
                           "finite_diff.grad_norm (1,) the length of the whole gradient, over every weight; "
                           "finite_diff.cosine (9,) the cosine of each of those directions with the gradient; "
                           "finite_diff.n_params (1,) how many weights the directions span",
            passes=30, copies=16)
@one_torch_thread
def finite_differences(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = private_copy(context.model)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    looked_up = []   # the embedding's output, kept so its gradient dL/dX can be read beside dL/dW_E

    def keep(_module, _inputs, out) -> None:   # returning None leaves the output as it is
        out.retain_grad()
        looked_up.append(out)

    hook = model.W_E.register_forward_hook(keep)
    with torch.enable_grad():
        loss = loss_on(model, tokens, targets)
        hook.remove()
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
                store.append(float(loss_on(model, tokens, targets)))
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
        # the cosine with the gradient, from the directions themselves (not from the measured gains)
        cosine = [float(sum((d * g).sum() for d, g in zip(direction, grads)) / norm) for direction in directions]
        gain = []
        for direction in directions:
            for p, d in zip(params, direction):
                p += 1e-3 * d
            gain.append(float(loss_on(model, tokens, targets)) - base)
            for p, d in zip(params, direction):
                p -= 1e-3 * d
    return {
        "finite_diff.index": to_numpy(index),
        "finite_diff.partial": to_numpy(grad[index[:, 0], index[:, 1]]),
        "finite_diff.loss_plus": np.array(plus),
        "finite_diff.loss_minus": np.array(minus),
        "finite_diff.h": np.array([FD_STEP]),
        "finite_diff.gain": np.array(gain),
        "finite_diff.grad_norm": to_numpy(norm.reshape(1)),
        "finite_diff.cosine": np.array(cosine),
        "finite_diff.n_params": np.array([float(sum(p.numel() for p in params))]),
    }


@experiment("autograd", "what backward() fills in, on a float64 copy: autograd.grad_before (1,) 1 if "
                        ".grad was None before backward(); autograd.W_E_rows (V,) norm of each row "
                        "of dL/dW_E; autograd.W_pos_rows (L,) the same for the position table; "
                        "autograd.once / autograd.twice (D,) dL/d(ln_final gain) after one and after "
                        "two backward() calls without zero_grad; autograd.then_triple (D,) the same after a "
                        "third call, on 3 * loss; autograd.scaled (D,) the same from one backward() on 3 * loss "
                        "into an empty .grad; autograd.graph_nodes (1,) "
                        "operations recorded in the graph; autograd.dX (B, L, D) dL/d(the looked-up rows "
                        "W_E[ids]) and autograd.W_E_grad (V, D) dL/dW_E, both from the first backward()",
            passes=3.5, copies=3)
@one_torch_thread
def autograd_demo(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = private_copy(context.model)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    before = float(model.ln_final.weight.grad is None)
    looked_up = []   # the embedding's output, kept so its gradient dL/dX can be read beside dL/dW_E

    def keep(_module, _inputs, out) -> None:   # returning None leaves the output as it is
        out.retain_grad()
        looked_up.append(out)

    hook = model.W_E.register_forward_hook(keep)
    with torch.enable_grad():
        loss = loss_on(model, tokens, targets)
        hook.remove()
        nodes, stack = set(), [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in nodes:
                continue
            nodes.add(node)
            stack.extend(next_fn for next_fn, _ in node.next_functions)
        loss.backward(retain_graph=True)
        once = model.ln_final.weight.grad.clone()
        dX = looked_up[0].grad.clone()                                      # (B, L, D)
        W_E_grad = model.W_E.weight.grad.clone()                            # (V, D)
        W_E_rows = W_E_grad.norm(dim=-1)                                    # (V,)
        length = tokens.shape[1]
        W_pos_rows = (model.W_pos.weight.grad[:length].norm(dim=-1) if model.W_pos is not None
                      else torch.zeros(length, dtype=torch.float64))
        loss.backward(retain_graph=True)
        twice = model.ln_final.weight.grad.clone()
        (3 * loss).backward(retain_graph=True)
        then_triple = model.ln_final.weight.grad.clone()
        model.ln_final.weight.grad = None                                   # an empty .grad again
        (3 * loss).backward()
        scaled = model.ln_final.weight.grad.clone()                         # (D,)
    return {
        "autograd.grad_before": np.array([before]),
        "autograd.W_E_rows": to_numpy(W_E_rows),
        "autograd.W_pos_rows": to_numpy(W_pos_rows),
        "autograd.once": to_numpy(once),
        "autograd.twice": to_numpy(twice),
        "autograd.then_triple": to_numpy(then_triple),
        "autograd.scaled": to_numpy(scaled),
        "autograd.graph_nodes": np.array([float(len(nodes))]),
        "autograd.dX": to_numpy(dX),
        "autograd.W_E_grad": to_numpy(W_E_grad),
    }


CHAIN_DEPTH = 12


@experiment("vanish", "products of derivatives: vanish.pre (B, L, 4D) block 0's real MLP pre-"
                      "activations; vanish.sigmoid_grad and vanish.gelu_grad (B, L, 4D) the "
                      "derivative of sigmoid / GELU there, by autograd; vanish.sigmoid_chain (12,) "
                      "d x_n / d x_0 for x_(k+1) = sigmoid(x_k), x_0 = 0, n = 1..12; vanish.bound (12,) "
                      "= 0.25**n; vanish.linear_chain (2, 12) the same for x_(k+1) = a*x_k, a = 0.5, 1.5",
            passes=1.7, copies=1)
@one_torch_thread
def vanishing(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import run_with_probes

    _, probes = run_with_probes(context.model, tokens_on_device(context))
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
        "vanish.pre": to_numpy(pre),
        "vanish.sigmoid_grad": to_numpy(sigmoid_grad),
        "vanish.gelu_grad": to_numpy(gelu_grad),
        "vanish.sigmoid_chain": to_numpy(chains[0]),
        "vanish.bound": 0.25 ** depth,
        "vanish.linear_chain": to_numpy(torch.stack(chains[1:])),
    }
