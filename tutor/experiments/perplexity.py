"""Experiment: the perplexity of a small corpus, the lesson's rows, under three models.

Why the corpus perplexity comes from torch's own cross_entropy over every token at once: it is the
number an evaluation reports, computed from the logits without the per-row figures, so a lesson's
formula that builds it from the rows' perplexities tests the learner's derivation against the
model, not against the same arithmetic done twice.  The rows' perplexities and their mean are
declared as derived: they are worked out here from the per-token losses.

Why a fresh model beside the lesson's: random weights start with small logits, so they show what
"knowing nothing" scores before any training, against the uniform model's exact V.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, scalar, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread


def _corpus_cross_entropy(logits, targets):
    """Mean −ln p(true next token) over every token of every row: logits (B, L-1, V), targets (B, L-1)."""
    import torch.nn.functional as F

    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


@experiment("corpus_ppl", "the lesson's rows read as a corpus, every next token scored: corpus_ppl.loss (B, L-1) "
                          "-ln p of each true next token; corpus_ppl.row_ppl (B,) e to each row's mean loss; "
                          "corpus_ppl.mean_row_ppl (1,) the mean of those; corpus_ppl.ppl (1,) e to torch's "
                          "cross_entropy over all B·(L-1) tokens at once; corpus_ppl.random_ppl (1,) the same for "
                          "an untrained model of the same size; corpus_ppl.uniform_ppl (1,) the same for logits "
                          "that are all 0; corpus_ppl.tokens (1,) tokens scored",
            passes=2, copies=1,
            derived={"corpus_ppl.row_ppl": ("corpus_ppl.loss",),
                     "corpus_ppl.mean_row_ppl": ("corpus_ppl.row_ppl",)})
@one_torch_thread
def corpus_perplexity(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    tokens = tokens_on_device(context)                                      # (B, L)
    targets = tokens[:, 1:]                                                 # (B, L-1)
    with torch.no_grad():
        logits = context.model(tokens)[:, :-1].double()                     # (B, L-1, V)
        fresh = fresh_model(context.model.config, context.seed).to(tokens.device)
        random_logits = fresh(tokens)[:, :-1].double()                      # (B, L-1, V)
    loss = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # (B, L-1)
    return {
        "corpus_ppl.loss": to_numpy(loss),
        "corpus_ppl.row_ppl": to_numpy(loss.mean(dim=-1).exp()),
        "corpus_ppl.mean_row_ppl": scalar(loss.mean(dim=-1).exp().mean()),
        "corpus_ppl.ppl": scalar(_corpus_cross_entropy(logits, targets).exp()),
        "corpus_ppl.random_ppl": scalar(_corpus_cross_entropy(random_logits, targets).exp()),
        "corpus_ppl.uniform_ppl": scalar(_corpus_cross_entropy(torch.zeros_like(logits), targets).exp()),
        "corpus_ppl.tokens": np.array([float(targets.numel())]),
    }
