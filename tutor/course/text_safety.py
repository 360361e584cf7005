"""Lesson text that would drive the terminal, found at its line and column.

A lesson's strings reach the roadmap, the lesson screen and ``tutor lessons list``.  YAML
forbids a raw ESC in a file, but a double-quoted scalar may spell one (``"\\e[2J"``,
``"\\x1b]0;title\\x07"``, ``"\\u202e"``), and bidi overrides are printable as far as YAML is
concerned.  The loader calls ``unsafe_text_in`` on the node tree, where every scalar's value
is already unescaped and still carries its position, and turns each hit into a problem, so
such a lesson never loads and its author is told where to look.  Newlines and tabs stay
allowed: block scalars are made of them.

Invisible characters are refused too (a tester's title held U+200B, U+200E/U+200F, U+061C and
a tag character U+E0041, all accepted and shown): the Unicode format characters (Cf) and the line
and paragraph separators (U+2028/U+2029), which a terminal draws as nothing or breaks a line on,
so a title or prompt would read differently from what it holds.  No lesson needs one.
"""
from __future__ import annotations

import re
from typing import Iterator

import yaml

from tutor.common.i18n import M_, N_
from tutor.common.safe_text import UnsafeChar, find_unsafe, one_line

MESSAGE = N_("text holds {what}, a control, bidi, invisible or line-separator character that could drive "
             "the terminal or make the text read differently from what it holds; remove it")
# Unicode's Cf, Zl and Zp categories (as of Unicode 15); tests/test_lesson_text_safety.py checks
# them against unicodedata, so a newer Python's additions are noticed.
HIDDEN = re.compile("[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
                    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
                    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
                    "\U000e0020-\U000e007f]")


def hidden_or_unsafe(text: str) -> list[UnsafeChar]:
    """Every character a lesson may not hold: what ``find_unsafe`` finds, and invisible ones."""
    hits = {hit.offset: hit for hit in find_unsafe(text)}
    hits.update((m.start(), UnsafeChar(m.start(), m.group())) for m in HIDDEN.finditer(text))
    return [hits[offset] for offset in sorted(hits)]


def unsafe_text_in(root: yaml.Node | None) -> list[tuple[int, int, str, str]]:
    """(line, column, field, message) for every key or value holding an unsafe character.

    One report per scalar (its first unsafe character, with how many more it holds), so an
    escape sequence of five characters is one problem, not five.
    """
    found = []
    for node, trail in scalar_nodes(root, ""):
        hits = hidden_or_unsafe(str(node.value))
        if not hits:
            continue
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        if node.start_mark.line == node.end_mark.line and not node.style:
            column += hits[0].offset   # a plain one-line scalar: the offset is the column
        what = M_("{what} (and {count} more)", what=hits[0].description, count=len(hits) - 1) \
            if len(hits) > 1 else hits[0].description
        found.append((line, column, one_line(trail), M_(MESSAGE, what=what)))
    return found


def reader_error_problem(text: str, error: yaml.reader.ReaderError) -> tuple[int, int, str, str]:
    """(line, column, field, message) for a character YAML refuses outright (a raw ESC or NUL)."""
    before = text[: error.position]
    line, column = before.count("\n") + 1, error.position - (before.rfind("\n") + 1) + 1
    what = find_unsafe(chr(error.character), keep="")
    shown = what[0].description if what else f"U+{error.character:04X}"
    return line, column, "", M_(MESSAGE, what=shown)


def scalar_nodes(node: yaml.Node | None, field: str) -> Iterator[tuple[yaml.ScalarNode, str]]:
    """Every scalar under ``node`` (keys before their values) with the dotted field it belongs to
    (``questions.0.prompt``); the loader walks the same tree for values it cannot construct."""
    def child(name) -> str:
        return f"{field}.{name}" if field else str(name)

    if isinstance(node, yaml.ScalarNode):
        yield node, field
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = child(key.value) if isinstance(key, yaml.ScalarNode) else field
            yield from scalar_nodes(key, name)
            yield from scalar_nodes(value, name)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from scalar_nodes(item, child(i))
