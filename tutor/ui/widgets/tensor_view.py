"""The revealed tensor: the whole probe, opened on the cells the question asked about.

It draws only what fits its width, around the asked cells, with ``⋯``/``⋮`` where columns or
rows are hidden, and lets the learner look at the rest with the keyboard (Tab to it, then
arrows, PageUp/PageDown, Home/End, and ``[`` ``]`` for the other 2-D planes of a 3-D or 4-D
tensor).  Numbers come from ``tutor.grading.tensor_format`` (one format per tensor); colours
from ``heat_colors`` (the current theme).  Nothing is parsed as markup: ``x[i]`` and ``-inf``
show as they are.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.widgets import Static

from tutor.common.i18n import N_, NP_, P_, _
from tutor.grading.number_format import format_number
from tutor.grading.reveal_focus import Reveal
from tutor.grading.tensor_format import AxisWindow, NumberFormat, centred_start, column_capacity, fit_window
from tutor.ui.widgets.heat_colors import HeatPalette

MAX_ROWS = 10
MARKER = "▸"


# the axis names reveal_focus gives (its logic keys on the English words; only the display translates)
AXIS_WORDS = {word: word for word in (N_("batch"), N_("head"), N_("position"), N_("query"), N_("key"),
                                       N_("feature"), N_("hidden"), N_("vocabulary"), N_("in"), N_("out"),
                                       N_("token id"), N_("optimizer"), N_("step"), N_("tensor"))}
# words an experiment declares for an axis of its own (``(7 temperature = .T,)``); in a context, since
# the sample panel's "temperature" is a way of sampling, not the quantity
AXIS_CONTEXT = "the quantity along a tensor's axis"
DECLARED_AXIS_WORDS = frozenset({NP_("the quantity along a tensor's axis", "temperature")})


def axis_word(name: str) -> str:
    if name in AXIS_WORDS:
        return _(name)
    if name in DECLARED_AXIS_WORDS:
        return P_(AXIS_CONTEXT, name)
    if name.startswith("axis "):
        return _("axis {number}").format(number=name.removeprefix("axis "))
    return name


@dataclass
class _Layout:
    """What the current width shows: computed per render, never stored as state."""

    rows: AxisWindow
    cols: AxisWindow
    cell_width: int
    label_width: int
    row_labels: tuple | None     # the characters (or values) heading each row; None: indices only
    col_labels: tuple | None


class TensorView(Static, can_focus=True):
    """``show(reveal)`` to fill it, ``clear()`` to empty it."""

    DEFAULT_CSS = """
    TensorView { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    TensorView:focus { background: $boost; }
    """
    BINDINGS = [
        Binding("left", "move(0, -1)", "Left", show=False), Binding("right", "move(0, 1)", "Right", show=False),
        Binding("up", "move(-1, 0)", "Up", show=False), Binding("down", "move(1, 0)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False), Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First column", show=False), Binding("end", "edge(1)", "Last column", show=False),
        Binding("left_square_bracket", "plane(-1)", "Previous plane", show=False),
        Binding("right_square_bracket", "plane(1)", "Next plane", show=False),
    ]

    def __init__(self, *, id: str | None = None, max_rows: int = MAX_ROWS) -> None:
        super().__init__(id=id)
        self.reveal: Reveal | None = None
        self.max_rows = max_rows
        self.plane: tuple[int, ...] = ()
        self.row_start = self.col_start = 0
        self._moved = False           # until the learner scrolls, every width re-centres on the asked cells
        self._format = NumberFormat(0, integers=True)
        self._cell = 1
        self._scale = 1.0
        self._text = Text()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.refresh())

    # --- what it shows ------------------------------------------------------------------

    def show(self, reveal: Reveal | None) -> None:
        self.reveal = reveal
        self._moved = False
        if reveal is not None:
            array = reveal.array if reveal.array.ndim >= 2 else reveal.array[None]
            self._format = NumberFormat.for_array(array)
            self._cell = self._format.width(array)
            finite = np.abs(array[np.isfinite(array)])
            self._scale = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
            self.plane = tuple(reveal.focus[:-2]) if reveal.array.ndim > 2 else ()
        self.refresh(layout=True)

    def clear(self) -> None:
        self.show(None)

    def update(self, content="", *, layout: bool = True) -> None:
        """Only emptying is meant here (``update("")``); anything else goes through ``show``."""
        if content:
            raise TypeError("TensorView.update only clears; use show(reveal)")
        self.clear()

    @property
    def grid(self) -> np.ndarray:
        """The 2-D plane on screen (a 1-D tensor is one row)."""
        array = self.reveal.array
        return array[None] if array.ndim == 1 else array[self.plane]

    @property
    def asked_grid(self) -> np.ndarray:
        asked = self.reveal.asked
        return asked[None] if asked.ndim == 1 else asked[self.plane]

    # --- keys ---------------------------------------------------------------------------

    def action_move(self, rows: int, cols: int) -> None:
        self._moved = True
        self.row_start += rows
        self.col_start += cols
        self._clamp_and_redraw()

    def action_page(self, direction: int) -> None:
        self._moved = True
        self.row_start += direction * self.max_rows
        self._clamp_and_redraw()

    def action_edge(self, direction: int) -> None:
        self._moved = True
        self.col_start = 0 if direction < 0 else 1 << 30
        self._clamp_and_redraw()

    def action_plane(self, step: int) -> None:
        if self.reveal is None or self.reveal.array.ndim <= 2:
            return
        planes = list(itertools.product(*(range(n) for n in self.reveal.array.shape[:-2])))
        self.plane = planes[(planes.index(self.plane) + step) % len(planes)]
        self.refresh(layout=True)

    def _clamp_and_redraw(self) -> None:
        if self.reveal is not None:
            layout = self._layout(self.content_region.width or 80)
            self.row_start, self.col_start = layout.rows.start, layout.cols.start
        self.refresh(layout=True)

    # --- drawing ------------------------------------------------------------------------

    def _row_label(self, i: int, labels) -> str:
        number = self.reveal.index_number(self.reveal.array.ndim - 2, i)
        return f"{number} {labels[i]}" if labels else str(number)

    def _layout(self, width: int) -> _Layout:
        grid = self.grid
        n_rows, n_cols = grid.shape
        ndim = self.reveal.array.ndim
        row_labels = self.reveal.label_text(ndim - 2, self.plane) if ndim >= 2 else None
        col_labels = self.reveal.label_text(ndim - 1, self.plane)
        # marker, label, one space
        label_width = 3 + max(cell_len(self._row_label(i, row_labels)) for i in range(n_rows)) if ndim >= 2 else 2
        last = self.reveal.index_number(ndim - 1, n_cols - 1)
        cell_width = 1 + max(self._cell, len(str(last)), max(map(cell_len, col_labels)) if col_labels else 0)
        capacity = column_capacity(n_cols, width - label_width, cell_width)
        rows_capacity = min(self.max_rows, n_rows)
        if not self._moved:
            asked = np.argwhere(self.asked_grid)
            rows_focus = (int(asked[:, 0].min()), int(asked[:, 0].max())) if len(asked) else (0, 0)
            cols_focus = (int(asked[:, 1].min()), int(asked[:, 1].max())) if len(asked) else (0, 0)
            self.row_start = centred_start(n_rows, rows_capacity, rows_focus)
            self.col_start = centred_start(n_cols, capacity, cols_focus)
        return _Layout(fit_window(n_rows, rows_capacity, self.row_start), fit_window(n_cols, capacity, self.col_start),
                       cell_width, label_width, row_labels, col_labels)

    def build(self, width: int) -> Text:
        """The whole view at ``width`` cells, as one Text."""
        if self.reveal is None:
            return Text()
        reveal = self.reveal
        if reveal.array.size == 1:
            return self._one_number(reveal)
        layout = self._layout(max(20, width))
        palette = HeatPalette.from_app(self.app) if self.is_attached else None
        grid, asked = self.grid, self.asked_grid
        ndim = reveal.array.ndim
        names = reveal.axis_names
        out = Text(no_wrap=True, overflow="crop")
        self._append_title(out, reveal, width)
        names = tuple(axis_word(name) for name in names)
        info = []
        if ndim > 2:
            plane = [str(reveal.index_number(axis, i)) for axis, i in enumerate(self.plane)]
            info.append("[" + ", ".join([*plane, ":", ":"]) + f"]: {names[-2]} × {names[-1]}")
        elif ndim == 2:
            info.append(_("rows {rows}, columns {columns}").format(rows=names[0], columns=names[1]))
        else:
            info.append(_("index: {axis}").format(axis=names[0]))
        if self._format.scale_note:
            info.append(_("values {scale}").format(scale=self._format.scale_note))
        if reveal.highlights:
            info.append(_("{marker} underlined: asked").format(marker=MARKER))
        rows, cols = layout.rows, layout.cols
        if rows.size > rows.stop - rows.start:
            info.append(_("rows {first}–{last} of {count}").format(first=rows.start, last=rows.stop - 1, count=rows.size))
        if cols.size > cols.stop - cols.start:
            info.append(_("cols {first}–{last} of {count}").format(first=cols.start, last=cols.stop - 1, count=cols.size))
        if ndim > 2:   # last: the line is cut at the right edge of a narrow view
            info.append(_("axes ({names})").format(names=", ".join(names)))
        out.append(" · ".join(info) + "\n", style="dim")
        self._append_header(out, layout, asked, palette)
        if rows.hidden_before:
            out.append(" " * (layout.label_width - 2) + "⋮ " + _("{count} more").format(count=rows.hidden_before) + "\n",
                       style="dim")
        for i in range(rows.start, rows.stop):
            self._append_row(out, i, grid[i], asked[i], layout, palette)
        if rows.hidden_after:
            out.append(" " * (layout.label_width - 2) + "⋮ " + _("{count} more").format(count=rows.hidden_after) + "\n",
                       style="dim")
        scrolls = grid[rows.start:rows.stop, cols.start:cols.stop].size < grid.size
        planes = grid.size < reveal.array.size
        if scrolls or planes:
            keys = ["←↑↓→ PgUp PgDn Home End"] if scrolls else []
            keys += [_("[ ] other planes")] if planes else []
            out.append(_("Tab here, then {keys}").format(keys=" · ".join(keys)), style="dim italic")
        out.rstrip()
        return out

    @staticmethod
    def _one_number(reveal: Reveal) -> Text:
        """A count or a single value reads as that number beside the expression it is the value of:
        a one-cell table (``shape (1,)``, index 0, then the number) said nothing more and read as a
        tensor where the lesson meant a number."""
        number = format_number(float(reveal.array.ravel()[0]))
        line = _("real {expression} = {value}").format(expression=reveal.reference, value=number)
        out = Text(line, no_wrap=True, overflow="crop")
        out.stylize("bold", line.rindex(number), line.rindex(number) + len(number))
        return out

    @staticmethod
    def _append_title(out: Text, reveal: Reveal, width: int) -> None:
        """The name, then the shape of what was asked (after a slice question, the slice's, with the
        whole tensor's beside it); the shape goes on a line of its own rather than be cut."""
        title = reveal.title or _("real {name}").format(name=reveal.reference)
        whole = tuple(reveal.array.shape)
        if reveal.sliced:
            shape = _("shape {shape} (the whole tensor: {whole})").format(shape=reveal.asked_shape, whole=whole)
        else:
            shape = _("shape {shape}").format(shape=whole)
        out.append(title, style="bold")
        out.append(("  " if cell_len(title) + 2 + cell_len(shape) <= width else "\n") + shape + "\n")

    def _append_header(self, out: Text, layout: _Layout, asked: np.ndarray, palette) -> None:
        cols = layout.cols
        lines = [[str(self.reveal.index_number(self.reveal.array.ndim - 1, j)) for j in range(cols.start, cols.stop)]]
        if layout.col_labels:
            lines.append([layout.col_labels[j] for j in range(cols.start, cols.stop)])
        marked_cols = asked.any(axis=0)
        for k, cells in enumerate(lines):
            out.append(" " * layout.label_width)
            out.append("⋯ " if cols.hidden_before else "", style="dim")
            for j, cell in zip(range(cols.start, cols.stop), cells):
                marked = bool(marked_cols[j]) and self.reveal.highlights
                style = palette.label(marked) if palette else ("bold underline" if marked else "dim")
                out.append(" " * (layout.cell_width - cell_len(cell)))   # a wide character takes two cells
                out.append(cell, style=style)
            out.append(" ⋯" if cols.hidden_after else "", style="dim")
            out.append("\n")

    def _append_row(self, out: Text, i: int, values, asked_row, layout: _Layout, palette) -> None:
        cols = layout.cols
        marked_row = bool(asked_row.any()) and self.reveal.highlights
        label = self._row_label(i, layout.row_labels) if self.reveal.array.ndim >= 2 else ""
        out.append(MARKER + " " if marked_row else "  ", style="bold")
        out.append(" " * max(0, layout.label_width - 3 - cell_len(label)) + label,
                   style=palette.label(marked_row) if palette else ("bold underline" if marked_row else "dim"))
        out.append(" " if layout.label_width > 2 else "")
        out.append("⋯ " if cols.hidden_before else "", style="dim")
        for j in range(cols.start, cols.stop):
            value = float(values[j])
            text = self._format.cell(value)
            mark = bool(asked_row[j]) and self.reveal.highlights
            out.append(" ")
            if palette is None:
                style = "bold underline" if mark else ""
            elif mark:
                style = palette.marked()
            elif not np.isfinite(value):
                style = "dim"
            else:
                style = palette.heat(value / self._scale)
            out.append(f"{text:>{layout.cell_width - 1}}", style=style)
        out.append(" ⋯" if cols.hidden_after else "", style="dim")
        out.append("\n")

    def render(self) -> Text:
        self._text = self.build(self.content_region.width or 80)
        return self._text

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.build(width).split("\n")) if self.reveal is not None else 0

    @property
    def content(self) -> Text:
        """What the view shows now (at 120 columns before its first paint): tests read this."""
        return self._text if self._text.plain or self.reveal is None else self.build(120)
