"""Asked before Save writes over a file that exists: a checkpoint is a zip, and once it replaces a
file (a text file, another checkpoint) that file is gone."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tutor.common.i18n import N_, _
from tutor.common.safe_text import neutralise
from tutor.ui.screens.dialog import Dialog


class OverwriteScreen(Dialog):
    """Dismisses with True (overwrite) or False (keep the file)."""

    BINDINGS = [
        Binding("o", "choose(True)", N_("Overwrite")),
        Binding("escape", "choose(False)", N_("Cancel")),
    ]
    BOX, FOCUS = "keep-box", "cancel"
    BUTTONS = (("overwrite", N_("Overwrite (o)"), "error"), ("cancel", N_("Cancel (Esc)"), "default"))

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def body(self) -> ComposeResult:
        yield Static(Text(_("{path} already exists. Overwrite it with the checkpoint?").format(
            path=neutralise(self.path))), id="keep-text")

    def pressed(self, button_id: str) -> None:
        self.dismiss(button_id == "overwrite")
