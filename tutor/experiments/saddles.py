"""Saddles and plateaus on the model's own loss, measured instead of recalled.

The straight path from fresh weights W0 to the current weights W is a line we can walk: the loss
and the gradient's length at each point show where the ground is flat (a plateau: a small gradient
while the loss is still high), and at the highest point of the path the loss curves downwards
along the path.  Hessian-vector products at that point give the curvature along the path and along
random directions: both signs at one point is what makes a saddle, where plain gradient descent
slows down although the point is no minimum.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, loss_on, scored_targets, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

PATH_POINTS = 11     # t = 0, 0.1, …, 1
RANDOM_DIRECTIONS = 6
T_STEP = 1e-3        # the finite difference in t at the top: float64 keeps its rounding near 1e-10


@experiment("saddle", "walking the straight path (1-t)*W0 + t*W from fresh weights W0 (same size, seed) to the "
                      "weights W, on a float64 copy: saddle.t (11,) = 0, 0.1 … 1; saddle.loss (11 t = .t,) the loss there; "
                      "saddle.grad_norm (11 t = .t,) the gradient's length |∇L| there, by backward(); saddle.top (1,) the t "
                      "of the path's highest interior point (where the path is flattest, if it only falls); "
                      "saddle.path_curv (1,) uᵀHu at that point for u the unit path direction, by a Hessian-vector "
                      "product; saddle.random_curv (6,) the same for 6 random unit directions (seeded); "
                      "saddle.down_count (1,) how many of those 6 curve downwards (uᵀHu < 0); "
                      "saddle.length (1,) the path's length |W - W0|; saddle.t_curv (1,) d²L/dt² at the top, by "
                      "a finite difference of the loss at t ± 0.001; saddle.top_grad (1,) |∇L| at the top; "
                      "saddle.gain (1,) (the largest |∇L| on the path / |∇L| at t = 0)², how many times more one "
                      "small plain step lowers the loss at the steepest point than at t = 0",
            passes=43, copies=3)
@one_torch_thread
def saddle(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.copies import copy_model

    # the fused attention kernel has no second derivative on the CPU: the explicit path has
    model = copy_model(context.model, dtype=torch.float64, trainable=True, fused_attention=False)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    params = list(model.parameters())
    end = [p.detach().clone() for p in params]
    fresh = fresh_model(context.model.config, context.seed).double().to(end[0].device)
    start = [p.detach().clone() for p in fresh.parameters()]
    direction = [w - w0 for w, w0 in zip(end, start)]
    length = torch.sqrt(sum((d ** 2).sum() for d in direction)).clamp(min=1e-12)
    unit_path = [d / length for d in direction]

    def move_to(s: float) -> None:
        with torch.no_grad():
            for p, w, w0 in zip(params, end, start):
                p.copy_((1 - s) * w0 + s * w)

    t = np.linspace(0.0, 1.0, PATH_POINTS)
    losses, norms = [], []
    for s in t:
        move_to(float(s))
        with torch.enable_grad():
            loss = loss_on(model, tokens, targets)
            grads = torch.autograd.grad(loss, params)
        losses.append(float(loss.detach()))
        norms.append(float(torch.sqrt(sum((g ** 2).sum() for g in grads))))
    losses = np.array(losses)
    interior = losses[1:-1]
    rises = losses[1:-1] > losses[:-2]
    # the bump's top if the path climbs anywhere, else the flattest interior point
    top = 1 + (int(np.argmax(np.where(rises, interior, -np.inf))) if rises.any()
               else int(np.argmin(np.array(norms)[1:-1])))
    # d²L/dt² measured on the loss itself, three forward passes: evidence independent of the Hessian
    around = []
    for s in (t[top] - T_STEP, t[top], t[top] + T_STEP):
        move_to(float(s))
        with torch.no_grad():
            around.append(float(loss_on(model, tokens, targets)))
    t_curv = (around[0] - 2 * around[1] + around[2]) / T_STEP ** 2
    move_to(float(t[top]))
    with torch.enable_grad():
        loss = loss_on(model, tokens, targets)
        grads = torch.autograd.grad(loss, params, create_graph=True)

        def curvature_along(unit: list) -> float:
            dot = sum((g * v).sum() for g, v in zip(grads, unit))
            h_v = torch.autograd.grad(dot, params, retain_graph=True)
            return float(sum((a * b).sum() for a, b in zip(unit, h_v)))

        path_curv = curvature_along(unit_path)
        generator = torch.Generator().manual_seed(context.seed + 7)
        random_curv = []
        for _ in range(RANDOM_DIRECTIONS):
            v = [torch.randn(p.shape, generator=generator, dtype=torch.float64).to(p.device) for p in params]
            v_norm = torch.sqrt(sum((x ** 2).sum() for x in v))
            random_curv.append(curvature_along([x / v_norm for x in v]))
    return {
        "saddle.t": t,
        "saddle.loss": losses,
        "saddle.grad_norm": np.array(norms),
        "saddle.top": np.array([float(t[top])]),
        "saddle.path_curv": np.array([path_curv]),
        "saddle.random_curv": np.array(random_curv),
        # how many random directions curve down at the top: the count op-saddles-plateaus asks for
        "saddle.down_count": np.array([float(sum(c < 0 for c in random_curv))]),
        "saddle.length": np.array([float(length)]),
        "saddle.t_curv": np.array([t_curv]),
        "saddle.top_grad": np.array([norms[top]]),
        # a plain step η·|∇L| long down a slope |∇L| gains about η·|∇L|²: the ratio of two such gains
        "saddle.gain": np.array([(max(norms) / max(norms[0], 1e-12)) ** 2]),
    }
