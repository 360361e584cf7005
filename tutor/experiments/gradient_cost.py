"""Experiment: what finite differences cost against backpropagation, and how their step size errs.

Why float32 for the estimates and float64 for the reference: the model runs in float32, and the
step-size trade-off (truncation error ~h², rounding error ~ε/h) is only visible at that precision;
the reference gradient must be far more exact than any estimate, so it comes from autograd on a
float64 copy.  The same sweep in float64 shows the best step moving with ε.

Why count operations with torch's FlopCounterMode instead of timing: the counts are the same on
every machine, and they are what the model really ran (a forward pass, a backward pass, and a
finite-difference loop over a few entries of one parameter tensor), not numbers worked out from the
model's sizes.  It counts matrix products (2·m·k·n operations each); on the CPU the fused attention
kernel is not among them, so the counts are the model's weight matrices at work.  Its first use in
a process imports torch._dynamo (seconds), as the optimizer experiments' AdamW already does.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import loss_on, private_copy, scalar, scored_targets, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

STEPS = [10.0 ** -k for k in range(9)]   # h = 1, 0.1, ..., 1e-8
ENTRIES = 3                              # parameters with the largest |gradient| whose estimates are scored
COUNTED = 8      # entries of the final LayerNorm's gain estimated under the operation counter


def _central_differences(model, vector, index: int, step: float, loss) -> float:
    """(L(θ + h·e_i) − L(θ − h·e_i)) / 2h, computed in the model's own precision."""
    import torch

    moved = vector.clone()
    values = []
    for sign in (1.0, -1.0):
        moved[index] = vector[index] + sign * step
        torch.nn.utils.vector_to_parameters(moved, model.parameters())
        values.append(loss(model))
    torch.nn.utils.vector_to_parameters(vector, model.parameters())
    return (values[0] - values[1]) / (2 * step)


def _step_errors(model, reference, indices, loss) -> list[float]:
    """For each step h: the median over ``indices`` of |estimate − reference| / |reference|."""
    import torch

    vector = torch.nn.utils.parameters_to_vector(model.parameters()).detach()
    errors = []
    for step in STEPS:
        relative = [abs(_central_differences(model, vector, i, step, loss) - float(reference[i])) / abs(float(reference[i]))
                    for i in indices]
        errors.append(float(np.median(relative)))
    return errors


@experiment("fd_cost", "central differences against backpropagation for the trainer's loss: fd_cost.h (9,) steps "
                       "1 … 1e-8; fd_cost.error32 / fd_cost.error64 (9,) the median relative error of the "
                       "central-difference estimate in float32 / float64 over the 3 parameters with the largest "
                       "|gradient| (autograd's float64 gradient as reference); fd_cost.digits32 / fd_cost.digits64 (9,) "
                       "the digits those estimates get "
                       "right, -log10 of the error; fd_cost.best_digits (2,) the most of them in float32 and in float64; "
                       "fd_cost.best_h32 / fd_cost.best_h64 (1,) the step with the smallest "
                       "error; fd_cost.best_ratio (1,) best_h64 / best_h32; fd_cost.n_params (1,) parameters in the "
                       "model; fd_cost.forward_flops / fd_cost.backward_flops (1,) floating-point operations counted "
                       "in the matrix products of one forward pass of the loss and in its backward(); fd_cost.backward_ratio (1,) their "
                       "ratio; fd_cost.n_entries (1,) = 8, the first entries of the final LayerNorm's gain; fd_cost.fd_flops "
                       "(1,) operations counted while estimating each of them by central differences; fd_cost.fd_error "
                       "(1,) the largest relative error of those estimates; fd_cost.whole_ratio (1,) "
                       "2·n_params·forward_flops / (forward_flops + backward_flops)",
            passes=120, copies=3,
            derived={"fd_cost.digits32": ("fd_cost.error32",), "fd_cost.digits64": ("fd_cost.error64",),
                     "fd_cost.best_digits": ("fd_cost.digits32", "fd_cost.digits64"),
                     "fd_cost.best_h32": ("fd_cost.error32", "fd_cost.h"),
                     "fd_cost.best_h64": ("fd_cost.error64", "fd_cost.h"),
                     "fd_cost.best_ratio": ("fd_cost.best_h32", "fd_cost.best_h64"),
                     "fd_cost.backward_ratio": ("fd_cost.forward_flops", "fd_cost.backward_flops"),
                     "fd_cost.whole_ratio": ("fd_cost.n_params", "fd_cost.forward_flops", "fd_cost.backward_flops")})
@one_torch_thread
def finite_difference_cost(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    tokens, targets = tokens_on_device(context), scored_targets(context)

    def loss(model) -> float:
        with torch.no_grad():
            return float(loss_on(model, tokens, targets))

    exact = private_copy(context.model)                                     # float64: the reference
    with torch.enable_grad():
        loss_on(exact, tokens, targets).backward()
    reference = torch.cat([p.grad.flatten() for p in exact.parameters()])   # (P,)
    indices = reference.abs().topk(ENTRIES).indices.tolist()
    single = private_copy(context.model, double=False)                      # float32, as the model runs
    error32 = _step_errors(single, reference, indices, loss)
    error64 = _step_errors(private_copy(context.model), reference, indices, loss)

    with FlopCounterMode(display=False) as counted:
        forward = loss_on(single, tokens, targets)
    forward_flops = counted.get_total_flops()
    with FlopCounterMode(display=False) as counted:
        forward.backward()
    backward_flops = counted.get_total_flops()

    gain = single.ln_final.weight                                           # (D,)
    offset = sum(p.numel() for p in list(single.parameters())[:_position(single, gain)])
    vector = torch.nn.utils.parameters_to_vector(single.parameters()).detach()
    best = STEPS[int(np.argmin(error32))]
    with FlopCounterMode(display=False) as counted:
        estimates = torch.tensor([_central_differences(single, vector, offset + i, best, loss)
                                  for i in range(COUNTED)], dtype=torch.float64)  # (COUNTED,)
    exact_gain = exact.ln_final.weight.grad[:COUNTED]                       # (COUNTED,)
    scale = exact_gain.abs().max().clamp(min=1e-30)
    n_params = sum(p.numel() for p in single.parameters())
    best32, best64 = STEPS[int(np.argmin(error32))], STEPS[int(np.argmin(error64))]
    return {
        "fd_cost.h": np.array(STEPS),
        "fd_cost.error32": np.array(error32),
        "fd_cost.error64": np.array(error64),
        "fd_cost.digits32": _digits(error32),
        "fd_cost.digits64": _digits(error64),
        "fd_cost.best_digits": np.array([_digits(error32).max(), _digits(error64).max()]),
        "fd_cost.best_h32": np.array([best32]),
        "fd_cost.best_h64": np.array([best64]),
        "fd_cost.best_ratio": np.array([best64 / best32]),
        "fd_cost.n_params": np.array([float(n_params)]),
        "fd_cost.forward_flops": np.array([float(forward_flops)]),
        "fd_cost.backward_flops": np.array([float(backward_flops)]),
        "fd_cost.backward_ratio": np.array([backward_flops / forward_flops]),
        "fd_cost.n_entries": np.array([float(COUNTED)]),
        "fd_cost.fd_flops": np.array([float(counted.get_total_flops())]),
        "fd_cost.fd_error": scalar(((estimates - exact_gain).abs() / scale).max()),
        "fd_cost.whole_ratio": np.array([2 * n_params * forward_flops / (forward_flops + backward_flops)]),
    }


def _digits(errors: list[float]) -> np.ndarray:
    """Correct significant digits of an estimate with these relative errors: -log10, 0 at 100% or worse."""
    return np.clip(-np.log10(np.maximum(np.array(errors), 1e-300)), 0.0, None)


def _position(model, parameter) -> int:
    """Index of ``parameter`` in ``model.parameters()``, whose order parameters_to_vector follows."""
    return next(i for i, p in enumerate(model.parameters()) if p is parameter)
