"""The dashboard's training in a process of its own: messages, weights, controls, and no orphan.

The dashboard's own tests (tests/test_dashboard*.py) drive the same process through the panel;
these check the process boundary itself.  Waits are upper bounds for a loaded machine, never
measurements.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from tutor.model.copies import seeded_model
from tutor.training import runs as dt
from tutor.training.process import TrainingProcess
from tutor.training.wire import Ended, Progress, RunSpec, Started, model_from_bytes, weights_to_bytes

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 120        # a spawned interpreter imports torch: seconds on a busy two-core machine


def spec(steps: int = 20, eval_interval: int = 10, **request) -> RunSpec:
    """A preset made here, as a test's patched PRESETS would be: it must reach the process by value."""
    return RunSpec(dt.TrainRequest(**request), dt.Preset("made here", steps, 8, eval_interval), 20, "en")


def messages_until_ended(run: TrainingProcess) -> list:
    seen, deadline = [], time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        message = run.receive(timeout=0.5)
        if message is not None:
            seen.append(message)
            if isinstance(message, Ended):
                return seen
    raise AssertionError(f"no Ended within {LIMIT_S} s; got {[type(m).__name__ for m in seen]}")


def steps_reach(run: TrainingProcess, count: int) -> None:
    deadline = time.monotonic() + LIMIT_S
    while run.step_count < count and time.monotonic() < deadline:
        run.receive(timeout=0.2)
    assert run.step_count >= count, f"{run.step_count} steps, waiting for {count}"


def gone(pid: int) -> bool:
    """No such process, or only its exit status left for a parent to collect."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.parametrize("in_process", [False, True], ids=["process", "thread"])
def test_a_run_sends_its_weights_after_each_evaluation_and_continues_the_model_it_was_given(in_process):
    start = seeded_model(dt.shipped_config(), 3)
    run = TrainingProcess(RunSpec(dt.TrainRequest(start="current"), dt.Preset("made here", 20, 8, 10), 20, "en",
                                  weights_to_bytes(start), "shipped default checkpoint (trained on sort)"),
                          in_process=in_process)
    try:
        seen = messages_until_ended(run)
    finally:
        run.close()
    assert isinstance(seen[0], Started) and run.tokens_per_step == 8 * 17   # 8 digit strings of 17 tokens
    progress = [m for m in seen if isinstance(m, Progress)]
    evaluated = [m for m in progress if m.snapshot is not None]
    assert [m.metrics.step for m in evaluated] == [10, 20] and all(m.metrics.evaluated for m in evaluated)
    assert sorted(step for m in progress for step, _ in m.losses) == list(range(1, 21))   # every step's loss
    assert evaluated[0].meta["steps"] == 10 and evaluated[0].meta["source"] == "dashboard"
    ended = seen[-1]
    assert ended.status == "finished" and run.step_count == 20
    assert ended.label.startswith("your model: sort, 20 steps, accuracy ")
    assert ended.label.endswith(", continued from shipped default checkpoint")
    trained = model_from_bytes(ended.snapshot)
    assert not trained.training and not any(p.requires_grad for p in trained.parameters())
    assert torch.equal(trained.state_dict()["W_E.weight"], model_from_bytes(evaluated[-1].snapshot).state_dict()["W_E.weight"])
    assert not torch.equal(trained.state_dict()["W_E.weight"], start.state_dict()["W_E.weight"])   # it trained


def test_pause_holds_the_steps_and_stop_ends_with_the_last_weights():
    run = TrainingProcess(spec(steps=10**6, eval_interval=10**6))
    try:
        steps_reach(run, 3)
        run.pause()
        held, deadline = -1, time.monotonic() + LIMIT_S
        while run.step_count != held and time.monotonic() < deadline:   # a step in flight may finish
            held = run.step_count
            time.sleep(0.5)
        time.sleep(0.5)
        assert run.step_count == held and held >= 3
        run.resume()
        steps_reach(run, held + 2)
        run.stop()
        ended = messages_until_ended(run)[-1]
    finally:
        run.close()
    assert ended.status == "stopped" and ended.snapshot is not None and ended.metrics.step == run.step_count
    assert not run.worker.is_alive()


def test_a_process_killed_mid_run_ends_as_failed_and_the_panel_hears_it():
    run = TrainingProcess(spec(steps=10**6, eval_interval=10**6))
    try:
        steps_reach(run, 1)
        os.kill(run.pid, signal.SIGKILL)          # out of memory, as the kernel ends it
        ended = messages_until_ended(run)[-1]
    finally:
        run.close()
    assert ended.status == "failed" and ended.snapshot is None
    assert ended.message == f"The training process ended unexpectedly (exit code {-signal.SIGKILL})."


def test_the_process_leaves_when_the_app_is_killed(tmp_path):
    """kill -9 of the app: nothing runs its exit handlers, so only the pipe tells the process.

    The run is paused, as a learner may leave it: a training process would also die at its next
    message to a parent that is gone, but a paused one sends none."""
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from tutor.training import runs as dt
        from tutor.training.process import TrainingProcess
        from tutor.training.wire import RunSpec, Started

        if __name__ == "__main__":
            run = TrainingProcess(RunSpec(dt.TrainRequest(), dt.Preset("long", 10**6, 8, 10**6), 20, "en"))
            while not isinstance(run.receive(timeout=1.0), Started):
                pass
            run.pause()
            print(run.pid, flush=True)
            time.sleep(600)
    """), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(app)], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        child = int(parent.stdout.readline())     # once the run has started
        assert not gone(child)
        parent.kill()
        parent.wait(LIMIT_S)
        deadline = time.monotonic() + LIMIT_S
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gone(child)
    finally:
        parent.kill()
        if child is not None and not gone(child):
            os.kill(child, signal.SIGKILL)
