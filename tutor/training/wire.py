"""What goes between the dashboard and its training process: the run's spec, typed messages, weights.

Everything here is pickled across a pipe, so it holds plain data: weights travel as the bytes of
a ``torch.save``d state dict (about 0.4 MB for the shipped shape), never as shared tensors, so a
message stays readable after the process that sent it has exited.  A snapshot is taken between
two steps on the training thread, so the lessons never see a half-written step.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

from tutor.training.runs import Preset, TrainRequest


@dataclass(frozen=True)
class RunSpec:
    """All a fresh process needs to build the run the panel asked for.

    The preset and the accuracy-check size travel by value: the process imports ``runs`` afresh
    and would not see a preset or a setting changed at run time in this one."""

    request: TrainRequest
    preset: Preset
    accuracy_examples: int
    language: str                      # the messages the process writes (a bad file, …) read in it
    current: bytes | None = None       # the app's model to continue from (start == "current")
    current_label: str = ""
    device: str = "auto"


@dataclass
class Started:
    """The run is built and its first step comes next."""

    tokens_per_step: int


@dataclass
class Progress:
    metrics: object                    # TrainMetrics
    losses: list[tuple[int, float]]   # every step since the last Progress: the chart misses none
    label: str                         # what the lessons say about these weights
    snapshot: bytes | None = None      # after an evaluation: the weights, for the lessons
    meta: dict = field(default_factory=dict)   # what Save writes with that snapshot


@dataclass
class Ended:
    status: str                        # finished | stopped | diverged | failed
    message: str                       # a Message (translated where shown) or text in the run's language
    snapshot: bytes | None = None      # the final weights (None: failed before a step, or diverged)
    label: str = ""
    meta: dict | None = None
    metrics: object | None = None      # TrainMetrics; None when the run failed


def weights_to_bytes(model) -> bytes:
    import torch

    buffer = io.BytesIO()
    state = {name: tensor.detach().to("cpu") for name, tensor in model.state_dict().items()}
    torch.save({"config": model.config.to_dict(), "state": state}, buffer)
    return buffer.getvalue()


def model_from_bytes(data: bytes):
    """A CPU model in eval mode without gradients, as ``runs.copy_model`` makes for the lessons."""
    import torch

    from tutor.model import GPT, GPTConfig

    saved = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    with torch.random.fork_rng(devices=[]):
        model = GPT(GPTConfig(**saved["config"]))
    model.load_state_dict(saved["state"])
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model.eval()
