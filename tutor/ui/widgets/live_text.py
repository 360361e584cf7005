"""Text that changes several times a second in a box that never changes size.

``Static.update`` asks for a layout pass of the whole screen every time; while training
that was a third of the UI thread's work, so the dashboard's status line repaints only.
"""
from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class LiveText(Widget):
    DEFAULT_CSS = "LiveText { height: 1; }"

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text(text) if isinstance(text, str) else text

    def update(self, text: Text | str) -> None:
        self.text = Text(text) if isinstance(text, str) else text
        self.refresh()

    @property
    def content(self) -> Text:
        return self.text

    def render(self) -> Text:
        return self.text
