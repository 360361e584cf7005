"""The Textual app: wiring only.  Lessons, grading and the model live in plain modules."""
from __future__ import annotations

import time
from pathlib import Path

from textual import work
from textual.app import App

from .catalog import Catalog, load_catalog
from .messages import ModelFailed, ModelReady
from .model_hub import ModelHub
from .screens.roadmap import RoadmapScreen


class TutorApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "Transformer math tutor"

    def __init__(self, catalog: Catalog | None = None, lesson_dirs: list[Path] = (), home: Path | None = None,
                 preload_model: bool = True) -> None:
        super().__init__()
        self.catalog = catalog or load_catalog(list(lesson_dirs))
        self.hub = ModelHub()
        self.home = home
        self.preload_model = preload_model
        self.model_status = "loading"
        self.answers: list[tuple] = []   # this session's answers; the progress store keeps them for good

    def on_mount(self) -> None:
        self.push_screen(RoadmapScreen(self.catalog))
        if self.preload_model:
            # after the first paint: importing torch holds the GIL for a while
            self.call_after_refresh(self.load_model)

    @work(thread=True, exclusive=True, group="model")
    def load_model(self) -> None:
        """Import torch and read the checkpoint while the learner reads the roadmap."""
        started = time.perf_counter()
        try:
            self.hub.ensure_loaded()
        except Exception as error:  # shown to the learner; the app keeps running
            self.post_message(ModelFailed(f"{type(error).__name__}: {error}"))
            return
        self.post_message(ModelReady(self.hub.label, time.perf_counter() - started))

    def on_model_ready(self, message: ModelReady) -> None:
        self.model_status = "ready"
        self.sub_title = f"model ready in {message.seconds:.1f}s"

    def on_model_failed(self, message: ModelFailed) -> None:
        self.model_status = "failed"
        self.sub_title = "model failed to load"
        self.notify(message.error, title="The built-in model could not be loaded", severity="error", timeout=10)

    def open_lesson(self, lesson_id: str) -> None:
        item = self.catalog.get(lesson_id)
        if item is None:
            self.notify(f"No lesson {lesson_id!r}", severity="warning")
            return
        from .screens.lesson import LessonScreen  # numpy and the quiz load on first use

        self.push_screen(LessonScreen(item))

    def record_answer(self, lesson_id: str, question_id: str, text: str, correct: bool, hints: int,
                      variant: str | None) -> None:
        self.answers.append((lesson_id, question_id, text, correct, hints, variant))
