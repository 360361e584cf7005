"""``?`` / F1: every key, per screen.

The lists are read from each screen's BINDINGS rather than written out, so a key added to a
screen appears here without anyone remembering to update the help.
"""
from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from tutor.ui.footer import Footer
from tutor.common.i18n import N_, _
from tutor.grading.kinds import KINDS
from tutor.ui.localize import binding_label, localize_bindings
from tutor.ui.widgets.prose import Prose

ANSWERING = N_(
    "Answering: type your prediction and press Enter. A wrong answer gets a nudge: try again, ask for a "
    "hint (ctrl+t) or give up (ctrl+g). The answer is shown after a right answer, a give-up or the last try "
    "(3 by default); then Enter goes to the next question."
)
FORMATS = N_("How to write an answer (full-width input works too):")
NOTES = N_(
    "While you type an answer, keys that would type a letter (like ?) go into the answer: use F1 for help.\n"
    "Review brings back questions you did not get right first time, on a spaced-repetition schedule (FSRS).\n"
    "Your progress is saved after every answer; 'tutor progress' prints it, exports or imports it."
)


def notes() -> Text:
    """The answer formats come from the question kinds, so a new kind is listed without editing this screen."""
    formats = "".join(f"\n  {_(kind.answer_format())}" for kind in KINDS.values())
    return Text(f"{_(ANSWERING)}\n{_(FORMATS)}{formats}\n{_(NOTES)}")


# the dashboard's keys that belong to its widgets, not to a binding: listed so that every control is named
DASHBOARD_KEYS = [
    Binding("tab,shift+tab", "", N_("Next / previous control; the focused one is drawn reversed or highlighted"),
            key_display="Tab / Shift+Tab"),
    Binding("enter", "", N_("Press the focused button; in the Prompt box or a knob, sample; in Text, show")),
    Binding("enter,space", "", N_("On a Data, Size, From or strategy box: open its list (↑ ↓ and Enter choose)")),
]


class HelpScreen(Screen):
    DEFAULT_CSS = """
    #help-body { padding: 0 1; }
    #help-keys { margin-bottom: 1; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
    ]

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="help-body"):
            # Prose: Chinese breaks between characters, not as one long "word" cut at the edge
            yield Static(Prose(self._keys()), id="help-keys")
            yield Static(Prose(notes()), id="help-notes")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = _("Keys")
        self.query_one("#help-body").focus()

    def reword(self) -> None:
        """F4 while reading: the same page, scrolled where it was, in the new language."""
        localize_bindings(self)
        self.sub_title = _("Keys")
        self.query_one("#help-keys", Static).update(Prose(self._keys()))
        self.query_one("#help-notes", Static).update(Prose(notes()))
        self.refresh_bindings()

    def _keys(self) -> Text:
        text = Text()
        for title, bindings in self._sections():
            text.append(title + "\n", style="bold")
            for binding in bindings:
                if not binding.description:
                    continue
                key = self._key_text(binding)
                text.append(f"  {key}{' ' * max(1, 17 - cell_len(key))}{binding_label(binding.description)}\n")
            text.append("\n")
        return text

    def _key_text(self, binding: Binding) -> str:
        if binding.key_display:
            return binding.key_display
        return " / ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in binding.key.split(","))

    def _sections(self) -> list[tuple[str, list[Binding]]]:
        from tutor.ui.screens.dashboard import DashboardScreen
        from tutor.ui.screens.lesson import LessonScreen
        from tutor.ui.screens.review import ReviewScreen
        from tutor.ui.screens.roadmap import RoadmapScreen
        from tutor.ui.screens.stats import StatsScreen
        from tutor.ui.widgets.sample_panel import SamplePanel

        everywhere = list(type(self.app).BINDINGS) + [
            Binding(self.app.COMMAND_PALETTE_BINDING, "", N_("Command palette: type a lesson's name to open it")),
            Binding("ctrl+q", "", N_("Quit")),
            Binding("escape", "", N_("Back (closes this help too)")),
        ]
        return [(_("Everywhere"), everywhere), (_("Roadmap"), RoadmapScreen.BINDINGS),
                (_("Lesson"), LessonScreen.BINDINGS),
                (_("Review (the lesson keys, plus)"), [b for b in ReviewScreen.BINDINGS if b.show]),
                (_("Stats"), StatsScreen.BINDINGS),
                (_("Dashboard (F3)"), DashboardScreen.BINDINGS + SamplePanel.BINDINGS + DASHBOARD_KEYS)]
