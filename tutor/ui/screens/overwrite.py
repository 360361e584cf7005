"""Asked before Save writes over a file that exists: a checkpoint is a zip, and once it replaces a
file (a text file, another checkpoint) that file is gone."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tutor.common.i18n import N_, _
from tutor.common.safe_text import neutralise
from tutor.ui.localize import localize_bindings


class OverwriteScreen(ModalScreen[bool]):
    """Dismisses with True (overwrite) or False (keep the file)."""

    DEFAULT_CSS = """
    OverwriteScreen { align: center middle; }
    OverwriteScreen #keep-box { width: 64; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    OverwriteScreen #keep-buttons { height: 1; margin-top: 1; }
    OverwriteScreen #keep-buttons Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("o", "choose(True)", N_("Overwrite")),
        Binding("escape", "choose(False)", N_("Cancel")),
    ]

    def __init__(self, path: str) -> None:
        super().__init__()
        localize_bindings(self)
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="keep-box"):
            yield Static(Text(_("{path} already exists. Overwrite it with the checkpoint?").format(
                path=neutralise(self.path))), id="keep-text")
            with Horizontal(id="keep-buttons"):
                yield Button(_("Overwrite (o)"), id="overwrite", variant="error", compact=True)
                yield Button(_("Cancel (Esc)"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "overwrite")

    def action_choose(self, overwrite: bool) -> None:
        self.dismiss(overwrite)
