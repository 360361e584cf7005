"""Probe references such as ``blocks.0.attn.pattern[0, 1, 2, :]``.

Lesson files name slices of probes.  They are parsed with a regular grammar (integers,
slices and ``:`` only), never evaluated, because a lesson file is untrusted input.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.common.i18n import M_

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*")
_INT = re.compile(r"-?\d{1,6}")


class ProbeRefError(ValueError):
    """A probe reference that does not follow ``name[i, j, a:b]``."""


@dataclass(frozen=True)
class ProbeRef:
    name: str
    index: tuple[int | slice, ...] = ()

    def __str__(self) -> str:
        if not self.index:
            return self.name
        return f"{self.name}[{', '.join(_format_part(p) for p in self.index)}]"

    def select(self, array):
        """Apply the index to a numpy array, with a clear error when it does not fit."""
        if len(self.index) > array.ndim:
            raise ProbeRefError(M_("{ref} indexes {count} axes but {name} has {ndim} {shape}", ref=str(self),
                                     count=len(self.index), name=self.name, ndim=array.ndim, shape=tuple(array.shape)))
        for axis, part in enumerate(self.index):
            if isinstance(part, int) and not -array.shape[axis] <= part < array.shape[axis]:
                raise ProbeRefError(M_("{ref}: index {index} is out of range for axis {axis} of size {size}", ref=str(self),
                                         index=part, axis=axis, size=array.shape[axis]))
        return array[self.index]


def _format_part(part: int | slice) -> str:
    if isinstance(part, int):
        return str(part)
    start = "" if part.start is None else str(part.start)
    stop = "" if part.stop is None else str(part.stop)
    return f"{start}:{stop}"


def _parse_part(text: str, ref: str) -> int | slice:
    text = text.strip()
    if _INT.fullmatch(text):
        return int(text)
    if ":" in text:
        pieces = [p.strip() for p in text.split(":")]
        if len(pieces) != 2 or not all(p == "" or _INT.fullmatch(p) for p in pieces):
            raise ProbeRefError(M_("{ref!r}: bad slice {text!r}; use start:stop with whole numbers", ref=ref, text=text))
        start, stop = (int(p) if p else None for p in pieces)
        return slice(start, stop)
    raise ProbeRefError(M_("{ref!r}: bad index {text!r}; use whole numbers, ':' or start:stop", ref=ref, text=text))


def parse_probe_ref(text: str) -> ProbeRef:
    """``name`` or ``name[i, j, a:b]`` -> ProbeRef; anything else raises ProbeRefError."""
    if not isinstance(text, str) or len(text) > 200:
        raise ProbeRefError(M_("a probe reference must be a short string such as blocks.0.attn.pattern[0, 0]"))
    text = text.strip()
    name, bracket, rest = text.partition("[")
    name = name.strip()
    if not _NAME.fullmatch(name):
        raise ProbeRefError(M_("{text!r}: {name!r} is not a probe name", text=text, name=name))
    if not bracket:
        return ProbeRef(name)
    if not rest.endswith("]") or "[" in rest[:-1] or "]" in rest[:-1]:
        raise ProbeRefError(M_("{text!r}: the index must be one [...] at the end", text=text))
    body = rest[:-1].strip()
    if not body:
        raise ProbeRefError(M_("{text!r}: empty index []", text=text))
    return ProbeRef(name, tuple(_parse_part(part, text) for part in body.split(",")))
