"""Where a problem is in a lesson file: each message pinned to the line and column of its field.

Both the static and the live checker report through ``Pinned``, so it sits below them.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from tutor.course.loader import Problem, column_in_value, locate, value_node


class Pinned:
    """Problems for one file, each placed at the line of the field it is about."""

    def __init__(self, path: Path, root: yaml.Node | None):
        self.path, self.root = path, root
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []   # worth a look, not a failure
        self.first_only = False   # set while checking extra size variants: one report per field is enough

    def add(self, loc: tuple, message: str, at: tuple[int, int] | None = None) -> None:
        line, col = at or locate(self.root, loc)
        problem = Problem(str(self.path), line, col, ".".join(str(p) for p in loc), message)
        if self.first_only and any(p.field == problem.field for p in self.problems):
            return
        if problem not in self.problems:
            self.problems.append(problem)

    def warn(self, loc: tuple, message: str, at: tuple[int, int] | None = None) -> None:
        line, col = at or locate(self.root, loc)
        warning = Problem(str(self.path), line, col, ".".join(str(p) for p in loc), message)
        if warning not in self.warnings:
            self.warnings.append(warning)



def placeholder_at(pinned: Pinned, loc: tuple, offset: int) -> tuple[int, int] | None:
    """File line and column of character ``offset`` of a text field, where the file allows:
    one-line scalars and ``|`` blocks; otherwise None (the field's own position)."""
    node = value_node(pinned.root, loc)
    if node is None or not isinstance(node, yaml.ScalarNode):
        return None
    if node.start_mark.line == node.end_mark.line:
        return column_in_value(node, offset + 1)
    if node.style != "|":
        return None
    before = node.value[:offset]
    row = before.count("\n")
    line = node.start_mark.line + 2 + row            # the content starts on the line after '|'
    try:
        file_line = pinned.path.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return line, 1
    content = node.value.split("\n")[row]
    indent = file_line.find(content) if content else -1
    return line, (indent if indent >= 0 else 0) + len(before) - (before.rfind("\n") + 1) + 1
