"""Asked at start when the progress database cannot be opened: go on without saving, or quit.

Why ask rather than only notify: a learner who answers for an hour and then finds nothing
was kept has lost that hour.  The message says which file and why (a dangling symlink, a
read-only folder), so quitting to fix it is a real choice; going on is fine for a look around.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tutor.common.i18n import N_, _
from tutor.ui.localize import localize_bindings


class NoSavingScreen(ModalScreen[bool]):
    """Dismisses with True to go on without saving, False to quit."""

    DEFAULT_CSS = """
    NoSavingScreen { align: center middle; }
    #no-saving-box { width: 72; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    #no-saving-text, #no-saving-question { margin-top: 1; }
    #no-saving-buttons { height: 1; margin-top: 1; }
    #no-saving-buttons Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("c,enter", "choose(True)", N_("Continue without saving")),
        Binding("q,escape", "choose(False)", N_("Quit")),
    ]

    def __init__(self, problem: str) -> None:
        super().__init__()
        self.problem = problem
        localize_bindings(self)

    def compose(self) -> ComposeResult:
        with Vertical(id="no-saving-box"):
            yield Static(Text(_("Your progress cannot be saved."), style="bold"), id="no-saving-title")
            yield Static(Text(self.problem), id="no-saving-text")
            yield Static(Text(_("You can go on without saving (answers are kept until you quit), "
                                "or quit and fix it.")), id="no-saving-question")
            with Horizontal(id="no-saving-buttons"):
                yield Button(_("Continue without saving (c)"), id="continue", variant="warning", compact=True)
                yield Button(_("Quit (q)"), id="quit", compact=True)

    def on_mount(self) -> None:
        self.query_one("#continue", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "continue")

    def action_choose(self, go_on: bool) -> None:
        self.dismiss(go_on)
