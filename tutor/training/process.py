"""The dashboard's handle on a training run in a process of its own (``child.serve`` on the other side).

Spawned, never forked: the app has threads (Textual's, the model loader's), and a forked child
would inherit their locks half-held.  The process starts only when a run starts, so the app's
startup does not pay for it.  No orphan, ever: the process reads its controls on a pipe whose
only writer is this handle, and leaves as soon as that pipe closes, which the kernel does when
this process exits for any reason (a crash, ``kill -9``); it is also a daemon, which
``multiprocessing`` ends at a normal exit, and ``close`` ends it if it has not left by itself.

``in_process=True`` runs the same ``serve`` on a thread, over the same pipes and messages, for
tests that patch the trainer in this interpreter (a spawned one would not see the patch).
"""
from __future__ import annotations

import os
import sys
import threading

from tutor.training import child
from tutor.training.wire import Ended, RunSpec, Started

EXIT_GRACE_S = 5.0   # how long a process that sent its Ended may take to exit before it is killed


def tracker_running() -> None:
    """Start multiprocessing's resource tracker, which every spawn needs, if it is not running.

    It keeps ``sys.stderr.fileno()`` open in the tracker; while a Textual app runs, sys.stderr is
    Textual's capture, whose fileno() is -1, and the spawn failed with "bad value(s) in
    fds_to_keep".  The tracker gets /dev/null instead: anything it wrote would land in the
    middle of the app's screen."""
    from multiprocessing import resource_tracker

    captured = sys.stderr
    with open(os.devnull, "w") as devnull:
        sys.stderr = devnull
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = captured


class TrainingProcess:
    def __init__(self, spec: RunSpec, in_process: bool = False) -> None:
        import torch.multiprocessing as mp

        context = mp.get_context("spawn")
        self.events, events_writer = context.Pipe(duplex=False)
        control_reader, self.control = context.Pipe(duplex=False)
        self.steps = context.RawValue("q", 0)
        self.tokens_per_step = 0          # known once Started arrives
        self.paused = False               # as asked; a step in flight still finishes
        self.ended: Ended | None = None
        args = (spec, events_writer, control_reader, self.steps)
        if in_process:
            self.worker = threading.Thread(target=child.serve, args=(*args, False), name="training", daemon=True)
        else:
            tracker_running()
            self.worker = context.Process(target=child.serve, args=(*args, True), name="tutor-training", daemon=True)
        self.worker.start()
        if not in_process:   # the process has its own copies; ours would hide its exit from us
            events_writer.close()
            control_reader.close()
        self._own_ends = (events_writer, control_reader) if in_process else ()

    @property
    def step_count(self) -> int:
        """Steps done, exact at any moment (not only as of the last Progress)."""
        return self.steps.value

    @property
    def pid(self) -> int | None:
        return getattr(self.worker, "pid", None)

    def _send(self, command: str) -> None:
        try:
            self.control.send(command)
        except (OSError, ValueError):   # the run has ended and its pipe is gone: nothing to control
            pass

    def pause(self) -> None:
        self.paused = True
        self._send(child.PAUSE)

    def resume(self) -> None:
        self.paused = False
        self._send(child.RESUME)

    def stop(self) -> None:
        self.paused = False
        self._send(child.STOP)

    def receive(self, timeout: float):
        """The next message (Started, Progress or Ended), or None if none came within ``timeout``.

        A process that died without its Ended (killed, out of memory in the interpreter) yields
        a failed Ended, so the caller always hears how the run ended."""
        from multiprocessing.connection import wait

        if self.ended is not None:
            return self.ended
        sentinel = getattr(self.worker, "sentinel", None)
        ready = wait([self.events] + ([sentinel] if sentinel is not None else []), timeout)
        if self.events in ready or self.events.poll():
            try:
                message = self.events.recv()
            except (EOFError, OSError):
                message = None
            if message is not None:
                if isinstance(message, Started):
                    self.tokens_per_step = message.tokens_per_step
                if isinstance(message, Ended):
                    self.ended = message
                return message
        if ready or not self.worker.is_alive():
            return self._died()
        return None

    def _died(self) -> Ended:
        from tutor.common.i18n import _

        self.worker.join(EXIT_GRACE_S)
        code = getattr(self.worker, "exitcode", None)
        self.ended = Ended("failed", _("The training process ended unexpectedly (exit code {code}).").format(
            code=code if code is not None else "?"))
        return self.ended

    def close(self) -> None:
        """Let the run go: its process, if still there after a grace period, is killed."""
        self.control.close()   # a process still running takes this as "leave now"
        self.worker.join(EXIT_GRACE_S)
        if hasattr(self.worker, "kill") and self.worker.is_alive():
            self.worker.kill()
            self.worker.join(EXIT_GRACE_S)
        self.events.close()
        for end in self._own_ends:
            end.close()
