"""Experiments for the optimisation track: gradient descent, momentum, Adam, the learning-rate schedule, the loss landscape."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, loss_on, private_copy, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


GD_RATES = (0.01, 1.0, 10.0)
GD_STEPS = 20


@experiment("gradient_descent", "plain gradient descent W <- W - lr*grad on copies: "
                                "gradient_descent.lr (3,) = 0.01, 1, 10; gradient_descent.curves (3, 21) "
                                "the loss before each of 20 steps and after the last (inf once it "
                                "diverges); gradient_descent.grad_W_U (D, V) the first gradient of W_U; "
                                "gradient_descent.W_U_after (D, V) W_U after one step with lr = 1",
            passes=27, copies=4)
@one_torch_thread
def gradient_descent(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens, targets = tokens_on_device(context), scored_targets(context)
    curves, grad_W_U, after = [], None, None
    for lr in GD_RATES:
        model = private_copy(context.model, double=False)
        curve = []
        for step in range(GD_STEPS + 1):
            with torch.enable_grad():
                model.zero_grad(set_to_none=True)
                loss = loss_on(model, tokens, targets)
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
        "gradient_descent.grad_W_U": to_numpy(grad_W_U),
        "gradient_descent.W_U_after": to_numpy(after),
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
                        "of one constant g", passes=9, copies=4)
@one_torch_thread
def momentum(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens, targets = tokens_on_device(context), scored_targets(context)
    batch = tokens.shape[0]
    model = private_copy(context.model)
    rows = []
    with torch.enable_grad():
        for b in range(batch):
            model.zero_grad(set_to_none=True)
            loss_on(model, tokens[b:b + 1], targets[b:b + 1]).backward()
            rows.append(model.W_U.weight.grad.T.flatten().clone())           # (P,)
        model.zero_grad(set_to_none=True)
        loss_on(model, tokens, targets).backward()
        full = model.W_U.weight.grad.T.flatten().clone()                    # (P,)
    row_grads = torch.stack(rows, dim=1)                                    # (P, B)
    cos = torch.nn.functional.cosine_similarity(row_grads, full[:, None], dim=0)  # (B,)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=MOMENTUM)
    grads, buffers = [], []
    for step in range(MOMENTUM_STEPS):
        b = step % batch
        optimizer.zero_grad(set_to_none=True)
        with torch.enable_grad():
            loss_on(model, tokens[b:b + 1], targets[b:b + 1]).backward()
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
        "momentum.row_grads": to_numpy(row_grads),
        "momentum.full_grad": to_numpy(full[:, None]),
        "momentum.row_cos": to_numpy(cos),
        "momentum.grads": to_numpy(grads),
        "momentum.buffers": to_numpy(buffers),
        "momentum.grad_cos": to_numpy(consecutive(grads)),
        "momentum.buffer_cos": to_numpy(consecutive(buffers)),
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
                    "size, adam.first_move_in_lr (D,) that size divided by the learning rate; adam.lr (1,)",
            passes=55, copies=4)
@one_torch_thread
def adam(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.train import TrainConfig, make_optimizer

    config = TrainConfig(lr=0.01, beta1=0.9, beta2=0.99, device="cpu")
    model = private_copy(context.model, double=False)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    optimizer = make_optimizer(model, config)
    gain = model.ln_final.weight
    grads, first_ratio, first_step = [], None, None
    for step in range(ADAM_STEPS):
        optimizer.zero_grad(set_to_none=True)
        with torch.enable_grad():
            loss_on(model, tokens, targets).backward()
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
        "adam.grads": to_numpy(torch.stack(grads)),
        "adam.exp_avg": to_numpy(m),
        "adam.exp_avg_sq": to_numpy(v),
        "adam.m_hat": to_numpy(m * correction[0]),
        "adam.v_hat": to_numpy(v * correction[1]),
        "adam.correction": to_numpy(correction),
        "adam.first_ratio": to_numpy(first_ratio),
        "adam.first_step": to_numpy(first_step),
        "adam.first_move": to_numpy(first_step.abs()),
        "adam.first_move_in_lr": to_numpy(first_step.abs() / config.lr),
        "adam.lr": np.array([config.lr]),
    }


SCHEDULE_STEPS = 1500      # the shipped checkpoint's run: 1500 steps, lr 3e-3, 100 warm-up steps
WARMUP_SAMPLES = (0, 24, 49, 99)
COSINE_SAMPLES = (100, 450, 800, 1150, 1499)


@experiment("lr_schedule", "the trainer's lr_at() for the shipped model's run (1500 steps, lr 3e-3, "
                           "100 warm-up steps, floor 10%): lr_schedule.warmup_steps / .warmup (4,) at "
                           "steps 0, 24, 49, 99; lr_schedule.cosine_steps / .cosine (5,) at steps 100, "
                           "450, 800, 1150, 1499; lr_schedule.progress (5,) the cosine's progress 0..1; "
                           "lr_schedule.curve (1500,) every step", passes=1, copies=1)
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
                         "path bends downwards (impossible for a convex loss)",
            passes=30, copies=4,
            derived={"landscape.bend": ("landscape.path",)})
@one_torch_thread
def landscape(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = private_copy(context.model)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    params = list(model.parameters())
    weights = [p.detach().clone() for p in params]
    fresh = fresh_model(context.model.config, context.seed).double().to(weights[0].device)
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
            line.append(float(loss_on(model, tokens, targets)))
        for s in t:
            for p, w, w0 in zip(params, weights, start):
                p.copy_((1 - float(s)) * w0 + float(s) * w)
            path.append(float(loss_on(model, tokens, targets)))
    path = np.array(path)
    return {"landscape.alpha": alpha, "landscape.line": np.array(line),
            "landscape.t": t, "landscape.path": path, "landscape.bend": path[:-2] + path[2:] - 2 * path[1:-1]}
