"""The training process's side: build the run, train it, report on a pipe, obey the controls.

Why a process: in one process the dashboard's screen updates (each key typed holds the GIL for
a few milliseconds) stalled the training thread, which then ran at 0.82-0.88x a bare loop; a
process of its own has its own interpreter lock.

``serve`` runs in the spawned process (``process.TrainingProcess``), or on a thread when the
caller asks for one (tests that patch the trainer in-process): the same code either way.  The
controls come on a pipe that only the parent writes, read by a thread here; when the pipe
closes (the app quit, crashed or was killed) a process exits at once, so it never outlives
the app.
"""
from __future__ import annotations

import os
import threading

from tutor.training import runs as dt
from tutor.training.wire import Ended, Progress, RunSpec, Started, model_from_bytes, weights_to_bytes

STATUS_INTERVAL = 0.25  # seconds between progress messages: each costs the UI a repaint
PAUSE, RESUME, STOP = "pause", "resume", "stop"


class Controls:
    """Pause/resume/stop as the parent sent them, kept until the trainer exists to obey them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.paused = False
        self.trainer = None

    def apply(self, command: str) -> None:
        with self.lock:
            if command == STOP:
                self.stopped.set()
            elif command in (PAUSE, RESUME):
                self.paused = command == PAUSE
            self._pass_on()

    def attach(self, trainer) -> None:
        with self.lock:
            self.trainer = trainer
            self._pass_on()

    def _pass_on(self) -> None:
        if self.trainer is None:
            return
        if self.stopped.is_set():
            self.trainer.stop()
        elif self.paused:
            self.trainer.pause()
        else:
            self.trainer.resume()


def watch(control, controls: Controls, exit_on_eof: bool) -> None:
    """Read commands until the parent's end closes; then a process leaves at once (nobody is
    left to read its weights), a thread stops its run."""
    while True:
        try:
            command = control.recv()
        except (EOFError, OSError):
            if exit_on_eof:
                os._exit(0)
            controls.apply(STOP)
            return
        controls.apply(command)


def quiet_output() -> None:
    """Send this process's stdout and stderr (torch's warnings, a traceback) to /dev/null."""
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(null, fd)
    os.close(null)


def serve(spec: RunSpec, events, control, steps, exit_on_eof: bool = True) -> None:
    """Train ``spec``'s run, sending Started, Progress… and one Ended on ``events``.

    ``steps`` (a shared integer) follows every step, for a reader that needs the exact count
    (the bench, the pause test) without waiting for the next Progress."""
    from tutor.common.i18n import _, error_text, set_language

    if exit_on_eof:   # a process of its own, on the app's terminal: a warning printed there would tear its screen
        quiet_output()
    set_language(spec.language)
    controls = Controls()
    threading.Thread(target=watch, args=(control, controls, exit_on_eof), name="training-controls",
                     daemon=True).start()
    try:
        current = model_from_bytes(spec.current) if spec.current is not None else None
        run = dt.TrainingRun(spec.request, current, spec.current_label, should_stop=controls.stopped.is_set,
                             device=spec.device, preset=spec.preset, accuracy_examples=spec.accuracy_examples)
    except Exception as error:   # a bad file, a wrong choice: said in the panel
        events.send(Ended("failed", _("Could not start: {error}").format(error=error_text(error))))
        return
    trainer = run.trainer
    controls.attach(trainer)
    events.send(Started(tokens_per_step=trainer.config.batch_size * trainer.dataset.seq_len))

    def count(metrics) -> None:
        steps.value = metrics.step

    def send(metrics, losses) -> None:
        # on the training thread, between two steps: the weights are whole
        snapshot = weights_to_bytes(trainer.model) if metrics.evaluated else None
        meta = run.meta("training", metrics) if snapshot is not None else {}
        events.send(Progress(metrics, losses, run.label(metrics), snapshot, meta))

    trainer.callbacks += [count, dt.MetricsRelay(send, interval=STATUS_INTERVAL)]
    try:
        result = trainer.run()
    except Exception as error:
        words = _("Out of memory after {steps} steps: try the quick size, or close other programs. {error}") \
            if dt.out_of_memory(error) else _("Training failed after {steps} steps: {error}")
        events.send(Ended("failed", words.format(steps=trainer.step_count, error=error_text(error))[:400]))
        return
    # a diverged run's restored weights are still the ones that blew up: never handed on
    snapshot = weights_to_bytes(trainer.model) if trainer.step_count and result.status != "diverged" else None
    events.send(Ended(result.status, result.message, snapshot, run.label(result.metrics, result.status),
                      run.meta(result.status, result.metrics), result.metrics))
