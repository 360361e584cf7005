"""The mini-batch experiment: what a gradient from b rows costs, and how far it is from the whole set's."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import loss_on, private_copy, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import IGNORE

ROWS = 64                      # the "whole training set" the experiment draws from
SIZES = (1, 4, 16, ROWS)       # batch sizes compared
DIGITS = 4                     # sort rows like '3142>1234'


def _sort_rows(context: ExperimentContext):
    """ROWS sort-task rows drawn from the lesson's seed, as tokens (ROWS, L) and targets (ROWS, L-1)
    scored after '>' as the trainer scores them (every row has the same number of scored targets,
    so the whole set's mean loss is the mean of the rows' losses)."""
    import torch

    generator = torch.Generator().manual_seed(context.seed)
    digits = torch.randint(0, 10, (ROWS, DIGITS), generator=generator)      # (ROWS, 4)
    texts = ["".join(map(str, row)) + ">" + "".join(map(str, sorted(row))) for row in digits.tolist()]
    tokens = torch.tensor([context.tokenizer.encode(t) for t in texts])     # (ROWS, L)
    targets = tokens[:, 1:].clone()                                         # (ROWS, L-1)
    targets[:, :DIGITS] = IGNORE                                            # only the answer is scored
    return tokens, targets


def _flat_grad(model) -> "torch.Tensor":
    import torch

    return torch.cat([p.grad.flatten() for p in model.parameters()])       # (P,)


@experiment("minibatch", "gradients from mini-batches of 64 sort rows drawn from the lesson's seed, on a "
                         "float64 copy, every weight: minibatch.sizes (4,) the batch sizes 1, 4, 16 and 64 "
                         "(all rows); minibatch.cost_ratio (4,) the multiply-adds torch's FlopCounterMode counts "
                         "for one forward and backward pass on all 64 rows, divided by those on b rows; "
                         "minibatch.error (4,) the expected length of (batch gradient - full gradient) over "
                         "the full gradient's length, for b rows drawn without replacement (exact, from the 64 "
                         "rows' own gradients); minibatch.draw_cos (4,) the cosine of one drawn batch's gradient "
                         "with the full one", passes=450, copies=4)
@one_torch_thread
def minibatch(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    model = private_copy(context.model).cpu()
    tokens, targets = _sort_rows(context)
    # rows taken in a random order: the first b of them are the drawn batch of size b
    order = torch.randperm(ROWS, generator=torch.Generator().manual_seed(context.seed + 1)).tolist()
    total, squares, drawn = None, 0.0, {}
    with torch.enable_grad():
        for count, r in enumerate(order, start=1):                          # one row's gradient at a time
            model.zero_grad(set_to_none=True)
            loss_on(model, tokens[r:r + 1], targets[r:r + 1]).backward()
            g = _flat_grad(model)                                           # (P,)
            total = g.clone() if total is None else total + g
            squares += float(g @ g)
            if count in SIZES:
                drawn[count] = total / count                                # (P,) the first `count` rows' mean
    full = total / ROWS                                                     # (P,) the whole set's gradient
    spread = squares / ROWS - float(full @ full)                            # mean |g_i - g|^2
    # a mean of b rows drawn without replacement: E|g_b - g|^2 = spread/b * (N - b)/(N - 1)
    error = [math.sqrt(max(spread / b * (ROWS - b) / (ROWS - 1), 0.0)) / float(full.norm()) for b in SIZES]
    draw_cos = [float(torch.nn.functional.cosine_similarity(drawn[b], full, dim=0)) for b in SIZES]
    flops = []
    for b in SIZES:
        model.zero_grad(set_to_none=True)
        with FlopCounterMode(display=False) as counted, torch.enable_grad():
            loss_on(model, tokens[:b], targets[:b]).backward()
        flops.append(counted.get_total_flops())
    return {
        "minibatch.sizes": np.array(SIZES, dtype=np.float64),
        "minibatch.cost_ratio": np.array([flops[-1] / f for f in flops]),
        "minibatch.error": np.array(error),
        "minibatch.draw_cos": np.array(draw_cos),
    }
