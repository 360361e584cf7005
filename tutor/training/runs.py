"""The dashboard's training, in plain Python: from the panel's choices to a running ``Trainer``.

No Textual here, so the same code is driven by the panel, the tests and ``bench/ui_latency.py``.

Why every preset has the shipped model's shape (D = 64, H = 4, two blocks, 64 positions, 96
tokens): the lessons that read the trained model are written for it ("W_Q[:, 32:48] is head
2", "W_E is (96, 64)", "the model has two blocks").  A model of another shape would make
their text wrong, so the presets differ in how long and how wide a batch they train, and a
checkpoint of another shape is refused with a message instead of being handed to the lessons.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from tutor.common.i18n import M_, N_, ListText, _
from tutor.common.settings import load_settings, save_setting
from tutor.model.formats import END, TASKS
from tutor.model.presets import SIZES, TASK_BATCH, TEXT_BATCH

DATA_CHOICES = ("sort", "reverse", "text", "file")
SHAPE = SIZES["tiny"]                  # the shipped checkpoint's shape; see the module docstring
KEPT_SETTING = "model"                 # settings.json key: the checkpoint to load at start
ACCURACY_EXAMPLES = 300               # held-out digit strings per accuracy check (about 0.2 s)


@dataclass(frozen=True)
class Preset:
    title: str                         # the size's name, in English (the dashboard translates it)
    steps: int
    task_batch: int                    # rows of one digit example each (17 tokens)
    eval_interval: int

    @property
    def text_batch(self) -> int:
        """Text rows are 64 tokens, not 17: a quarter of the rows is about the same work."""
        return max(8, self.task_batch * TEXT_BATCH // TASK_BATCH)


PRESETS = {
    "quick": Preset(N_("quick"), 300, 64, 50),            # batches of 64 digit strings
    "standard": Preset(N_("standard"), 800, 128, 100),
    "full": Preset(N_("full"), 1500, 128, 250),           # how the shipped model was trained
}


@dataclass(frozen=True)
class TrainRequest:
    """What the learner chose in the Train tab."""

    data: str = "sort"                 # sort | reverse | text | file
    path: str = ""                     # the UTF-8 text file, when data == "file"
    preset: str = "standard"
    lr: float = 3e-3
    start: str = "new"                 # new: fresh weights; current: keep training the app's model
    seed: int = 0


def parse_lr(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(_("the learning rate must be a number like 3e-3, not {text}").format(text=repr(text))) from None
    if not value > 0 or value == float("inf"):
        raise ValueError(_("the learning rate must be a positive number, not {text}").format(text=text))
    return value


def shipped_config():
    from tutor.model import CharTokenizer, GPTConfig

    return GPTConfig(vocab_size=CharTokenizer().vocab_size, **SHAPE)


def shape_problem(config) -> str | None:
    """Why the lessons cannot use a model of this shape, or None when they can."""
    want = shipped_config().to_dict()
    have = config.to_dict()
    keys = ("vocab_size", "d_model", "n_head", "n_layer", "block_size", "mlp_ratio", "positions", "bias")
    wrong = [M_("{name} {have} (need {want})", name=k, have=have.get(k), want=want[k])
             for k in keys if have.get(k) != want[k]]
    if not wrong:
        return None
    # each "(need 64)" is translated with the sentence, and so is the comma between them
    return M_("the lessons are written for the shipped shape (d_model 64, 4 heads, 2 layers, 64 positions); "
              "this model has {wrong}", wrong=ListText(wrong))


def copy_model(model, trainable: bool = False):
    """A CPU copy in eval mode: what the lessons and the sampler read, or (``trainable``) a run's start."""
    from tutor.model.copies import copy_model as cpu_copy

    return cpu_copy(model, trainable=trainable)


class TrainingRun:
    """One run of the trainer on a private model; ``snapshot()`` copies its weights out.

    Built on the training thread (importing torch and reading a file take a while); raises
    ValueError with a message for the learner when the choices cannot be trained.
    """

    def __init__(self, request: TrainRequest, current=None, current_label: str = "",
                 callbacks: tuple[Callable, ...] = (), should_stop: Callable[[], bool] | None = None,
                 device: str = "auto", preset: Preset | None = None, accuracy_examples: int | None = None) -> None:
        import torch

        from tutor.model import GPT, CharTokenizer
        from tutor.model.data import load_dataset
        from tutor.model.train import TrainConfig, Trainer, use_training_threads

        use_training_threads()   # on this, the training thread: the one policy for all training
        if request.data not in DATA_CHOICES:
            raise ValueError(_("unknown data {data}").format(data=repr(request.data)))
        if preset is None and request.preset not in PRESETS:
            raise ValueError(_("unknown size preset {preset}").format(preset=repr(request.preset)))
        self.request = request
        # a training process is handed the preset itself: it imports this module afresh, so a
        # preset added at run time (a test's, the bench's) would not be in its PRESETS
        self.preset = preset or PRESETS[request.preset]
        self.tokenizer = CharTokenizer()
        if request.data == "file":
            if not request.path.strip():
                raise ValueError(_("type the path of a UTF-8 text file in the File box"))
            spec = request.path.strip()
        else:
            spec = request.data
        self.data_name = Path(spec).name if request.data == "file" else spec
        dataset = load_dataset(spec, SHAPE["block_size"], self.tokenizer)
        self.continued_from = ""
        if request.start == "current" and current is not None:
            problem = shape_problem(current.config)
            if problem:
                raise ValueError(M_("cannot continue the current model: {problem}", problem=problem))
            # trainable: the lessons' copies have no gradients, and every run "from the current
            # model" failed at its first step ("element 0 of tensors does not require grad")
            model = copy_model(current, trainable=True)
            # "shipped default checkpoint", not its details, nor a chain of earlier continuations
            self.continued_from = current_label.split(" (")[0].split(", continued from")[0]
        else:
            torch.manual_seed(request.seed)
            model = GPT(shipped_config())
        batch = self.preset.task_batch if request.data in TASKS else self.preset.text_batch
        config = TrainConfig(steps=self.preset.steps, batch_size=batch, lr=request.lr,
                             warmup_steps=min(100, self.preset.steps // 5),
                             eval_interval=self.preset.eval_interval,
                             accuracy_examples=ACCURACY_EXAMPLES if accuracy_examples is None else accuracy_examples,
                             seed=request.seed, device=device)
        self.trainer = Trainer(model, dataset, config, callbacks=list(callbacks), should_stop=should_stop)
        self.started = time.time()

    @property
    def is_task(self) -> bool:
        return self.request.data in TASKS

    def snapshot(self):
        """Call on the training thread, between steps, so the weights are never half-updated."""
        return copy_model(self.trainer.model)

    def label(self, metrics=None, status: str = "training") -> str:
        """What the lessons print after "Weights:", e.g. "your model: sort, 600 steps, accuracy 93%"."""
        steps = self.trainer.step_count
        parts = [self.data_name, f"{steps} steps"]
        accuracy = metrics.accuracy if metrics is not None else self.trainer.accuracy
        if accuracy is not None:
            parts.append(f"accuracy {100 * accuracy:.0f}%")
        if status == "training":
            parts.append(f"training, {self.preset.steps - steps} steps to go")
        elif status == "diverged":
            parts.append("diverged: the last good weights")
        if self.continued_from:
            parts.append(f"continued from {self.continued_from}")
        return "your model: " + ", ".join(parts)

    def meta(self, status: str, metrics=None) -> dict:
        """What a saved checkpoint records, in the same keys as ``tutor train`` writes."""
        import torch

        m = metrics
        return {
            "data": self.data_name, "steps": self.trainer.step_count, "status": status,
            "train_loss": m.loss if m else None, "val_loss": m.val_loss if m else None,
            "accuracy": m.accuracy if m else None, "seed": self.request.seed, "size": "tiny",
            "preset": self.request.preset, "lr": self.request.lr, "source": "dashboard",
            "stop": END if self.is_task else None, "continued_from": self.continued_from or None,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "training_seconds": round(time.time() - self.started, 1), "torch": torch.__version__,
        }


class MetricsRelay:
    """A trainer callback that hands metrics on about ``1 / interval`` times a second.

    Every step's loss is kept and handed on with the next call, so the chart misses no step
    although the UI hears of only a few; evaluated steps are always handed on at once.
    ``send(metrics, losses)`` runs on the training thread: it must only post (to the pipe the
    dashboard reads), never wait for an answer.
    """

    def __init__(self, send: Callable, interval: float = 0.1, clock: Callable[[], float] = time.monotonic) -> None:
        self.send, self.interval, self.clock = send, interval, clock
        self.losses: list[tuple[int, float]] = []
        self.last_sent = float("-inf")
        self.last_step = 0

    def __call__(self, metrics) -> None:
        if metrics.step > self.last_step:
            self.losses.append((metrics.step, metrics.loss))
            self.last_step = metrics.step
        now = self.clock()
        if metrics.evaluated or now - self.last_sent >= self.interval:
            losses, self.losses = self.losses, []
            self.last_sent = now
            self.send(metrics, losses)


class Eta:
    """Time left in a run, from the mean seconds per step over the last three quarters of it.

    The trainer's own ``eta_s`` follows an average of about the last ten steps, so on a shared
    machine it swung from 4 to 15 minutes within a minute.  Most of the run is long enough to average
    over bursts of other work and over the evaluations (``elapsed_s`` counts them and excludes
    pauses; a shorter window that holds one evaluation counts it twice over), and dropping
    the first quarter still follows a machine that stays slower or faster.
    """

    MIN_WINDOW = 20                    # steps: fewer say more about noise than about speed

    def __init__(self, total_steps: int) -> None:
        self.total_steps = total_steps
        self.points: list[tuple[int, float]] = []      # (step, elapsed_s), steps increasing

    def observe(self, step: int, elapsed_s: float) -> None:
        if not self.points or step > self.points[-1][0]:
            self.points.append((step, elapsed_s))

    def seconds_left(self) -> float | None:
        """None until enough steps are timed to say anything."""
        if len(self.points) < 2:
            return None
        step, elapsed = self.points[-1]
        first_step = self.points[0][0]
        if step - first_step < min(self.MIN_WINDOW, self.total_steps - first_step):
            return None
        oldest = max(first_step, min(step - self.MIN_WINDOW, step // 4))
        ref_step, ref_elapsed = next(p for p in reversed(self.points) if p[0] <= oldest)
        per_step = (elapsed - ref_elapsed) / (step - ref_step)
        return max(0.0, (self.total_steps - step) * per_step)


def out_of_memory(error: BaseException) -> bool:
    """MemoryError on the CPU, torch.OutOfMemoryError (a RuntimeError) on a GPU."""
    return isinstance(error, MemoryError) or type(error).__name__ == "OutOfMemoryError" \
        or "out of memory" in str(error).lower()


# --- checkpoints ---------------------------------------------------------------------------

def default_save_path(home: Path, data_name: str = "model") -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in data_name)[:40] or "model"
    return Path(home) / "checkpoints" / f"{safe}-{stamp}.pt"


def kept_path(home: Path) -> Path:
    """Where "keep the weights" at quit saves them; the next start loads them from here."""
    return Path(home) / "checkpoints" / "last.pt"


def save_model(path, model, meta: dict) -> Path:
    """Raises OSError (unwritable place) or ValueError; the panel shows either."""
    from tutor.model import CharTokenizer
    from tutor.model.checkpoint import save_checkpoint

    return save_checkpoint(Path(path).expanduser(), model, CharTokenizer(), meta)


def load_model(path, name: str | None = None):
    """-> (model, tokenizer, label, meta); CheckpointError for a bad file or a shape the lessons can't use.

    The meta (data, steps, ...) travels with the weights: without it a lesson's ``model.requires``
    could not tell what the model was trained on."""
    from tutor.model import CharTokenizer
    from tutor.model.checkpoint import CheckpointError, describe_checkpoint, load_checkpoint

    path = Path(path).expanduser()
    model, tokenizer, meta = load_checkpoint(path, expected_tokenizer=CharTokenizer())
    problem = shape_problem(model.config)
    if problem:
        raise CheckpointError(M_("{path}: {problem}", path=path, problem=problem))
    return model, tokenizer, describe_checkpoint(name or f"checkpoint {path.name}", meta), dict(meta)


def remember_kept(home: Path, path: Path | None) -> None:
    """Load ``path`` at the next start (None: the shipped model again); OSError if unwritable."""
    save_setting(home, KEPT_SETTING, str(path) if path is not None else None)


def load_kept(home: Path):
    """The checkpoint kept at the last quit -> (model, tokenizer, label, meta), or None if none is kept.

    Raises CheckpointError when the kept file is gone or broken; the caller falls back to the
    shipped model and says so.
    """
    value = load_settings(home).get(KEPT_SETTING)
    if not value:
        return None
    return load_model(value, "your model, kept from last time")
