"""Experiments on decoding with model/sample.py's own functions: filters, sampling, generation, beam search."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import device_of, row0_logits, scalar, to_numpy
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import SEPARATOR

TOP_K = 3             # decode: top-k filter
TOP_P = 0.9           # decode: top-p (nucleus) filter
TOP_P_WIDE = 0.999    # decode: a top-p meant to cut "only the junk"
HOT_T = 2.0           # decode: the "hotter" temperature
N_DRAWS = 1000        # decode: how many samples are counted
N_NEW = 10            # generate: how many tokens each continuation has
BEAM_WIDTH = 3        # beam: partial sequences kept at each step
STOP_LONGEST = 8      # beam: the most new tokens of a beam that ends at a newline

@experiment("decode", M_("the token after batch row 0 through model/sample.py's filters: decode.logits (V,), "
                         "decode.probs (V,) at T=1, decode.probs_T2 (V,) at T={hot_t:g}, decode.topk_probs (V,) top-k "
                         "k={top_k}, decode.topp_probs (V,) top-p p={top_p} (renormalised; decode.topk_kept / "
                         "decode.topp_kept: the T=1 probabilities with the dropped tokens set to 0), "
                         "decode.topk_ratio_shift (1,) how far top-k moves ln(p(1st)/p(2nd)), "
                         "decode.topp_over_topk (1,) ln of top-p's over top-k's renormalised p of the most likely token, "
                         "decode.topp_wide_count (1,) how many tokens top-p p={top_p_wide} keeps, "
                         "decode.sorted_ids / decode.sorted_probs / "
                         "decode.cumsum (10,) the 10 most likely tokens, decode.ratio (2,) p(1st)/p(2nd) at T=1 and "
                         "T={hot_t:g}, decode.greedy_token (1,) the argmax id, decode.sample_counts (V,) how often each "
                         "token comes up in {draws} draws at T=1 (seeded)",
                         hot_t=HOT_T, top_k=TOP_K, top_p=TOP_P, top_p_wide=TOP_P_WIDE, draws=N_DRAWS), passes=1, copies=1)
@one_torch_thread
def decode(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import filter_logits

    logits = row0_logits(context).float()                                   # (V,)
    probs = torch.softmax(logits, -1)                                        # (V,)
    top_k = filter_logits(logits, 1.0, top_k=TOP_K)                          # (V,) -inf outside the top k
    top_p = filter_logits(logits, 1.0, top_p=TOP_P)                          # (V,) -inf outside the nucleus
    top = torch.topk(probs, min(10, probs.numel()))
    kept_k = torch.softmax(top_k, -1)                                        # (V,) renormalised by model/sample.py's filter
    gap = float(torch.topk(logits, 2).values.diff().neg()) if logits.numel() > 1 else 0.0
    generator = torch.Generator().manual_seed(context.seed)
    draws = torch.multinomial(probs, N_DRAWS, replacement=True, generator=generator)  # (N,)
    return {
        "decode.logits": to_numpy(logits),
        "decode.probs": to_numpy(probs),
        "decode.probs_T2": to_numpy(torch.softmax(filter_logits(logits, HOT_T), -1)),
        "decode.topk_kept": to_numpy(probs.masked_fill(torch.isinf(top_k), 0.0)),
        "decode.topk_probs": to_numpy(kept_k),
        "decode.topk_ratio_shift": scalar((kept_k[top.indices[0]] / kept_k[top.indices[1]]).log()
                                          - (probs[top.indices[0]] / probs[top.indices[1]]).log())
        if probs.numel() > 1 else scalar(0.0),
        "decode.topp_over_topk": scalar((torch.softmax(top_p, -1)[top.indices[0]] / kept_k[top.indices[0]]).log()),
        "decode.topp_wide_count": scalar(torch.isfinite(filter_logits(logits, 1.0, top_p=TOP_P_WIDE)).sum()),
        "decode.topp_kept": to_numpy(probs.masked_fill(torch.isinf(top_p), 0.0)),
        "decode.topp_probs": to_numpy(torch.softmax(top_p, -1)),
        "decode.sorted_ids": to_numpy(top.indices),
        "decode.sorted_probs": to_numpy(top.values),
        "decode.cumsum": to_numpy(top.values.cumsum(-1)),
        "decode.ratio": np.array([math.exp(gap), math.exp(gap / HOT_T)]),
        "decode.greedy_token": scalar(logits.argmax()),
        "decode.sample_counts": np.bincount(draws.numpy(), minlength=logits.numel()).astype(np.float64),
    }


def _prompt_before_separator(context: ExperimentContext) -> list[int]:
    """Row 0's tokens before its first '>' (when there is one after the first token), else the whole row."""
    ids = context.tokens[0].tolist()
    separator = context.tokenizer.encode(SEPARATOR)[0]
    return ids[: ids.index(separator)] if separator in ids[1:] else ids


@experiment("generate", M_("{new} new tokens after batch row 0 with model/sample.py's generate: generate.greedy "
                           "({new},) token ids at temperature 0, generate.greedy_rerun_diff (1,) positions where a "
                           "second greedy run differs, generate.sampled (2, {new}) two runs at T=1 with seeds s and "
                           "s+1, generate.sampled_diff (1,) positions where they differ, generate.input_greedy "
                           "({new},) greedy after only the row's digits before '>', generate.runner_up_greedy "
                           "({new},) the same with its second most likely first token forced, then greedy",
                           new=N_NEW), passes=3, copies=1)
@one_torch_thread
def generate_tokens(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import generate

    model, ids = context.model, context.tokens[0].tolist()
    # greedy never draws, but a seed keeps generate from touching the global random state
    greedy = generate(model, ids, N_NEW, temperature=0, seed=0)
    again = generate(model, ids, N_NEW, temperature=0, seed=0)
    prompt = _prompt_before_separator(context)
    input_only = generate(model, prompt, N_NEW, temperature=0, seed=0)
    with torch.no_grad():
        first_logits = model(torch.tensor([prompt], device=device_of(model)))[0, -1]  # (V,)
    runner_up = int(torch.topk(first_logits, 2).indices[1])                      # greedy's road not taken
    forced = [runner_up] + generate(model, prompt + [runner_up], N_NEW - 1, temperature=0, seed=0)
    sampled = [generate(model, ids, N_NEW, temperature=1.0, seed=context.seed + i) for i in (0, 1)]
    return {
        "generate.greedy": np.array(greedy, dtype=np.float64),
        "generate.greedy_rerun_diff": scalar(sum(a != b for a, b in zip(greedy, again))),
        "generate.sampled": np.array(sampled, dtype=np.float64),
        "generate.sampled_diff": scalar(sum(a != b for a, b in zip(*sampled))),
        "generate.input_greedy": np.array(input_only, dtype=np.float64),
        "generate.runner_up_greedy": np.array(forced, dtype=np.float64),
    }


@experiment("beam", M_("two steps of beam search (width k = {width}) after batch row 0, the way model/sample.py's "
                       "beam_search scores them: beam.step1_tokens / beam.step1_scores (k,), beam.step1_probs (k,) their "
                       "probabilities, beam.next_best (k,) the probability of the best token after each, "
                       "beam.candidates (k, V) the "
                       "total log-probability of every one-token extension, beam.step2_tokens (k, 2), "
                       "beam.step2_scores (k,) = ln p1 + ln p2, beam.p_first / beam.p_second (k,) the two tokens' "
                       "probabilities; beam.parents (k,) how many of the k kept two-token beams extend each first "
                       "token; beam.seq_logprob (k,) each kept two-token continuation scored afresh by one forward "
                       "pass of prompt + both tokens (minus torch's cross_entropy summed over the two); "
                       "beam_search itself for 6 new tokens: beam.best (n,), greedy: beam.greedy (n,), "
                       "their total log-probabilities beam.best_score / beam.greedy_score (1,); beam_search "
                       "for up to {longest} new tokens that stops a beam at a newline, scored by the plain sum "
                       "and by the sum divided by the length (length_penalty 1): beam.stop_plain / "
                       "beam.stop_norm (n,) the answers, beam.stop_lengths (2,) their lengths, "
                       "beam.stop_sums / beam.stop_means (2,) each answer's total and per-token "
                       "log-probability, beam.stop_length_gain (1,) normalised length minus plain length",
                       width=BEAM_WIDTH, longest=STOP_LONGEST), passes=1.5, copies=1,
            derived={"beam.step2_scores": ("beam.p_first", "beam.p_second", "beam.step1_scores", "beam.candidates")})
@one_torch_thread
def beam(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import beam_search, generate

    model = context.model
    device = device_of(model)
    ids = context.tokens[0].tolist()[-(model.config.block_size - 8):]        # room for 6 new tokens

    def logprobs(seqs: list[list[int]]) -> torch.Tensor:                    # n sequences -> (n, V)
        with torch.no_grad():
            return torch.log_softmax(model(torch.tensor(seqs, device=device))[:, -1].cpu().double(), -1)

    first = logprobs([ids])[0]                                               # (V,)
    scores1, tokens1 = torch.topk(first, BEAM_WIDTH)                         # (k,) each
    second = logprobs([ids + [t] for t in tokens1.tolist()])                 # (k, V)
    candidates = scores1[:, None] + second                                   # (k, V)
    scores2, flat = torch.topk(candidates.reshape(-1), BEAM_WIDTH)           # (k,) each
    rows, tokens2 = flat // second.shape[1], flat % second.shape[1]          # (k,) each

    def total(new: list[int]) -> float:
        return float(sum(logprobs([ids + new[:i]])[0, t] for i, t in enumerate(new)))

    kept = torch.stack([tokens1[rows], tokens2], dim=1)                      # (k, 2)
    whole = torch.tensor([ids + pair for pair in kept.tolist()], device=device)  # (k, P+2)
    with torch.no_grad():
        tail = model(whole)[:, -3:-1].cpu().double()                          # (k, 2, V) predicting both tokens
    # the sequence scored the way training scores a text, in one pass: not the sum beam search kept
    seq_logprob = -torch.nn.functional.cross_entropy(tail.transpose(1, 2), kept.cpu(), reduction="none").sum(-1)
    best = beam_search(model, ids, 6, beam_width=BEAM_WIDTH)
    newline = context.tokenizer.encode("\n")                               # [id]
    plain = beam_search(model, ids, STOP_LONGEST, beam_width=BEAM_WIDTH, stop_ids=newline)
    normed = beam_search(model, ids, STOP_LONGEST, beam_width=BEAM_WIDTH, stop_ids=newline, length_penalty=1.0)
    sums = torch.tensor([total(plain), total(normed)], dtype=torch.float64)  # (2,)
    lengths = torch.tensor([len(plain), len(normed)], dtype=torch.float64)   # (2,)
    greedy = generate(model, ids, 6, temperature=0, seed=0)
    return {
        "beam.step1_tokens": to_numpy(tokens1), "beam.step1_scores": to_numpy(scores1),
        "beam.step1_probs": to_numpy(scores1.exp()), "beam.next_best": to_numpy(second.max(dim=-1).values.exp()),
        "beam.candidates": to_numpy(candidates),
        "beam.step2_tokens": to_numpy(kept),
        "beam.step2_scores": to_numpy(scores2),
        "beam.parents": to_numpy(torch.bincount(rows, minlength=BEAM_WIDTH)),
        "beam.seq_logprob": to_numpy(seq_logprob),
        "beam.p_first": to_numpy(first[tokens1[rows]].exp()),
        "beam.p_second": to_numpy(second[rows, tokens2].exp()),
        "beam.best": np.array(best, dtype=np.float64), "beam.greedy": np.array(greedy, dtype=np.float64),
        "beam.best_score": scalar(total(best)), "beam.greedy_score": scalar(total(greedy)),
        "beam.stop_plain": np.array(plain, dtype=np.float64), "beam.stop_norm": np.array(normed, dtype=np.float64),
        "beam.stop_lengths": to_numpy(lengths), "beam.stop_sums": to_numpy(sums),
        "beam.stop_means": to_numpy(sums / lengths), "beam.stop_length_gain": scalar(lengths[1] - lengths[0]),
    }
