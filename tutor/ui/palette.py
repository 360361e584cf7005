"""Command palette (ctrl+p): find any lesson by name, jump to review, stats and help, or run a
dashboard action (train, pause, stop, sample, attention, the shipped model).

Lessons are read from ``app.catalog`` on every search, so a lesson added by hot reload is
findable at once.
"""
from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from tutor.common.i18n import language_names


DASHBOARD_ACTIONS = (   # (name, tab, what to do there, help)
    ("train the model", "tab-train", "start", "start (or resume) training with the Train tab's choices · F5"),
    ("pause or resume training", "tab-train", "pause", "F6"),
    ("stop training", "tab-train", "stop", "keeps the weights of the last evaluation · F7"),
    ("sample text from the model", "tab-sample", "sample", "greedy, temperature, top-k, top-p, beam"),
    ("attention heatmap", "tab-attention", "attention", "one layer and head's pattern for a text"),
    ("back to the shipped model", "tab-train", "shipped", "the built-in sort model the lessons are written for"),
)


def dashboard_action(app, tab: str, action: str) -> None:
    """Open the dashboard on ``tab`` and do ``action`` there, as its keys and buttons would."""
    from textual.widgets import TabbedContent

    screen = app.dashboard_screen()
    if app.screen is not screen:
        app.action_dashboard()

    def run() -> None:
        screen.query_one(TabbedContent).active = tab
        panel = screen.train_panel
        {"start": screen.action_start, "pause": screen.action_pause, "stop": screen.action_stop,
         "shipped": panel.reset_to_shipped, "sample": screen.query_one("#tab-sample").sample,
         "attention": screen.query_one("#tab-attention").show}[action]()

    app.call_after_refresh(run)


class LessonCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str]]:
        """(name, callback, help) for every lesson in roadmap order, then the journey screens."""
        app = self.app
        titles = {track.id: track.title for track in app.catalog.index.tracks}
        found = [(f"Lesson: {item.lesson.title}", partial(app.open_lesson, item.lesson.id),
                  f"{titles.get(item.lesson.track, item.lesson.track)} · {len(item.lesson.questions)} questions")
                 for item in app.catalog.ordered()]
        found += [("Review due questions", app.action_open_review, "questions you missed, back before you forget"),
                  ("Stats: answers, accuracy, streak", app.action_open_stats, "how you are doing"),
                  ("Help: keys on every screen", app.action_help, "the same as ? or F1"),
                  ("Toggle light / dark theme", app.action_toggle_theme, "remembered for next time"),
                  (f"Language: {language_names()}", app.action_toggle_language, "F4; remembered for next time")]
        found += [(f"Dashboard: {name}", partial(dashboard_action, app, tab, action), help_text)
                  for name, tab, action, help_text in DASHBOARD_ACTIONS]
        return found

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(Content(name), callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                # highlight() parses markup; a title holding "[" is shown plain rather than misread
                shown = Content(name) if "[" in name else matcher.highlight(name)
                yield Hit(score, shown, callback, text=name, help=help_text)
