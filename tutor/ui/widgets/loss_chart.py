"""Train and validation loss on one chart, drawn in braille dots (2 x 4 per character cell).

Written here rather than taken from a plotting package: two series, a log-scale y axis (loss
falls from ~4.6 to ~0.001, a straight axis would show a cliff then a flat line) and a fixed
x axis of the run's total steps are all it needs, and it stays one small widget with no
dependency.  Train loss is averaged per dot column, so 1500 noisy steps still read as a line;
numpy does the averaging because the chart redraws ten times a second while training.
"""
from __future__ import annotations

import numpy as np
from rich.text import Text
from textual.widget import Widget

# braille dot bits by (x in cell 0-1, y in cell 0-3), top to bottom
_DOTS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
AXIS_WIDTH = 8                     # "0.0934 ┤"
FLOOR = 1e-5                       # losses below this are drawn at it (log scale)


def _fmt(value: float) -> str:
    """At most 6 characters: 4.56, 0.0934, 1.2e-3."""
    if value >= 0.01:
        return f"{value:.3g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


class LossChart(Widget):
    """``set_data(train, val, total_steps)``, each series a list of (step, loss)."""

    DEFAULT_CSS = """
    LossChart { height: 1fr; min-height: 5; }
    """
    TRAIN_STYLE, VAL_STYLE = "bold cyan", "bold magenta"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.train: list[tuple[int, float]] = []
        self.val: list[tuple[int, float]] = []
        self.total_steps = 1

    def set_data(self, train: list[tuple[int, float]], val: list[tuple[int, float]], total_steps: int) -> None:
        self.train, self.val, self.total_steps = train, val, max(1, total_steps)
        self.refresh()

    def render(self) -> Text:
        width, height = self.size.width, self.size.height
        cols, rows = max(1, width - AXIS_WIDTH), max(1, height - 1)
        series = [_finite(self.train), _finite(self.val)]
        if not any(len(ys) for _, ys in series):
            return Text("No training yet: the loss appears here, train in cyan, validation in magenta.",
                        style="dim")
        low = min(float(ys.min()) for _, ys in series if len(ys))
        high = max(float(ys.max()) for _, ys in series if len(ys))
        if high - low < 0.1:
            low, high = low - 0.05, high + 0.05
        masks = [[[0, 0] for _ in range(cols)] for _ in range(rows)]     # per cell: train, val bits

        def plot(steps: np.ndarray, logs: np.ndarray, which: int) -> None:
            """One dot per column at the column's mean log-loss, joined by straight lines."""
            if not len(steps):
                return
            xs = np.clip(np.round(steps / self.total_steps * (cols * 2 - 1)), 0, cols * 2 - 1).astype(int)
            sums, counts = np.bincount(xs, logs), np.bincount(xs)
            columns = np.flatnonzero(counts)
            means = sums[columns] / counts[columns]
            ys = np.clip(np.round((high - means) / (high - low) * (rows * 4 - 1)), 0, rows * 4 - 1).astype(int)
            dots = list(zip(columns.tolist(), ys.tolist()))
            for (x0, y0), (x1, y1) in zip(dots, dots[1:] or dots):
                steps_between = max(abs(x1 - x0), abs(y1 - y0), 1)
                for i in range(steps_between + 1):
                    x = round(x0 + (x1 - x0) * i / steps_between)
                    y = round(y0 + (y1 - y0) * i / steps_between)
                    masks[y // 4][x // 2][which] |= _DOTS[x % 2][y % 4]

        plot(*series[0], 0)
        plot(*series[1], 1)
        text = Text(no_wrap=True, overflow="crop")
        labels = {0: _fmt(10 ** high), rows - 1: _fmt(10 ** low)}
        if rows >= 5:
            labels[rows // 2] = _fmt(10 ** (high - (high - low) * (rows // 2 * 4 + 1.5) / (rows * 4 - 1)))
        for r in range(rows):
            text.append(f"{labels.get(r, ''):>{AXIS_WIDTH - 2}} ┤" if r in labels else " " * (AXIS_WIDTH - 1) + "│",
                        style="dim")
            run, run_style = [], ""          # one span per run of a style: far fewer segments to draw
            for train_bits, val_bits in masks[r]:
                style = self.VAL_STYLE if val_bits else self.TRAIN_STYLE if train_bits else ""
                if style != run_style and run:
                    text.append("".join(run), style=run_style)
                    run = []
                run_style = style
                run.append(chr(0x2800 + (val_bits | train_bits)) if style else " ")
            text.append("".join(run) + "\n", style=run_style)
        legend = Text()
        legend.append(" " * (AXIS_WIDTH - 1) + "0")
        legend.append("  ━ train", style=self.TRAIN_STYLE)
        legend.append("  ━ validation", style=self.VAL_STYLE)
        legend.append("   log scale")
        end = f"{self.total_steps} steps"
        legend.append(" " * max(1, width - legend.cell_len - len(end)) + end)
        text.append_text(legend)
        return text


def _finite(points: list[tuple[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(steps, log10 losses) of the finite points; losses below FLOOR count as FLOOR."""
    if not points:
        return np.zeros(0), np.zeros(0)
    steps, losses = np.asarray(points, dtype=float).T
    keep = np.isfinite(losses)
    return steps[keep], np.log10(np.maximum(losses[keep], FLOOR))
