"""Decoding strategies side by side: one prompt, the same model, six ways to continue it.

The trade-off the decoding lessons describe one strategy at a time (greedy and beam are sure but
dull and loop, sampling is varied but less likely, top-k and top-p cut the unlikely tail) only
shows when the strategies run on the same prompt and are measured the same way.  Each
strategy continues batch row 0 with model/sample.py's own ``generate`` and ``beam_search``,
DRAWS times with seeds seed, seed+1, ... (greedy and beam give the same text every time), and
every continuation is scored by the model itself at T = 1 without filters: what a strategy
wins in likelihood it pays in diversity, and the other way round.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import device_of
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

N_NEW = 20            # tokens in each continuation
DRAWS = 6             # seeded draws per strategy
BEAM_WIDTH = 4
NGRAM = 4             # repetition counts repeated 4-grams (a char-level model's short words)
RARE = 0.01           # a draw the model gives less than this is counted by tail_draws
# name -> the knobs given to model/sample.py; the order is the order of every output's axis
STRATEGIES: dict[str, dict] = {
    "greedy": {"temperature": 0},
    "beam": {"beam_width": BEAM_WIDTH},
    "sample T=1": {"temperature": 1.0},
    "sample T=1.5": {"temperature": 1.5},
    "top-k k=5": {"temperature": 1.0, "top_k": 5},
    "top-p p=0.9": {"temperature": 1.0, "top_p": 0.9},
}
NAMES = ", ".join(f"{i} {name}" for i, name in enumerate(STRATEGIES))
# the short names that head each output's strategy axis in a reveal (grading/declared_shapes.py), same order
AXIS = "greedy|beam|T1|T15|topk|topp"


def repeated_ngrams(tokens: list[int], n: int = NGRAM) -> float:
    """The share of a text's n-grams that already occurred earlier in it (0: none repeats)."""
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    if not grams:
        return 0.0
    seen: set[tuple[int, ...]] = set()
    repeats = 0
    for gram in grams:
        repeats += gram in seen
        seen.add(gram)
    return repeats / len(grams)


def distinct_ngrams(texts: list[list[int]], n: int = 2) -> float:
    """distinct-n: different n-grams over all n-grams of all texts (1: no n-gram comes twice)."""
    grams = [tuple(text[i:i + n]) for text in texts for i in range(len(text) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0


def continuations(model, prompt: list[int], knobs: dict, seed: int) -> list[list[int]]:
    """DRAWS continuations of ``prompt`` with one strategy (seeded: the same every run)."""
    from tutor.model.sample import beam_search, generate

    if "beam_width" in knobs:
        best = beam_search(model, prompt, N_NEW, beam_width=knobs["beam_width"])
        return [list(best)] * DRAWS
    return [generate(model, prompt, N_NEW, seed=seed + i, **knobs) for i in range(DRAWS)]


def read_back(model, prompt: list[int], texts: list[list[int]]):
    """The model reading each text back at T = 1 without filters, in one pass per strategy.

    Returns (probs (S, N), mean_logprob (S,)): the softmax probability of each new token, and
    each text's mean log-probability as training's loss computes it (minus torch's cross_entropy
    of the logits).  The two come from the same logits by different functions, so a formula that
    averages ln p over ``probs`` is checked against the loss, not against its own average redone.
    """
    import torch

    device = device_of(model)
    full = torch.tensor([prompt + text for text in texts], device=device)   # (S, P+N)
    start = len(prompt)
    with torch.no_grad():
        logits = model(full)[:, start - 1:-1].double()                      # (S, N, V) predicting each new token
    new = full[:, start:]                                                   # (S, N)
    probs = torch.softmax(logits, -1).gather(-1, new[..., None])[..., 0]   # (S, N) p of each new token
    loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), new, reduction="none")  # (S, N)
    return probs.cpu(), -loss.mean(dim=-1).cpu()


@experiment("decoding_compare", M_("batch row 0 continued by {strategies} strategies ({names}), {new} new tokens, "
                                   "{draws} seeded draws each (beam width {width}); every output has one entry per "
                                   "strategy in that order: decoding_compare.distinct, .distinct_2, .logprob, .repetition "
                                   "({strategies} strategy = {axis}) the different continuations among the draws, the "
                                   "different 2-grams over all 2-grams of the draws, the mean log-probability per new token "
                                   "under the model at T=1 (minus torch's cross_entropy) and the share of each text's "
                                   "{ngram}-grams that repeat an earlier one (mean over draws); decoding_compare.samples, "
                                   ".token_probs ({strategies} strategy = {axis}, {draws}, {new}) the token ids and the "
                                   "model's probability of each; decoding_compare.beam_gain (1,) beam's minus greedy's "
                                   "mean log-probability; decoding_compare.hot_drop (1,) sampling at T=1's minus T=1.5's; "
                                   "decoding_compare.tail_draws ({strategies} strategy = {axis}) how many of the draws' "
                                   "new tokens the model gives p < {rare}",
                                   strategies=len(STRATEGIES), names=NAMES, axis=AXIS, new=N_NEW, draws=DRAWS,
                                   width=BEAM_WIDTH, ngram=NGRAM, rare=RARE), passes=10, copies=1,
                                derived={"decoding_compare.beam_gain": ("decoding_compare.logprob",),
                                         "decoding_compare.hot_drop": ("decoding_compare.logprob",),
                                         "decoding_compare.tail_draws": ("decoding_compare.token_probs",)})
@one_torch_thread
def decoding_compare(context: ExperimentContext) -> dict[str, np.ndarray]:
    model = context.model
    prompt = context.tokens[0].tolist()[-(model.config.block_size - N_NEW):]   # prompt + text fit the window
    samples, probs, distinct, distinct_2, logprob, repetition = [], [], [], [], [], []
    for knobs in STRATEGIES.values():
        texts = continuations(model, prompt, knobs, context.seed)
        samples.append(texts)
        text_probs, text_logprob = read_back(model, prompt, texts)           # (S, N), (S,)
        probs.append(text_probs.numpy())
        distinct.append(len({tuple(text) for text in texts}))
        distinct_2.append(distinct_ngrams(texts))
        logprob.append(float(text_logprob.mean()))
        repetition.append(float(np.mean([repeated_ngrams(text) for text in texts])))
    floats = lambda values: np.array(values, dtype=np.float64)  # noqa: E731
    return {
        "decoding_compare.distinct": floats(distinct),
        "decoding_compare.distinct_2": floats(distinct_2),
        "decoding_compare.logprob": floats(logprob),
        "decoding_compare.repetition": floats(repetition),
        "decoding_compare.samples": floats(samples),
        "decoding_compare.token_probs": floats(probs),
        "decoding_compare.beam_gain": floats([logprob[1] - logprob[0]]),
        "decoding_compare.hot_drop": floats([logprob[2] - logprob[3]]),
        "decoding_compare.tail_draws": floats([int((p < RARE).sum()) for p in probs]),
    }
