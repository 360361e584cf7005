"""Where a line of prose may break, for text that mixes English and Chinese (or Japanese).

Terminal widgets (Rich and Textual alike) break lines only at spaces, so a run of CJK
characters, which has no spaces, moves to the next line as one "word" and leaves a ragged
half-empty line behind.  Chinese is set with a break allowed between any two characters,
except that closing punctuation (，。）」…) never starts a line and opening punctuation
(（「“) never ends one: the rules of UAX #14 for ideographs, kept to what lesson prose needs.

Why not a UAX #14 library (uniseg): measured at about 90 ms per 1,000 characters, which
would be spent on the UI thread for every lesson opened; these rules take well under 1 ms.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from rich.cells import cell_len, chop_cells

# may not start a line: closing brackets and quotes, CJK and Western stops, iteration marks
NO_BREAK_BEFORE = frozenset("，。、；：！？）」』】〉》〕］｝〗〙〛’”…‥・ー々ゝゞヽヾぁぃぅぇぉっゃゅょァィゥェォッャュョ"
                            ",.;:!?)]}%")
# may not end a line: opening brackets and quotes
NO_BREAK_AFTER = frozenset("（「『【〈《〔［｛〖〘〚‘“([{")
# dashes and ellipses written twice (—— ……) stay together
PAIRED = frozenset("—…")


@lru_cache(maxsize=4096)
def is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def may_break_between(before: str, after: str) -> bool:
    """A break opportunity between two characters with no space between them."""
    if before.isspace() or after.isspace():
        return False   # whitespace breaks are found by the caller, after the run of spaces
    if not (is_wide(before) or is_wide(after)):
        return False
    if after in NO_BREAK_BEFORE or before in NO_BREAK_AFTER:
        return False
    return not (before == after and before in PAIRED)


def units(text: str) -> list[str]:
    """The text cut at every break opportunity; each piece keeps the spaces that follow it."""
    pieces: list[str] = []
    start = 0
    for index in range(1, len(text)):
        before, after = text[index - 1], text[index]
        if (before.isspace() and not after.isspace()) or may_break_between(before, after):
            pieces.append(text[start:index])
            start = index
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def break_offsets(text: str, width: int) -> list[int]:
    """Character offsets at which to break one line (no newlines in it) to fit ``width`` cells:
    greedy, like the terminal's own wrapping, and a piece wider than a line is folded."""
    width = max(1, width)
    offsets: list[int] = []
    used = 0        # cells on the current line
    position = 0    # characters consumed
    for piece in units(text):
        needed = cell_len(piece.rstrip())
        if used and used + needed > width:
            offsets.append(position)
            used = 0
        if needed > width:   # longer than any line: fold it where it stands
            folded = chop_cells(piece, width)   # the line is empty here: the break came first
            for part in folded[:-1]:
                position += len(part)
                offsets.append(position)
            position += len(folded[-1])
            used = cell_len(folded[-1])
            continue
        position += len(piece)
        used += cell_len(piece)
    return offsets


MIN_ROOM = 16   # cells a text needs beside what starts its line (a short one fits in that); narrower, it goes below


def wrapped_lines(text: str, width: int) -> list[str]:
    """One paragraph (no newlines) as lines of at most ``width`` cells, each without the spaces
    it was broken at."""
    offsets = [0, *break_offsets(text, width), len(text)]
    return [text[a:b].rstrip() for a, b in zip(offsets, offsets[1:])]


def hanging_lines(start: str, text: str, width: int | None) -> list[str]:
    """``start`` then ``text``, broken to ``width`` cells with the continuation lines indented under
    the text, so a column of descriptions beside names stays a column; with less than ``MIN_ROOM``
    cells beside ``start`` the text goes below it, indented.  ``width`` None: one line (a pipe)."""
    indent = cell_len(start)
    if width is None or cell_len(start + text) <= width:
        return [(start + text).rstrip()]
    lines = []
    if width - indent < MIN_ROOM:
        lines, start, indent = [start.rstrip()], " " * 6, 6
    pieces = wrapped_lines(text, width - indent)
    return lines + [(start + pieces[0]).rstrip()] + [" " * indent + piece for piece in pieces[1:]]
