"""Experiments: extra live tensors a lesson can ask for beyond the forward pass.

Some lessons need to *do* something to the model to show a fact: shuffle the input, take a
few optimizer steps, sample the next token.  Each experiment is a named, whitelisted
function (a lesson file cannot bring its own code) that returns more named numpy tensors;
lessons read them like probes.  torch is imported inside the functions so that naming the
experiments (for validation) stays cheap.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

ExperimentFn = Callable[["ExperimentContext"], "dict[str, np.ndarray]"]
EXPERIMENTS: dict[str, ExperimentFn] = {}
DESCRIPTIONS: dict[str, str] = {}
# output -> the outputs it is computed from by plain arithmetic, not by running the model: a formula
# that reproduces one of them from its own sources proves only that the arithmetic was redone
DERIVED_FROM: dict[str, tuple[str, ...]] = {}


@dataclass
class ExperimentContext:
    model: Any              # model.GPT, in eval mode
    tokens: Any             # torch.LongTensor (B, L)
    tokenizer: Any          # model.CharTokenizer
    sizes: dict[str, int]
    seed: int


def experiment(name: str, description: str, derived: dict[str, tuple[str, ...]] | None = None):
    """Register an experiment under ``name``; its tensors should be named ``name.*``.

    ``derived`` declares the outputs the experiment computes by arithmetic from its other outputs,
    so that ``tutor lessons check`` can refuse a formula that merely redoes that arithmetic."""
    def register(fn: ExperimentFn) -> ExperimentFn:
        EXPERIMENTS[name] = fn
        DESCRIPTIONS[name] = description
        DERIVED_FROM.update(derived or {})
        return fn
    return register


def one_torch_thread(fn: ExperimentFn) -> ExperimentFn:
    """Run an experiment on one torch thread: its tensors are tiny, and on a busy machine threads
    wait for each other far longer than they compute (measured: 30 ms against 1.5 s)."""
    @functools.wraps(fn)
    def wrapped(context: ExperimentContext) -> dict[str, np.ndarray]:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn(context)
        finally:
            torch.set_num_threads(threads)
    return wrapped


def run_experiments(names: list[str], context: ExperimentContext) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name not in EXPERIMENTS:
            raise ValueError(f"unknown experiment {name!r}; available: {', '.join(sorted(EXPERIMENTS))}")
        out.update(EXPERIMENTS[name](context))
    return out


# --------------------------------------------------------------------------------------
# The compute budget: what one lesson's live computation may cost.
#
# Measured on this project's 2-core CI machine with one torch thread (bench/lesson_budget.py):
# a forward pass with every probe does about 1e10 multiply-adds a second and holds about 10
# bytes per probe value; at the schema's largest sizes (D 512, H 16, 8 layers, 16 x 64 input)
# it alone takes 2.3 s and 0.9 GB, and experiments multiply that.  The budget keeps every
# lesson under about 10 s and 1 GB here; a lesson over it is refused when it loads.

WORK_BUDGET = 4e10          # multiply-adds (forward passes x experiment multiples)
MEMORY_BUDGET = 6e8         # bytes
BYTES_PER_PROBE_VALUE = 10  # float32 in torch, float32 in numpy, and the tensors built between
VOCAB = 96
# experiment -> (forward passes it costs, copies of the weights it holds at once), measured at
# D 128-256 (bench/lesson_budget.py --experiments); unlisted experiments cost one pass, one copy
EXPERIMENT_COSTS: dict[str, tuple[float, float]] = {
    "adam": (55, 4), "landscape": (30, 4), "gradient_descent": (27, 4), "finite_diff": (30, 16),
    "momentum": (9, 4), "shuffle": (4.5, 2), "generate": (3, 1), "autograd": (2.5, 3), "dot_variance": (2, 1),
    "nll": (1.5, 1), "temperature": (1.7, 1), "vanish": (1.7, 1), "residual_grad": (1.5, 3), "kl": (1.2, 2),
    "svd": (1.2, 1), "norm_axes": (1.2, 1), "ce_grad": (1.2, 3),
    "clipping": (8, 2),            # one backward pass, then 3 AdamW steps with and without clipping
    "decoding_compare": (10, 1),   # ~70 one-row passes (31 continuations of 20 tokens, 36 scored texts)
}


@dataclass(frozen=True)
class Cost:
    work: float      # multiply-adds
    memory: float    # bytes

    def seconds(self) -> float:
        return self.work / 1e10

    def over(self) -> str | None:
        """Why the cost is over budget, in words an author can act on; None within it."""
        if self.work <= WORK_BUDGET and self.memory <= MEMORY_BUDGET:
            return None
        return (f"this lesson's live model would need about {self.seconds():.0f} s and {self.memory / 1e6:.0f} MB "
                f"(the budget is about {WORK_BUDGET / 1e10:.0f} s and {MEMORY_BUDGET / 1e6:.0f} MB of one CPU core); "
                "use smaller d_model, n_layer, rows or text length (the largest in model.vary count), "
                "or fewer experiments (adam, landscape, gradient_descent and finite_diff cost 27-55 forward passes each)")


def lesson_cost(B: int, L: int, D: int, H: int, N: int, experiments: list[str]) -> Cost:
    """Multiply-adds and bytes of one forward pass with probes, times what the experiments add."""
    forward = B * L * N * (12 * D * D + 2 * L * D) + B * L * D * VOCAB
    probes = N * (16 * B * L * D + 3 * B * H * L * L) + B * L * VOCAB
    params = N * 12 * D * D + (VOCAB + 64) * D
    passes = 1 + sum(EXPERIMENT_COSTS.get(name, (1, 1))[0] for name in experiments)
    copies = 1 + sum(EXPERIMENT_COSTS.get(name, (1, 1))[1] for name in experiments)
    return Cost(forward * passes, probes * BYTES_PER_PROBE_VALUE * (1 + len(experiments) / 4) + 4 * params * copies)
