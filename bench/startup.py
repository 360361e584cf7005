"""Time from process start to the first painted roadmap, and until the model is ready.

Runs the real ``tutor`` command in a pseudo-terminal (as a learner's terminal would) and
watches its output: the roadmap's status line marks the first paint, the header's
"model ready" marks the model.  Prints each run, then the medians; the last line is
``first_paint_s X``.

    python bench/startup.py [--runs 5]
"""
from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time

FIRST_PAINT_MARK = b"lessons in"
MODEL_READY_MARK = b"model ready"
MODEL_FAILED_MARK = b"model failed"


def tutor_command() -> list[str]:
    found = shutil.which("tutor")
    return [found] if found else [sys.executable, "-m", "tutor"]


def one_run(timeout: float = 60.0) -> tuple[float, float | None]:
    home = tempfile.mkdtemp(prefix="tutor-bench-")   # a new learner: the roadmap, not a resumed lesson
    pid, fd = pty.fork()
    if pid == 0:  # child: become the tutor
        os.environ["TERM"] = "xterm-256color"
        os.environ["TUTOR_HOME"] = home
        command = tutor_command()
        os.execv(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    start = time.perf_counter()
    seen = b""
    first_paint = model_ready = None
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
                first_paint = now
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
        raise SystemExit("the roadmap never painted; run `tutor` by hand to see why")
    return first_paint, model_ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    paints, readies = [], []
    for i in range(args.runs):
        paint, ready = one_run()
        paints.append(paint)
        if ready is not None:
            readies.append(ready)
        ready_text = f"{ready:.3f}" if ready is not None else "not ready (see the app)"
        print(f"run {i + 1}: first paint {paint:.3f} s, model ready {ready_text} s", flush=True)
    if readies:
        print(f"model_ready_s {statistics.median(readies):.3f}")
    print(f"first_paint_s {statistics.median(paints):.3f}")


if __name__ == "__main__":
    main()
