"""Experiment: beam search's length bias, and the length penalty that undoes it.

Why three runs of model/sample.py's own beam_search (penalty exponent α = 0, 0.5, 1) rather than
one: the lesson asks how the returned answer's length moves with α, and only the real search,
with its stopping rule, shows what it returns.

Why each answer is scored afresh by one forward pass over prompt + answer (torch's
cross_entropy): the sums a lesson's formula divides by n^α are then not the numbers the search
kept, so a formula is checked against a second computation.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.common import device_of, scalar, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

WIDTH = 3                    # beams kept at each step
LONGEST = 8                  # the most new tokens of an answer
ALPHAS = (0.0, 0.5, 1.0)     # length-penalty exponents: score = sum(log p) / length ** alpha
SWITCH_STEPS = 24            # bisection steps for the α where the answer changes: 2^-24 ≈ 6e-8 wide


def _switch_point(length_at, short: int, long: int, steps: int = SWITCH_STEPS) -> float:
    """The α where beam_search's answer changes from the short one to the long one, found by
    bisection on the search itself (0 when the two lengths are equal: nothing switches)."""
    if short == long:
        return 0.0
    low, high = 0.0, 1.0                   # the α = 0 run returns the short answer, the α = 1 run the long one
    for _ in range(steps):
        middle = (low + high) / 2
        low, high = (low, middle) if length_at(middle) == long else (middle, high)
    return (low + high) / 2


@experiment("beam_length", M_("beam_search (width {width}, up to {longest} new tokens, a beam ends at a newline) "
                              "after batch row 0, once for each length-penalty exponent α in beam_length.alpha "
                              "(3,) = {alphas}, a finished beam scored sum(ln p) / length^α: beam_length.answers "
                              "(3, {longest}) the three answers' token ids, padded with -1; beam_length.lengths "
                              "(3,) their lengths; beam_length.sums (3,) each answer's total ln p, scored afresh "
                              "by one forward pass over prompt + answer; beam_length.p (n,) the probability of "
                              "each token of the α = 0.5 answer and beam_length.n (1,) its length; "
                              "beam_length.score_half (1,) that answer's sum over n^0.5; beam_length.p_stop (1,) "
                              "the probability of ending at once; beam_length.p_needed (1,) p_stop over the probability of the "
                              "α = 0.5 answer's first token: how likely its second token must be for its first two "
                              "tokens to tie with ending at once; beam_length.p_needed_mean (1,) p_stop² over that same first "
                              "token's probability: the tie for the two tokens' mean ln p (α = 1); beam_length.alpha_star (1,) the α at which "
                              "beam_search's answer changes from the α = 0 one to the α = 1 one, found by bisection "
                              "on the search itself ({steps} runs); beam_length.mean_full (1,) the "
                              "α = 1 answer's sum over its length; beam_length.length_gain (1,) the α = 1 answer's "
                              "length minus the α = 0 answer's; beam_length.plain_extra (1,) the α = 0 "
                              "answer's length minus 1",
                              width=WIDTH, longest=LONGEST, steps=SWITCH_STEPS, alphas=", ".join(f"{a:g}" for a in ALPHAS)),
            passes=6, copies=1,
            derived={"beam_length.score_half": ("beam_length.sums", "beam_length.lengths"),
                     "beam_length.mean_full": ("beam_length.sums", "beam_length.lengths"),
                     "beam_length.length_gain": ("beam_length.lengths",),
                     "beam_length.plain_extra": ("beam_length.lengths",),
                     "beam_length.p_needed": ("beam_length.p_stop", "beam_length.p"),
                     "beam_length.p_needed_mean": ("beam_length.p_stop", "beam_length.p")})
@one_torch_thread
def beam_length(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    from tutor.model.sample import beam_search

    model = context.model
    device = device_of(model)
    ids = context.tokens[0].tolist()[-(model.config.block_size - LONGEST):]   # room for the answer
    newline = context.tokenizer.encode("\n")                                   # [id]
    answers = [beam_search(model, ids, LONGEST, beam_width=WIDTH, stop_ids=newline, length_penalty=alpha)
               for alpha in ALPHAS]

    def token_logprobs(answer: list[int]) -> torch.Tensor:                     # (n,) ln p of each answer token
        whole = torch.tensor([ids + answer], device=device)                    # (1, P+n)
        with torch.no_grad():
            logits = model(whole)[0, len(ids) - 1:-1].cpu().double()           # (n, V) predicting the answer
        return -F.cross_entropy(logits, torch.tensor(answer), reduction="none")

    per_token = [token_logprobs(a) for a in answers]                            # one forward per answer
    sums = torch.stack([lp.sum() for lp in per_token])                           # (3,)
    lengths = torch.tensor([len(a) for a in answers], dtype=torch.float64)      # (3,)
    half = ALPHAS.index(0.5)
    padded = np.full((len(ALPHAS), LONGEST), -1.0)
    for row, answer in enumerate(answers):
        padded[row, :len(answer)] = answer
    with torch.no_grad():
        first = torch.log_softmax(model(torch.tensor([ids], device=device))[0, -1].cpu().double(), -1)  # (V,)
    plain, full = ALPHAS.index(0.0), ALPHAS.index(1.0)
    alpha_star = _switch_point(lambda alpha: len(beam_search(model, ids, LONGEST, beam_width=WIDTH, stop_ids=newline,
                                                             length_penalty=alpha)),
                               int(lengths[plain]), int(lengths[full]))
    return {
        "beam_length.alpha": np.array(ALPHAS, dtype=np.float64),
        "beam_length.answers": padded,
        "beam_length.lengths": to_numpy(lengths), "beam_length.sums": to_numpy(sums),
        "beam_length.p": to_numpy(per_token[half].exp()),
        "beam_length.n": scalar(lengths[half]),
        "beam_length.score_half": scalar(sums[half] / lengths[half] ** 0.5),
        "beam_length.p_stop": scalar(first[newline[0]].exp()),
        "beam_length.p_needed": scalar((first[newline[0]] - per_token[half][0]).exp()),
        "beam_length.p_needed_mean": scalar((2 * first[newline[0]] - per_token[half][0]).exp()),
        "beam_length.alpha_star": scalar(alpha_star),
        "beam_length.mean_full": scalar(sums[full] / lengths[full]),
        "beam_length.length_gain": scalar(lengths[full] - lengths[plain]),
        "beam_length.plain_extra": scalar(lengths[plain] - 1),
    }
