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

from .decode import KVCache, decode
from .gpt import GPT
from .messages import M_
from .tokenizer import CharTokenizer


def validate_sampling(temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None) -> None:
    if not (temperature >= 0 and math.isfinite(temperature)):
        raise ValueError(M_("temperature must be a number >= 0, not {value}", value=temperature))
    if top_k is not None and top_k < 1:
        raise ValueError(M_("top-k must be at least 1, not {value}", value=top_k))
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(M_("top-p must be in (0, 1], not {value}", value=top_p))


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
        raise ValueError(M_("need at least one token of context"))
    model.eval()
    logits = model(torch.tensor([ids], device=_device(model)))[0, -1].float()  # (V,)
    before = torch.softmax(logits, dim=-1)                                   # (V,)
    after = torch.softmax(filter_logits(logits, temperature, top_k, top_p), dim=-1)  # (V,)
    return TokenDistribution(before.cpu(), after.cpu())


class _Context:
    """Every token so far for a batch of sequences, and the next-token logits for them.

    With the cache, only the tokens it has not seen yet go through ``GPT.decode``; without
    it (or once the window slides) the last ``block_size`` tokens go through ``forward``.
    New tokens are only concatenated onto the history when something reads it, because at
    this size even one ``torch.cat`` per token shows.  The cache never needs more than
    block_size positions, so a large ``max_new_tokens`` costs no memory up front.
    """

    def __init__(self, model: GPT, seqs: torch.Tensor, use_cache: bool, max_new_tokens: int) -> None:
        self.model, self.block = model, model.config.block_size
        self._seqs, self._tail, self.length = seqs, [], seqs.size(1)        # seqs (B, T)
        self.unseen = seqs                                                   # (B, L) not yet in the cache
        capacity = min(self.block, self.length + max(max_new_tokens - 1, 0))
        self.cache = KVCache(model, seqs.size(0), capacity) if use_cache else None

    @property
    def seqs(self) -> torch.Tensor:
        """(B, T): every token so far."""
        if self._tail:
            self._seqs = torch.cat([self._seqs, *self._tail], dim=1)        # (B, T)
            self._tail = []
        return self._seqs

    def logits(self) -> torch.Tensor:
        """Logits (B, V) for the next token of every sequence."""
        if self.cache is None or self.length > self.cache.capacity:
            self.cache = None   # the window slides: cached keys hold stale positions
            return self.model(self.seqs[:, -self.block:])[:, -1]             # (B, V)
        return decode(self.model, self.unseen, self.cache)                    # (B, V)

    def append(self, tokens: torch.Tensor, rows: torch.Tensor | None = None) -> None:
        """Extend sequences ``rows`` (default: all, in order) with ``tokens`` (B',)."""
        if rows is not None:
            self._seqs = self.seqs.index_select(0, rows)                     # (B', T)
            if self.cache is not None:
                self.cache.reorder(rows)
        self.unseen = tokens[:, None]                                        # (B', 1)
        self._tail.append(self.unseen)
        self.length += 1


@torch.inference_mode()
def stream(model: GPT, prompt: Sequence[int] | torch.Tensor, max_new_tokens: int, temperature: float = 1.0,
           top_k: int | None = None, top_p: float | None = None, seed: int | None = None,
           use_cache: bool = True, stop_ids: Sequence[int] = ()) -> Iterator[int]:
    """Yield new token ids one at a time; stops after a token in ``stop_ids`` (yielded too)."""
    validate_sampling(temperature, top_k, top_p)
    ids = _as_ids(prompt)
    if not ids:
        raise ValueError(M_("the prompt must contain at least one token"))
    model.eval()
    device = _device(model)
    generator = torch.Generator(device=device)
    generator.manual_seed(seed if seed is not None else int(torch.randint(0, 2**62, ()).item()))
    context = _Context(model, torch.tensor([ids], device=device), use_cache, max_new_tokens)
    stops = set(stop_ids)
    for _ in range(max_new_tokens):
        logits = context.logits().float()                                    # (1, V)
        if temperature == 0:
            token = logits.argmax(-1)                                        # (1,)
        else:
            probs = torch.softmax(filter_logits(logits[0], temperature, top_k, top_p), dim=-1)  # (V,)
            token = torch.multinomial(probs, 1, generator=generator)         # (1,)
        context.append(token)
        token_id = int(token)   # the caller needs the id now: one sync per token is the floor
        yield token_id
        if token_id in stops:
            return


def generate(model: GPT, prompt, max_new_tokens: int, **kwargs) -> list[int]:
    """All of ``stream``'s tokens as a list (same arguments)."""
    return list(stream(model, prompt, max_new_tokens, **kwargs))


@torch.inference_mode()
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
        raise ValueError(M_("beam width must be at least 1, not {value}", value=beam_width))
    ids = _as_ids(prompt)
    if not ids:
        raise ValueError(M_("the prompt must contain at least one token"))
    model.eval()
    n = len(ids)
    context = _Context(model, torch.tensor([ids], device=_device(model)), use_cache, max_new_tokens)
    scores = torch.zeros(1, device=context.seqs.device)                     # (beams,) sum of log p
    finished: list[tuple[float, list[int]]] = []
    stops = set(stop_ids)
    norm = lambda total, length: total / (length ** length_penalty)          # noqa: E731
    for step in range(1, max_new_tokens + 1):
        logprobs = torch.log_softmax(context.logits().float(), dim=-1)       # (beams, V)
        total = (scores[:, None] + logprobs).view(-1)                        # (beams * V,)
        best, flat = torch.topk(total, min(beam_width, total.numel()))       # (k,)
        rows, tokens = flat // logprobs.size(1), flat % logprobs.size(1)     # (k,) each
        if stops:   # one sync per step, only when there is something to stop at
            done = [t in stops for t in tokens.tolist()]
            if any(done):
                ended, parents = best.tolist(), rows.tolist()
                for i in (i for i, d in enumerate(done) if d):
                    text = context.seqs[parents[i], n:].tolist() + [int(tokens[i])]
                    finished.append((norm(ended[i], step), text))
                live = torch.tensor([not d for d in done], device=tokens.device)
                rows, tokens, best = rows[live], tokens[live], best[live]     # (k',) each
        context.append(tokens, rows)
        scores = best
        if on_step is not None:
            on_step(step)
        if scores.numel() == 0:
            break
        if length_penalty == 0 and finished and max(f[0] for f in finished) >= float(scores.max()):
            break  # live beams only lose probability from here
    seqs = context.seqs
    candidates = finished + [(norm(float(s), max(1, seqs.size(1) - n)), seqs[i, n:].tolist())
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
        raise ValueError(M_("the prompt is empty"))
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
        raise ValueError(M_("the prompt is empty"))
    ids = tokenizer.encode(prompt)[-model.config.block_size:]
    stop_ids = tokenizer.encode(stop) if stop and len(stop) == 1 else ()
    text = ""
    for token in stream(model, ids, max_new_tokens, stop_ids=stop_ids, **kwargs):
        piece = tokenizer.decode([token])
        text += piece
        yield piece
        if stop and len(stop) > 1 and text.endswith(stop):
            return
