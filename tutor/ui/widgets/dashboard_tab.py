"""The base of every dashboard tab: a tab is one widget, and the dashboard yields it once.

Why a base (as Frogmouth's navigation panes have one): the dashboard has to do the same few
things to every tab (put focus in it when the learner switches to it, tell it the app's model
changed, reword it after a language switch), and a tab that was not told about one of them
failed quietly: F8 could not reach a tab until its first widget was added to a focus table.
Each hook here has a default that is right for a plain tab, so a new tab overrides only what
it does differently.  The pane's title follows the language like every ``worded`` text.
"""
from __future__ import annotations

from typing import ClassVar

from textual.geometry import Size
from textual.widgets import Input, TabPane

from tutor.common.i18n import _
from tutor.ui.relabel import WORDS


class Field(Input):
    """A one-row box whose typing repaints the box alone.

    Textual's Input sets its virtual width (the text's) on every change, and that reactive asks
    for a layout pass of the whole screen: about 6 ms of the GIL per key on the dashboard, taken
    from the training thread while a run goes on (bench/ui_latency.py types into a box, and its
    training fell to 0.8-0.9x a bare loop).  The width only sizes scroll bars, which a compact
    box has none of, so it is stored without the layout pass (as Textual's own ``_size_updated``
    does) and the box scrolls to its cursor as before.
    """

    def _watch_value(self, value: str) -> None:
        self.set_reactive(Input.virtual_size, Size(self.content_width, 1))   # Input's own set is then no change
        super()._watch_value(value)


def field(value: str = "", **options) -> Input:
    """A dashboard text box.  Not select-on-focus, as Textual's boxes are: a learner who tabbed
    through the dashboard wiped its Prompt, beam, max and seed with the next key they typed."""
    return Field(value, compact=True, select_on_focus=False, **options)


class DashboardTab(TabPane):
    TITLE: ClassVar[str] = ""      # the tab's title in English, marked N_
    TAB_ID: ClassVar[str] = ""     # the pane's id ("tab-train"): what F8, the palette and tests select
    # the shared look of the tabs' rows: one line high, so each tab fits at 80x24
    DEFAULT_CSS = """
    DashboardTab { height: 1fr; }
    .dash-row { height: 1; margin-bottom: 0; }
    .dash-row Label { width: auto; }
    .dash-row Button { margin-right: 1; min-width: 5; }
    """

    def __init__(self) -> None:
        super().__init__(_(self.TITLE), id=self.TAB_ID)
        setattr(self, WORDS, (self.TITLE, "{}"))

    def focus_within(self) -> None:
        """Put the focus where Enter does the tab's main thing; by default its first focusable widget."""
        first = next((widget for widget in self.query("*") if widget.focusable), None)
        if first is not None:
            first.focus()

    def activated(self) -> None:
        """The learner switched to this tab (F8, a click, the palette)."""
        self.focus_within()

    def model_changed(self) -> None:
        """The app's model was replaced (trained, loaded, reset): show what depends on it."""

    def relabel(self) -> None:
        """After a language switch, once every ``worded`` text is rewritten: the words the tab
        computes itself (statuses, placeholders)."""
