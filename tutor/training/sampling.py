"""The Sample and Attention tabs' work on the current model, in plain Python (no Textual).

Sampling goes through ``model.sample`` (the code the decoding lessons describe), one token at
a time, and for each token also asks ``next_token_distribution`` what the model offered at
that point, before and after the strategy's filters, so the learner sees why it was chosen.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from tutor.common.i18n import _
from tutor.common.prompt_chars import prompt_ids
from tutor.common.safe_text import neutralise, one_line

STRATEGIES = ("greedy", "temperature", "top-k", "top-p", "beam")
TOP_N = 8                    # candidates shown beside the output
# Bounds a learner can read in --help and in the message that refuses a value.  Below these,
# float32 logits / T overflow (T = 1e-40) or p rounds to 0 (1e-46) and sampling draws from NaN;
# above them, a run (or a beam of that many rows) takes minutes and gigabytes for nothing.
MIN_TEMPERATURE = 1e-3       # 0 itself means greedy
MAX_TEMPERATURE = 100.0
MIN_TOP_P = 1e-3
MAX_TOKENS = 10_000
MAX_BEAM = 100


@dataclass(frozen=True)
class SampleRequest:
    prompt: str
    strategy: str = "greedy"
    temperature: float = 1.0
    top_k: int = 5
    top_p: float = 0.9
    beam: int = 4
    max_new: int = 40
    seed: int = 0
    stop_at_newline: bool = True


@dataclass(frozen=True)
class Candidate:
    text: str                # a printable label: ⏎ for a newline, ␣ for a space
    before: float            # softmax of the raw logits
    after: float             # what the strategy actually draws from
    chosen: bool = False     # the token that was generated


@dataclass(frozen=True)
class SampleStep:
    """One generated token and the distribution it came from."""

    index: int
    text: str                # the token as it prints in the output (control characters neutralised)
    candidates: tuple[Candidate, ...]


def filters(request: SampleRequest) -> dict:
    """temperature / top_k / top_p for ``model.sample``; beam search is scored without them."""
    if request.strategy == "greedy":
        return {"temperature": 0.0}
    if request.strategy == "temperature":
        return {"temperature": request.temperature}
    if request.strategy == "top-k":
        return {"temperature": request.temperature, "top_k": request.top_k}
    if request.strategy == "top-p":
        return {"temperature": request.temperature, "top_p": request.top_p}
    if request.strategy == "beam":
        return {"temperature": 1.0}
    raise ValueError(_("unknown strategy {strategy}; choose {choices}").format(
        strategy=repr(request.strategy), choices=", ".join(STRATEGIES)))


def validate(request: SampleRequest) -> None:
    from tutor.model.sample import validate_sampling

    if not request.prompt:
        raise ValueError(_("type a prompt first, e.g. 3142> for the sort task"))
    if not 1 <= request.max_new <= MAX_TOKENS:
        raise ValueError(_("max tokens must be between 1 and {most}").format(most=MAX_TOKENS))
    if not 1 <= request.beam <= MAX_BEAM:
        raise ValueError(_("the beam width must be between 1 and {most}").format(most=MAX_BEAM))
    knobs = filters(request)
    temperature_problem = check_temperature(knobs["temperature"])
    if temperature_problem:
        raise ValueError(temperature_problem)
    if knobs.get("top_k") is not None and knobs["top_k"] < 1:
        raise ValueError(_("top-k must be at least 1, not {value}").format(value=knobs["top_k"]))
    if knobs.get("top_p") is not None and not 0 < knobs["top_p"] <= 1:
        raise ValueError(_("top-p must be in (0, 1], not {value}").format(value=f"{knobs['top_p']:g}"))
    if knobs.get("top_p") is not None and knobs["top_p"] < MIN_TOP_P:
        raise ValueError(_("top-p must be between {least} and 1 (1 keeps every token)").format(least=f"{MIN_TOP_P:g}"))
    validate_sampling(knobs["temperature"], knobs.get("top_k"), knobs.get("top_p"))


def check_temperature(value: float) -> str | None:
    """What is wrong with a temperature, as a whole sentence in the interface language, or None."""
    import math

    if not math.isfinite(value) or value < 0 or value > MAX_TEMPERATURE or 0 < value < MIN_TEMPERATURE:
        return _("the temperature must be 0 (greedy) or between {least} and {most}, not {value}").format(
            least=f"{MIN_TEMPERATURE:g}", most=f"{MAX_TEMPERATURE:g}", value=f"{value:g}")
    return None


def label(tokenizer, token: int) -> str:
    """A one-line label; a checkpoint's vocabulary may hold control characters, shown inert."""
    text = tokenizer.decode([token])
    return one_line({"\n": "⏎", " ": "␣", "\t": "⇥"}.get(text, text))


def _candidates(model, tokenizer, context: list[int], knobs: dict, chosen: int) -> tuple[Candidate, ...]:
    """The TOP_N most likely next tokens, plus the chosen one when a high temperature picked another."""
    from tutor.model.sample import next_token_distribution

    dist = next_token_distribution(model, context, **knobs)
    ids = [c.token_id for c in dist.top(TOP_N, tokenizer)]
    if chosen not in ids:
        ids.append(chosen)
    return tuple(Candidate(label(tokenizer, i), float(dist.before[i]), float(dist.after[i]), i == chosen)
                 for i in ids)


def sample_steps(model, tokenizer, request: SampleRequest, lock=None) -> Iterator[SampleStep]:
    """The generated tokens one by one, each with its candidates; ``lock`` guards each forward pass.

    Greedy, temperature, top-k and top-p stream from ``model.sample.stream``; beam search
    finds the whole continuation first (it cannot know earlier) and is then shown token by token.
    """
    import contextlib

    from tutor.model.sample import beam_search, stream

    validate(request)
    guard = lock if lock is not None else contextlib.nullcontext()
    knobs = filters(request)
    context = prompt_ids(tokenizer, request.prompt)
    stop_ids = tokenizer.encode("\n") if request.stop_at_newline else []
    if request.strategy == "beam":
        with guard:
            tokens = iter(beam_search(model, context[-model.config.block_size:], request.max_new,
                                      request.beam, stop_ids=stop_ids))
    else:
        tokens = stream(model, context, request.max_new, seed=request.seed, stop_ids=stop_ids, **knobs)
    index = 0
    while True:
        with guard:
            token = next(tokens, None)
            if token is None:
                return
            candidates = _candidates(model, tokenizer, context, knobs, token)
        context.append(token)
        yield SampleStep(index, neutralise(tokenizer.decode([token]), keep="\n"), candidates)
        index += 1


def attention_pattern(model, tokenizer, text: str, layer: int, head: int, lock=None):
    """(pattern (L, L) as numpy, token labels) of one head for ``text`` (its last block_size characters)."""
    import contextlib

    import torch

    from tutor.model import run_with_probes

    config = model.config
    if not text:
        raise ValueError(_("type some text to look at, e.g. 3142>1234"))
    if not (0 <= layer < config.n_layer and 0 <= head < config.n_head):
        raise ValueError(_("this model has layers 0-{layer} and heads 0-{head}").format(
            layer=config.n_layer - 1, head=config.n_head - 1))
    ids = prompt_ids(tokenizer, text)[-config.block_size:]
    with lock if lock is not None else contextlib.nullcontext():
        _logits, probes = run_with_probes(model, torch.tensor([ids]))
    pattern = probes[f"blocks.{layer}.attn.pattern"][0, head].float().numpy()      # (L, L)
    return pattern, [label(tokenizer, t) for t in ids]
