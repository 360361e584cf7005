"""Untrusted text made harmless for a terminal: no control characters, escapes or bidi overrides.

Why: a lesson title, a checkpoint's metadata, an import file or a model's output is written
by someone else, and a terminal obeys what it prints.  ``ESC [2J`` clears the screen, ``ESC ]0;…``
sets the window title, a C1 ``CSI`` (U+009B) does what ``ESC [`` does on some terminals, and
U+202E reverses the text after it so a line reads differently from what it holds.  Rich and
Textual drop only a few of these (BEL, BS, CR, VT, FF), so everything else is neutralised here,
at the boundary, before the text is stored in a widget or printed.

Each dangerous character becomes a visible stand-in rather than vanishing, so an author sees
that a file holds something odd: C0 controls and DEL become their Control Pictures (ESC shows
as ␛, which also leaves the rest of an escape sequence as inert text), C1 controls and bidi
controls become U+FFFD.  ``find_unsafe`` reports the same characters with their offsets, for
checkers that point at them.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
REPLACEMENT = "\ufffd"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
_DEFAULT_KEEP = "\n\t"


@dataclass(frozen=True)
class UnsafeChar:
    offset: int          # index in the string
    char: str

    @property
    def description(self) -> str:
        """'U+001B (ESCAPE)': the code point and its name, never the character itself."""
        code = ord(self.char)
        name = unicodedata.name(self.char, "") or _C0_NAMES.get(code, "control character")
        return f"U+{code:04X} ({name})"


_C0_NAMES = {0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x09: "TAB", 0x0A: "LINE FEED",
             0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE", 0x9B: "CONTROL SEQUENCE INTRODUCER",
             0x9D: "OPERATING SYSTEM COMMAND"}


def _stand_in(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)      # Control Pictures: ␀ … ␟ (␛ for ESC)
    if code == 0x7F:
        return "\u2421"                # ␡
    return REPLACEMENT                 # C1 controls and bidi overrides have no picture


def find_unsafe(text: str, keep: str = _DEFAULT_KEEP) -> list[UnsafeChar]:
    """Every character ``neutralise`` would replace, in order; ``keep`` lists the allowed ones."""
    return [UnsafeChar(m.start(), m.group()) for m in _UNSAFE.finditer(text) if m.group() not in keep]


def neutralise(text: str, keep: str = _DEFAULT_KEEP) -> str:
    """``text`` with every control, escape introducer and bidi override made visible and inert.

    ``keep`` names the characters the caller can display safely (newline and tab by default;
    pass ``""`` for a one-line label).  Everything else printable is left exactly as it was.
    """
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _stand_in(m.group()), text)


def one_line(text: str) -> str:
    """A label that must stay on one line: newlines and tabs are neutralised too."""
    return neutralise(text, keep="")


def is_safe(text: str, keep: str = _DEFAULT_KEEP) -> bool:
    return not find_unsafe(text, keep)
