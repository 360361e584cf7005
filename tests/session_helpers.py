"""A lesson, its live tensors and a store for the question session's tests, with no model and no
Textual: the tensors are numpy arrays of the shapes the model would give, so a test runs in
milliseconds."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tutor.course.catalog import load_lesson
from tutor.progress.records import Mode
from tutor.progress.service import ProgressService
from tutor.progress.store import ProgressStore
from tutor.session.question import QuestionSession

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
# The session tests' lesson: a frozen copy of la-tensors as it was at 689a0ff, so the shipped lesson can
# change without moving these tests (tests/fixtures/lessons/README.md).  The app reads it as a learner's
# --lessons folder: TutorApp(lesson_dirs=[FIXTURE_LESSONS]), load_catalog([FIXTURE_LESSONS]).
FIXTURE_LESSONS = Path(__file__).resolve().parent / "fixtures" / "lessons"
TENSORS_LESSON = load_lesson(FIXTURE_LESSONS / "fixture-tensors.yaml")   # Q1 (2,4,8)  Q2 (8,)  Q3 64  Q4 (B,L,D)
TENSORS = TENSORS_LESSON.id


def tensors_live(batch: int = 2, length: int = 4, width: int = 8):
    """The fixture lesson's (la-tensors') live result at the given sizes: what compute_live gives, without the model."""
    rng = np.random.default_rng(0)
    embed = rng.normal(size=(batch, length, width))        # (B, L, D)
    pos = rng.normal(size=(length, width))                  # (L, D)
    tensors = {"embed": embed, "pos_embed": pos, "blocks.0.resid_pre": embed + pos}   # (B, L, D)
    sizes = {"B": batch, "L": length, "D": width, "H": 2, "D_head": width // 2, "V": 10}
    return SimpleNamespace(tensors=tensors, sizes=sizes, variant=f"B={batch}, L={length}, D={width}, H=2",
                           token_labels=[["3", "1", "4", "1"][:length]] * batch)


class Clock:
    """A clock that moves one second per reading (never the machine's)."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start - timedelta(seconds=1)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def service(home: Path | None = None, clock: Clock | None = None) -> ProgressService:
    """The app's door to the store: on a home (two services on one home are two app instances)
    or in memory."""
    clock = clock or Clock()
    return ProgressService(ProgressStore(home) if home is not None else None, clock)


def session(progress: ProgressService, index: int, lesson=TENSORS_LESSON, wanted: Mode = Mode.SCORED):
    return QuestionSession(progress, lesson, index, wanted, progress.clock)


def lesson_from(text: str, name: str = "lesson.yaml"):
    """A lesson from YAML text, validated as the loader validates a file."""
    from tutor.course.loader import load_model_file
    from tutor.course.schema import Lesson

    return load_model_file(Lesson, name, text)


def journey_lesson():
    from journey_helpers import LESSON

    return lesson_from(LESSON, "zz-journey.yaml")
