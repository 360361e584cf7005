"""The Textual app: wiring only.  Lessons, grading and the model live in plain modules."""
from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.signal import Signal

from tutor.common.i18n import N_, _, error_text
from tutor.common.safe_text import neutralise, one_line
from tutor.ui.dashboard_mixin import DashboardMixin
from tutor.ui.journey_mixin import JourneyMixin
from tutor.ui.language_mixin import LanguageMixin
from tutor.course.cache import CachedCatalog, Validated, open_catalog
from tutor.course.catalog import Catalog
from tutor.ui.palette import PLACEHOLDER, BilingualSystemCommands, LessonCommands, TutorCommandPalette, system_commands
from tutor.ui.messages import LessonsValidated, ModelFailed, ModelReady
from tutor.live import torch_preload
from tutor.live.hub import ModelHub
from tutor.ui.screens.roadmap import RoadmapScreen
from tutor.ui.wide_chops import keep_wide_characters_whole


class TutorApp(JourneyMixin, DashboardMixin, LanguageMixin, App):
    CSS_PATH = "app.tcss"
    TITLE = "Transformer math tutor"
    model_note_seconds = 4.0   # how long "model ready in 2.5s" stays in the header
    COMMANDS = {BilingualSystemCommands, LessonCommands}   # in place of Textual's English-only system provider
    BINDINGS = [
        Binding("question_mark,f1", "help", N_("Help")),   # an answer box takes "?", so F1 works there
        Binding("f2,ctrl+l", "toggle_theme", N_("Theme")),
        # priority: an answer box would take ctrl+d (delete right); F3 works in any terminal
        Binding("f3,ctrl+d", "dashboard", N_("Dashboard"), priority=True),
        Binding("f4", "toggle_language", N_("Language: {languages}"), show=False),   # names from the catalogs
    ]

    focus_reported = False   # whether a terminal or browser has said the app has focus (on_app_blur)

    def __init__(self, catalog: Catalog | None = None, lesson_dirs: list[Path] = (), home: Path | None = None,
                 preload_model: bool = True, watch_interval: float | None = 1.0, files_in_home: bool = False) -> None:
        super().__init__()
        keep_wide_characters_whole()   # Chinese in an open menu over other boxes (Textual cuts it at their edges)
        self.files_in_home = files_in_home   # served to others (tutor serve --public): files stay in the home
        # from the lesson cache: outlines for the roadmap until complete_catalog() (after the first paint)
        self.opened_catalog: CachedCatalog | None = None if catalog else open_catalog(list(lesson_dirs))
        self.catalog = catalog or self.opened_catalog.catalog
        self.watch_interval = watch_interval   # seconds between lesson-file polls; None: no hot reload
        self.lesson_watcher = None
        self.lessons_finished = False   # the whole catalog and the watcher, after the model (finish_lessons)
        self.hub = ModelHub()
        self.home = home
        self.preload_model = preload_model
        self.model_status = "loading"
        # Screens that show the model or the catalog subscribe; the app need not know which they are.
        self.model_signal: Signal[str] = Signal(self, "model-changed")        # data: the new weights' label
        self.lessons_signal: Signal[list] = Signal(self, "lessons-changed")   # data: the hot-reload results
        self.open_progress()
        self.localize_app()

    def notify(self, message, *, title: str = "", markup: bool = False, **options) -> None:
        """Every notification as plain, terminal-safe text, whatever the caller passed.

        Why here: messages carry paths, checkpoint errors and lesson text, any of which may hold
        "[...]" (read as markup) or ESC; one place catches every caller, present and future.
        """
        super().notify(neutralise(str(message)), title=one_line(str(title)), markup=False, **options)

    def get_default_screen(self) -> RoadmapScreen:
        """The roadmap is the bottom screen itself: pushed over Textual's empty default screen,
        it was laid out and rendered twice (the push resizes it) before its first paint."""
        return RoadmapScreen(self.catalog)

    def on_mount(self) -> None:
        self.start_journey()
        if self.preload_model:   # the loader maps torch's library on the other core while the roadmap draws
            torch_preload.start()
        self.call_after_refresh(self.finish_starting)

    def finish_starting(self) -> None:
        """After the first paint: the model (in a worker), then the whole lessons (pydantic) and the
        file watcher.

        None of these is needed to draw the roadmap, and each would hold the first frame back:
        importing pydantic and the schema takes about as long as Textual's own start, and
        importing torch holds the GIL for a while.  The lessons wait until "model ready" is on the
        screen: validating them meanwhile took the GIL from torch's import and put "model ready"
        seconds after the first paint.  Anything that needs a whole lesson sooner completes the
        catalog itself.
        """
        if self.preload_model:
            self.load_model()   # then the lessons (on_model_ready, on_model_failed)
        else:
            self.finish_lessons()

    def on_lessons_validated(self, message: LessonsValidated) -> None:
        if message.opened is self.opened_catalog:   # not a catalog a language switch has replaced
            self.finish_lessons(message.validated)

    def finish_lessons(self, validated: Validated | None = None) -> None:
        if self.lessons_finished:   # once: a later model (the dashboard's) changes nothing here
            return
        self.lessons_finished = True
        self.complete_catalog(validated)
        if self.watch_interval:
            from tutor.course.watcher import LessonWatcher

            self.lesson_watcher = LessonWatcher(self.catalog.sources)
            self.set_interval(self.watch_interval, self.poll_lesson_files)

    def complete_catalog(self, validated: Validated | None = None) -> None:
        """Validated lessons in place of the cache's outlines; called first by anything that needs
        a whole lesson (a key pressed before the first paint can get there before the refresh)."""
        if self.opened_catalog is None or self.opened_catalog.complete_now:
            return
        if self.opened_catalog.complete(validated):   # the cache was bad: the files were read instead
            self.lessons_signal.publish([])  # the roadmap redraws from the catalog

    def on_app_focus(self, _event) -> None:
        self.focus_reported = True

    def on_app_blur(self, event) -> None:
        """Ignore the blur Textual's web driver posts as a served tab starts, before any focus.

        Why: every change of app focus restyles the whole screen and rebuilds the footer (Textual's
        ``_watch_app_focus``), 50-140 ms of CPU.  Started blurred, a tab paid that on its first key
        (Textual focuses the app on a key), or when the browser reported focus; ten learners typing
        at once queued ~1 CPU-s on two cores and the first keys took 150-180 ms (bench/serve_load.py).
        The app starts focused (Textual's default) and stays so until the browser reports a real blur,
        which comes only after a focus."""
        if not self.focus_reported:
            event.prevent_default()

    def get_driver_class(self):
        """Textual's driver, reading stray non-UTF-8 bytes as U+FFFD and a paste as text (tutor.ui.terminal_input)."""
        from tutor.ui.terminal_input import tolerate_stray_input_bytes

        tolerate_stray_input_bytes()
        return super().get_driver_class()

    def get_system_commands(self, screen):
        """Textual's own palette entries (Theme, Keys, Maximize, Screenshot…) in the interface language."""
        return system_commands(super().get_system_commands(screen))

    def action_command_palette(self) -> None:
        """Textual's palette with its placeholder and "No matches found" in the interface language."""
        if self.use_command_palette and not TutorCommandPalette.is_open(self):
            self.push_screen(TutorCommandPalette(id="--command-palette", placeholder=_(PLACEHOLDER)))

    def action_open_review(self) -> None:
        self.complete_catalog()
        super().action_open_review()

    def action_open_stats(self) -> None:
        self.complete_catalog()
        super().action_open_stats()

    @work(thread=True, exclusive=True, group="model")
    def load_model(self) -> None:
        """Import torch and read the checkpoint while the learner reads the roadmap."""
        started = time.perf_counter()
        # torch's import makes a few hundred thousand objects that live as long as the app; the
        # collector went through them over and over as they came (about a tenth of the import's
        # CPU time), so it pauses meanwhile (the UI thread makes little garbage in that second).
        collecting = gc.isenabled()
        gc.disable()
        importing = "torch" not in sys.modules   # then what it makes here lives as long as the app
        try:
            torch_preload.wait()   # the GIL free until torch's library is mapped (see torch_preload)
            self.load_kept_model()   # the weights kept at the last quit, if any
            self.hub.ensure_loaded()
        except Exception as error:  # shown to the learner; the app keeps running
            outcome = ModelFailed(error_text(error))
        else:
            outcome = ModelReady(self.hub.label, time.perf_counter() - started)
        finally:
            if importing:
                # Frozen, torch's objects are left out of the collector's passes for good, as run_app
                # does with the app's own: all in the youngest generation, they made its first pass
                # take about 80 ms holding the GIL, just as the UI thread handled ModelReady.
                gc.freeze()
            if collecting:
                gc.enable()
        self.post_message(outcome)

    @work(thread=True, exclusive=True, group="lessons")
    def validate_lessons(self) -> None:
        """Import pydantic and validate the cached lessons on a thread, once "model ready" is painted.

        In the UI's handler for ModelReady that took half a second before "model ready" could be
        painted; begun on the model's thread right after the model, it took the GIL from the UI
        thread while that handled ModelReady and drew the header."""
        opened = self.opened_catalog
        self.post_message(LessonsValidated(opened, opened.validate() if opened is not None else None))

    def after_the_model(self) -> None:
        """The whole lessons, once the model's outcome is on the screen."""
        if not self.lessons_finished:
            self.call_after_refresh(self.validate_lessons)

    def on_model_ready(self, message: ModelReady) -> None:
        self.model_status = "ready"
        note = self.sub_title = _("model ready in {seconds}s").format(seconds=f"{message.seconds:.1f}")
        self.set_timer(self.model_note_seconds, lambda: self._clear_note(note))
        self.model_replaced()   # the dashboard, if open, names the weights
        self.after_the_model()

    def _clear_note(self, note: str) -> None:
        """The load time is news once; a later subtitle (another note) is left alone."""
        if self.sub_title == note:
            self.sub_title = ""

    def on_model_failed(self, message: ModelFailed) -> None:
        self.model_status = "failed"
        self.sub_title = _("model failed to load")
        self.notify(message.error, title=_("The built-in model could not be loaded"), severity="error", timeout=10, markup=False)
        self.after_the_model()

    def open_lesson(self, lesson_id: str, question_index: int = 0) -> None:
        self.complete_catalog()
        item = self.catalog.get(lesson_id)
        if item is None:
            self.notify(_("No lesson {id}").format(id=repr(lesson_id)), severity="warning", markup=False)
            return
        from tutor.ui.screens.lesson import LessonScreen  # numpy and the quiz load on first use

        self.show_roadmap()   # one lesson at a time, so Escape from any of them is the roadmap
        self.push_screen(LessonScreen(item, question_index=question_index))

    def poll_lesson_files(self) -> list:
        """Hot reload: re-read edited lesson files, refresh the roadmap and any open lesson."""
        from tutor.course.watcher import apply_changes

        self.complete_catalog()
        changes = self.lesson_watcher.poll() if self.lesson_watcher else []
        if not changes:
            return []
        reloads = apply_changes(self.catalog, changes)
        for reload in reloads:   # before any screen reopens the question: it continues under its new id
            for old, new in reload.renamed:
                self.progress.rename_question(old, new)
        self.lessons_signal.publish(reloads)
        for reload in reloads:
            self.notify(reload.summary(), title=_("Lesson file has a problem") if reload.broken else _("Lesson file"),
                        severity="error" if reload.broken else "information", timeout=8 if reload.broken else 3,
                        markup=False)
        from tutor.ui.reload_check import start_live_checks

        start_live_checks(self, reloads)   # runs each lesson on the model in a worker; problems come back later
        return reloads
