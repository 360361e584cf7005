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
from textual.widgets import Static

from tutor.common.i18n import N_, P_, _
from tutor.ui.screens.dialog import Dialog


class KeepWeightsScreen(Dialog):
    """Dismisses with "keep", "discard" or "cancel"."""

    BINDINGS = [
        Binding("k", "choose('keep')", N_("Keep")),
        Binding("d", "choose('discard')", N_("Don't keep")),
        Binding("escape", "choose('cancel')", N_("Cancel")),
    ]
    BOX, FOCUS = "keep-box", "keep"
    BUTTONS = (("keep", N_("Keep (k)"), "success"), ("discard", N_("Don't keep (d)"), "error"),
               ("cancel", N_("Cancel (Esc)"), "default"))

    def __init__(self, training: bool, where: str, replacing: str = "") -> None:
        """``replacing``: what is about to replace the weights (a translated sentence), or "" at quit."""
        super().__init__()
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

    def body(self) -> ComposeResult:
        yield Static(Text(self.question()), id="keep-text")
