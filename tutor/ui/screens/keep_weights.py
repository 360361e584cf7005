"""Asked at quit when the dashboard trained weights that are not saved: keep them or not.

"Keep" is what a learner who trained for ten minutes expects: the weights are saved to
``<home>/checkpoints/last.pt`` and the next start loads them, so the lessons go on showing
*their* model; "Shipped model" on the dashboard goes back to the built-in one.
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


class KeepWeightsScreen(ModalScreen[str]):
    """Dismisses with "keep", "discard" or "cancel"."""

    DEFAULT_CSS = """
    KeepWeightsScreen { align: center middle; }
    #keep-box { width: 64; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    #keep-buttons { height: 1; margin-top: 1; }
    #keep-buttons Button { margin-right: 2; }
    """
    BINDINGS = [
        Binding("k", "choose('keep')", N_("Keep")),
        Binding("d", "choose('discard')", N_("Don't keep")),
        Binding("escape", "choose('cancel')", N_("Cancel")),
    ]

    def __init__(self, training: bool, where: str) -> None:
        super().__init__()
        localize_bindings(self)
        self.training = training
        self.where = where

    def compose(self) -> ComposeResult:
        first = (_("Training is still running; quitting stops it after the current step.")
                 if self.training else _("You trained a model in the dashboard that is not saved."))
        with Vertical(id="keep-box"):
            yield Static(Text(first + "\n" + _("Keep the weights? They are saved to {where} and loaded the next time "
                                                "you start the tutor.").format(where=self.where)), id="keep-text")
            with Horizontal(id="keep-buttons"):
                yield Button(_("Keep (k)"), id="keep", variant="success", compact=True)
                yield Button(_("Don't keep (d)"), id="discard", variant="error", compact=True)
                yield Button(_("Cancel (Esc)"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
