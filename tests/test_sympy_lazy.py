"""SymPy (40 MB of every served tab, about a second of CPU) loads at the first formula drawn or graded,
not when the tutor starts: reading and validating every lesson needs only the formulas' trees.
Each check runs in a fresh interpreter, where sys.modules shows what was imported."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ROADMAP = """
import asyncio, sys
from tutor.ui.app import TutorApp

async def main():
    app = TutorApp(preload_model=False, home={home!r}, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "RoadmapScreen":
                break
        print("screen", type(app.screen).__name__)
        print("sympy at the roadmap", "sympy" in sys.modules)

asyncio.run(main())
"""

LESSONS = """
import sys
from tutor.course.catalog import load_catalog
from tutor.formulas.parse import parse_formula, render_formula

catalog = load_catalog()
formula = parse_formula("softmax(Q @ K.T / sqrt(d_k)) @ V", matrices=("Q", "K", "V"))
print("sympy after every lesson and a formula read", "sympy" in sys.modules)
drawn = render_formula(formula)
print("sympy once a formula is drawn", "sympy" in sys.modules, "ᵀ" in drawn)
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_app_reaches_the_roadmap_without_importing_sympy(tmp_path):
    out = run(ROADMAP.format(home=str(tmp_path)))
    assert "screen RoadmapScreen" in out
    assert "sympy at the roadmap False" in out


def test_every_lesson_validates_and_a_formula_reads_without_sympy_which_loads_to_draw_it():
    out = run(LESSONS)
    assert "sympy after every lesson and a formula read False" in out
    assert "sympy once a formula is drawn True True" in out
