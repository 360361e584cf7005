"""The trainer's guarantees on tiny configs: schedule, determinism, callbacks, control, divergence."""
import math
import threading
import time

import pytest
import torch

from tutor.model import GPT, GPTConfig, CharTokenizer
from tutor.model.data import SyntheticTask
from tutor.model.train import TrainConfig, Trainer, TrainMetrics, lr_at, resolve_device

TOK = CharTokenizer()




def tiny_model(seed=0):
    torch.manual_seed(seed)
    return GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=16, n_layer=1, n_head=2, d_model=16))


def tiny_trainer(steps=5, seed=0, callbacks=(), **kwargs):
    config = TrainConfig(steps=steps, batch_size=8, warmup_steps=2, eval_interval=kwargs.pop("eval_interval", 100),
                         eval_batches=1, accuracy_examples=20, seed=seed, device="cpu", **kwargs)
    return Trainer(tiny_model(seed), SyntheticTask("sort", 1, 4), config, callbacks=list(callbacks))


def test_warmup_then_cosine_decay():
    cfg = TrainConfig(steps=100, lr=1e-3, warmup_steps=10, min_lr_ratio=0.1)
    lrs = [lr_at(s, cfg) for s in range(100)]
    assert lrs[0] == pytest.approx(1e-4)
    assert lrs[9] == pytest.approx(1e-3)
    assert all(a < b for a, b in zip(lrs[:9], lrs[1:10]))
    assert all(a >= b for a, b in zip(lrs[9:], lrs[10:]))
    assert lrs[-1] == pytest.approx(1e-4)


def test_same_seed_same_losses():
    def losses(seed):
        out = []
        tiny_trainer(4, seed, [lambda m: out.append(m.loss)]).run()
        return out
    assert losses(1) == losses(1)
    assert losses(1) != losses(2)


def test_callbacks_get_every_metric_and_validation_on_schedule():
    seen: list[TrainMetrics] = []
    result = tiny_trainer(6, callbacks=[seen.append], eval_interval=3).run()
    assert result.status == "finished" and [m.step for m in seen] == [1, 2, 3, 4, 5, 6]
    assert [m.evaluated for m in seen] == [False, False, True, False, False, True]
    assert seen[0].val_loss is None and seen[0].accuracy is None
    last = seen[-1]
    assert last.val_loss is not None and math.isfinite(last.val_loss)
    assert 0.0 <= last.accuracy <= 1.0
    assert last.tokens_per_s > 0 and last.grad_norm > 0 and last.lr > 0 and last.elapsed_s > 0
    assert last.eta_s == 0 and last.total_steps == 6
    assert [m.step for m in result.history] == [3, 6]


def test_learns_the_sort_task_a_little():
    config = TrainConfig(steps=60, batch_size=32, warmup_steps=5, eval_interval=60, eval_batches=2,
                         accuracy_examples=10, lr=1e-2, device="cpu")
    trainer = Trainer(tiny_model(), SyntheticTask("sort", 1, 4), config)
    first = trainer.step().loss
    result = trainer.run()
    assert result.metrics.loss < first * 0.6


def test_stop_from_a_callback_should_stop_and_an_event():
    trainer = tiny_trainer(50)
    trainer.callbacks.append(lambda m: m.step == 3 and trainer.stop())
    result = trainer.run()
    assert result.status == "stopped" and trainer.step_count == 3
    assert result.metrics.evaluated and result.metrics.val_loss is not None   # a final check

    calls = []
    trainer = Trainer(tiny_model(), SyntheticTask("sort", 1, 4), TrainConfig(steps=50, batch_size=4, device="cpu"),
                      callbacks=[calls.append], should_stop=lambda: len(calls) >= 2)
    assert trainer.run().status == "stopped" and trainer.step_count == 2

    event = threading.Event()
    event.set()
    trainer = Trainer(tiny_model(), SyntheticTask("sort", 1, 4), TrainConfig(steps=50, batch_size=4, device="cpu"),
                      stop_event=event)
    assert trainer.run().status == "stopped" and trainer.step_count == 0


def test_pause_resume_and_stop_from_another_thread():
    trainer = tiny_trainer(8)
    trainer.callbacks.append(lambda m: m.step == 2 and trainer.pause())
    results = []
    worker = threading.Thread(target=lambda: results.append(trainer.run()))
    worker.start()
    deadline = time.time() + 10
    while not (trainer.paused and trainer.step_count == 2) and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    assert trainer.step_count == 2 and trainer.paused
    trainer.resume()
    worker.join(10)
    assert results[0].status == "finished" and trainer.step_count == 8

    trainer = tiny_trainer(100)
    trainer.pause()
    worker = threading.Thread(target=lambda: results.append(trainer.run()))
    worker.start()
    time.sleep(0.2)
    trainer.stop()          # stopping a paused run wakes it
    worker.join(10)
    assert not worker.is_alive() and results[-1].status == "stopped" and trainer.step_count == 0


def test_a_nan_loss_stops_with_a_message_and_keeps_the_last_good_weights():
    trainer = tiny_trainer(20)
    saved = {}

    def sabotage(m):
        if m.step == 2:   # the weights step 3 will use: its loss is finite, so they are "good"
            saved.update({k: v.clone() for k, v in trainer.model.state_dict().items()})
        if m.step == 3:   # corrupt the weights after step 3: step 4's loss is NaN
            with torch.no_grad():
                trainer.model.W_E.weight.fill_(float("nan"))

    trainer.callbacks.append(sabotage)
    result = trainer.run()
    assert result.status == "diverged" and "diverged" in result.message and "learning rate" in result.message
    assert trainer.step_count == 3
    state = trainer.model.state_dict()
    for name, value in saved.items():
        assert torch.equal(state[name], value), name
        assert torch.isfinite(value).all()


def test_device_auto_is_cpu_without_cuda():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    with pytest.raises(ValueError):
        resolve_device("tpu")
    with pytest.raises(ValueError):
        TrainConfig(steps=0)
