"""Experiments: extra live tensors a lesson can ask for beyond the forward pass.

Some lessons need to *do* something to the model to show a fact: shuffle the input, take a
few optimizer steps, sample the next token.  Each experiment is a named, whitelisted
function (a lesson file cannot bring its own code) that returns more named numpy tensors;
lessons read them like probes.  torch is imported inside the functions so that importing the
package stays cheap; validating a lesson needs only the names and costs, which
``tutor/course/experiment_index.py`` holds (written from the decorators by ``index``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from tutor.common.i18n import Message
from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation
from tutor.grading.declared_shapes import declare

ExperimentFn = Callable[["ExperimentContext"], "dict[str, np.ndarray]"]
EXPERIMENTS: dict[str, ExperimentFn] = {}
# name -> its description: English text (declared_shapes reads the axes from it) that keeps its template, so
# the probe listing can show it translated; the catalog extractor reads experiment()'s second argument
DESCRIPTIONS: dict[str, Message] = {}
COSTS: dict[str, tuple[float, float]] = {}   # name -> (forward passes, copies of the weights held at once)
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


def experiment(name: str, description: str | Message, *, passes: float, copies: float,
               derived: dict[str, tuple[str, ...]] | None = None):
    """Register an experiment under ``name``; its tensors should be named ``name.*``.

    ``passes`` and ``copies`` are what it costs beside the lesson's own forward pass: forward
    passes' worth of work and copies of the weights it holds at once, measured at D 128-256 by
    ``bench/lesson_budget.py --experiments``.  The compute budget adds them up when a lesson
    loads; it reads them from ``tutor/course/experiment_index.py``, which
    ``python -m tutor.experiments.index`` writes from these declarations, so that validating a
    lesson never imports the experiments.

    ``derived`` declares the outputs the experiment computes by arithmetic from its other outputs,
    so that ``tutor lessons check`` can refuse a formula that merely redoes that arithmetic.

    ``description`` is a literal string (the catalog extractor takes it as a msgid: see
    tutor.common.i18n_tools' KEYWORDS), or ``M_(template, **values)`` when it quotes the module's
    constants, so that the translation has the same placeholders rather than numbers baked in.
    """
    def register(fn: ExperimentFn) -> ExperimentFn:
        EXPERIMENTS[name] = fn
        DESCRIPTIONS[name] = description if isinstance(description, Message) else Message(description)
        declare(name, description)      # reveals name the outputs' axes from the shapes it gives
        COSTS[name] = (passes, copies)
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
