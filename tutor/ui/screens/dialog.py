"""The small questions the app asks in a box over the screen (go on without saving, overwrite, keep
the weights, the hand-in's name): one layout, so they look and answer alike.

A dialog gives its box's id and border colour, the lines above its buttons (``body``), and its
buttons as (id, label, variant); the button focused first answers Enter.  A button press is
``pressed(id)``, which dismisses with the id unless the dialog says otherwise.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from tutor.common.i18n import _
from tutor.ui.localize import localize_bindings


class Dialog(ModalScreen):
    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog .dialog-box { width: 64; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    Dialog .dialog-buttons { height: 1; margin-top: 1; }
    Dialog .dialog-buttons Button { margin-right: 2; }
    """
    BOX = "dialog-box"                        # the box's id (tests and styles name it)
    BUTTONS: tuple[tuple[str, str, str], ...] = ()   # (id, label marked N_, variant)
    FOCUS = ""                                # the widget focused first (its id)

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)

    def body(self) -> ComposeResult:
        """The lines above the buttons."""
        yield from ()

    def compose(self) -> ComposeResult:
        with Vertical(id=self.BOX, classes="dialog-box"):
            yield from self.body()
            with Horizontal(id=self.BOX.replace("-box", "-buttons"), classes="dialog-buttons"):
                for button_id, label, variant in self.BUTTONS:
                    yield Button(_(label), id=button_id, variant=variant, compact=True)

    def on_mount(self) -> None:
        self.query_one(f"#{self.FOCUS}").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.pressed(event.button.id or "")

    def pressed(self, button_id: str) -> None:
        self.dismiss(button_id)

    def action_choose(self, choice) -> None:
        self.dismiss(choice)
