"""Time from process start to the first painted roadmap, against a bare Textual app of its shape.

Runs the real ``tutor`` command in a pseudo-terminal (as a learner's terminal would) and
watches its output: the roadmap's status line marks the first paint, the header's
"model ready" marks the model.  Alternating with it (A B, B A, ... so a shared machine's
slow spells hit both alike), the same script runs a bare Textual app of the roadmap's shape:
a header, a status line, a tree with as many tracks and lessons, a footer; nothing else.
Its status line carries the same mark, so both are timed the same way.

Each run starts with a fresh learner home (the roadmap, not a resumed lesson) but the same
user cache, as on a learner's second start; ``--cold`` gives every tutor run an empty lesson
cache.  Both apps run with compiled bytecode, as ``pip install`` leaves them: where
PYTHONDONTWRITEBYTECODE is set (as in some sandboxes), the tutor's own modules would be
compiled from source on every start while Textual's come precompiled, so the script gives
both a private PYTHONPYCACHEPREFIX instead (``--no-bytecode`` keeps the environment's setting).

Prints each run, then the medians; the last line is ``startup_vs_bare X``, the median of
the per-pair ratios (goal: at most 1.3).  Beside the wall-clock times it prints the CPU time
each app had used by its first paint (from /proc, where there is one): on a shared machine the
wall clock measures the neighbours as much as the app, while CPU time mostly measures the app.

    python bench/startup.py [--runs 9] [--cold]
"""
from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import shlex
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

FIRST_PAINT_MARK = b"lessons in"
MODEL_READY_MARK = b"model ready"
MODEL_FAILED_MARK = b"model failed"


def tutor_command() -> list[str]:
    found = shutil.which("tutor")
    return [found] if found else [sys.executable, "-m", "tutor"]


def bare_command(tracks: int, lessons: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--bare-app", f"{tracks},{lessons}"]


def run_bare_app(shape: str) -> None:
    """The yardstick: Textual's own widgets, the roadmap's shape, no tutor code."""
    from textual.app import App
    from textual.widgets import Footer, Header, Static, Tree

    tracks, lessons = (int(n) for n in shape.split(","))

    class Bare(App):
        def compose(self):
            yield Header()
            yield Static(f"{lessons} lessons in {tracks} tracks")
            yield Tree("Roadmap")
            yield Footer()

        def on_mount(self) -> None:
            tree = self.query_one(Tree)
            tree.show_root = False
            tree.root.add_leaf("Review")
            tree.root.add_leaf("Stats")
            for t in range(tracks):
                node = tree.root.add(f"Track {t}", expand=True)
                for i in range(t, lessons, tracks):
                    node.add_leaf(f"Lesson {i}")
            tree.focus()

    Bare().run()


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time the process has used so far (Linux /proc), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(command: list[str], env: dict[str, str | None], wait_for_model: bool,
            timeout: float = 60.0) -> tuple[float, float | None, float | None]:
    home = tempfile.mkdtemp(prefix="tutor-bench-")   # a new learner: the roadmap, not a resumed lesson
    pid, fd = pty.fork()
    if pid == 0:  # child: become the tutor
        os.environ.update({k: v for k, v in env.items() if v is not None})
        os.environ["TERM"] = "xterm-256color"
        os.environ["TUTOR_HOME"] = home
        for name, value in env.items():
            if value is None:
                os.environ.pop(name, None)
        os.execv(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    start = time.perf_counter()
    seen = b""
    first_paint = model_ready = paint_cpu = None
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            seen = (seen + chunk)[-200_000:]
            now = time.perf_counter() - start
            if first_paint is None and FIRST_PAINT_MARK in seen:
                first_paint, paint_cpu = now, cpu_seconds(pid)
                if not wait_for_model:
                    break
            if MODEL_FAILED_MARK in seen:
                break
            if model_ready is None and MODEL_READY_MARK in seen:
                model_ready = now
                break
    finally:
        os.write(fd, b"q")
        time.sleep(0.3)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
        shutil.rmtree(home, ignore_errors=True)
    if first_paint is None:
        raise SystemExit(f"{command} never painted; run it by hand to see why")
    return first_paint, model_ready, paint_cpu


def roadmap_shape() -> tuple[int, int]:
    from tutor.course.catalog import load_catalog

    catalog = load_catalog()
    return len(catalog.index.tracks), len(catalog.lessons)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cold", action="store_true", help="an empty user cache for every tutor run")
    parser.add_argument("--tutor", metavar="COMMAND", help="run this instead of `tutor` (e.g. another checkout)")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as the environment has it (modules compiled on every start)")
    parser.add_argument("--bare-app", metavar="TRACKS,LESSONS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_app:
        run_bare_app(args.bare_app)
        return
    tutor = shlex.split(args.tutor) if args.tutor else tutor_command()
    tracks, lessons = roadmap_shape()
    cache = tempfile.mkdtemp(prefix="tutor-bench-cache-")
    env: dict[str, str | None] = {"XDG_CACHE_HOME": cache}
    if not args.no_bytecode:
        env.update(PYTHONDONTWRITEBYTECODE=None, PYTHONPYCACHEPREFIX=os.path.join(cache, "bytecode"))
    print(f"roadmap: {tracks} tracks, {lessons} lessons; {'cold' if args.cold else 'warm'} lesson cache; "
          f"{'no ' if args.no_bytecode and os.environ.get('PYTHONDONTWRITEBYTECODE') else ''}bytecode cache; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    one_run(tutor, env, wait_for_model=False)   # fills the cache and the OS file cache; not counted
    one_run(bare_command(tracks, lessons), env, wait_for_model=False)
    paints, bares, readies, ratios, cpu_ratios = [], [], [], [], []
    for i in range(args.runs):
        order = ("tutor", "bare") if i % 2 == 0 else ("bare", "tutor")
        got = {}
        for name in order:
            if name == "tutor":
                if args.cold:
                    shutil.rmtree(os.path.join(cache, "tutor"), ignore_errors=True)   # the lessons, not the bytecode
                got[name] = one_run(tutor, env, wait_for_model=True)
            else:
                got[name] = one_run(bare_command(tracks, lessons), env, wait_for_model=False)
        paint, ready, paint_cpu = got["tutor"]
        bare, _, bare_cpu = got["bare"]
        paints.append(paint)
        bares.append(bare)
        ratios.append(paint / bare)
        if ready is not None:
            readies.append(ready)
        ready_text = f"{ready:.3f} s" if ready is not None else "not ready (see the app)"
        cpu_text = ""
        if paint_cpu and bare_cpu:
            cpu_ratios.append(paint_cpu / bare_cpu)
            cpu_text = f"; CPU {paint_cpu:.2f} s vs {bare_cpu:.2f} s, ratio {paint_cpu / bare_cpu:.2f}"
        print(f"run {i + 1}: tutor first paint {paint:.3f} s (model ready {ready_text}), bare {bare:.3f} s, "
              f"ratio {paint / bare:.2f}{cpu_text}", flush=True)
    shutil.rmtree(cache, ignore_errors=True)
    if readies:
        print(f"model_ready_s {statistics.median(readies):.3f}")
        after = [r - p for r, p in zip(readies, paints)] if len(readies) == len(paints) else []
        if after:
            print(f"model_ready_after_paint_s {statistics.median(after):.3f}")
    if cpu_ratios:
        print(f"cpu_to_first_paint_vs_bare {statistics.median(cpu_ratios):.3f}")
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print(f"bare_first_paint_s {statistics.median(bares):.3f}")
    print(f"first_paint_s {statistics.median(paints):.3f}")
    print(f"ratio quartiles {q[0]:.2f}..{q[2]:.2f}; load average {os.getloadavg()[0]:.2f}")
    print(f"startup_vs_bare {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
