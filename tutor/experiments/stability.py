"""Training stability: gradient clipping, and gradients in float16 and bfloat16.

Both experiments take one backward pass of the trainer's own loss on a private copy of the
lesson's model, so the gradients are the real ones the dashboard would clip or cast.  The
clipping is torch's ``clip_grad_norm_`` at the trainer's own threshold (``TrainConfig.grad_clip``).
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.experiments.common import loss_on, private_copy, scalar, scored_targets, to_numpy, tokens_on_device

LOSS_SCALE = 1024.0   # mixed_precision: the static loss scale S (a power of two: scaling is exact)
ROUND_OFF = 1e-12      # mixed_precision: gradients below this fraction of the largest are round-off


def real_gradients(context: ExperimentContext, double: bool):
    """(copy, loss) after one backward pass of the trainer's loss on the lesson's input."""
    import torch

    model = private_copy(context.model, double=double)
    with torch.enable_grad():
        loss = loss_on(model, tokens_on_device(context), scored_targets(context))
        loss.backward()
    return model, loss


@experiment("clipping", "one backward pass of the trainer's loss on a float32 copy, then torch's "
                        "clip_grad_norm_ at the trainer's threshold: clipping.max_norm (1,) = TrainConfig.grad_clip, "
                        "clipping.loss (1,), clipping.norm_before / .norm_after (1,) the global L2 norm of every "
                        "gradient before and after clipping, clipping.factor (1,) what every gradient was "
                        "multiplied by, clipping.names (P,) 0..P-1 for the parameter tensors in model order, "
                        "clipping.tensor_before / .tensor_after (P,) each tensor's own gradient norm, "
                        "clipping.embed_before (1,) the norm of the embedding tables' gradients (W_E and W_pos, the first "
                        "two tensors) together, clipping.rest_before (1,) that of every other tensor's, "
                        "clipping.loss_x10 / .norm_x10 (1,) the same loss and gradient norm when the "
                        "loss is multiplied by 10, clipping.value_cos (1,) the cosine between the clipped "
                        "gradient and the clipped gradient of the loss multiplied by 10 when each entry is "
                        "clipped to [-max_norm, max_norm] (clip_grad_value_) instead; the trainer's AdamW run for ADAM_STEPS steps on this "
                        "input from fresh moments, once with and once without clipping: clipping.adam_ratio "
                        "(S,) |clipped update| / |unclipped update| at each step, clipping.adam_cos (S,) the "
                        "cosine between the two updates at each step", passes=8, copies=2)
@one_torch_thread
def clipping(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.train import TrainConfig

    max_norm = TrainConfig().grad_clip
    model, loss = real_gradients(context, double=False)
    params = [p for p in model.parameters() if p.grad is not None]
    flat = torch.cat([p.grad.double().flatten() for p in params])             # (entries,)
    by_value, by_value_x10 = flat.clamp(-max_norm, max_norm), (10 * flat).clamp(-max_norm, max_norm)
    before = torch.stack([p.grad.double().norm() for p in params])           # (P,)
    total = torch.nn.utils.clip_grad_norm_(params, max_norm)                 # the norm before clipping
    after = torch.stack([p.grad.double().norm() for p in params])            # (P,)
    factor = after.norm() / before.norm() if float(before.norm()) > 0 else torch.tensor(1.0)
    return {
        "clipping.max_norm": scalar(max_norm),
        "clipping.loss": scalar(loss),
        "clipping.norm_before": scalar(total),
        "clipping.norm_after": scalar(after.norm()),
        "clipping.factor": scalar(factor),
        "clipping.names": np.arange(len(params), dtype=float),
        "clipping.tensor_before": to_numpy(before),
        "clipping.tensor_after": to_numpy(after),
        "clipping.embed_before": scalar(before[:2].norm()),                   # W_E and W_pos
        "clipping.rest_before": scalar(before[2:].norm()),
        "clipping.loss_x10": scalar(10 * loss),
        "clipping.norm_x10": scalar(10 * total),
        "clipping.value_cos": scalar(torch.nn.functional.cosine_similarity(by_value, by_value_x10, dim=0)),
    } | adam_with_and_without_clipping(context, max_norm)


ADAM_STEPS = 3


def adam_with_and_without_clipping(context: ExperimentContext, max_norm: float) -> dict[str, np.ndarray]:
    """The update AdamW makes from a clipped gradient is not the clipped gradient: Adam divides by
    √v, so at its first step the scale of g cancels; later, a clipped g weighs less in m and v
    beside earlier gradients, which turns the update, not only shortens it."""
    import torch

    from tutor.model.train import TrainConfig, make_optimizer

    runs = []
    for clip in (False, True):
        model = private_copy(context.model, double=False)
        optimizer = make_optimizer(model, TrainConfig())
        steps = []
        for _ in range(ADAM_STEPS):
            optimizer.zero_grad()
            with torch.enable_grad():
                loss_on(model, tokens_on_device(context), scored_targets(context)).backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(list(model.parameters()), max_norm)
            before = torch.cat([p.detach().double().flatten() for p in model.parameters()])    # (n,)
            optimizer.step()
            steps.append(torch.cat([p.detach().double().flatten() for p in model.parameters()]) - before)
        runs.append(steps)
    ratio = [c.norm() / u.norm() for u, c in zip(*runs)]
    cosine = [torch.nn.functional.cosine_similarity(u, c, dim=0) for u, c in zip(*runs)]
    return {"clipping.adam_ratio": to_numpy(torch.stack(ratio)), "clipping.adam_cos": to_numpy(torch.stack(cosine))}


def _cast_back(values, dtype):
    """``values`` rounded to ``dtype`` and read back in float64."""
    return values.to(dtype).double()


def _scale_saving_all(grads) -> float:
    """The smallest power of two S with no nonzero gradient 0 in float16 after ×S (nu-mixed-precision
    scale-for-all shows its effect); powers of two keep the scaling itself exact."""
    import torch

    nonzero = grads[grads != 0]
    for k in range(64):
        if not bool((_cast_back(nonzero * 2.0 ** k, torch.float16) == 0).any()):
            return 2.0 ** k
    return 2.0 ** 64


@experiment("mixed_precision", M_("the real gradients of the trainer's loss (a float64 copy) stored in float16 "
                                  "and bfloat16: mixed_precision.n (1,) nonzero gradient entries (above float64 "
                                  "round-off: |g| > 1e-12 of the largest), "
                                  ".smallest / .largest (1,) their smallest and largest |g|, .median (1,) the "
                                  "median |g|; formats as rows [float16, bfloat16, float32] of .max (3,) largest "
                                  "finite value, .tiny (3,) smallest positive normal, .subnormal (3,) smallest "
                                  "positive subnormal, .eps (3,) 2^-(significant bits - 1); .zero_fp16 / "
                                  ".zero_bf16 (1,) how many nonzero gradients become 0; .scale (1,) the loss scale "
                                  "S = {loss_scale:g}; .zero_scaled (1,) how many become 0 in float16 after "
                                  "multiplying by S; .inf_scaled (1,) how many overflow to inf then; "
                                  ".unscale_error (1,) the largest relative error of g·S stored in float16 then "
                                  "divided by S, over the gradients whose g·S is a normal float16 number; "
                                  ".normal_fp16 / .subnormal_fp16 (1,) how many gradients are normal / subnormal "
                                  "float16 numbers; .rel_err_bf16 (1,) the largest relative rounding error in "
                                  "bfloat16 (every float32 gradient is a normal bfloat16 number); .rel_err_fp16 (1,) the same in float16, "
                                  "over the gradients it does not turn into 0; .example (4,) four gradients (smallest, 25th "
                                  "percentile, median, largest |g|, with their signs) and .example_fp16 / "
                                  ".example_bf16 / .example_scaled (4,) what float16, bfloat16 and "
                                  "float16-after-scaling (then divided by S) keep of them, .example_rel_bf16 (4,) bfloat16's "
                                  "relative error |b - g|/|g| on each; .scale_all (1,) the smallest power of two S "
                                  "for which no gradient becomes 0 in float16 after multiplying by S, "
                                  ".example_scaled_all (4,) the four examples scaled by it, stored in float16 and "
                                  "divided by it again",
                                  loss_scale=LOSS_SCALE),
            passes=1, copies=1,
            derived={"mixed_precision.example_rel_bf16": ("mixed_precision.example", "mixed_precision.example_bf16")})
@one_torch_thread
def mixed_precision(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model, _ = real_gradients(context, double=True)
    grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    # Entries below 1e-12 of the largest are float64 round-off of gradients that are exactly 0 in exact
    # arithmetic (a key bias shifts a whole row of scores, which softmax ignores), not small real gradients.
    grads = grads[grads.abs() > ROUND_OFF * grads.abs().max()]               # (n,)
    if grads.numel() == 0:
        grads = torch.zeros(1, dtype=torch.float64)
    magnitude = grads.abs()
    order = magnitude.argsort()
    picks = order[[0, len(order) // 4, len(order) // 2, len(order) - 1]]     # (4,)
    example = grads[picks]
    formats = (torch.float16, torch.bfloat16, torch.float32)
    infos = [torch.finfo(f) for f in formats]
    fp16, bf16 = _cast_back(grads, torch.float16), _cast_back(grads, torch.bfloat16)
    scaled = _cast_back(grads * LOSS_SCALE, torch.float16)                   # (n,) g·S in float16
    unscaled = scaled / LOSS_SCALE
    fp16_tiny = infos[0].tiny
    normal_scaled = (scaled.abs() >= fp16_tiny) & scaled.isfinite()
    unscale_error = ((unscaled - grads).abs() / magnitude)[normal_scaled].max() if bool(normal_scaled.any()) else 0.0
    fp16_normal = magnitude >= fp16_tiny
    scale_all = _scale_saving_all(grads)
    fp16_subnormal = (fp16 != 0) & ~fp16_normal
    return {
        "mixed_precision.n": scalar(grads.numel() if float(magnitude.max()) > 0 else 0),
        "mixed_precision.smallest": scalar(magnitude.min()),
        "mixed_precision.largest": scalar(magnitude.max()),
        "mixed_precision.median": scalar(magnitude.median()),
        "mixed_precision.max": np.array([i.max for i in infos]),
        "mixed_precision.tiny": np.array([i.tiny for i in infos]),
        "mixed_precision.subnormal": np.array([i.smallest_normal * i.eps for i in infos]),
        "mixed_precision.eps": np.array([i.eps for i in infos]),
        "mixed_precision.zero_fp16": scalar(((fp16 == 0) & (grads != 0)).sum()),
        "mixed_precision.zero_bf16": scalar(((bf16 == 0) & (grads != 0)).sum()),
        "mixed_precision.scale": scalar(LOSS_SCALE),
        "mixed_precision.zero_scaled": scalar(((scaled == 0) & (grads != 0)).sum()),
        "mixed_precision.inf_scaled": scalar(scaled.isinf().sum()),
        "mixed_precision.unscale_error": scalar(unscale_error),
        "mixed_precision.normal_fp16": scalar(fp16_normal.sum()),
        "mixed_precision.subnormal_fp16": scalar(fp16_subnormal.sum()),
        "mixed_precision.rel_err_bf16": scalar(((bf16 - grads).abs() / magnitude).max()),
        "mixed_precision.rel_err_fp16": scalar(((fp16 - grads).abs() / magnitude)[fp16 != 0].max()
                                               if bool((fp16 != 0).any()) else 0.0),
        "mixed_precision.example": to_numpy(example),
        "mixed_precision.example_fp16": to_numpy(fp16[picks]),
        "mixed_precision.example_bf16": to_numpy(bf16[picks]),
        "mixed_precision.example_scaled": to_numpy(unscaled[picks]),
        "mixed_precision.example_rel_bf16": to_numpy(((bf16 - grads).abs() / magnitude)[picks]),
        "mixed_precision.scale_all": scalar(scale_all),
        "mixed_precision.example_scaled_all": to_numpy(_cast_back(example * scale_all, torch.float16) / scale_all),
    }
