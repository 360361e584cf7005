"""The trainer: AdamW, warm-up then cosine decay, clipping, validation, and callbacks.

It never imports Textual.  The dashboard runs ``Trainer.run`` in a worker thread and calls
``pause``/``resume``/``stop`` from the UI thread; those only set ``threading.Event``s, which
the loop checks between steps, so no lock is needed and a step is never cut in half.  Each
step hands a ``TrainMetrics`` to every callback (on the training thread: a UI must hop to its
own thread, e.g. Textual's ``call_from_thread``).

A non-finite loss or gradient norm stops the run with ``status="diverged"`` and puts back
the weights of the last step whose loss was finite, so a learner who set the learning rate
too high still has a usable model and a message saying what happened.
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import torch
import torch.nn.functional as F

from .data import IGNORE
from .messages import M_, reason_of


@dataclass
class TrainConfig:
    steps: int = 2000
    batch_size: int = 64
    lr: float = 3e-3
    min_lr_ratio: float = 0.1          # cosine decays to lr * min_lr_ratio
    warmup_steps: int = 100
    weight_decay: float = 0.1          # on matrices and embeddings only, not biases or norms
    beta1: float = 0.9
    beta2: float = 0.99
    grad_clip: float = 1.0             # 0 turns clipping off (the norm is still reported)
    eval_interval: int = 250           # steps between validation loss (and accuracy) checks
    eval_batches: int = 4
    accuracy_examples: int = 500       # held-out examples for exact match, tasks only
    seed: int = 0
    device: str = "auto"               # auto | cpu | cuda

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch_size < 1:
            raise ValueError(M_("steps and batch_size must be at least 1"))
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(M_("lr must be a positive number"))
        if self.eval_interval < 1 or self.eval_batches < 1:
            raise ValueError(M_("eval_interval and eval_batches must be at least 1"))


@dataclass
class TrainMetrics:
    step: int                          # steps done so far (1-based after the first step)
    loss: float
    val_loss: float | None             # latest validation loss, None before the first check
    lr: float
    grad_norm: float                   # before clipping
    tokens_per_s: float                # smoothed over recent steps; excludes eval and pauses
    accuracy: float | None             # latest exact-match accuracy (tasks only)
    elapsed_s: float                   # time spent training and evaluating, pauses excluded
    eta_s: float
    total_steps: int = 0
    evaluated: bool = False            # True on the steps where val_loss/accuracy were just measured


@dataclass
class TrainResult:
    status: str                        # finished | stopped | diverged
    message: str
    metrics: TrainMetrics | None
    history: list[TrainMetrics] = field(default_factory=list)   # the evaluated steps


class TrainingDiverged(RuntimeError):
    """The loss or gradient became NaN/inf; the last good weights have been restored."""


def training_threads(requested: int | None = None) -> int:
    """The one CPU thread policy for training, ``tutor train`` and the dashboard alike: one thread,
    unless the caller asks (``--threads``) or OMP_NUM_THREADS says otherwise.

    Measured with ``bench/train_throughput.py`` on the shared two-core machine (tiny model,
    batch 128): 57k tok/s at one thread against 17k at two with no core added busy, and 28k
    against 4.3k with one core kept busy, i.e. one thread trains 3-6x faster and loses 2x under
    load where two lose 4x: each step waits for whichever thread lost its core.  In the
    dashboard one thread also leaves a core to the UI.
    """
    if requested:
        return requested
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "") or 1))
    except ValueError:
        return 1


def use_training_threads(requested: int | None = None) -> int:
    """Apply ``training_threads`` on the calling thread and return the count.

    torch keeps the count per thread, and a thread takes the process-wide value at its first
    torch call, so the training thread itself must call this (a lesson experiment may have
    set another count on the thread that happened to import torch).
    """
    count = training_threads(requested)
    torch.set_num_threads(count)
    return count


def resolve_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError(M_("--device cuda was asked for but no CUDA device is available"))
    if name not in ("cpu", "cuda"):
        raise ValueError(M_("device must be auto, cpu or cuda, not {name!r}", name=name))
    return torch.device(name)


def lr_at(step: int, config: TrainConfig) -> float:
    """Learning rate for 0-based ``step``: linear warm-up, then cosine to lr * min_lr_ratio."""
    warmup = min(config.warmup_steps, config.steps - 1)
    if step < warmup:
        return config.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, config.steps - 1 - warmup)          # 0 -> 1
    floor = config.lr * config.min_lr_ratio
    return floor + 0.5 * (config.lr - floor) * (1 + math.cos(math.pi * min(1.0, progress)))


def make_optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.AdamW:
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    groups = [{"params": decay, "weight_decay": config.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    kwargs = dict(lr=config.lr, betas=(config.beta1, config.beta2))
    try:
        return torch.optim.AdamW(groups, fused=True, **kwargs)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(groups, **kwargs)


class Trainer:
    """``Trainer(model, dataset, TrainConfig(...), callbacks=[fn])``; then ``run()`` or ``step()``."""

    def __init__(self, model, dataset, config: TrainConfig | None = None,
                 callbacks: Iterable[Callable[[TrainMetrics], None]] = (),
                 should_stop: Callable[[], bool] | None = None,
                 stop_event: threading.Event | None = None) -> None:
        self.config = config or TrainConfig()
        self.device = resolve_device(self.config.device)
        self.model = model.to(self.device)
        self.dataset = dataset
        self.callbacks = list(callbacks)
        self.should_stop = should_stop
        self.stop_event = stop_event
        self.optimizer = make_optimizer(self.model, self.config)
        self.generator = torch.Generator().manual_seed(self.config.seed)
        self.step_count = 0
        self.val_loss: float | None = None
        self.accuracy: float | None = None
        self.elapsed_s = 0.0
        self._params = [p for p in self.model.parameters()]
        self._last_good = [p.detach().clone() for p in self._params]
        self._step_time: float | None = None     # EMA of seconds per step
        self._tokens_per_s = 0.0
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self.held_out = None
        if hasattr(dataset, "validation_examples"):
            self.held_out = dataset.validation_examples(self.config.accuracy_examples)

    # --- control, safe to call from any thread -------------------------------------------
    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def stop(self) -> None:
        self._stop.set()
        self._running.set()   # wake a paused loop so it can see the stop

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def stop_requested(self) -> bool:
        return (self._stop.is_set() or (self.stop_event is not None and self.stop_event.is_set())
                or (self.should_stop is not None and bool(self.should_stop())))

    # --- one step ----------------------------------------------------------------------
    def step(self) -> TrainMetrics:
        """One optimisation step; raises TrainingDiverged (weights restored) on NaN/inf."""
        started = time.perf_counter()
        cfg, model = self.config, self.model
        model.train()
        lr = lr_at(self.step_count, cfg)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        x, y = self.dataset.get_batch("train", cfg.batch_size, self.generator, self.device)  # (B, L) each
        logits = model(x)                                                    # (B, L, V)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self._params, cfg.grad_clip if cfg.grad_clip > 0 else math.inf)
        loss_value, norm_value = torch.stack([loss.detach(), norm.detach().to(loss.dtype)]).tolist()
        if not math.isfinite(loss_value):
            with torch.no_grad():
                for p, good in zip(self._params, self._last_good):
                    p.copy_(good)
            self.optimizer.zero_grad(set_to_none=True)
            raise TrainingDiverged(M_(
                "training diverged at step {step}: the loss became {loss}. Restored the weights that gave the last "
                "finite loss (step {good}); try a smaller learning rate than {lr:g}.",
                step=self.step_count + 1, loss=loss_value, good=self.step_count, lr=cfg.lr))
        if not math.isfinite(norm_value):
            self.optimizer.zero_grad(set_to_none=True)
            raise TrainingDiverged(M_(
                "training diverged at step {step}: the gradient norm became {norm}. Kept the current weights, whose "
                "loss was finite; try a smaller learning rate than {lr:g} or gradient clipping.",
                step=self.step_count + 1, norm=norm_value, lr=cfg.lr))
        with torch.no_grad():
            for p, good in zip(self._params, self._last_good):
                good.copy_(p)
        self.optimizer.step()
        self.step_count += 1
        seconds = time.perf_counter() - started
        self.elapsed_s += seconds
        self._step_time = seconds if self._step_time is None else 0.9 * self._step_time + 0.1 * seconds
        self._tokens_per_s = x.numel() / self._step_time
        return self._metrics(loss_value, lr, norm_value)

    def _metrics(self, loss: float, lr: float, grad_norm: float, evaluated: bool = False) -> TrainMetrics:
        remaining = self.config.steps - self.step_count
        return TrainMetrics(self.step_count, loss, self.val_loss, lr, grad_norm, self._tokens_per_s,
                            self.accuracy, self.elapsed_s, remaining * (self._step_time or 0.0),
                            self.config.steps, evaluated)

    @torch.no_grad()
    def evaluate(self) -> tuple[float, float | None]:
        """Validation loss on fixed batches (same every time) and exact-match accuracy."""
        started = time.perf_counter()
        was_training = self.model.training
        self.model.eval()
        try:
            gen = torch.Generator().manual_seed(self.config.seed + 1)
            total = 0.0
            for _ in range(self.config.eval_batches):
                x, y = self.dataset.get_batch("val", self.config.batch_size, gen, self.device)
                logits = self.model(x)                                       # (B, L, V)
                total += F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1),
                                         ignore_index=IGNORE).item()
            self.val_loss = total / self.config.eval_batches
            if self.held_out is not None:
                self.accuracy = self.dataset.accuracy(self.model, examples=self.held_out)
        finally:
            self.model.train(was_training)
            self.elapsed_s += time.perf_counter() - started
        return self.val_loss, self.accuracy

    # --- the loop ----------------------------------------------------------------------
    def _emit(self, metrics: TrainMetrics) -> None:
        for callback in self.callbacks:
            callback(metrics)

    def run(self) -> TrainResult:
        """Train until ``config.steps``, a stop request, or divergence; never raises for those."""
        history: list[TrainMetrics] = []
        last: TrainMetrics | None = None
        status, message = "finished", M_("trained {count} steps", count=self.config.steps)
        while self.step_count < self.config.steps:
            while not self._running.wait(timeout=0.1):
                if self.stop_requested():
                    break
            if self.stop_requested():
                status, message = "stopped", M_("stopped after {count} steps", count=self.step_count)
                break
            try:
                last = self.step()
            except TrainingDiverged as exc:
                return TrainResult("diverged", reason_of(exc), last, history)
            if self.step_count % self.config.eval_interval == 0 or self.step_count == self.config.steps:
                self.evaluate()
                last = self._metrics(last.loss, last.lr, last.grad_norm, evaluated=True)
                history.append(last)
            self._emit(last)
        if last is not None and not last.evaluated:
            self.evaluate()
            last = self._metrics(last.loss, last.lr, last.grad_norm, evaluated=True)
            history.append(last)
            self._emit(last)
        return TrainResult(status, message, last, history)
