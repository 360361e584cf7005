"""argparse help laid out by terminal cells, not characters.

argparse measures with ``len()`` and breaks with ``textwrap``, which only breaks at spaces.  A
Chinese help line is one "word" two cells per character wide, so ``COLUMNS=80 tutor --lang zh
lessons check --help`` ran to 121 cells and the terminal cut it mid-word ("指/定）").  This
formatter breaks where ``wide_wrap`` allows (between CJK characters, never before a closing
mark) and measures every width in cells, so the help fits the terminal at any COLUMNS in
either language.  English breaks exactly where textwrap would: only at spaces.
"""
from __future__ import annotations

import argparse
import re

from rich.cells import cell_len

from tutor.common.wide_wrap import wrapped_lines


# where an overlong line may break: after a space, or after a choice's ',' ({learned,sinusoidal,none})
USAGE_BREAK = re.compile(r"(?<= )(?=\S)|(?<=,)(?=\S)")


class CellHelpFormatter(argparse.HelpFormatter):
    """HelpFormatter whose widths are terminal cells (East Asian wide characters count two)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrapped_lines(self._whitespace_matcher.sub(" ", text).strip(), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        flat = self._whitespace_matcher.sub(" ", text).strip()
        return "\n".join(indent + line for line in wrapped_lines(flat, width - cell_len(indent)))

    def _format_usage(self, usage, actions, groups, prefix) -> str:
        # argparse wraps the usage after a prefix it counts in characters; "用法：" is 3 of them and
        # 6 cells, so give the wrapping the prefix's extra cells back
        shown = argparse._("usage: ") if prefix is None else prefix
        extra = cell_len(shown) - len(shown)
        self._width -= extra
        try:
            return super()._format_usage(usage, actions, groups, prefix)
        finally:
            self._width += extra

    def _format_action_invocation(self, action: argparse.Action) -> str:
        # the invocation column is padded with '%-*s' (characters): pad a wide metavar by cells
        invocation = super()._format_action_invocation(action)
        return invocation + "\0" * (cell_len(invocation) - len(invocation))

    def format_help(self) -> str:
        lines = super().format_help().replace("\0", "").split("\n")
        folded = []
        for number, line in enumerate(lines):
            following = lines[number + 1] if number + 1 < len(lines) else ""
            folded += fold_line(line, self._width, _continuation_indent(line, following))
        return "\n".join(folded)


def _continuation_indent(line: str, following: str) -> int:
    """Where a folded line goes on: under its own text, or (the usage's first line) where
    argparse indents the usage's next line."""
    own = len(line) - len(line.lstrip(" "))
    if own or not following.startswith(" "):
        return own + 2
    return len(following) - len(following.lstrip(" "))


def fold_line(line: str, width: int, indent: int) -> list[str]:
    """argparse never breaks inside one usage part or an option's invocation, so a group of
    alternatives ``[--export FILE | --import FILE | …]``, choices ``{learned,sinusoidal,none}``
    or ``[--eval-interval EVAL_INTERVAL]`` ran past the terminal: break such a line at its spaces
    and commas.  A line that fits is left as argparse laid it out."""
    if cell_len(line) <= width:
        return [line]
    pad = " " * (indent if indent < width // 2 else 4)
    lines, current = [], ""
    for piece in USAGE_BREAK.split(line):
        if current.strip() and cell_len(current + piece.rstrip()) > width:
            lines.append(current.rstrip())
            current = pad + piece.lstrip(" ")
        else:
            current += piece
    return lines + [current.rstrip()]


class CellArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser (and, through add_subparsers, every subparser) that lays out help by cells."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", CellHelpFormatter)
        super().__init__(*args, **kwargs)
