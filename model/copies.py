"""Making a model from another or from a seed, without touching anyone else's random stream.

Lessons, experiments and the dashboard all need private models (a fresh one for "random weights",
a copy to differentiate or to keep while training goes on); one place builds them so that each
use seeds, copies and moves them the same way.
"""
from __future__ import annotations

import dataclasses

import torch

from .gpt import GPT, GPTConfig


def seeded_model(config: GPTConfig, seed: int) -> GPT:
    """A freshly initialised model in eval mode; the global RNG is the same afterwards."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return GPT(config).eval()


def copy_model(model: GPT, *, dtype: torch.dtype | None = None, trainable: bool = False, **changes) -> GPT:
    """A CPU copy in eval mode with the same weights.

    ``changes`` alter the config (e.g. ``positions="none"``): weights absent on either side are
    left out. ``trainable`` gives the copy fresh gradients for experiments that step or differentiate.
    """
    config = dataclasses.replace(model.config, **changes) if changes else model.config
    with torch.random.fork_rng(devices=[]):
        clone = GPT(config)
    state = {name: tensor.detach().to("cpu") for name, tensor in model.state_dict().items()}
    clone.load_state_dict(state, strict=not changes)
    if dtype is not None:
        clone = clone.to(dtype)
    for parameter in clone.parameters():
        parameter.requires_grad_(trainable)
        parameter.grad = None
    return clone.eval()
