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
the per-pair ratios (goal: at most 1.3).  ``--baseline COMMAND`` adds another tutor (the same
code before a change: ``--baseline "env -C /tmp/main-copy python -m tutor"``) to the same
alternation, so a change is measured against what it changes on the same machine at the same
moment, and prints its figures beside the tutor's.  Beside the wall-clock times it prints the CPU time
each app had used by its first paint (from /proc, where there is one): on a shared machine the
wall clock measures the neighbours as much as the app, while CPU time mostly measures the app.
The main thread's CPU time is printed too: it leaves out work done beside the UI on other
threads (a library loading in the background would count in the process's total).

    python bench/startup.py [--runs 9] [--cold] [--baseline COMMAND]
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


def cpu_seconds(pid: int, thread: int | None = None) -> float | None:
    """User + system CPU time the process (or one of its threads) has used so far (Linux /proc),
    or None elsewhere."""
    path = f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat"
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
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
                first_paint, paint_cpu = now, (cpu_seconds(pid), cpu_seconds(pid, thread=pid))
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
    parser.add_argument("--baseline", metavar="COMMAND",
                        help="another tutor command timed in the same alternation (before a change), figures beside")
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
    tutors = {"tutor": tutor}
    if args.baseline:
        tutors["baseline"] = shlex.split(args.baseline)
    for command in tutors.values():   # execv takes a path, not a name to look up
        command[0] = shutil.which(command[0]) or command[0]
    for command in tutors.values():   # fills the caches and the OS file cache; not counted
        # up to "model ready": torch is imported after the first paint, so a run stopped there left
        # most of torch's modules to be compiled into the private bytecode cache by the first
        # counted run (3.4 s where the others took 1.6)
        one_run(command, env, wait_for_model=True)
    one_run(bare_command(tracks, lessons), env, wait_for_model=False)
    figures = {name: Figures() for name in tutors}
    bares = []
    for i in range(args.runs):
        names = [*tutors, "bare"]
        order = names if i % 2 == 0 else names[::-1]
        got = {}
        for name in order:
            if name == "bare":
                got[name] = one_run(bare_command(tracks, lessons), env, wait_for_model=False)
                continue
            if args.cold:
                shutil.rmtree(os.path.join(cache, "tutor"), ignore_errors=True)   # the lessons, not the bytecode
            got[name] = one_run(tutors[name], env, wait_for_model=True)
        bare, _, bare_cpu = got["bare"]
        bares.append(bare)
        texts = [figures[name].add(name, *got[name], bare, bare_cpu) for name in tutors]
        print(f"run {i + 1}: {'; '.join(texts)}; bare {bare:.3f} s", flush=True)
    shutil.rmtree(cache, ignore_errors=True)
    print(f"bare_first_paint_s {statistics.median(bares):.3f}")
    for name in reversed(tutors):   # the tutor's own lines last, as before
        figures[name].summary("" if name == "tutor" else f"{name}_")


class Figures:
    """One tutor command's runs, each against the bare app run in the same round."""

    def __init__(self) -> None:
        self.paints, self.readies, self.ratios, self.cpu_ratios, self.main_cpu_ratios = [], [], [], [], []

    def add(self, name: str, paint: float, ready: float | None, paint_cpu: tuple, bare: float, bare_cpu: tuple) -> str:
        """``paint_cpu``/``bare_cpu``: (the whole process's CPU seconds, its main thread's), either None."""
        self.paints.append(paint)
        self.ratios.append(paint / bare)
        self.readies.append(ready)
        ready_text = f"{ready:.3f} s" if ready is not None else "not ready (see the app)"
        cpu_text = ""
        (cpu, main_cpu), (bare_all, bare_main) = paint_cpu, bare_cpu
        if cpu and bare_all:
            self.cpu_ratios.append(cpu / bare_all)
            cpu_text = f", CPU {cpu:.2f} s vs {bare_all:.2f} s, ratio {cpu / bare_all:.2f}"
        if main_cpu and bare_main:
            self.main_cpu_ratios.append(main_cpu / bare_main)
            cpu_text += f" (main thread {main_cpu:.2f} s vs {bare_main:.2f} s, ratio {main_cpu / bare_main:.2f})"
        return f"{name} first paint {paint:.3f} s (model ready {ready_text}), ratio {paint / bare:.2f}{cpu_text}"

    def summary(self, prefix: str) -> None:
        readies = [r for r in self.readies if r is not None]
        if readies:
            print(f"{prefix}model_ready_s {statistics.median(readies):.3f}")
            if len(readies) == len(self.paints):
                after = [r - p for r, p in zip(readies, self.paints)]
                print(f"{prefix}model_ready_after_paint_s {statistics.median(after):.3f} "
                      f"(quartiles {quartiles(after)})")
        if self.cpu_ratios:
            print(f"{prefix}cpu_to_first_paint_vs_bare {statistics.median(self.cpu_ratios):.3f} "
                  f"(quartiles {quartiles(self.cpu_ratios)})")
        if self.main_cpu_ratios:   # a thread that works beside the UI (a library preload) is left out
            print(f"{prefix}main_thread_cpu_to_first_paint_vs_bare {statistics.median(self.main_cpu_ratios):.3f} "
                  f"(quartiles {quartiles(self.main_cpu_ratios)})")
        print(f"{prefix}first_paint_s {statistics.median(self.paints):.3f}")
        print(f"{prefix}ratio quartiles {quartiles(self.ratios)}; load average {os.getloadavg()[0]:.2f}")
        print(f"{prefix}startup_vs_bare {statistics.median(self.ratios):.3f}")


def quartiles(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"{q[0]:.2f}..{q[2]:.2f}"

if __name__ == "__main__":
    main()
