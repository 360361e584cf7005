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
    live: Any            # tutor.live.LiveResult
    formula_text: str
    agreement: str
    generation: int = 0  # the lesson version it was computed for (hot reload drops stale ones)


@dataclass
class LiveFailed(AppMessage):
    lesson_id: str
    error: str
    generation: int = 0
