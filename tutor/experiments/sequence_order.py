"""One text against its reordering, each scored whole by the chain rule of probability.

A row's log-probability is the sum of its per-token logs, taken here from torch's cross-entropy on
the logits of one forward pass. A lesson compares the two rows as numbers a learner derives from
the per-token probabilities (nll.p_true), so the gap is measured by another route than theirs.
"""
from __future__ import annotations

from tutor.common.i18n import M_
from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


@experiment("order", "two rows scored whole: order.logp (B,) log P(tokens 1..L-1 | token 0) of each row, the "
                     "sum of -cross_entropy of its logits; order.gap (1,) = order.logp[0] - order.logp[1], "
                     "in nats; order.ratio (1,) = P(row 0) / P(row 1) = e^gap",
            passes=1, copies=1, derived={"order.gap": ("order.logp",), "order.ratio": ("order.gap", "order.logp")})
@one_torch_thread
def order(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)                                      # (B, L)
    if tokens.size(0) < 2:
        raise ValueError(M_("order compares two rows: give model.text two texts"))
    with torch.no_grad():
        logits = context.model(tokens)[:, :-1].double()                     # (B, L-1, V)
    loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")  # (B, L-1)
    logp = -loss.sum(dim=-1)                                                # (B,)
    gap = logp[0] - logp[1]
    return {
        "order.logp": to_numpy(logp),
        "order.gap": to_numpy(gap.reshape(1)),
        "order.ratio": to_numpy(gap.exp().reshape(1)),
    }
