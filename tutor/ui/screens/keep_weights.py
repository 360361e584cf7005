"""Asked before trained, unsaved weights would be lost: at quit, and before the dashboard's
Shipped, Load or a new run from new weights would replace them.  Keep them or not.

"Keep" is what a learner who trained for ten minutes expects: at quit the weights are saved to
``<home>/checkpoints/last.pt`` and the next start loads them, so the lessons go on showing
*their* model; before a replacement they are saved to a new file first.  One screen for both,
so the learner meets the same three answers (k, d, Esc) wherever their model is at stake.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tutor.common.i18n import N_, P_, _
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

    def __init__(self, training: bool, where: str, replacing: str = "") -> None:
        """``replacing``: what is about to replace the weights (a translated sentence), or "" at quit."""
        super().__init__()
        localize_bindings(self)
        self.training = training
        self.where = where
        self.replacing = replacing

    def question(self) -> str:
        if self.replacing:
            first = P_("two sentences in a row", "{first} {second}").format(   # no space after 。
                first=_("You trained a model in the dashboard that is not saved."), second=self.replacing)
            return (first + "\n" +
                    _("Keep the weights? They are saved to {where} first; Load brings them back.").format(
                        where=self.where))
        first = (_("Training is still running; quitting stops it after the current step.")
                 if self.training else _("You trained a model in the dashboard that is not saved."))
        return first + "\n" + _("Keep the weights? They are saved to {where} and loaded the next time "
                                 "you start the tutor.").format(where=self.where)

    def compose(self) -> ComposeResult:
        with Vertical(id="keep-box"):
            yield Static(Text(self.question()), id="keep-text")
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
