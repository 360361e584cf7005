"""Lesson prose as authors write it in YAML, laid out for a terminal of any width.

Authors hard-wrap their paragraphs; the terminal rewraps them at its own width, so the lines of
a paragraph are joined.  Two kinds of line keep a line of their own (docs/lessons.md, "Prose"):

- an indented line: a displayed formula, or one row of a hand-aligned list;
- a table row, a line that starts with ``|``: the rows in a row make a table, its cells split
  at ``|`` and padded to a common width per column (counted in terminal cells, so a Chinese
  cell lines up too); a row of dashes (``|---|---|``) becomes a rule under the header.

Why both: displayed formulas were already written indented, and a table whose columns the
author aligned with spaces falls apart in a translation, where the words change width.
"""
from __future__ import annotations

import re

from rich.cells import cell_len

RULE_CELL = re.compile(r"^:?-{3,}:?$")
GAP = "  "   # between two columns


def table_lines(rows: list[str]) -> list[str]:
    """``| a | b |`` rows as aligned lines; a row of dashes draws a rule as wide as the table."""
    cells = [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows]
    columns = max(len(row) for row in cells)
    cells = [row + [""] * (columns - len(row)) for row in cells]
    rules = [all(RULE_CELL.match(cell) for cell in row if cell) and any(row) for row in cells]
    widths = [max((cell_len(row[i]) for row, rule in zip(cells, rules) if not rule), default=0)
              for i in range(columns)]
    lines = []
    for row, rule in zip(cells, rules):
        if rule:
            lines.append("─" * (sum(widths) + len(GAP) * (columns - 1)))
        else:
            lines.append(GAP.join(cell + " " * (width - cell_len(cell)) for cell, width in zip(row, widths)).rstrip())
    return lines


def paragraph_lines(block: str) -> list[str]:
    """One paragraph: plain lines joined, indented lines and tables kept as lines."""
    out: list[str] = []
    joinable = False   # whether the last line out may take the next plain line
    rows: list[str] = []
    for line in block.splitlines() + [""]:
        if line.lstrip().startswith("|"):
            rows.append(line)
            continue
        if rows:
            out += table_lines(rows)
            rows, joinable = [], False
        if not line.strip():
            continue
        if line[:1].isspace():
            out.append(line.rstrip())
            joinable = False
        elif joinable:
            out[-1] += " " + line.strip()
        else:
            out.append(line.strip())
            joinable = True
    return out


def reflow(text: str) -> str:
    """Join an author's hard-wrapped lines so the terminal wraps them at its own width."""
    paragraphs = ["\n".join(paragraph_lines(block)) for block in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)
