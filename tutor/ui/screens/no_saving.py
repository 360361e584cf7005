"""Asked at start when the progress database cannot be opened: go on without saving, or quit.

Why ask rather than only notify: a learner who answers for an hour and then finds nothing
was kept has lost that hour.  The message says which file and why (a dangling symlink, a
read-only folder), so quitting to fix it is a real choice; going on is fine for a look around.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tutor.common.i18n import N_, _
from tutor.ui.screens.dialog import Dialog


class NoSavingScreen(Dialog):
    """Dismisses with True to go on without saving, False to quit."""

    DEFAULT_CSS = """
    NoSavingScreen #no-saving-box { width: 72; border: thick $error; }
    #no-saving-text, #no-saving-question { margin-top: 1; }
    """
    BINDINGS = [
        Binding("c,enter", "choose(True)", N_("Continue without saving")),
        Binding("q,escape", "choose(False)", N_("Quit")),
    ]
    BOX, FOCUS = "no-saving-box", "continue"
    BUTTONS = (("continue", N_("Continue without saving (c)"), "warning"), ("quit", N_("Quit (q)"), "default"))

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem

    def body(self) -> ComposeResult:
        yield Static(Text(_("Your progress cannot be saved."), style="bold"), id="no-saving-title")
        yield Static(Text(self.problem), id="no-saving-text")
        yield Static(Text(_("You can go on without saving (answers are kept until you quit), "
                            "or quit and fix it.")), id="no-saving-question")

    def pressed(self, button_id: str) -> None:
        self.dismiss(button_id == "continue")
