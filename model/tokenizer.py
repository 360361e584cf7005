"""A character tokenizer with a fixed, printable vocabulary.

A fixed vocabulary means any prompt a learner types can be encoded, and a checkpoint's
vocabulary can be compared character for character when it is loaded.
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field

from .messages import M_

UNKNOWN = "?"
DEFAULT_CHARS = "\n" + "".join(chr(c) for c in range(32, 127))  # newline + printable ASCII


@dataclass(frozen=True)
class CharTokenizer:
    chars: str = DEFAULT_CHARS
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(set(self.chars)) != len(self.chars):
            raise ValueError(M_("tokenizer characters must be unique"))
        if UNKNOWN not in self.chars:
            raise ValueError(M_("tokenizer must contain the unknown marker {marker!r}", marker=UNKNOWN))
        object.__setattr__(self, "_index", {ch: i for i, ch in enumerate(self.chars)})

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        unknown = self._index[UNKNOWN]
        return [self._index.get(ch, unknown) for ch in text]

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)

    def token_label(self, token_id: int) -> str:
        """A printable label for one token, for axes and tables."""
        return char_label(self.chars[int(token_id)])


def char_label(ch: str) -> str:
    """How a token's character is printed on its own: a space or a newline would be invisible."""
    return {"\n": "\\n", " ": "␣"}.get(ch, ch) if ch not in string.ascii_letters + string.digits else ch
