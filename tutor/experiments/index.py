"""Writes ``tutor/course/experiment_index.py``: every registered experiment's name and cost.

Why a written file: a lesson names its experiments and the compute budget adds up their costs
when the file loads, and that must not import the experiments (18 modules, and a layer above
the course).  Each cost is declared once, in the experiment's ``@experiment`` decorator; this
tool copies the table down, and tests/test_experiments_registry.py fails while the copy is stale.

    python -m tutor.experiments.index          # rewrite the index
    python -m tutor.experiments.index --check  # exit 1 if it is stale
"""
from __future__ import annotations

import sys
from pathlib import Path

INDEX = Path(__file__).resolve().parents[1] / "course" / "experiment_index.py"

HEADER = '''"""Every experiment a lesson may name, with its cost: (forward passes, copies of the weights held).

Written by ``python -m tutor.experiments.index`` from the ``@experiment`` decorators, where each
cost is declared; do not edit by hand (tests/test_experiments_registry.py fails when it is stale).
"""

EXPERIMENT_COSTS: dict[str, tuple[float, float]] = {
'''


def render() -> str:
    from tutor.experiments import COSTS

    rows = "".join(f'    "{name}": ({passes!r}, {copies!r}),\n' for name, (passes, copies) in sorted(COSTS.items()))
    return HEADER + rows + "}\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = INDEX.read_text(encoding="utf-8") if INDEX.exists() else ""
        print("up to date" if current == text else "stale: run python -m tutor.experiments.index")
        return 0 if current == text else 1
    INDEX.write_text(text, encoding="utf-8")
    print(f"wrote {INDEX}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
