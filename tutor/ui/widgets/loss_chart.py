"""Train and validation loss on one chart, drawn in braille dots (2 x 4 per character cell).

Written here rather than taken from a plotting package: two series, a log-scale y axis (loss
falls from ~4.6 to ~0.001, a straight axis would show a cliff then a flat line) and a fixed
x axis of the run's total steps are all it needs, and it stays one small widget with no
dependency.  Train loss is averaged per dot column, so 1500 noisy steps still read as a line;
numpy does the averaging because the chart redraws twice a second while training.
Validation is drawn as ◆ marks, not a second line, so the two read apart without colour;
both axes carry round numbers (1-2-5 steps; the log axis in 1, 2, 5 x 10^k).
"""
from __future__ import annotations

import math

import numpy as np
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from tutor.common.i18n import _
from tutor.ui.widgets.heat_colors import HeatPalette, contrast

# braille dot bits by (x in cell 0-1, y in cell 0-3), top to bottom
_DOTS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
AXIS_WIDTH = 8                     # "0.0934 ┤"
TRAIN_MARK, VAL_MARK = "⠤⠒", "◆"      # a dotted line and diamonds: told apart without colour
FLOOR = 1e-5                       # losses below this are drawn at it (log scale)


def _fmt(value: float) -> str:
    """At most 6 characters: 4.56, 0.0934, 1.2e-3."""
    if value >= 0.01:
        return f"{value:.3g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _tick(value: float) -> str:
    """A round tick value as short as it goes: 0.5, 0.001, 1e-5."""
    text = f"{value:g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def nice_step(span: float, most: int) -> float:
    """The smallest of 1, 2, 5 x 10^k that splits ``span`` into at most ``most`` parts."""
    raw = span / max(1, most)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def linear_ticks(high: float, most: int) -> list[float]:
    """0 and round multiples up to ``high``: 0, 200, 400, 600, 800."""
    step = nice_step(high, most)
    return [i * step for i in range(int(high / step + 1e-9) + 1)]


def log_ticks(low: float, high: float, most: int) -> list[float]:
    """Round values between the log10 bounds ``low`` and ``high``, at most ``most`` of them:
    1, 2, 5 x 10^k; whole decades when those are too many; round steps on a narrow range."""
    def within(value: float) -> bool:
        return low - 1e-9 <= math.log10(value) <= high + 1e-9

    decades = range(math.floor(low), math.ceil(high) + 1)
    for mantissas in ((1, 2, 5), (1,)):
        ticks = [m * 10.0 ** k for k in decades for m in mantissas if within(m * 10.0 ** k)]
        if len(ticks) < 2:
            break
        if len(ticks) <= most:
            return ticks
    else:
        return ticks[:: math.ceil(len(ticks) / most)]
    bottom, top = 10 ** low, 10 ** high                  # less than a 1-2-5 step apart
    step = nice_step(top - bottom, most)
    first = math.ceil(bottom / step - 1e-9)
    return [round(i * step, 12) for i in range(first, int(top / step + 1e-9) + 1)]


class LossChart(Widget):
    """``set_data(train, val, total_steps)``, each series a list of (step, loss)."""

    DEFAULT_CSS = """
    LossChart { height: 1fr; min-height: 5; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.train: list[tuple[int, float]] = []
        self.val: list[tuple[int, float]] = []
        self.total_steps = 1

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.refresh())

    def set_data(self, train: list[tuple[int, float]], val: list[tuple[int, float]], total_steps: int) -> None:
        self.train, self.val, self.total_steps = train, val, max(1, total_steps)
        self.refresh()

    def series_styles(self) -> tuple[Style, Style]:
        """Train in the theme's primary colour, validation in its accent (or, where the accent is
        too pale on this background, its error colour)."""
        palette = HeatPalette.from_app(self.app)
        val = palette.highlight if contrast(palette.highlight, palette.background) >= 2.5 else palette.negative
        return Style(color=palette.positive.rich_color, bold=True), Style(color=val.rich_color, bold=True)

    def render(self) -> Text:
        width, height = self.size.width, self.size.height
        cols, rows = max(1, width - AXIS_WIDTH), max(1, height - 2)     # x labels and legend below
        series = [_finite(self.train), _finite(self.val)]
        if not any(len(ys) for _steps, ys in series):
            return Text(_("No training yet: the loss appears here, train as a line {train}, validation as {val} "
                          "marks.").format(train=TRAIN_MARK, val=VAL_MARK), style="dim")
        low = min(float(ys.min()) for _steps, ys in series if len(ys))
        high = max(float(ys.max()) for _steps, ys in series if len(ys))
        if high - low < 0.1:
            low, high = low - 0.05, high + 0.05
        masks = [[0] * cols for _row in range(rows)]                       # train: braille bits per cell
        marks: set[tuple[int, int]] = set()                             # validation: (row, col) cells

        def dot_x(steps: np.ndarray) -> np.ndarray:
            return np.clip(np.round(steps / self.total_steps * (cols * 2 - 1)), 0, cols * 2 - 1).astype(int)

        def dot_y(logs: np.ndarray) -> np.ndarray:
            return np.clip(np.round((high - logs) / (high - low) * (rows * 4 - 1)), 0, rows * 4 - 1).astype(int)

        train_style, val_style = self.series_styles()
        steps, logs = series[0]
        if len(steps):   # one dot per column at the column's mean log-loss, joined by straight lines
            xs = dot_x(steps)
            sums, counts = np.bincount(xs, logs), np.bincount(xs)
            columns = np.flatnonzero(counts)
            dots = list(zip(columns.tolist(), dot_y(sums[columns] / counts[columns]).tolist()))
            for (x0, y0), (x1, y1) in zip(dots, dots[1:] or dots):
                between = max(abs(x1 - x0), abs(y1 - y0), 1)
                for i in range(between + 1):
                    x, y = round(x0 + (x1 - x0) * i / between), round(y0 + (y1 - y0) * i / between)
                    masks[y // 4][x // 2] |= _DOTS[x % 2][y % 4]
        steps, logs = series[1]
        if len(steps):
            marks = {(int(y) // 4, int(x) // 2) for x, y in zip(dot_x(steps), dot_y(logs))}
        labels: dict[int, str] = {}
        for tick in log_ticks(low, high, max(2, rows // 2)):
            row = int(dot_y(np.array([math.log10(tick)]))[0]) // 4
            if row not in labels and row - 1 not in labels and row + 1 not in labels:
                labels[row] = _tick(tick)
        text = Text(no_wrap=True, overflow="crop")
        for r in range(rows):
            text.append(f"{labels[r]:>{AXIS_WIDTH - 2}} ┤" if r in labels else " " * (AXIS_WIDTH - 1) + "│",
                        style="dim")
            run, run_style = [], None          # one span per run of a style: far fewer segments to draw
            for c, bits in enumerate(masks[r]):
                cell, style = ((VAL_MARK, val_style) if (r, c) in marks else
                               (chr(0x2800 + bits), train_style) if bits else (" ", ""))
                if style != run_style and run:
                    text.append("".join(run), style=run_style)
                    run = []
                run_style = style
                run.append(cell)
            text.append("".join(run) + "\n", style=run_style)
        text.append(self._x_axis(cols) + "\n", style="dim")
        legend = Text(" " * AXIS_WIDTH)
        legend.append(f"{TRAIN_MARK} " + _("train"), style=train_style)
        legend.append("   ")
        legend.append(f"{VAL_MARK} " + _("validation"), style=val_style)
        legend.append("   " + _("loss (log scale) by step"), style="dim")
        text.append_text(legend)
        return text

    def _x_axis(self, cols: int) -> str:
        """Round step numbers under their columns."""
        line = [" "] * (AXIS_WIDTH + cols)
        for tick in linear_ticks(self.total_steps, max(2, cols // 10)):
            label = f"{tick:g}"
            at = AXIS_WIDTH + round(tick / self.total_steps * (cols * 2 - 1)) // 2
            start = max(0, min(at - len(label) // 2, len(line) - len(label)))
            if all(c == " " for c in line[max(0, start - 1): start + len(label) + 1]):
                line[start: start + len(label)] = label
        return "".join(line)


def _finite(points: list[tuple[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(steps, log10 losses) of the finite points; losses below FLOOR count as FLOOR."""
    if not points:
        return np.zeros(0), np.zeros(0)
    steps, losses = np.asarray(points, dtype=float).T
    keep = np.isfinite(losses)
    return steps[keep], np.log10(np.maximum(losses[keep], FLOOR))
