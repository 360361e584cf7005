"""App-wide messages, each a small dataclass.

Workers post these with ``post_message`` (thread-safe and non-blocking), so a slow model load
or a training step never blocks the UI thread.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class AppMessage(Message):
    """Base for the app's messages; Textual's Message already supports dataclass fields."""


@dataclass
class ModelReady(AppMessage):
    """The current model is loaded (torch imported, checkpoint read)."""

    label: str
    seconds: float


@dataclass
class ModelFailed(AppMessage):
    error: str


@dataclass
class LiveReady(AppMessage):
    """A lesson's live tensors, formula rendering and formula check are computed."""

    lesson_id: str
    live: Any            # tutor.live.compute.LiveResult
    formula_text: str
    agreement: str
    generation: int = 0  # the lesson version it was computed for (hot reload drops stale ones)


@dataclass
class LiveFailed(AppMessage):
    lesson_id: str
    error: str
    generation: int = 0


@dataclass
class TrainingProgress(AppMessage):
    """The dashboard's trainer, about ten times a second (posted from the training thread)."""

    metrics: Any             # model.train.TrainMetrics
    losses: list             # (step, loss) of every step since the last message: the chart misses none
    snapshot: Any = None     # a copy of the weights after an evaluation, for the lessons; else None
    label: str = ""          # what the lessons will say about those weights


@dataclass
class TrainingEnded(AppMessage):
    status: str              # finished | stopped | diverged | failed
    message: str
    snapshot: Any = None     # the final weights (None when the run failed before a step)
    label: str = ""
    meta: Any = None         # what a saved checkpoint records
    metrics: Any = None


@dataclass
class SampleStepped(AppMessage):
    run: int                 # which Sample press this belongs to: a newer one drops older tokens
    step: Any                # tutor.training.sampling.SampleStep


@dataclass
class SampleEnded(AppMessage):
    run: int
    error: str = ""


@dataclass
class AttentionReady(AppMessage):
    pattern: Any             # numpy (L, L)
    labels: list
    layer: int
    head: int


@dataclass
class AttentionFailed(AppMessage):
    error: str


@dataclass
class CheckpointLoaded(AppMessage):
    """A checkpoint (or the shipped model again) is read and ready to become the app's model."""

    model: Any
    tokenizer: Any
    label: str
    meta: dict
    note: str


@dataclass
class CheckpointSaved(AppMessage):
    path: str


@dataclass
class CheckpointFailed(AppMessage):
    error: str


@dataclass
class KeptModelLoaded(AppMessage):
    """Posted by the model thread at start: the weights kept at the last quit are in the hub."""

    label: str
    error: str = ""
