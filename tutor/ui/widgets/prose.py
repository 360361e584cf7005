"""Lesson prose that wraps between Chinese characters as well as at spaces.

A Rich renderable rather than a widget, so every ``Static`` that shows lesson text (the
explanation, the question, feedback, hints) keeps its CSS and its tests read it as before;
it breaks its lines itself at the width it is given, so Textual's height and its painting
agree at every terminal size.
"""
from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from rich.cells import cell_len

from tutor.common.wide_wrap import break_offsets, units


class Prose:
    def __init__(self, text: Text | str) -> None:
        self.text = text if isinstance(text, Text) else Text(text)

    @property
    def plain(self) -> str:
        return self.text.plain

    def lines(self, width: int) -> list[Text]:
        out: list[Text] = []
        for line in self.text.split("\n", allow_blank=True):
            for piece in line.divide(break_offsets(line.plain, width)):
                piece.rstrip()
                piece.no_wrap, piece.overflow, piece.end = True, "fold", "\n"
                out.append(piece)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lines(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        """As narrow as its widest unbreakable piece (a Chinese character, not a whole run of
        them), so a table gives a Chinese title a column it can wrap in evenly."""
        widest = Measurement.get(console, options, self.text)
        pieces = [cell_len(piece.rstrip()) for line in self.text.plain.split("\n") for piece in units(line)]
        return Measurement(min(widest.minimum, max(pieces, default=1)), widest.maximum)
