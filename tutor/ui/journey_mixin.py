"""The learner's journey, as a mixin of ``TutorApp``: progress, resume, review, stats, help, theme.

Kept out of app.py so the app stays wiring; everything here is reached through the app
(screens call ``app.progress`` with each try, ``app.save_position``, ``app.progress_snapshot``)
so screens never hold the store themselves.

Database writes run on the UI thread: each is one short SQLite transaction (measured well
under 1 ms), and doing it inline means the record is written before the verdict is shown,
and quitting right after an answer can never drop it.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from tutor.common.i18n import P_, _
from tutor.progress.service import ProgressService
from tutor.progress.store import ProgressError, ProgressStore, resolve_home
from tutor.ui.progress_labels import Snapshot, take_snapshot, when
from tutor.common.safe_text import neutralise
from tutor.common.settings import load_settings, save_setting, settings_notice

LIGHT, DARK = "textual-light", "textual-dark"
WELCOME_SECONDS = 4


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class JourneyMixin:
    def open_progress(self) -> None:
        """Open the store; a refused database leaves the app usable, just not saving."""
        self.clock = utc_now   # tests replace it to come back "tomorrow"
        self.store: ProgressStore | None = None
        self.store_problem: str | None = None
        self._saved_position = None
        self._save_failed = False
        try:
            self.store = ProgressStore(self.home)
        except ProgressError as error:
            self.store_problem = str(error)
        # lambda: tests replace app.clock after the app is made
        self.progress = ProgressService(self.store, lambda: self.clock(), self._tell_save_failed)
        self.settings_home = resolve_home(self.home)

    def start_journey(self) -> None:
        """After the roadmap is up: theme, any database news, then reopen where the learner left off."""
        theme = load_settings(self.settings_home).get("theme")
        if theme in self.available_themes:
            self.theme = theme
        notice = settings_notice(self.settings_home)
        if notice:
            self.notify(notice, title=_("Settings"), severity="warning", timeout=15, markup=False)
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.store_problem:
            from tutor.ui.screens.no_saving import NoSavingScreen

            self.push_screen(NoSavingScreen(self.store_problem), self._no_saving_answered)
        elif self.store is not None and self.store.message:
            self.notify(self.store.message, title=_("Progress database recovered"), severity="warning",
                        timeout=20, markup=False)
        position = self.store.last_position() if self.store else None
        item = self.catalog.get(position[0]) if position else None
        if item is not None:
            index = max(0, min(position[1], len(item.lesson.questions) - 1))
            self.open_lesson(item.lesson.id, index)
            # short, and drawn at the top right (app.tcss), so it never covers the answer box
            self.notify(_("Reopened at question {number}. Escape: the roadmap.").format(number=index + 1),
                        title=_("Welcome back"), timeout=WELCOME_SECONDS, markup=False)

    def _no_saving_answered(self, go_on: bool | None) -> None:
        if go_on:
            self.notify(_("{problem}\nThis session still works, but your answers will NOT be saved.").format(
                problem=self.store_problem), title=_("Progress is not being saved"), severity="error", timeout=30, markup=False)
        else:
            self.exit(return_code=1, message=neutralise(f"tutor: {self.store_problem}"))

    def on_unmount(self) -> None:
        self.progress.close()   # writes any answer still queued (a locked database), then closes

    # -- progress -------------------------------------------------------

    def save_position(self, lesson_id: str, question_index: int) -> None:
        if self.store is None or self._saved_position == (lesson_id, question_index):
            return
        try:
            self.store.set_last_position(lesson_id, question_index)
            self._saved_position = (lesson_id, question_index)
        except (ProgressError, sqlite3.Error) as error:
            self._tell_save_failed(error)

    def _tell_save_failed(self, error: Exception) -> None:
        if not self._save_failed:   # once: a full disk would otherwise notify on every answer
            self._save_failed = True
            self.notify(_("{error}\nYour answers are kept and written as soon as the database allows.").format(
                error=error),
                        title=_("Could not save progress"),
                        severity="error", timeout=20, markup=False)

    def last_variant(self, lesson_id: str, question_id: str) -> str | None:
        """The sizes of the last answer to a question, so review can pick different ones."""
        record = self.progress.store.question_record(lesson_id, question_id)
        return record.variant if record else None

    def review_due_for(self, lesson_id: str, question_ids: list[str]) -> dict[str, datetime]:
        """When review brings back each of a lesson's questions that has a card (the lesson summary)."""
        if self.store is None:
            return {}
        due = {}
        try:
            for question_id in question_ids:
                card = self.store.card(lesson_id, question_id)
                if card is not None:
                    due[question_id] = card.due
        except (ProgressError, sqlite3.Error):
            return {}
        return due

    def progress_snapshot(self) -> Snapshot:
        try:
            return take_snapshot(self.store, self.catalog, self.clock())
        except sqlite3.Error:
            return Snapshot(saving=False)

    # -- screens ----------------------------------------------------------

    def action_show_roadmap(self) -> None:
        self.show_roadmap()

    def show_roadmap(self) -> None:
        """Close every screen above the roadmap (lessons, a summary, review, help, the dashboard)."""
        from tutor.ui.screens.roadmap import RoadmapScreen

        while len(self.screen_stack) > 1 and not isinstance(self.screen, RoadmapScreen):
            self.pop_screen()

    def action_open_review(self) -> None:
        from tutor.ui.screens.review import ReviewScreen

        snapshot = self.progress_snapshot()
        if not snapshot.saving:
            self.notify(_("Review needs saved progress, which is off this session."), severity="warning", markup=False)
            return
        if not snapshot.due:
            text = _("Nothing to review right now.")
            if snapshot.next_due:   # no space after 。 in Chinese
                text = P_("two sentences in a row", "{first} {second}").format(
                    first=text, second=_("The next one is due {when}.").format(when=when(snapshot.next_due, self.clock())))
            self.notify(text, title=_("Review"), markup=False)
            return
        queue = [(self.catalog.get(d.lesson_id), d.question_index) for d in snapshot.due]
        self.push_screen(ReviewScreen(queue))

    def action_open_stats(self) -> None:
        from tutor.ui.screens.stats import StatsScreen

        self.push_screen(StatsScreen())

    def action_help(self) -> None:
        from tutor.ui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
        else:
            self.push_screen(HelpScreen())

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.current_theme.dark else DARK

    def _remember_theme(self, theme) -> None:
        try:
            save_setting(self.settings_home, "theme", theme.name)
        except OSError:
            pass   # a read-only home only costs the preference, not the session
