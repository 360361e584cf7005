"""The end of a lesson: how it went, what review will bring back and when, and the next lesson.

The score is the lesson's question records, counted as the roadmap counts them (a retry, a hint,
practice or a second visit never raises it), the time comes
from the app's clock (tests inject one), and the comebacks are the review schedule's own due
times for this lesson's questions, so the summary promises exactly what Review will do.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from tutor.ui.footer import Footer
from tutor.common.i18n import N_, _, ngettext
from tutor.progress.stats import LessonStats
from tutor.ui.localize import localize_bindings
from tutor.ui.progress_labels import when
from tutor.ui.widgets.prose import Prose


@dataclass(frozen=True)
class LessonSummary:
    lesson_id: str
    title: str
    total: int                              # questions in the lesson
    finished: int                           # of them resolved (ever: their first attempt is the score)
    tried: int                              # of them with a first try (a wrong one counts at once), or resolved
    first_time: int                         # of those, right on the first attempt without a hint
    spent: timedelta
    comebacks: tuple[tuple[int, datetime], ...]   # (question number, due) from the review schedule
    next_lesson: tuple[str, str] | None     # (id, title) in roadmap order; None after the last one


def summarize(lesson_id: str, title: str, question_ids: list[str], counts: LessonStats,
              spent: timedelta, due: dict[str, datetime], catalog) -> LessonSummary:
    order = [item.lesson for item in catalog.ordered()]
    ids = [lesson.id for lesson in order]
    following = order[ids.index(lesson_id) + 1] if lesson_id in ids and ids.index(lesson_id) + 1 < len(ids) else None
    return LessonSummary(
        lesson_id, title, len(question_ids), len(counts.finished & set(question_ids)),
        len(counts.tried & set(question_ids)),
        len(counts.first_try & set(question_ids)), max(spent, timedelta(0)),
        tuple(sorted(((question_ids.index(q) + 1, moment) for q, moment in due.items() if q in question_ids),
                     key=lambda pair: (pair[1], pair[0]))),
        (following.id, following.title) if following is not None else None)


def duration(spent: timedelta) -> str:
    """'45 s', '6 min 12 s', '1 h 5 min': as precise as a person cares about."""
    seconds = int(spent.total_seconds())
    if seconds < 60:
        return _("{seconds} s").format(seconds=seconds)
    if seconds < 3600:
        return _("{minutes} min {seconds} s").format(minutes=seconds // 60, seconds=seconds % 60)
    return _("{hours} h {minutes} min").format(hours=seconds // 3600, minutes=seconds % 3600 // 60)


def summary_text(summary: LessonSummary, now: datetime) -> Text:
    text = Text()
    text.append(_("Lesson finished: {title}").format(title=summary.title) + "\n\n", style="bold")
    text.append(_("Right first time: "), style="bold")
    text.append(ngettext("{right} of {count} question", "{right} of {count} questions", summary.total)
                .format(right=summary.first_time, count=summary.total))
    skipped = summary.total - summary.finished
    if skipped:
        text.append("  " + _("({count} not finished yet)").format(count=skipped), style="dim")
    text.append("\n")
    text.append(_("Time: "), style="bold")
    text.append(duration(summary.spent) + "\n\n")
    if summary.comebacks:
        text.append(_("Review will bring back:") + "\n", style="bold")
        for number, moment in summary.comebacks:
            text.append("  " + _("question {number}, {when}").format(number=number, when=when(moment, now)) + "\n")
    else:
        text.append(_("Review will bring back nothing from this lesson: no question is waiting for another try.")
                    + "\n")
    text.append("\n")
    if summary.next_lesson is not None:
        text.append(_("Enter: the next lesson, “{title}”.").format(title=summary.next_lesson[1]) + "\n", style="bold")
    else:
        text.append(_("That was the last lesson of the course. Enter: the roadmap.") + "\n", style="bold")
    text.append(_("Escape: the roadmap."), style="dim")
    return text


class LessonSummaryScreen(Screen):
    DEFAULT_CSS = "#summary-body { padding: 1 2; }"
    BINDINGS = [
        Binding("enter", "next_lesson", N_("Next lesson")),
        Binding("escape", "app.show_roadmap", N_("Roadmap")),
        Binding("h", "hand_in", N_("Hand in my progress")),   # shown where the teacher set an exchange folder
    ]

    def __init__(self, summary: LessonSummary, now: datetime) -> None:
        super().__init__()
        localize_bindings(self)
        self.summary = summary
        self.now = now

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="summary-body"):
            yield Static(Prose(summary_text(self.summary, self.now)), id="summary-text")
        yield Footer()

    def on_mount(self) -> None:
        self.title = self.summary.title
        self.sub_title = _("Summary")
        if self.summary.next_lesson is not None:   # 'tutor' reopens where the course goes on
            self.app.save_position(self.summary.next_lesson[0], 0)

    def reword(self) -> None:
        """F4 on the summary: the same figures; the titles from the catalog in the new language."""
        catalog = self.app.catalog
        title = catalog.get(self.summary.lesson_id)
        following = self.summary.next_lesson and catalog.get(self.summary.next_lesson[0])
        self.summary = replace(
            self.summary, title=title.lesson.title if title else self.summary.title,
            next_lesson=(following.lesson.id, following.lesson.title) if following else self.summary.next_lesson)
        localize_bindings(self)
        self.title = self.summary.title
        self.sub_title = _("Summary")
        self.query_one("#summary-text", Static).update(Prose(summary_text(self.summary, self.now)))
        self.refresh_bindings()

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "hand_in":
            from tutor.ui.handin import class_exchange

            return bool(class_exchange())
        return True

    def action_hand_in(self) -> None:
        from tutor.ui.handin import start_hand_in

        start_hand_in(self.app)

    def action_next_lesson(self) -> None:
        if self.summary.next_lesson is None:
            self.app.show_roadmap()
        else:
            self.app.open_lesson(self.summary.next_lesson[0])
