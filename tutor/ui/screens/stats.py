"""How the learner is doing: answers over time, accuracy per track, streak, what is due next."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Sparkline, Static

from tutor.ui.footer import Footer
from tutor.common.i18n import N_, _, ngettext
from tutor.ui.localize import localize_bindings

from tutor.ui.progress_labels import Snapshot, recent_days, when

DAYS = 30


class StatsScreen(Screen):
    review_tick_seconds = 15.0   # how often "next review in 2 min" is brought up to date (the app's clock)
    DEFAULT_CSS = """
    #stats-body { padding: 0 1; }
    #stats-summary, #stats-days-axis { margin-bottom: 1; }
    #stats-days { height: 3; }
    #stats-tracks { height: auto; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("r", "app.open_review", N_("Review")),
    ]

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)
        self.snapshot = Snapshot()

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
        self.label_columns()
        self.show(self.app.progress_snapshot())
        self.query_one(DataTable).focus()
        self.set_interval(self.review_tick_seconds, self.review_tick)

    def label_columns(self) -> None:
        self.sub_title = _("Stats")
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns(_("Track"), _("Lessons"), _("Done"), _("First try"), _("Finished"))

    def reword(self) -> None:
        """F4 on this screen: the same numbers, the cursor on the same track, in the new language."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        localize_bindings(self)
        self.label_columns()
        self.show(self.snapshot)
        table.move_cursor(row=row)
        self.refresh_bindings()

    def review_tick(self) -> None:
        """A card falls due with time alone: "next in 2 min" counts down and becomes "1 due now"
        without a key.  The database is read (and the table redrawn) only once a due time has passed."""
        if self.snapshot.next_due is not None and self.snapshot.next_due <= self.app.clock():
            self.show(self.app.progress_snapshot())
        else:
            self.show_summary(self.snapshot)

    def on_screen_resume(self) -> None:
        self.show(self.app.progress_snapshot())

    def show(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        today = self.app.clock().astimezone().date()
        self.show_summary(snapshot)
        self.show_days_and_tracks(snapshot, today)

    def show_summary(self, snapshot: Snapshot) -> None:
        now = self.app.clock()
        attempts = sum(len(s.finished) for s in snapshot.lessons.values())   # questions, not encounters
        tried = sum(len(s.tried) for s in snapshot.lessons.values())   # a wrong first try counts at once
        right = sum(len(s.first_try) for s in snapshot.lessons.values())
        summary = Text()
        if not snapshot.saving:
            summary.append(_("Progress is not being saved this session; these numbers are empty.") + "\n",
                           style="bold")
        # a question counts once it is finished (right, or revealed), and only its first attempt is scored
        summary.append(_("Questions finished: {count}   Right first time: {percent}   ").format(
            count=attempts, percent=f"{right / tried:.0%}") if tried else _("Questions finished: {count}   ").format(count=0))
        summary.append(ngettext("Streak: {count} day", "Streak: {count} days", snapshot.streak).format(
            count=snapshot.streak) + "\n")
        summary.append(_("Review: {count} due now").format(count=len(snapshot.due)))
        if snapshot.next_due is not None and not snapshot.due:
            summary.append(_(", next {when} ({moment})").format(
                when=when(snapshot.next_due, now), moment=f"{snapshot.next_due.astimezone():%Y-%m-%d %H:%M}"))
        self.query_one("#stats-summary", Static).update(summary)

    def show_days_and_tracks(self, snapshot: Snapshot, today) -> None:
        counts = recent_days(snapshot.per_day, today, DAYS)
        self.query_one("#stats-days-title", Static).update(Text(
            _("Answers per day, last {days} days (most: {most}, today: {today})").format(
                days=DAYS, most=max(counts), today=counts[-1]), style="bold"))
        self.query_one(Sparkline).data = [float(c) for c in counts]
        axis = Table.grid(expand=True)
        axis.add_column(justify="left")
        axis.add_column(justify="right")
        axis.add_row(Text(_("{days} days ago").format(days=DAYS), style="dim"), Text(_("today"), style="dim"))
        self.query_one("#stats-days-axis", Static).update(axis)

        table = self.query_one(DataTable)
        table.clear()
        for track in self.app.catalog.index.tracks:
            lessons = len(self.app.catalog.track_lessons(track.id))
            stats = snapshot.tracks.get(track.id)
            done = f"{stats.completion:.0%} ({stats.finished_questions}/{stats.total_questions})" \
                if stats and stats.total_questions else "-"
            accuracy = f"{stats.accuracy:.0%}" if stats and stats.accuracy is not None else "-"
            table.add_row(Text(track.title), str(lessons), done, accuracy,
                          str(stats.finished_questions if stats else 0))
