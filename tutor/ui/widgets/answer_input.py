"""The answer box: an Input capped at the typed-answer limit whose editing keys act in order
(tutor.ui.widgets.ordered_input says why that needs a subclass).

The cap (``MAX_ANSWER_CHARS``) keeps a pasted 100 KB from hanging the app: Input recomputes
cell positions on every key, so a long value makes each key slower than the last.  What the cap
refuses is said, not only rung: a paste that does not fit was once dropped with a bell alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.geometry import Size
from textual.widget import Widget

from tutor.common.i18n import _
from tutor.grading.answers import MAX_ANSWER_CHARS
from tutor.ui.paste_input import pasted_text
from tutor.ui.widgets.ordered_input import OrderedInput


class AnswerInput(OrderedInput):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("max_length", MAX_ANSWER_CHARS)
        super().__init__(*args, **kwargs)
        # a one-line box has no pages nor rows to scroll: the lesson screen scrolls its prose (PageUp/Down)
        # and its question pane (↑ ↓), where a hint below a 24-line screen's edge was out of reach
        for key in ("pageup", "pagedown", "up", "down"):
            self._bindings.key_to_bindings.pop(key, None)

    def on_mount(self) -> None:
        """In a browser, a steady cursor: each blink is a repaint sent over the network, and an idle
        lesson's blinking cost its tab 13 ms of CPU a second (2 without), which twenty learners
        sitting on one machine pay together.  A terminal keeps its blink (one user, no network)."""
        if self.app.is_web:
            self.cursor_blink = False

    def offer_for_replacing(self) -> None:
        """After a wrong or unreadable try the old answer stays, selected, as a search box keeps its query: the
        next key typed replaces it (``256, 256`` then ``64x64`` is ``64x64``, not ``256, 25664x64``),
        while an arrow key keeps it for editing."""
        self.select_all()


    def _watch_value(self, value: str) -> None:
        """Input's watcher, without laying the whole screen out again on every key.

        Input keeps the text's width as its virtual size (how far it may scroll) in a reactive
        that asks for a new layout of the screen when it changes: about a third of a keypress's
        CPU on the lesson screen, paid by every served tab on a machine on every key.  The box's
        own size never depends on its text unless it is auto-sized, so the width is stored first,
        quietly, and Input's watcher then finds it unchanged (its repaint of the value remains).
        """
        if not self.styles.auto_dimensions:
            self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def _on_paste(self, event: events.Paste) -> None:
        """A paste is text: its control characters are dropped (tutor.ui.paste_input does the same
        before Textual's parser, where they would become keys).  A paste that would pass the cap is
        refused whole, with the reason (Input would ring only)."""
        event.text = pasted_text(event.text).replace("\t", " ")   # Input._on_paste inserts it
        line = event.text.splitlines()[0] if event.text else ""
        start, end = sorted(self.selection)
        room = self.max_length - (len(self.value) - (end - start)) if self.max_length else len(line)
        if len(line) > room:
            event.stop()
            event.prevent_default()   # Input._on_paste would insert nothing and ring
            self.app.bell()
            message = too_long(len(line), self.max_length)
            self.app.notify(message, severity="warning", timeout=12, markup=False)
            self.post_message(self.PasteRefused(message))

    @dataclass
    class PasteRefused(Message):
        """A paste did not fit: the screen says so where the verdicts are, which stays until the next
        try (a 100 KB paste takes seconds to arrive, and a toast could be gone before the learner looked)."""

        text: str

    def restricted(self) -> None:
        """A key typed past the cap: ring, and say why once per answer box."""
        self.app.bell()
        if not getattr(self, "_told_limit", False):
            self._told_limit = True
            self.app.notify(_("An answer holds at most {limit} characters.").format(limit=f"{self.max_length:,}"),
                            severity="warning", markup=False)


def too_long(count: int, limit: int) -> str:
    return _("That paste is too long: it has {count} characters and an answer holds at most {limit}. Nothing was "
             "pasted; what you typed is kept.").format(count=f"{count:,}", limit=f"{limit:,}")
