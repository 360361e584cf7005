"""Heat-map and highlight colours taken from the app's current Textual theme.

Fixed dark reds were unreadable on the light theme, so every colour here is a blend of the
theme's own background toward its primary (positive), error (negative) and accent
(highlight) colours, and the text on each cell is whichever of the theme's foreground and
background contrasts more with it.  Under NO_COLOR Textual drops every colour; the views
then still mark what matters with bold, underline and markers, never colour alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from rich.style import Style
from textual.color import Color

LEVELS = 8          # background strengths per sign: few enough to cache, many enough to read


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio, 1 (same) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable_on(background: Color, *candidates: Color) -> Color:
    """The candidate text colour with the most contrast against ``background``."""
    return max(candidates, key=lambda c: contrast(c, background))


@dataclass(frozen=True)
class HeatPalette:
    background: Color
    foreground: Color
    positive: Color
    negative: Color
    highlight: Color
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_app(cls, app) -> "HeatPalette":
        return palette_for(tuple(sorted(app.theme_variables.items())))

    def _text_on(self, background: Color) -> Color:
        return readable_on(background, self.foreground, self.background, Color(0, 0, 0), Color(255, 255, 255))

    def heat(self, strength: float, *, bold: bool = False) -> Style:
        """A cell whose value is ``strength`` of the table's largest magnitude (-1..1)."""
        level = round(max(-1.0, min(1.0, strength)) * LEVELS)
        key = ("heat", level, bold)
        if key not in self._cache:
            if level == 0:
                self._cache[key] = Style(bold=bold)
            else:
                tint = self.positive if level > 0 else self.negative
                # never the full colour: a strong cell keeps a little of the background
                cell = self.background.blend(tint, 0.12 + 0.68 * abs(level) / LEVELS)
                self._cache[key] = Style(bgcolor=cell.rich_color, color=self._text_on(cell).rich_color, bold=bold)
        return self._cache[key]

    def marked(self) -> Style:
        """An asked cell: the accent colour, bold and underlined (the underline survives NO_COLOR)."""
        key = ("marked",)
        if key not in self._cache:
            self._cache[key] = Style(bgcolor=self.highlight.rich_color,
                                     color=self._text_on(self.highlight).rich_color, bold=True, underline=True)
        return self._cache[key]

    def label(self, marked: bool = False) -> Style:
        """Row and column labels: the accent's colour when they lead to an asked cell."""
        if not marked:
            return Style(dim=True)
        text = readable_on(self.background, self.highlight, self.foreground)
        return Style(color=text.rich_color, bold=True, underline=True)


@lru_cache(maxsize=16)
def palette_for(variables: tuple[tuple[str, str], ...]) -> HeatPalette:
    """One palette per theme (the variables are the theme's CSS values)."""
    found = dict(variables)

    def color(name: str, fallback: str) -> Color:
        try:
            return Color.parse(found.get(name) or fallback)
        except Exception:   # a theme with an unparsable value still gets a usable palette
            return Color.parse(fallback)

    background = color("background", "#1e1e1e")
    return HeatPalette(background=background, foreground=color("foreground", "#e0e0e0"),
                       positive=color("primary", "#0178D4"), negative=color("error", "#ba3c5b"),
                       highlight=color("accent", "#ffa62b"))
