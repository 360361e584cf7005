"""Learning-rate schedules read from a real training run, next to step decay.

The experiment trains a private copy of the lesson's model for a few steps with the app's own
Trainer on the sort task, and records the learning rate each step reports: the schedule a
learner sees is the one training actually used, not a formula evaluated beside it.  Step
decay comes from torch's own StepLR over the same steps, for comparison.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.common.i18n import M_
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

RUN_STEPS = 30          # steps of the short run
RUN_WARMUP = 6          # its linear warm-up steps
RUN_LR = 3e-3           # its peak learning rate
RUN_FLOOR = 0.1         # cosine decays to RUN_LR * RUN_FLOOR
RUN_BATCH = 4           # rows per step: the run is about the schedule, not about learning
DECAY_EVERY = 10        # step decay: multiply by DECAY_GAMMA every DECAY_EVERY steps
DECAY_GAMMA = 0.5


@experiment("lr_run", M_("a real {steps}-step run of the app's Trainer (sort task, batch {batch}) on a copy of the "
                         "lesson's model: peak lr {lr:g}, {warmup} warm-up steps, cosine down to "
                         "{floor:g} of the peak: lr_run.steps (S,) = 0..S-1, lr_run.lr (S,) the learning rate "
                         "each step reported, lr_run.loss (S,) its training loss, lr_run.peak / .warmup / .floor / "
                         ".total (1,) the run's settings (floor as a learning rate), lr_run.progress (S,) the "
                         "cosine's progress p (0 during the warm-up, 1 at the last step), lr_run.step_decay (S,) "
                         "torch's StepLR from the same peak: halved (gamma {gamma:g}) every {every} "
                         "steps, lr_run.decay_every / .gamma (1,)",
                         steps=RUN_STEPS, batch=RUN_BATCH, lr=RUN_LR, warmup=RUN_WARMUP, floor=RUN_FLOOR,
                         gamma=DECAY_GAMMA, every=DECAY_EVERY), passes=1, copies=1)
@one_torch_thread
def lr_run(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    from tutor.model import SyntheticTask, TrainConfig, Trainer
    from tutor.model.copies import copy_model

    config = TrainConfig(steps=RUN_STEPS, batch_size=RUN_BATCH, lr=RUN_LR, warmup_steps=RUN_WARMUP,
                         min_lr_ratio=RUN_FLOOR, eval_interval=RUN_STEPS + 1, accuracy_examples=1,
                         seed=context.seed, device="cpu")
    task = SyntheticTask("sort", max_len=min(8, max(1, (context.model.config.block_size - 1) // 2)))
    with torch.random.fork_rng(devices=[]):
        trainer = Trainer(copy_model(context.model, dtype=torch.float32, trainable=True), task, config)
        reported = [trainer.step() for _ in range(RUN_STEPS)]
    warmup = min(RUN_WARMUP, RUN_STEPS - 1)
    progress = [max(0.0, (s - warmup) / max(1, RUN_STEPS - 1 - warmup)) for s in range(RUN_STEPS)]
    dummy = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([dummy], lr=RUN_LR)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=DECAY_EVERY, gamma=DECAY_GAMMA)
    step_decay = []
    for _ in range(RUN_STEPS):
        step_decay.append(scheduler.get_last_lr()[0])
        optimizer.step()
        scheduler.step()
    return {
        "lr_run.steps": np.arange(RUN_STEPS, dtype=float),
        "lr_run.lr": np.array([m.lr for m in reported]),
        "lr_run.loss": np.array([m.loss for m in reported]),
        "lr_run.peak": np.array([RUN_LR]),
        "lr_run.warmup": np.array([float(RUN_WARMUP)]),
        "lr_run.floor": np.array([RUN_LR * RUN_FLOOR]),
        "lr_run.total": np.array([float(RUN_STEPS)]),
        "lr_run.progress": np.array(progress),
        "lr_run.step_decay": np.array(step_decay),
        "lr_run.decay_every": np.array([float(DECAY_EVERY)]),
        "lr_run.gamma": np.array([DECAY_GAMMA]),
    }
