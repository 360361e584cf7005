"""A busy machine on demand: ``with busy_cores(1):`` keeps one core spinning in another process.

The bench scripts use it to measure the tutor as it runs beside other work (a browser, a
compiler, a second learner), reproducibly, on a quiet machine.  The spinners are plain Python
processes that only loop; they are killed when the block ends, even on an error or Ctrl+C.
"""
from __future__ import annotations

import contextlib
import subprocess
import sys
import time


@contextlib.contextmanager
def busy_cores(count: int):
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        if spinners:
            time.sleep(0.5)   # let the scheduler place them before anything is timed
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
