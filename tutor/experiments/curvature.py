"""Curvature of the loss: Hessian-vector products on the live model, and the largest eigenvalue.

The Hessian of a 100k-parameter model has 10^10 entries and is never built; autograd gives
H·v for any direction v by differentiating ∇L·v once more.  Along the gradient's own
direction the second derivative is checked by finite differences, and a few rounds of power
iteration estimate the sharpest direction's curvature λ, which bounds the stable learning
rate of plain gradient descent by 2/λ.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.experiments.common import loss_on, scalar, scored_targets, tokens_on_device

# the finite-difference step along the unit gradient direction: its error, h²/12 of the fourth
# derivative, reached 2.4% of uᵀHu at h = 1e-3 on a model trained 200 steps at lr 1e-3 (uᵀHu = 6477);
# at 1e-4 it is at most 2.5e-4 of it, and float64 rounding still far below (op-curvature checks 1%)
STEP = 1e-4
POWER_ROUNDS = 8          # power-iteration rounds for the largest-magnitude eigenvalue
ETA = 0.5                 # curvature.eta: the learning rate of the one-step prediction


@experiment("curvature", M_("second derivatives of the trainer's loss on a float64 copy, for the lesson's input: "
                            "curvature.loss (1,), curvature.grad_norm (1,) |g|, curvature.t (5,) = -2h, -h, 0, h, 2h "
                            "with h = {step:g}, curvature.line (5,) the loss at W + t·u along the unit gradient u, "
                            "curvature.slope (1,) = g·u = |g|, curvature.uHu (1,) = uᵀHu the second derivative "
                            "along u from a Hessian-vector product, curvature.fd (1,) the same by the finite "
                            "difference (L(h) - 2L(0) + L(-h))/h², curvature.lambda_max (1,) the largest-magnitude "
                            "Hessian eigenvalue after {rounds} rounds of power iteration, curvature.stable_lr "
                            "(1,) = 2/λ, curvature.eta (1,) = {eta:g}, curvature.predicted (1,) the quadratic "
                            "model L - η|g|² + η²·gᵀHg/2 of the loss after one gradient step of size η, "
                            "curvature.actual (1,) the loss after that step, curvature.predicted_drop / .actual_drop (1,) "
                            "the two decreases L - predicted and L - actual; curvature.best_eta (1,) = 1/uᵀHu, the "
                            "step size whose predicted drop is largest (inf when uᵀHu <= 0: no largest), "
                            "curvature.best_predicted_drop / .best_actual_drop (1,) the drop the quadratic "
                            "model predicts there, |g|²/(2·uᵀHu), and the drop of the real step of that size",
                            step=STEP, rounds=POWER_ROUNDS, eta=ETA),
            passes=1, copies=1,
            derived={"curvature.fd": ("curvature.line",)})
@one_torch_thread
def curvature(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.copies import copy_model

    # the fused attention kernel has no second derivative on the CPU: the explicit path has
    model = copy_model(context.model, dtype=torch.float64, trainable=True, fused_attention=False)
    tokens, targets = tokens_on_device(context), scored_targets(context)
    params = [p for p in model.parameters()]

    def loss_at(offset: list | None = None, scale: float = 0.0) -> float:
        with torch.no_grad():
            if offset is not None:
                for p, d in zip(params, offset):
                    p.add_(d, alpha=scale)
            value = float(loss_on(model, tokens, targets))
            if offset is not None:
                for p, d in zip(params, offset):
                    p.sub_(d, alpha=scale)
        return value

    with torch.enable_grad():
        loss = loss_on(model, tokens, targets)
        grads = torch.autograd.grad(loss, params, create_graph=True)

        def hvp(vector: list) -> list:
            dot = sum((g * v).sum() for g, v in zip(grads, vector))
            return [h.detach() for h in torch.autograd.grad(dot, params, retain_graph=True)]

        g = [x.detach() for x in grads]
        g_norm = torch.sqrt(sum((x ** 2).sum() for x in g))
        u = [x / g_norm for x in g] if float(g_norm) > 0 else [torch.randn_like(x) for x in g]
        h_u = hvp(u)
        u_h_u = sum((a * b).sum() for a, b in zip(u, h_u))
        g_h_g = u_h_u * g_norm ** 2
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(context.seed)
            v = [torch.randn_like(x) for x in g]
        eigenvalue = torch.tensor(0.0, dtype=torch.float64)
        for _ in range(POWER_ROUNDS):
            v_norm = torch.sqrt(sum((x ** 2).sum() for x in v))
            v = [x / v_norm for x in v]
            h_v = hvp(v)
            eigenvalue = sum((a * b).sum() for a, b in zip(v, h_v))       # Rayleigh quotient vᵀHv
            v = h_v
    ts = [-2 * STEP, -STEP, 0.0, STEP, 2 * STEP]
    line = [loss_at(u, t) for t in ts]
    fd = (line[3] - 2 * line[2] + line[1]) / STEP ** 2
    loss_value, g2 = float(loss.detach()), float(g_norm) ** 2
    predicted = loss_value - ETA * g2 + 0.5 * ETA ** 2 * float(g_h_g)
    actual = loss_at(g, -ETA)
    best_eta = 1.0 / float(u_h_u) if float(u_h_u) > 0 else float("inf")
    best_actual = loss_at(g, -best_eta) if best_eta < float("inf") else float("nan")
    return {
        "curvature.loss": scalar(loss_value),
        "curvature.grad_norm": scalar(g_norm),
        "curvature.t": np.array(ts),
        "curvature.line": np.array(line),
        "curvature.slope": scalar(g_norm),
        "curvature.uHu": scalar(u_h_u),
        "curvature.fd": scalar(fd),
        "curvature.lambda_max": scalar(eigenvalue),
        "curvature.stable_lr": scalar(2.0 / float(eigenvalue) if float(eigenvalue) != 0 else float("inf")),
        "curvature.eta": scalar(ETA),
        "curvature.predicted": scalar(predicted),
        "curvature.actual": scalar(actual),
        "curvature.predicted_drop": scalar(loss_value - predicted),
        "curvature.actual_drop": scalar(loss_value - actual),
        "curvature.best_eta": scalar(best_eta),
        "curvature.best_predicted_drop": scalar(g2 * best_eta / 2 if best_eta < float("inf") else float("inf")),
        "curvature.best_actual_drop": scalar(loss_value - best_actual),
    }
