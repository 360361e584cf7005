"""A bracketed paste reaches the app as text, never as key presses.

Why: Textual's xterm parser (8.2) collects a bracketed paste (``ESC[200~ … ESC[201~``) as one
Paste event, but an escape sequence *inside* the paste that it does not recognise is reissued
as keys, BEL included.  Pasting ``(B, H, L, L)\\x1b]0;x\\x07`` (text copied from a terminal with a
title sequence in it) pressed ``^ ] 0 ; x`` and then Ctrl+G, which gave the question up and
recorded it as missed (2026-12-reliability.md row 43).  Here the terminal's input is filtered
before the parser sees it: between the paste markers every control character but tab and newline
is dropped, so the parser sees plain text; outside a paste nothing is touched or held back
(a lone Escape key still arrives at once).
"""
from __future__ import annotations

import re

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_PASTED_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # all C0 but tab and newline, DEL, C1


def pasted_text(text: str) -> str:
    """What of a paste is text: control characters removed (a tab and a newline stay)."""
    return _PASTED_CONTROLS.sub("", text)


class PasteFilter:
    """Feed it the terminal's input chunk by chunk; it returns the same input with the controls inside
    bracketed pastes removed.  A paste marker split between two reads is still found."""

    def __init__(self) -> None:
        self.in_paste = False
        self.tail = ""      # the end of the input already passed on, where a start marker may have begun
        self.pending = ""   # inside a paste: the end of a chunk that may be the start of the end marker

    def __call__(self, data: str) -> str:
        if not data:
            return data
        out = []
        while data:
            if not self.in_paste:
                seen = self.tail + data
                found = seen.find(PASTE_START)
                if found < 0:
                    out.append(data)
                    self.tail = seen[-(len(PASTE_START) - 1):]
                    return "".join(out)
                cut = found + len(PASTE_START) - len(self.tail)   # where the paste starts, in ``data``
                out.append(data[:cut])
                data, self.tail, self.in_paste = data[cut:], "", True
            else:
                seen = self.pending + data
                found = seen.find(PASTE_END)
                if found < 0:
                    keep = next((n for n in range(len(PASTE_END) - 1, 0, -1) if seen.endswith(PASTE_END[:n])), 0)
                    self.pending = seen[len(seen) - keep:] if keep else ""
                    out.append(pasted_text(seen[:len(seen) - keep]))
                    return "".join(out)
                out.append(pasted_text(seen[:found]) + PASTE_END)
                data, self.pending, self.in_paste = seen[found + len(PASTE_END):], "", False
        return "".join(out)


def paste_safe_parser(parser_class):
    """``parser_class`` (Textual's XTermParser) with its input passed through a :class:`PasteFilter`."""

    class PasteSafeParser(parser_class):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._paste_filter = PasteFilter()

        def feed(self, data: str):
            return super().feed(self._paste_filter(data))

    return PasteSafeParser
