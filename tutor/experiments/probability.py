"""Experiments for the probability track: next-token probabilities, temperature, likelihood, causality."""
from __future__ import annotations

import math

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.model.formats import IGNORE


@experiment("next_token", "next-token probabilities and the max-subtraction trick: next_token.probs "
                          "(B, L, V) = softmax(logits); next_token.shifted (B, L, V) = logits - "
                          "row max; next_token.exp_shifted (B, L, V); next_token.exp_big (B, L, V) "
                          "= exp(logits + 100) in float32 (overflows); next_token.naive_big (B, L, V) "
                          "naive float32 softmax of logits + 100; next_token.stable_big (B, L, V) "
                          "max-subtracted softmax of logits + 100; next_token.shift_gap (B, L) "
                          "max |that - probs|; "
                          "the five most likely tokens: next_token.top_ids, .top_probs, .top_logits (B, L, 5); "
                          "next_token.low_logit (B, L) each row's smallest logit; next_token.overflow_shift "
                          "(B, L) the smallest whole c >= 0 at which float32 exp(logits + c) first gives inf, "
                          "found by trying c = 0, 1, 2, ...",
            passes=1, copies=1)
@one_torch_thread
def next_token(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    with torch.no_grad():
        logits = context.model(tokens_on_device(context)).float()                    # (B, L, V)
    shifted = logits.double() - logits.double().amax(dim=-1, keepdim=True)  # (B, L, V)
    big = logits + 100.0                                                     # float32
    exp_big = torch.exp(big)                                                 # inf where > 88.7
    naive = exp_big / exp_big.sum(dim=-1, keepdim=True)                      # nan after inf/inf
    stable_big = torch.softmax(big, dim=-1)                                 # max-subtracted inside
    probs = torch.softmax(logits.double(), dim=-1)                          # (B, L, V)
    top = probs.topk(5, dim=-1)
    # Tried in float32, not worked out from ln(max float32): the measured threshold is the evidence.
    shifts = torch.arange(0, 400, dtype=torch.float32)                     # (S,)
    high = logits.amax(dim=-1, keepdim=True)                               # (B, L, 1) float32
    overflows = torch.isinf(torch.exp(high + shifts))                      # (B, L, S)
    overflow_shift = torch.where(overflows.any(-1), overflows.float().argmax(-1).float(),
                                 torch.tensor(float("nan")))               # (B, L)
    return {
        "next_token.probs": to_numpy(probs),
        "next_token.top_ids": to_numpy(top.indices),
        "next_token.top_probs": to_numpy(top.values),
        "next_token.top_logits": to_numpy(logits.double().gather(-1, top.indices)),
        "next_token.shift_gap": to_numpy((stable_big.double() - probs).abs().amax(dim=-1)),
        "next_token.shifted": to_numpy(shifted),
        "next_token.exp_shifted": to_numpy(shifted.exp()),
        "next_token.exp_big": to_numpy(exp_big),
        "next_token.naive_big": to_numpy(naive),
        "next_token.stable_big": to_numpy(stable_big),
        "next_token.low_logit": to_numpy(logits.double().amin(dim=-1)),
        "next_token.overflow_shift": to_numpy(overflow_shift),
    }


TEMPERATURES = (0.5, 1.0, 2.0, 5.0, 1000.0)


@experiment("temperature", "softmax(z / T) of the next-token logits z at the last position of "
                           "row 0, through the sampler's own filter: temperature.T (5,) = 0.5, 1, 2, "
                           "5, 1000; temperature.probs (5 temperature = .T, V); temperature.top (5 temperature = .T,) largest p at each T; "
                           "temperature.winner (5 temperature = .T,) its token id; temperature.hot_change (1,) top at T=5 "
                           "minus top at T=1; temperature.lead (5 temperature = .T,) largest p over the second "
                           "largest; temperature.low (5 temperature = .T,) smallest p; temperature.even_T (1,) the T "
                           "from which the largest p is at most twice the smallest", passes=1.7, copies=1)
@one_torch_thread
def temperature(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model.sample import filter_logits

    with torch.no_grad():
        z = context.model(tokens_on_device(context))[0, -1].double()                 # (V,)
    probs = torch.stack([torch.softmax(filter_logits(z, t), dim=-1) for t in TEMPERATURES])  # (5, V)
    top2 = probs.topk(2, dim=-1).values                                                  # (5, 2)
    return {"temperature.T": np.array(TEMPERATURES), "temperature.probs": to_numpy(probs),
            "temperature.top": to_numpy(probs.amax(dim=-1)), "temperature.winner": to_numpy(probs.argmax(dim=-1)),
            # its sign is the answer to "does the favourite rise or fall when T grows?" on any model
            "temperature.hot_change": to_numpy(probs[3].max() - probs[1].max()).reshape(1),
            # the favourite's lead shrinks as ratio**(1/T): the order stays, the size does not
            "temperature.lead": to_numpy(top2[:, 0] / top2[:, 1]),
            "temperature.low": to_numpy(probs.amin(dim=-1)),
            # a factor of 2 is a logit gap of ln 2: T = (z_max - z_min) / ln 2, read from p at T = 1
            "temperature.even_T": to_numpy(torch.log(probs[1].max() / probs[1].min()) / math.log(2)).reshape(1)}


@experiment("nll", "the probability the model gives each real next token and its cross-entropy: "
                   "nll.targets (B, L-1) ids; nll.onehot (B, L-1, V); nll.p_true (B, L-1) softmax(logits) "
                   "at the target; nll.loss (B, L-1) torch's cross_entropy of the logits per target (the "
                   "trainer's loss, unreduced); nll.scored (B, L-1) 1 where the trainer scores "
                   "(after '>'); nll.mean (1,) over scored; nll.answer_prob (B, 1) product of "
                   "p_true over the scored targets; nll.cum_logp (B, L-1) the running sum of -nll.loss along each row, "
                   "log P(tokens 1..j+1 | token 0); nll.perplexity (1,) = e to the trainer's own loss "
                   "(torch's cross_entropy over the scored targets); the same for an untrained model of the "
                   "same size: nll.random_p_true, nll.random_loss (B, L-1), nll.random_mean (1,), "
                   "nll.random_perplexity (1,)", passes=1.5, copies=1,
            derived={"nll.answer_prob": ("nll.p_true",), "nll.mean": ("nll.loss",)})
@one_torch_thread
def negative_log_likelihood(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)
    targets = tokens[:, 1:]                                                 # (B, L-1)
    scored = (scored_targets(context) != IGNORE).double()                  # (B, L-1)
    out: dict[str, np.ndarray] = {
        "nll.targets": to_numpy(targets),
        "nll.onehot": to_numpy(torch.nn.functional.one_hot(targets, context.model.config.vocab_size)),
        "nll.scored": to_numpy(scored),
    }
    fresh = fresh_model(context.model.config, context.seed).to(tokens.device)
    for prefix, model in (("nll.", context.model), ("nll.random_", fresh)):
        with torch.no_grad():
            logits = model(tokens)[:, :-1].double()                         # (B, L-1, V)
        p_true = torch.softmax(logits, dim=-1).gather(-1, targets[..., None])[..., 0]   # (B, L-1)
        # the loss as training computes it, straight from the logits: a formula -log(p) compared with
        # it tests that cross-entropy is the surprise of the true token, not a log taken twice
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, L-1)
        out[prefix + "p_true"] = to_numpy(p_true)
        out[prefix + "loss"] = to_numpy(loss)
        mean = (loss * scored).sum() / scored.sum().clamp(min=1)
        out[prefix + "mean"] = to_numpy(mean.reshape(1))
        trainer_loss = torch.nn.functional.cross_entropy(                  # the loss training reports
            logits.reshape(-1, logits.size(-1)), scored_targets(context).reshape(-1),
            ignore_index=IGNORE) if bool(scored.any()) else mean             # nothing scored: e^0 = 1
        out[prefix + "perplexity"] = to_numpy(trainer_loss.exp().reshape(1))
        if prefix == "nll.":
            out["nll.answer_prob"] = to_numpy((p_true.log() * scored).sum(dim=-1, keepdim=True).exp())
            # the chain rule in logs, from the training loss: log P(tokens 1..j+1 | token 0) for each j
            out["nll.cum_logp"] = to_numpy((-loss).cumsum(dim=-1))
    return out


@experiment("autoregressive", "causality check: the input with its last token replaced: "
                              "autoregressive.tokens (B, L) the edited ids; autoregressive.logits "
                              "(B, L, V) for the edited input; autoregressive.change (B, L) max "
                              "|logits difference| at each position; autoregressive.factor_change (B, L-1) "
                              "|change| of each factor's log P(token i+1 | tokens up to i), the edited text's "
                              "against the original's; autoregressive.step_p (L-1,) the "
                              "probability of each next token of batch row 0 as generation computes it, one "
                              "token at a time through the KV cache (model/decode.py)", passes=2, copies=1)
@one_torch_thread
def autoregressive(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    tokens = tokens_on_device(context)
    edited = tokens.clone()
    replacement = context.tokenizer.encode("9")[0]
    edited[:, -1] = torch.where(edited[:, -1] == replacement, replacement - 1, replacement)
    with torch.no_grad():
        before = context.model(tokens).double()                             # (B, L, V)
        after = context.model(edited).double()                              # (B, L, V)
    # the factors of each text: position i's distribution read at the text's own token i + 1. The
    # edit leaves positions before the last unchanged, yet the last factor changes through its target.
    factor_before = torch.log_softmax(before[:, :-1], -1).gather(-1, tokens[:, 1:, None])[..., 0]   # (B, L-1)
    factor_after = torch.log_softmax(after[:, :-1], -1).gather(-1, edited[:, 1:, None])[..., 0]     # (B, L-1)
    return {"autoregressive.tokens": to_numpy(edited), "autoregressive.logits": to_numpy(after),
            "autoregressive.change": to_numpy((after - before).abs().amax(dim=-1)),
            "autoregressive.factor_change": to_numpy((factor_after - factor_before).abs()),
            "autoregressive.step_p": step_by_step_probs(context.model, tokens[0])}


def step_by_step_probs(model, row) -> np.ndarray:
    """(L-1,): p of each next token of ``row`` (L,), fed one token at a time through the KV cache.

    Why not read them off one forward pass: that is what the lesson's formula is compared with.
    Generation's path (model/decode.py) sees only the tokens so far, each step in its own call,
    so a product of these factors equal to the one-pass probability shows that one masked pass
    scores every position exactly as token-by-token generation would.
    """
    import torch

    from tutor.model.decode import KVCache, decode

    cache = KVCache(model, 1, row.numel())
    with torch.inference_mode():
        probs = [torch.softmax(decode(model, row[i:i + 1][None], cache).double(), -1)[0, row[i + 1]]
                 for i in range(row.numel() - 1)]                           # L-1 steps of one token each
    return np.array([float(p) for p in probs], dtype=np.float64)
