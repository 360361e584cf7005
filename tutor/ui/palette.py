"""Command palette (ctrl+p): find any lesson by name, or jump to review, stats and help.

Lessons are read from ``app.catalog`` on every search, so a lesson added by hot reload is
findable at once.
"""
from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content


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
                  ("Language: 中文 / English", app.action_toggle_language, "F4; remembered for next time")]
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
