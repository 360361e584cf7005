"""One CPU thread policy for all training: ``tutor train`` and the dashboard both follow it."""
import threading

import torch

from tutor.model.train import training_threads, use_training_threads
from tutor.training.runs import TrainingRun, TrainRequest


def test_one_thread_unless_asked(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert training_threads() == 1
    assert training_threads(3) == 3                       # --threads wins
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert training_threads() == 2 and training_threads(1) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "many")
    assert training_threads() == 1


def test_the_dashboards_training_thread_follows_the_policy(monkeypatch):
    """The count is per thread: a thread that first met torch at 2 threads still trains at the policy's."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    seen = {}

    def build() -> None:
        torch.set_num_threads(2)
        TrainingRun(TrainRequest(preset="quick"))
        seen["threads"] = torch.get_num_threads()

    worker = threading.Thread(target=build)
    worker.start()
    worker.join()
    assert seen["threads"] == training_threads() == 1


def test_use_training_threads_sets_and_returns_the_count(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    try:
        assert use_training_threads(2) == 2 and torch.get_num_threads() == 2
        assert use_training_threads() == 1 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
