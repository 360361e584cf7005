"""Decoding: greedy, temperature, top-k, top-p, beam search, with or without a KV cache.

The guarantees the lessons rely on, and the tests check:
* same seed, same tokens (sampling draws from a private ``torch.Generator``);
* with and without the KV cache, the same tokens (the cache only saves work);
* ``top_k=1`` and ``temperature=0`` are greedy, and a beam of width 1 is greedy.

The context is always the last ``block_size`` tokens.  Once a sequence is longer than that,
every token's position shifts at each step, so cached keys and values (which contain their
positions) go stale; from there both paths recompute the window, which keeps them identical.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import torch

from .gpt import GPT
from .tokenizer import CharTokenizer


def validate_sampling(temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None) -> None:
    if not (temperature >= 0 and math.isfinite(temperature)):
        raise ValueError(f"temperature must be a number >= 0, not {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top-k must be at least 1, not {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top-p must be in (0, 1], not {top_p}")


def filter_logits(logits: torch.Tensor, temperature: float = 1.0, top_k: int | None = None,
                  top_p: float | None = None) -> torch.Tensor:
    """Logits (..., V) divided by temperature, with tokens outside top-k / top-p set to -inf.

    ``temperature == 0`` keeps only the argmax (greedy).  top-p keeps the smallest set of
    most likely tokens whose probability sums to at least p (the first token always stays).
    """
    validate_sampling(temperature, top_k, top_p)
    if temperature == 0:
        keep = torch.zeros_like(logits, dtype=torch.bool)
        keep.scatter_(-1, logits.argmax(-1, keepdim=True), True)
        return logits.masked_fill(~keep, float("-inf"))
    logits = logits / temperature                                            # (..., V)
    if top_k is not None and top_k < logits.size(-1):
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]             # (..., 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1:
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True)    # (..., V)
        probs = torch.softmax(sorted_logits, dim=-1)                         # (..., V)
        before = probs.cumsum(-1) - probs                                    # mass above each token
        drop_sorted = before >= top_p                                        # (..., V)
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        logits = logits.masked_fill(drop, float("-inf"))
    return logits


@dataclass
class Candidate:
    token_id: int
    text: str
    p_before: float        # softmax of the raw logits
    p_after: float         # after temperature and filtering, renormalised


@dataclass
class TokenDistribution:
    before: torch.Tensor   # (V,) probabilities from the raw logits
    after: torch.Tensor    # (V,) probabilities actually sampled from

    def top(self, n: int = 10, tokenizer: CharTokenizer | None = None, by: str = "before") -> list[Candidate]:
        """The n most likely tokens (ranked by ``before`` or ``after``) with both probabilities."""
        ranked = torch.topk(getattr(self, by), min(n, self.before.numel())).indices.tolist()
        label = tokenizer.token_label if tokenizer else str
        return [Candidate(i, label(i), float(self.before[i]), float(self.after[i])) for i in ranked]


def _device(model: GPT) -> torch.device:
    return next(model.parameters()).device


def _as_ids(tokens) -> list[int]:
    return tokens.tolist() if isinstance(tokens, torch.Tensor) else [int(t) for t in tokens]


@torch.no_grad()
def next_token_distribution(model: GPT, tokens: Sequence[int] | torch.Tensor, temperature: float = 1.0,
                            top_k: int | None = None, top_p: float | None = None) -> TokenDistribution:
    """What the model would sample next after ``tokens``: before and after the filters."""
    ids = _as_ids(tokens)[-model.config.block_size:]
    if not ids:
        raise ValueError("need at least one token of context")
    model.eval()
    logits = model(torch.tensor([ids], device=_device(model)))[0, -1].float()  # (V,)
    before = torch.softmax(logits, dim=-1)                                   # (V,)
    after = torch.softmax(filter_logits(logits, temperature, top_k, top_p), dim=-1)  # (V,)
    return TokenDistribution(before.cpu(), after.cpu())


class _Context:
    """Next-token logits for a batch of growing sequences, with or without a KV cache."""

    def __init__(self, model: GPT, use_cache: bool) -> None:
        self.model, self.use_cache, self.cache = model, use_cache, None
        self.block = model.config.block_size

    def logits(self, seqs: torch.Tensor) -> torch.Tensor:
        """seqs (B, T), all tokens so far -> logits (B, V) for the next token."""
        T = seqs.size(1)
        if not self.use_cache or T > self.block:
            self.cache = None
            return self.model(seqs[:, -self.block:])[:, -1]                  # (B, V)
        if self.cache is None:
            logits, self.cache = self.model(seqs, use_cache=True)            # (B, T, V)
        else:
            logits, self.cache = self.model(seqs[:, -1:], past_kv=self.cache, use_cache=True)  # (B, 1, V)
        return logits[:, -1]

    def reorder(self, rows: torch.Tensor) -> None:
        """Keep the cache rows of the beams that survive (beam search)."""
        if self.cache is not None:
            self.cache = [(k[rows], v[rows]) for k, v in self.cache]


@torch.no_grad()
def stream(model: GPT, prompt: Sequence[int] | torch.Tensor, max_new_tokens: int, temperature: float = 1.0,
           top_k: int | None = None, top_p: float | None = None, seed: int | None = None,
           use_cache: bool = True, stop_ids: Sequence[int] = ()) -> Iterator[int]:
    """Yield new token ids one at a time; stops after a token in ``stop_ids`` (yielded too)."""
    validate_sampling(temperature, top_k, top_p)
    ids = _as_ids(prompt)
    if not ids:
        raise ValueError("the prompt must contain at least one token")
    model.eval()
    device = _device(model)
    generator = torch.Generator(device=device)
    generator.manual_seed(seed if seed is not None else int(torch.randint(0, 2**62, ()).item()))
    seqs = torch.tensor([ids], device=device)                                # (1, T)
    context = _Context(model, use_cache)
    stops = set(stop_ids)
    for _ in range(max_new_tokens):
        logits = context.logits(seqs)[0].float()                             # (V,)
        if temperature == 0:
            token = int(logits.argmax())
        else:
            probs = torch.softmax(filter_logits(logits, temperature, top_k, top_p), dim=-1)  # (V,)
            token = int(torch.multinomial(probs, 1, generator=generator))
        seqs = torch.cat([seqs, torch.tensor([[token]], device=device)], dim=1)  # (1, T+1)
        yield token
        if token in stops:
            return


def generate(model: GPT, prompt, max_new_tokens: int, **kwargs) -> list[int]:
    """All of ``stream``'s tokens as a list (same arguments)."""
    return list(stream(model, prompt, max_new_tokens, **kwargs))


@torch.no_grad()
def beam_search(model: GPT, prompt: Sequence[int] | torch.Tensor, max_new_tokens: int, beam_width: int = 4,
                stop_ids: Sequence[int] = (), length_penalty: float = 0.0, use_cache: bool = True,
                on_step: Callable[[int], None] | None = None) -> list[int]:
    """The most likely continuation found by keeping ``beam_width`` partial sequences.

    A beam that emits a stop token is finished; the search ends when the best finished beam
    scores at least as well as every live one (log-probabilities only fall) or the budget
    runs out.  Scores are sum(log p) / length**length_penalty (0: plain sum).  ``on_step(n)``
    is called after each step, so a caller can show progress while nothing is known yet.
    """
    if beam_width < 1:
        raise ValueError(f"beam width must be at least 1, not {beam_width}")
    ids = _as_ids(prompt)
    if not ids:
        raise ValueError("the prompt must contain at least one token")
    model.eval()
    device = _device(model)
    seqs = torch.tensor([ids], device=device)                                # (beams, T)
    scores = torch.zeros(1, device=device)                                   # (beams,) sum of log p
    context = _Context(model, use_cache)
    finished: list[tuple[float, list[int]]] = []
    stops = torch.tensor(sorted(set(stop_ids)), device=device, dtype=torch.long)
    norm = lambda total, n: total / (n ** length_penalty)                    # noqa: E731
    for step in range(1, max_new_tokens + 1):  # noqa: B007
        logprobs = torch.log_softmax(context.logits(seqs).float(), dim=-1)   # (beams, V)
        total = (scores[:, None] + logprobs).view(-1)                        # (beams * V,)
        best, flat = torch.topk(total, min(beam_width, total.numel()))       # (k,)
        rows, tokens = flat // logprobs.size(1), flat % logprobs.size(1)     # (k,) each
        seqs = torch.cat([seqs[rows], tokens[:, None]], dim=1)               # (k, T+1)
        context.reorder(rows)
        done = torch.isin(tokens, stops) if stops.numel() else torch.zeros_like(tokens, dtype=torch.bool)
        for i in done.nonzero().flatten().tolist():
            finished.append((norm(float(best[i]), step), seqs[i, len(ids):].tolist()))
        live = ~done
        seqs, scores = seqs[live], best[live]
        if not live.all():
            context.reorder(live.nonzero().flatten())
        if on_step is not None:
            on_step(step)
        if seqs.size(0) == 0:
            break
        if length_penalty == 0 and finished and max(f[0] for f in finished) >= float(scores.max()):
            break  # live beams only lose probability from here
    n_new = seqs.size(1) - len(ids)
    candidates = finished + [(norm(float(s), max(1, n_new)), seqs[i, len(ids):].tolist())
                             for i, s in enumerate(scores.tolist())]
    if not candidates:
        return []
    return max(candidates, key=lambda item: item[0])[1]   # first of equals: finished beams win ties


def sample_text(model: GPT, tokenizer: CharTokenizer, prompt: str, max_new_tokens: int = 64,
                temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
                beam: int | None = None, seed: int | None = None, stop: str | None = None,
                use_cache: bool = True) -> str:
    """Text in, text out: the generated continuation (including ``stop`` if it was reached)."""
    if not prompt:
        raise ValueError("the prompt is empty")
    ids = tokenizer.encode(prompt)[-model.config.block_size:]
    stop_ids = tokenizer.encode(stop) if stop and len(stop) == 1 else ()
    if beam is not None:
        out = beam_search(model, ids, max_new_tokens, beam, stop_ids=stop_ids, use_cache=use_cache)
    else:
        out = []
        for token in stream(model, ids, max_new_tokens, temperature, top_k, top_p, seed, use_cache, stop_ids):
            out.append(token)
            if stop and len(stop) > 1 and tokenizer.decode(out).endswith(stop):
                break
    text = tokenizer.decode(out)
    if stop and len(stop) > 1 and stop in text:
        text = text[: text.index(stop) + len(stop)]
    return text


def stream_text(model: GPT, tokenizer: CharTokenizer, prompt: str, max_new_tokens: int = 64,
                stop: str | None = None, **kwargs) -> Iterator[str]:
    """Yield the continuation character by character, for a live display."""
    if not prompt:
        raise ValueError("the prompt is empty")
    ids = tokenizer.encode(prompt)[-model.config.block_size:]
    stop_ids = tokenizer.encode(stop) if stop and len(stop) == 1 else ()
    text = ""
    for token in stream(model, ids, max_new_tokens, stop_ids=stop_ids, **kwargs):
        piece = tokenizer.decode([token])
        text += piece
        yield piece
        if stop and len(stop) > 1 and text.endswith(stop):
            return
