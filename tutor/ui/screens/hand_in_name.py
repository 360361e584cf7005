"""Asked before a hand-in: the name the teacher will see, filled in with the one given last time
(else the login), so a student on a hub whose login is ``jupyter-u4711`` can say who they are once
and never again.  The name is kept in settings.json, which ``tutor class submit`` and
``tutor progress --export`` read too."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from tutor.classroom.handin import MAX_NAME_CHARS, HandInError, learner_name
from tutor.common.i18n import N_, _, message_of, translated
from tutor.common.safe_text import neutralise
from tutor.ui.screens.dialog import Dialog
from tutor.ui.widgets.ordered_input import OrderedInput


class HandInNameScreen(Dialog):
    """Dismisses with the name to hand in under (checked as ``--name`` is), or None (cancelled)."""

    DEFAULT_CSS = """
    HandInNameScreen #name-box { border: thick $primary; }
    HandInNameScreen #name-problem { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "choose(None)", N_("Cancel"))]
    BOX, FOCUS = "name-box", "name-input"
    BUTTONS = (("hand-in", N_("Hand in (Enter)"), "primary"), ("cancel", N_("Cancel (Esc)"), "default"))

    def __init__(self, name: str, folder: str) -> None:
        super().__init__()
        self.given = name
        self.folder = folder

    def body(self) -> ComposeResult:
        yield Static(Text(_("Your name, as your teacher will see it on your hand-in to {folder}:").format(
            folder=neutralise(self.folder))), id="name-text")
        yield OrderedInput(self.given, max_length=MAX_NAME_CHARS, id="name-input")   # keys in a burst, in order
        yield Static("", id="name-problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._hand_in()

    def pressed(self, button_id: str) -> None:
        if button_id == "hand-in":
            self._hand_in()
        else:
            self.dismiss(None)

    def _hand_in(self) -> None:
        try:
            name = learner_name(self.query_one("#name-input", Input).value)
        except HandInError as error:
            self.query_one("#name-problem", Static).update(Text(translated(message_of(error))))
            return
        self.dismiss(name)
