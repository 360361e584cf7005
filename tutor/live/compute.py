"""The lesson's live tensors: run the model a lesson asks for and collect its probes.

This is the only place the lessons touch torch.  It is imported from a worker thread, so the
first screen never waits for torch to load.  Results are numpy arrays, which the grading
code and the widgets read without knowing about torch.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import torch

from tutor.model import GPT, CharTokenizer, GPTConfig, run_with_probes
from tutor.model.copies import seeded_model

from tutor.experiments import ExperimentContext, run_experiments
from tutor.course.placeholders import VOCABULARY
from tutor.common.i18n import M_
from tutor.course.schema import Lesson, ModelSetup
from tutor.live.model_identity import model_identity
from tutor.live.hub import ModelHub

RANDOM_BLOCK_SIZE = 64


@dataclass(frozen=True)
class LiveResult:
    tensors: dict[str, np.ndarray]
    sizes: dict[str, int]
    rows: list[str]                 # the input text, one string per batch row
    token_labels: list[list[str]]
    weights_label: str
    variant: str                    # e.g. "B=2, L=4, D=8, H=2"
    hub_version: int
    model_identity: str = ""        # the trained weights' digest (tutor.live.model_identity); "" for random weights


def choose_sizes(setup: ModelSetup, base: dict[str, int], variant_seed: int | None) -> dict[str, int]:
    """Draw sizes from the author's ranges so a second attempt is a new question."""
    sizes = dict(base)
    if not setup.vary or variant_seed is None:
        return sizes
    rng = random.Random(variant_seed)
    if "H" in setup.vary:
        sizes["H"] = rng.randint(*setup.vary["H"])
    if "D" in setup.vary:
        low, high = setup.vary["D"]
        options = [d for d in range(low, high + 1) if d % sizes["H"] == 0]
        if not options:
            raise ValueError(f"no D in [{low}, {high}] is divisible by H={sizes['H']}")
        sizes["D"] = rng.choice(options)
    for name in ("B", "L"):
        if name in setup.vary:
            sizes[name] = rng.randint(*setup.vary[name])
    return sizes


def input_rows(setup: ModelSetup, batch: int, length: int) -> list:
    """The author's rows (text or token ids), cycled to B rows of L tokens."""
    source = setup.rows
    rows = []
    for b in range(batch):
        base = source[b % len(source)]
        shift = b // len(source)
        row = base[shift:] + base[:shift]
        rows.append((row * (length // len(row) + 1))[:length])
    return rows


def encode_rows(rows: list, tokenizer) -> list[list[int]]:
    """Token ids for each row; ids an author gave are checked against the vocabulary."""
    encoded = []
    for row in rows:
        if isinstance(row, str):
            encoded.append(tokenizer.encode(row))
            continue
        bad = [t for t in row if t >= tokenizer.vocab_size]
        if bad:
            raise ValueError(f"token id {bad[0]} is outside the vocabulary (0..{tokenizer.vocab_size - 1})")
        encoded.append(list(row))
    return encoded


def random_model(setup: ModelSetup, sizes: dict[str, int], vocab: int) -> tuple[GPT, str]:
    """A freshly initialised model, seeded without disturbing anyone else's random stream."""
    config = GPTConfig(vocab_size=vocab, block_size=RANDOM_BLOCK_SIZE, n_layer=setup.n_layer or 1,
                       n_head=sizes["H"], d_model=sizes["D"], positions=setup.positions or "learned")
    return seeded_model(config, setup.seed), f"random initial weights (seed {setup.seed}, untrained)"


def parameter_tensors(model: GPT) -> dict[str, np.ndarray]:
    """Weights under ``params.*``: linear maps as (in, out) so that formulas read x @ W."""
    out: dict[str, np.ndarray] = {}
    for name, tensor in model.state_dict().items():
        array = tensor.detach().cpu().float().numpy()
        module_path, _, leaf = name.rpartition(".")
        head = module_path.rpartition(".")[2]
        if head.startswith("W_") and leaf == "weight" and array.ndim == 2 and head not in ("W_E", "W_pos"):
            out[f"params.{module_path}"] = array.T                              # (in, out)
        elif head.startswith("W_") and leaf == "bias":
            owner = module_path.rpartition(".")[0]                           # blocks.0.attn, or "" at top level
            out[f"params.{owner + '.' if owner else ''}b_{head[2:]}"] = array
        elif head in ("W_E", "W_pos"):
            out[f"params.{head}"] = array
        elif leaf in ("weight", "bias") and head.startswith("ln"):
            out[f"params.{module_path}.{'gamma' if leaf == 'weight' else 'beta'}"] = array
    return out


class RequirementNotMet(ValueError):
    """The current model does not fit the lesson's ``model.requires``; the message says what it needs."""


def compute_live(lesson: Lesson, hub: ModelHub, variant_seed: int | None = None,
                 on_shipped: bool = False) -> LiveResult:
    """Run the lesson's model on its input and return every probe and parameter as numpy.

    ``on_shipped`` runs a trained-weights lesson on the shipped model instead of the current one
    (which stays the app's model); otherwise a lesson whose requirement the current model does
    not meet raises RequirementNotMet.
    """
    from tutor.live.requirements import facts_of, unmet_requirement

    setup = lesson.model
    trained = None
    if setup.weights == "trained":
        trained = hub.shipped() if on_shipped else hub.current()
        unmet = unmet_requirement(setup, facts_of(trained))
        if unmet:
            raise RequirementNotMet(unmet)
    elif setup.weights == "text":
        trained = hub.named("text")   # a fixed shipped model: the learner's weights play no part
    tokenizer = trained.tokenizer if trained else CharTokenizer()
    if trained:
        base = {"D": trained.model.config.d_model, "H": trained.model.config.n_head}
    else:
        base = {"D": setup.d_model or 8, "H": setup.n_head or 2}
    base |= {"B": len(setup.rows), "L": len(setup.rows[0])}
    sizes = choose_sizes(setup, base, variant_seed)
    if trained:
        model, weights_label = trained.model, trained.label
    else:
        model, weights_label = random_model(setup, sizes, tokenizer.vocab_size)
    block_size = model.config.block_size
    if sizes["L"] > block_size:
        raise ValueError(M_("input length {length} exceeds the model's block_size {block_size}", length=sizes["L"],
                            block_size=block_size))
    token_rows = encode_rows(input_rows(setup, sizes["B"], sizes["L"]), tokenizer)
    tokens = torch.tensor(token_rows, dtype=torch.long)                                 # (B, L)
    rows = [tokenizer.decode(row) for row in token_rows]
    with hub.lock:
        _, probes = run_with_probes(model, tokens)
    tensors = {name: t.cpu().float().numpy() for name, t in probes.items()}
    tensors.update(parameter_tensors(model))
    tensors[VOCABULARY] = np.array([ord(ch) for ch in tokenizer.chars], dtype=np.float64)   # (V,) for '| token'
    if setup.experiments:
        context = ExperimentContext(model, tokens, tokenizer, sizes, setup.seed)
        with hub.lock:
            tensors.update(run_experiments(setup.experiments, context))
    sizes = sizes | {"D_head": sizes["D"] // sizes["H"], "V": tokenizer.vocab_size,
                     "N": model.config.n_layer, "d_k": sizes["D"] // sizes["H"],
                     "d_model": sizes["D"], "T": block_size}
    variant = ", ".join(f"{k}={sizes[k]}" for k in ("B", "L", "D", "H"))
    labels = [[tokenizer.token_label(t) for t in row] for row in tokens.tolist()]
    return LiveResult(tensors, sizes, rows, labels, weights_label, variant, trained.version if trained else hub.version,
                      model_identity(model) if trained else "")
