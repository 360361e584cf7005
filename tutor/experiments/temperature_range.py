"""Experiment: what a sampling temperature does to the characters the model itself finds implausible.

Why "implausible by the model's own judgement": a character language model has no notion of facts,
so "hallucination" is measured here as its nearest measurable cousin: drawing a character that the
same model, at T = 1 and in the same context, gives less than IMPLAUSIBLE.  Tempering divides every
logit gap by T, so each such character's odds against the top one are raised to the power 1/T: the
tail grows much faster than T.  Both the expectation (over the row's own contexts, no sampling) and
real samples (seeded runs with model/sample.py's generate, each drawn character judged in its own
context) are given, so a lesson can compare a prediction with what sampling really wrote.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import scalar, tokens_on_device
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

TEMPERATURES = (0.1, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0)
IMPLAUSIBLE = 0.01    # a character is implausible where the model gives it less than this at T = 1
N_SAMPLED = 40        # characters sampled after the row at each temperature
HOT_SEEDS = 20        # seeded 40-character draws at T = 2: one draw's count is luck, their mean is not


@experiment("temp_range", M_("sampling temperatures temp_range.T (7 temperature,) = {temps} on batch row 0; a "
                             "character is implausible in a context when the model gives it p < {floor:g} there "
                             "at T = 1. Averaged over the row's L positions (each the context of the next "
                             "character): temp_range.miss (7 temperature = .T,) the chance that a draw at T is not the "
                             "model's top character, 1 - max p_T; temp_range.tail (7 temperature = .T,) the probability "
                             "at T of the implausible characters; temp_range.tail_size (1,) how many of the V "
                             "characters are implausible; temp_range.tail_growth (1,) tail at T = 2 over tail at "
                             "T = 1. Real samples: temp_range.sampled (7 temperature = .T, {new} step) {new} characters "
                             "after the row at each T (model/sample.py's generate, the lesson's seed), "
                             "temp_range.sampled_implausible (7 temperature = .T,) how many of them were implausible "
                             "where they were drawn; temp_range.hot_expected (1,) = {new} × tail at T = 2 and temp_range.hot_excess (1,) "
                             "the implausible count sampled at T = 2 minus it; temp_range.hot_seeds ({seeds} seed,) the implausible "
                             "count of {seeds} more {new}-character draws at T = 2, seeds seed + 1 to seed + {seeds}, and "
                             "temp_range.hot_mean_excess (1,) their mean minus hot_expected; temp_range.tempered_last (V,) the "
                             "sampler's own distribution after the row at T = 2 (model/sample.py's "
                             "next_token_distribution)",
                             temps=", ".join(f"{t:g}" for t in TEMPERATURES), floor=IMPLAUSIBLE, new=N_SAMPLED, seeds=HOT_SEEDS),
            passes=30, copies=1)
@one_torch_thread
def temperature_range(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import generate, next_token_distribution

    model = context.model
    row = tokens_on_device(context)[:1]                                      # (1, L)
    temps = torch.tensor(TEMPERATURES, dtype=torch.float64)                  # (7,)
    with torch.no_grad():
        logits = model(row)[0].double().cpu()                                # (L, V)
    base = torch.softmax(logits, -1)                                         # (L, V) at T = 1
    tail_mask = base < IMPLAUSIBLE                                           # (L, V)
    tempered = torch.softmax(logits[None] / temps[:, None, None], -1)        # (7, L, V)
    miss = 1 - tempered.amax(-1).mean(-1)                                    # (7,)
    tail = (tempered * tail_mask).sum(-1).mean(-1)                           # (7,)
    ids = row[0].tolist()
    def implausible(run: list[int]) -> float:
        """How many of a run's characters the model, at T = 1, gave p < IMPLAUSIBLE where each was drawn."""
        whole = torch.tensor([ids + run], device=row.device)                 # (1, L + N)
        with torch.no_grad():
            probs = torch.softmax(model(whole)[0, len(ids) - 1:-1].double(), -1).cpu()   # (N, V)
        drawn = probs.gather(-1, torch.tensor(run)[:, None]).squeeze(-1)     # (N,) p at T = 1 of each draw
        return float((drawn < IMPLAUSIBLE).sum())

    runs = [generate(model, ids, N_SAMPLED, temperature=t, seed=context.seed) for t in TEMPERATURES]
    judged = [implausible(run) for run in runs]
    hot_seeds = [implausible(generate(model, ids, N_SAMPLED, temperature=2.0, seed=context.seed + k))
                 for k in range(1, HOT_SEEDS + 1)]                           # (HOT_SEEDS,)
    at_one, at_two = TEMPERATURES.index(1.0), TEMPERATURES.index(2.0)
    expected = N_SAMPLED * float(tail[at_two])
    with torch.no_grad():
        tempered_last = next_token_distribution(model, ids, temperature=2.0).after.double()   # (V,)
    return {
        "temp_range.T": temps.numpy(),
        "temp_range.miss": miss.numpy(),
        "temp_range.tail": tail.numpy(),
        "temp_range.tail_size": scalar(tail_mask.sum(-1).double().mean()),
        "temp_range.tail_growth": scalar(tail[at_two] / tail[at_one].clamp_min(1e-300)),
        "temp_range.sampled": np.array(runs, dtype=np.float64),
        "temp_range.sampled_implausible": np.array(judged, dtype=np.float64),
        "temp_range.hot_expected": scalar(expected),
        "temp_range.hot_excess": scalar(judged[at_two] - expected),
        "temp_range.hot_seeds": np.array(hot_seeds, dtype=np.float64),
        "temp_range.hot_mean_excess": scalar(float(np.mean(hot_seeds)) - expected),
        "temp_range.tempered_last": tempered_last.numpy(),
    }
