"""App-wide messages, each a small dataclass.

Workers post these with ``post_message`` (thread-safe and non-blocking), so a slow model load
or a training step never blocks the UI thread.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:   # the payload types, named without importing torch or numpy on the UI's first paint
    import numpy as np

    from tutor.course.cache import CachedCatalog, Validated
    from tutor.live.compute import LiveResult
    from tutor.live.lesson_claims import BrokenClaims
    from tutor.live.formula_check import FormulaCheck
    from tutor.session.look_ahead import LookAhead
    from tutor.session.question import Graded, QuestionSession
    from tutor.model import GPT, CharTokenizer
    from tutor.model.train import TrainMetrics
    from tutor.training.sampling import SampleStep


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
class LessonsValidated(AppMessage):
    """The cached lessons, validated on the model's thread after the model (None: they did not
    validate, or nothing was pending; the UI thread then completes the catalog itself)."""

    opened: CachedCatalog | None
    validated: Validated | None


@dataclass
class LiveReady(AppMessage):
    """A lesson's live tensors, formula rendering and formula check are computed."""

    lesson_id: str
    live: LiveResult
    formula_text: str
    agreement: str
    generation: int = 0  # the lesson version it was computed for (hot reload drops stale ones)
    check: FormulaCheck | None = None   # the formula against the model; the screen words it for learners
    claims: BrokenClaims | None = None  # where the lesson's text may not hold on the learner's own model
    look_ahead: LookAhead | None = None  # what each question's screen shows of the others' answers (this draw)
    box_answers: tuple[int, ...] | None = None   # the questions the formula box answers (this draw)


@dataclass
class BoxAnswered(AppMessage):
    """The formula box's analysis again, for the lesson in another language (F4): its "In words" line
    and a choice's words are what the learner reads now (tutor.live.box_leaks)."""

    lesson_id: str
    answers: tuple[int, ...]
    generation: int = 0


@dataclass
class AnswerGraded(AppMessage):
    """A typed answer graded off the UI thread, for the question session that asked: the screen
    records it only while that session is still the one on screen."""

    session: QuestionSession
    graded: Graded


@dataclass
class LiveFailed(AppMessage):
    lesson_id: str
    error: str
    generation: int = 0


@dataclass
class TrainingProgress(AppMessage):
    """The dashboard's trainer, about four times a second (posted by the thread that relays its process)."""

    metrics: TrainMetrics
    losses: list[tuple[int, float]]   # every step since the last message: the chart misses none
    snapshot: GPT | None = None       # a copy of the weights after an evaluation, for the lessons
    label: str = ""          # what the lessons will say about those weights
    meta: dict = field(default_factory=dict)   # what Save writes with the snapshot


@dataclass
class TrainingEnded(AppMessage):
    status: str              # finished | stopped | diverged | failed
    message: str
    snapshot: GPT | None = None       # the final weights (None when the run failed before a step)
    label: str = ""
    meta: dict | None = None          # what a saved checkpoint records
    metrics: TrainMetrics | None = None


@dataclass
class SampleStepped(AppMessage):
    run: int                 # which Sample press this belongs to: a newer one drops older tokens
    step: SampleStep


@dataclass
class SampleEnded(AppMessage):
    run: int
    error: str = ""
    model: str = ""   # the digest of the weights the run used (tutor.live.model_identity)


@dataclass
class AttentionReady(AppMessage):
    pattern: np.ndarray      # (L, L)
    labels: list[str]
    layer: int
    head: int
    model_label: str = ""    # the weights that drew it (the app's model), said under the map


@dataclass
class AttentionFailed(AppMessage):
    error: str


@dataclass
class CheckpointLoaded(AppMessage):
    """A checkpoint (or the shipped model again) is read and ready to become the app's model."""

    model: GPT
    tokenizer: CharTokenizer
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
