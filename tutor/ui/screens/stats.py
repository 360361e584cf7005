"""How the learner is doing: answers over time, accuracy per track, streak, what is due next."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Sparkline, Static

from tutor.ui.progress_labels import Snapshot, recent_days, when

DAYS = 30


class StatsScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("r", "app.open_review", "Review"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-summary")
            yield Static(id="stats-days-title")
            yield Sparkline([], id="stats-days")
            yield Static(id="stats-days-axis")
            yield DataTable(id="stats-tracks", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Stats"
        table = self.query_one(DataTable)
        table.add_columns("Track", "Lessons", "Done", "Accuracy", "Answers")
        self.show(self.app.progress_snapshot())
        table.focus()

    def on_screen_resume(self) -> None:
        self.show(self.app.progress_snapshot())

    def show(self, snapshot: Snapshot) -> None:
        now = self.app.clock()
        today = now.astimezone().date()
        attempts = sum(s.attempts for s in snapshot.lessons.values())
        right = sum(s.correct_attempts for s in snapshot.lessons.values())
        summary = Text()
        if not snapshot.saving:
            summary.append("Progress is not being saved this session; these numbers are empty.\n", style="bold")
        summary.append(f"Answers: {attempts}   Right: {right / attempts:.0%}   " if attempts else "Answers: 0   ")
        days = "day" if snapshot.streak == 1 else "days"
        summary.append(f"Streak: {snapshot.streak} {days}\n")
        summary.append(f"Review: {len(snapshot.due)} due now")
        if snapshot.next_due is not None and not snapshot.due:
            summary.append(f", next {when(snapshot.next_due, now)} "
                           f"({snapshot.next_due.astimezone():%a %d %b %H:%M})")
        self.query_one("#stats-summary", Static).update(summary)

        counts = recent_days(snapshot.per_day, today, DAYS)
        self.query_one("#stats-days-title", Static).update(Text(
            f"Answers per day, last {DAYS} days (most: {max(counts)}, today: {counts[-1]})", style="bold"))
        self.query_one(Sparkline).data = [float(c) for c in counts]
        axis = Table.grid(expand=True)
        axis.add_column(justify="left")
        axis.add_column(justify="right")
        axis.add_row(Text(f"{DAYS} days ago", style="dim"), Text("today", style="dim"))
        self.query_one("#stats-days-axis", Static).update(axis)

        table = self.query_one(DataTable)
        table.clear()
        for track in self.app.catalog.index.tracks:
            lessons = len(self.app.catalog.track_lessons(track.id))
            stats = snapshot.tracks.get(track.id)
            done = f"{stats.completion:.0%} ({stats.completed_questions}/{stats.total_questions})" \
                if stats and stats.total_questions else "-"
            accuracy = f"{stats.accuracy:.0%}" if stats and stats.accuracy is not None else "-"
            table.add_row(Text(track.title), str(lessons), done, accuracy, str(stats.attempts if stats else 0))
