"""SGD against Adam on the same model from the same start (seed 002: "train one simple model with
different optimizers and compare the loss curves").

Two copies of the lesson's model take the same number of full-batch steps at the same learning rate,
one with torch's plain SGD and one with torch's Adam (no weight decay, so that the only difference is
the update rule).  Beside the curves: how each rule's first step responds to a loss multiplied by
1000, and how far each weight tensor travelled.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import loss_on, private_copy, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

RACE_LR = 0.01
RACE_STEPS = 30
LOSS_SCALE = 1000.0
FULL_SHARE = 0.99   # full_step_floor: the |g| below which Adam's first step is under this share of lr
# the tensors whose travel is compared, from the input to the output (every model has them)
TRAVEL = ("W_E.weight", "blocks.0.attn.W_Q.weight", "blocks.0.mlp.W_in.weight", "ln_final.weight", "W_U.weight")


def make(kind: str, params):
    import torch

    if kind == "sgd":
        return torch.optim.SGD(params, lr=RACE_LR)
    return torch.optim.Adam(params, lr=RACE_LR)


def race(context: ExperimentContext, kind: str):
    """RACE_STEPS full-batch steps of ``kind`` on a copy: the loss curve (RACE_STEPS+1,), the
    largest |change| of each TRAVEL tensor, and the copy's W_U (D, V) after its first step."""
    import torch

    tokens, targets = tokens_on_device(context), scored_targets(context)
    model = private_copy(context.model)
    start = {name: p.detach().clone() for name, p in model.named_parameters()}
    optimizer = make(kind, model.parameters())
    curve, after_first = [], None
    for step in range(RACE_STEPS + 1):
        optimizer.zero_grad(set_to_none=True)
        with torch.enable_grad():
            loss = loss_on(model, tokens, targets)
            curve.append(float(loss.detach()))
            if step == RACE_STEPS:
                break
            loss.backward()
        optimizer.step()
        if step == 0:
            after_first = model.W_U.weight.detach().T.clone()               # (D, V)
    params = dict(model.named_parameters())
    travel = [float((params[name].detach() - start[name]).abs().max()) for name in TRAVEL]
    return np.array(curve), np.array(travel), after_first


def first_step(context: ExperimentContext, kind: str, scale: float):
    """One step of ``kind`` on the loss times ``scale``, on a fresh copy: the gradient of W_U
    (D, V) the optimizer saw divided by ``scale``, W_U's change (D, V), and the root mean square
    of the whole gradient divided by ``scale``."""
    import torch

    tokens, targets = tokens_on_device(context), scored_targets(context)
    model = private_copy(context.model)
    before = model.W_U.weight.detach().T.clone()                            # (D, V)
    optimizer = make(kind, model.parameters())
    with torch.enable_grad():
        (scale * loss_on(model, tokens, targets)).backward()
    grad = model.W_U.weight.grad.detach().T.clone() / scale                 # (D, V)
    every = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]) / scale  # (P,)
    optimizer.step()
    return grad, model.W_U.weight.detach().T - before, float(every.pow(2).mean().sqrt())


@experiment("sgd_adam", "two copies of the lesson's model from the same start, 30 full-batch steps "
                        "each at lr 0.01, one with torch's SGD and one with torch's Adam (no weight "
                        "decay): sgd_adam.curves (2 optimizer = SGD|Adam, 31 step) the loss before each step and after the last, "
                        "row 0 SGD, row 1 Adam; sgd_adam.final (2,) the last losses; sgd_adam.final_gap (1,) "
                        "SGD's last loss minus Adam's; sgd_adam.travel "
                        "(2 optimizer = SGD|Adam, 5 tensor = W_E|W_Q|W_in|gain|W_U) the largest |change| after 30 steps in W_E, block 0's W_Q, block 0's "
                        "W_in, the final LayerNorm's gain and W_U; sgd_adam.travel_spread (2,) each "
                        "row's largest over its smallest; sgd_adam.travel_spread_ratio (1,) SGD's spread over "
                        "Adam's; sgd_adam.grad_rms (1,) the root mean square of the first gradient over "
                        "every weight; sgd_adam.W_U0 (D, V) W_U at the start; "
                        "sgd_adam.grad_W_U (D, V) its first gradient; sgd_adam.sgd_W_U1 (D, V) SGD's "
                        "W_U after one step; sgd_adam.step (2, 2) the size (norm) of W_U's first "
                        "change, row 0 SGD, row 1 Adam, column 0 with the loss as it is and column 1 "
                        "with the loss times 1000; sgd_adam.scale_ratio (2,) column 1 over column 0; "
                        "sgd_adam.adam_step_scaled (D, V) Adam's first change of W_U with the loss "
                        "times 1000; sgd_adam.matching_lr (1,) the lr at which SGD's first change of W_U would be as "
                        "large (in norm) as Adam's at lr 0.01; sgd_adam.full_step_floor (1,) the |g| of the unscaled "
                        "loss below which Adam's first step, with the loss times 1000, moves a weight less than "
                        "0.99 lr; sgd_adam.lr (1,), sgd_adam.eps (1,) Adam's epsilon",
            passes=90, copies=4,
            derived={"sgd_adam.travel_spread": ("sgd_adam.travel",),
                     "sgd_adam.travel_spread_ratio": ("sgd_adam.travel",), "sgd_adam.scale_ratio": ("sgd_adam.step",),
                     "sgd_adam.final": ("sgd_adam.curves",), "sgd_adam.final_gap": ("sgd_adam.curves",),
                     "sgd_adam.matching_lr": ("sgd_adam.step",), "sgd_adam.full_step_floor": ("sgd_adam.eps",)})
@one_torch_thread
def sgd_adam(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    results = {kind: race(context, kind) for kind in ("sgd", "adam")}
    curves = np.stack([results[k][0] for k in ("sgd", "adam")])             # (2, STEPS+1)
    travel = np.stack([results[k][1] for k in ("sgd", "adam")])             # (2, 5)
    moved = np.where(travel > 0, travel, np.nan)
    spread = np.nanmax(moved, axis=1) / np.nanmin(moved, axis=1)            # (2,)

    steps, grad, rms, scaled_adam = np.zeros((2, 2)), None, None, None
    for row, kind in enumerate(("sgd", "adam")):
        for col, scale in enumerate((1.0, LOSS_SCALE)):
            g, change, g_rms = first_step(context, kind, scale)
            steps[row, col] = float(change.norm())
            grad, rms = (g, g_rms) if grad is None else (grad, rms)
            if kind == "adam" and scale == LOSS_SCALE:
                scaled_adam = change
    W_U0 = private_copy(context.model).W_U.weight.detach().T                # (D, V)
    eps = torch.optim.Adam([torch.zeros(1, requires_grad=True)]).defaults["eps"]
    return {
        "sgd_adam.curves": curves, "sgd_adam.final": curves[:, -1].copy(),
        "sgd_adam.final_gap": np.array([curves[0, -1] - curves[1, -1]]),
        "sgd_adam.travel": travel, "sgd_adam.travel_spread": spread,
        "sgd_adam.travel_spread_ratio": np.array([spread[0] / spread[1]]), "sgd_adam.grad_rms": np.array([rms]),
        "sgd_adam.W_U0": to_numpy(W_U0), "sgd_adam.grad_W_U": to_numpy(grad),
        "sgd_adam.sgd_W_U1": to_numpy(results["sgd"][2]),
        "sgd_adam.step": steps, "sgd_adam.scale_ratio": steps[:, 1] / steps[:, 0],
        "sgd_adam.adam_step_scaled": to_numpy(scaled_adam),
        "sgd_adam.matching_lr": np.array([RACE_LR * steps[1, 0] / steps[0, 0]]),
        # s·|g| / (s·|g| + eps) ≥ FULL_SHARE  ⇔  |g| ≥ FULL_SHARE/(1 − FULL_SHARE) · eps / s
        "sgd_adam.full_step_floor": np.array([FULL_SHARE / (1 - FULL_SHARE) * float(eps) / LOSS_SCALE]),
        "sgd_adam.lr": np.array([RACE_LR]), "sgd_adam.eps": np.array([float(eps)]),
    }
