"""Experiment: why softmax exponentiates, against the "linear" rule w = s / Σ s on the model's own scores.

Why a real row of scores: real scores are negative as often as positive, and their sum can be near
zero; a made-up positive example would hide exactly what breaks.  The softmax side is the model's
own pattern, so the ratios come from what the model computed, not from exp redone here.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import probe_tensors, scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

SHIFT = 3.0   # the constant added to every score to test shift invariance


@experiment("linear_norm", M_("the last query of block 0, head 0, batch row 0 (it sees every key): linear_norm.s (L,) "
                              "its scores; linear_norm.total (1,) their sum; linear_norm.linear (L,) s / sum(s); "
                              "linear_norm.negative (L,) 1 where that "
                              "weight is negative; linear_norm.top (1,) the key with the highest score; "
                              "linear_norm.linear_top (1,) its linear weight; linear_norm.shift (1,) = {shift}; "
                              "linear_norm.linear_top_change (1,) how the top key's linear weight moves when every "
                              "score grows by the shift; linear_norm.softmax_top_change (1,) the same for softmax; "
                              "linear_norm.s0 (1,) the score of key 0; linear_norm.ratio (L,) the model's pattern "
                              "divided by its weight on key 0",
                              shift=SHIFT), passes=1, copies=1)
@one_torch_thread
def linear_normalisation(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    probes = probe_tensors(context)
    s = probes["blocks.0.attn.scores"][0, 0, -1]                            # (L,)
    pattern = probes["blocks.0.attn.pattern"][0, 0, -1]                     # (L,)
    linear = s / s.sum()                                                    # (L,)
    shifted_linear = (s + SHIFT) / (s + SHIFT).sum()                        # (L,)
    top = int(s.argmax())
    softmax_change = torch.softmax(s + SHIFT, dim=-1)[top] - pattern[top]
    return {
        "linear_norm.s": to_numpy(s),
        "linear_norm.total": scalar(s.sum()),
        "linear_norm.linear": to_numpy(linear),
        "linear_norm.negative": to_numpy((linear < 0).double()),
        "linear_norm.top": scalar(top),
        "linear_norm.linear_top": scalar(linear[top]),
        "linear_norm.shift": scalar(SHIFT),
        "linear_norm.linear_top_change": scalar(shifted_linear[top] - linear[top]),
        "linear_norm.softmax_top_change": scalar(softmax_change),
        "linear_norm.s0": scalar(s[0]),
        "linear_norm.ratio": to_numpy(pattern / pattern[0]),
    }
