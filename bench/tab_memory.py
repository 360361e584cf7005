"""Where one tab's memory goes: the tutor app's PSS step by step, as a served tab reaches a lesson.

Run:  python bench/tab_memory.py [--lesson la-tensors] [--home DIR]

One fresh interpreter (as a tab is, with OMP_NUM_THREADS=1 as a served tab has it) prints its own
proportional set size (PSS, /proc/self/smaps_rollup) after each step: Python alone, torch, Textual,
the tutor's app modules, every lesson read, the roadmap drawn (headless), the model loaded, SymPy
(which drawing a lesson's formula imports), and a lesson open with its live tensors.
Beside each: the MB it added and whether SymPy is loaded.  bench/hub_class.py measures the same tab
served on a hub; this says which part of it is what, for deciding what could be saved.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")   # as tutor.web.TAB_THREADS gives a served tab

import argparse  # noqa: E402
import asyncio  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

LAST = [0.0]


def pss_mb() -> float:
    with open("/proc/self/smaps_rollup") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("Pss:")) / 1024


def step(name: str) -> None:
    now = pss_mb()
    print(f"  {name:<44} {now:6.1f} MB  (+{now - LAST[0]:5.1f})  sympy {'yes' if 'sympy' in sys.modules else 'no'}",
          flush=True)
    LAST[0] = now


async def walk(home: Path, lesson: str) -> None:
    from tutor.course.catalog import load_catalog
    from tutor.ui.app import TutorApp

    step("the tutor's app modules")
    load_catalog()
    step("every lesson read (the roadmap's catalog)")
    app = TutorApp(preload_model=False, home=home, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "RoadmapScreen":
                break
        step(f"roadmap drawn ({type(app.screen).__name__})")
        await asyncio.to_thread(app.hub.ensure_loaded)
        step("model loaded")
        import tutor.formulas.display  # noqa: F401  (SymPy: what drawing the lesson's formula imports)

        step("SymPy (the lesson's formula will be drawn)")
        app.open_lesson(lesson, 0)
        for _ in range(1200):
            await pilot.pause(0.05)
            if getattr(app.screen, "live", None) is not None:
                break
        step(f"lesson {lesson} open, live tensors ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="la-tensors")
    parser.add_argument("--home", type=Path, default=None, help="a tutor home (default: a fresh one)")
    args = parser.parse_args()
    print(f"one tab's PSS, step by step; load average {os.getloadavg()[0]:.2f}")
    step("Python")
    import torch  # noqa: F401

    step("torch")
    import textual.app  # noqa: F401

    step("Textual")
    home = args.home or Path(tempfile.mkdtemp(prefix="tutor-tab-memory-"))
    asyncio.run(walk(home, args.lesson))


if __name__ == "__main__":
    main()
