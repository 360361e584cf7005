"""Experiment: a bigram model counted from the built-in prose, beside the network's next-token distribution.

Why the built-in text: it is what the shipped text model was trained on, so the two estimates of
"what comes next" saw the same data and differ only in how much history they condition on.  The
bigram estimate is taken as the mean of the one-hot vectors of the characters that follow the
context character, the maximum-likelihood estimate of a categorical distribution.  It is the same
count as k / n, so a lesson shows that formula without claiming it reproduces anything: comparing
the two would only redo the arithmetic, not test the model.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import scalar, to_numpy, tokens_on_device
from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

CHOICES = "e a"   # candidate next characters a lesson may ask about, in this order


def _rows_apart(p):
    """Total variation between the distributions of rows 0 and 1 (0 with a single row)."""
    return 0.5 * (p[0] - p[1 % p.shape[0]]).abs().sum()


def _corpus_ids(tokenizer):
    import torch

    from tutor.model.data import builtin_text

    return torch.tensor(tokenizer.encode(builtin_text()), dtype=torch.long)   # (N,)


@experiment("bigram", M_("a bigram model counted from the built-in prose (the text model's training data), for the last "
                         "character c of each row: bigram.n (B,) how often c is followed by anything; bigram.count "
                         "(B, V) how often by each character; bigram.p (B, V) the mean of the one-hot vectors of the "
                         "characters that follow c; bigram.model_p (B, V) the network's next-token distribution after "
                         "the whole row; bigram.choice_p (B, 3) and bigram.model_choice_p (B, 3) both at {choices!r}; "
                         "bigram.tv (1,) and bigram.model_tv (1,) total variation between rows 0 and 1; "
                         "bigram.pair_p (B, L-1) the bigram probability of each next character of the row; "
                         "bigram.first_p (B,) the corpus frequency of each row's first character; bigram.loglik (B,) "
                         "the row's log-probability under the bigram model (torch's cross_entropy with the log-counts "
                         "as logits)",
                         choices=CHOICES), passes=3, copies=1,
            derived={"bigram.p": ("bigram.count", "bigram.n"), "bigram.pair_p": ("bigram.count", "bigram.n")})
@one_torch_thread
def bigram_model(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    ids = _corpus_ids(context.tokenizer)                                    # (N,)
    vocab = context.model.config.vocab_size
    counts = torch.bincount(ids[:-1] * vocab + ids[1:], minlength=vocab * vocab).view(vocab, vocab).double()  # (V, V)
    unigram = torch.bincount(ids, minlength=vocab).double() / ids.numel()  # (V,)
    tokens = tokens_on_device(context)                                      # (B, L)
    last = tokens[:, -1].cpu()                                              # (B,)
    follows = [ids[1:][ids[:-1] == c] for c in last.tolist()]              # characters after each c
    mean_onehot = torch.stack([torch.nn.functional.one_hot(f, vocab).double().mean(dim=0) for f in follows])  # (B, V)
    with torch.no_grad():
        model_p = torch.softmax(context.model(tokens)[:, -1].double(), dim=-1).cpu()   # (B, V)
    choice_ids = torch.tensor(context.tokenizer.encode(CHOICES))
    rows = tokens.cpu()
    transition = counts / counts.sum(dim=1, keepdim=True).clamp(min=1)     # (V, V) P(next | prev)
    pair_p = transition[rows[:, :-1], rows[:, 1:]]                          # (B, L-1)
    first_p = unigram[rows[:, 0]]                                           # (B,)
    return {
        "bigram.n": to_numpy(counts[last].sum(dim=-1)),
        "bigram.count": to_numpy(counts[last]),
        "bigram.p": to_numpy(mean_onehot),
        "bigram.model_p": to_numpy(model_p),
        "bigram.choice_p": to_numpy(mean_onehot[:, choice_ids]),
        "bigram.model_choice_p": to_numpy(model_p[:, choice_ids]),
        "bigram.tv": scalar(_rows_apart(mean_onehot)),
        "bigram.model_tv": scalar(_rows_apart(model_p)),
        "bigram.pair_p": to_numpy(pair_p),
        "bigram.first_p": to_numpy(first_p),
        "bigram.loglik": to_numpy(counted_loglik(counts, torch.bincount(ids, minlength=vocab).double(), rows)),
    }


def counted_loglik(pair_counts, char_counts, rows):
    """(B,): each row's log-probability under the bigram model, as a loss function computes it.

    The counts themselves serve as the model: their logs are logits, and torch's cross_entropy
    normalises them (log_softmax of ln n is ln(n / total)).  So the number a lesson compares the
    chain rule with comes from the counts by torch's own loss, not from the probabilities
    ``pair_p`` and ``first_p`` that the learner's formula multiplies.
    """
    import torch

    cross_entropy = torch.nn.functional.cross_entropy
    first = -cross_entropy(char_counts.log().expand(rows.shape[0], -1), rows[:, 0], reduction="none")  # (B,)
    logits = pair_counts.log()[rows[:, :-1]]                                # (B, L-1, V) ln n(prev, ·)
    pairs = -cross_entropy(logits.transpose(1, 2), rows[:, 1:], reduction="none").sum(dim=-1)        # (B,)
    return first + pairs
