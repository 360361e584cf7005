"""Asked before a hand-in: the name the teacher will see, filled in with the one given last time
(else the login), so a student on a hub whose login is ``jupyter-u4711`` can say who they are once
and never again.  The name is kept in settings.json, which ``tutor class submit`` and
``tutor progress --export`` read too."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tutor.classroom.handin import MAX_NAME_CHARS, HandInError, learner_name
from tutor.common.i18n import N_, _, message_of, translated
from tutor.common.safe_text import neutralise
from tutor.ui.localize import localize_bindings
from tutor.ui.widgets.ordered_input import OrderedInput


class HandInNameScreen(ModalScreen[str | None]):
    """Dismisses with the name to hand in under (checked as ``--name`` is), or None (cancelled)."""

    DEFAULT_CSS = """
    HandInNameScreen { align: center middle; }
    HandInNameScreen #name-box { width: 64; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    HandInNameScreen #name-problem { color: $error; height: auto; }
    HandInNameScreen #name-buttons { height: 1; margin-top: 1; }
    HandInNameScreen #name-buttons Button { margin-right: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, name: str, folder: str) -> None:
        super().__init__()
        localize_bindings(self)
        self.given = name
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="name-box"):
            yield Static(Text(_("Your name, as your teacher will see it on your hand-in to {folder}:").format(
                folder=neutralise(self.folder))), id="name-text")
            yield OrderedInput(self.given, max_length=MAX_NAME_CHARS, id="name-input")   # keys in a burst, in order
            yield Static("", id="name-problem")
            with Horizontal(id="name-buttons"):
                yield Button(_("Hand in (Enter)"), id="hand-in", variant="primary", compact=True)
                yield Button(_("Cancel (Esc)"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#name-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._hand_in()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "hand-in":
            self._hand_in()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _hand_in(self) -> None:
        try:
            name = learner_name(self.query_one("#name-input", Input).value)
        except HandInError as error:
            self.query_one("#name-problem", Static).update(Text(translated(message_of(error))))
            return
        self.dismiss(name)
