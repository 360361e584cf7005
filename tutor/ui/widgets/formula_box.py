"""The lesson's formula, drawn to fit the box the screen can give it.

Why a widget of its own: a Static wraps each line of SymPy's drawing on its own, which tears a
fraction or a big bracket apart at 80 columns.  This box asks for the drawing's natural width,
and when the layout gives it less it folds the drawing into aligned slices
(:func:`tutor.formulas.fold.fold_picture`).  When the drawing, folded or not, is taller than
``max_rows`` (what the lesson screen can spare and still show an explanation line and the
question) it shows the author's one-line source, wrapped between words, which a flat line can
stand.
"""
from __future__ import annotations

import textwrap

from rich.text import Text
from textual.geometry import Size
from textual.widgets import Static

from tutor.formulas.fold import BOX_ROWS_AT_24, fold_picture, picture_size


class FormulaBox(Static):
    def __init__(self, source: str, **kwargs) -> None:
        super().__init__(Text(source), **kwargs)
        self.source = source
        self.picture = source
        self._max_rows = BOX_ROWS_AT_24

    def show(self, picture: str, source: str) -> None:
        """SymPy's drawing (or the source again, while SymPy loads or when it cannot parse)."""
        self.picture, self.source = picture, source
        self.update(Text(picture))   # ``content`` stays the whole drawing, for whoever reads it

    @property
    def max_rows(self) -> int:
        return self._max_rows

    @max_rows.setter
    def max_rows(self, rows: int) -> None:
        rows = max(1, rows)
        if rows != self._max_rows:
            self._max_rows = rows
            self.refresh(layout=True)

    def form_at(self, width: int) -> str:
        """What the box draws when it has ``width`` columns for its content."""
        folded = fold_picture(self.picture, width)
        if picture_size(folded)[1] <= self._max_rows:
            return folded
        if self._max_rows == 1:   # a compact screen's one row: the source as far as it goes
            return self.source if len(self.source) <= width else self.source[:max(1, width - 1)] + "…"
        return "\n".join(textwrap.wrap(self.source, max(width, 8), break_on_hyphens=False)) or self.source

    def _limit(self, container: Size, viewport: Size) -> int:
        """The content width the box's max-width allows in this container."""
        if self.styles.max_width is None:
            return container.width
        outer = int(self.styles.max_width.resolve(container, viewport))
        return max(8, min(container.width, outer) - self.styles.gutter.width)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return picture_size(self.form_at(self._limit(container, viewport)))[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return picture_size(self.form_at(width))[1]

    def render(self) -> Text:
        return Text(self.form_at(self.content_size.width), no_wrap=True, overflow="crop")
