"""Symbolic work under a CPU-time budget, in a process that can be abandoned.

SymPy's ``simplify`` on a formula of a dozen operations can run for minutes
(``1e-300*(sin(a)**100 - cos(b)**100)`` never finishes), and a pure-Python SymPy loop cannot be
interrupted from inside its own thread: no timeout, signal or flag reaches it between the C calls
it spends its time in.  So every step that can grow runs in a forked child with a CPU-time alarm
(``ITIMER_PROF``: its default action ends the process, whatever the child is doing); the caller
waits for the child's answer, and when the budget is spent it gets ``None``, which every caller
reads as "cannot tell" and falls back to the numeric verdict.  Nothing of the child outlives the
call, so a quitting app is never kept alive by a symbolic loop.
"""
from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

CPU_SECONDS = 0.5   # enough for every equivalent form the lessons accept; the loops that grow never end
WALL_FACTOR = 3     # a loaded machine gives the child its CPU time slowly: past 3× it in wall time the child is
                    # ended as well, so no verdict waits more than 1.5 s for SymPy however busy the machine


def _child(writer, work: Callable[..., T], args: tuple, cpu_seconds: float) -> None:
    signal.signal(signal.SIGPROF, signal.SIG_DFL)          # default action: end the process
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)      # counts this process's CPU time only
    try:
        writer.send((True, work(*args)))
    except Exception:   # SymPy's own errors are "cannot tell" too
        writer.send((False, None))


def within_budget(work: Callable[..., T], *args, cpu_seconds: float = CPU_SECONDS) -> T | None:
    """``work(*args)`` computed in a child process, or None when it does not finish within
    ``cpu_seconds`` of CPU time (or fails, or no child can be forked on this system)."""
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return None
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(writer, work, args, cpu_seconds), daemon=True)
    try:
        child.start()
    except OSError:
        reader.close()
        writer.close()
        return None
    writer.close()   # the child holds the only writer: its end (or death) is EOF here
    try:
        if not reader.poll(WALL_FACTOR * cpu_seconds):
            return None
        finished, value = reader.recv()
        return value if finished else None
    except (EOFError, OSError):   # ended by its alarm before it could answer
        return None
    finally:
        reader.close()
        if child.is_alive():
            child.kill()
        child.join()
