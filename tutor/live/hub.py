"""The app's current model, shared by the lessons and the dashboard.

Kept free of torch imports at module level so the app can create it before torch loads.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tutor.common.safe_text import one_line

if TYPE_CHECKING:
    from tutor.model import GPT, CharTokenizer


@dataclass(frozen=True)
class HubSnapshot:
    model: "GPT"
    tokenizer: "CharTokenizer"
    label: str
    version: int
    meta: dict = field(default_factory=dict)   # the checkpoint's meta: data, steps, ... (empty: unknown)


@dataclass
class ModelHub:
    """The app's current model: the shipped checkpoint until the learner trains their own.

    The dashboard swaps in new weights; lessons read ``version`` to know their tensors are stale.
    """

    model: "GPT | None" = None
    tokenizer: "CharTokenizer | None" = None
    label: str = ""
    version: int = 0
    meta: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _shipped: "HubSnapshot | None" = field(default=None, repr=False)
    _named: "dict[str, HubSnapshot]" = field(default_factory=dict, repr=False)

    def ensure_loaded(self) -> None:
        with self.lock:
            if self.model is None:
                shipped = self._load_shipped()
                self.model, self.tokenizer, self.meta = shipped.model, shipped.tokenizer, dict(shipped.meta)
                self.label = shipped.label
                self.version += 1

    def _load_shipped(self) -> "HubSnapshot":
        """The shipped checkpoint, read once (hold the lock): the app's first model and the one a
        lesson may ask for beside the learner's are the same weights, never changed in place."""
        if self._shipped is None:
            from tutor.model.checkpoint import describe_checkpoint, load_default_model
            model, tokenizer, meta = load_default_model()
            self._shipped = HubSnapshot(model.eval(), tokenizer, one_line(describe_checkpoint(
                "shipped default checkpoint", meta)), -1, dict(meta))
        return self._shipped

    def current(self) -> "HubSnapshot":
        """Model, tokenizer, label and version read together, so a lesson's tensors are never
        labelled with weights the dashboard swapped in while they were being computed."""
        self.ensure_loaded()
        with self.lock:
            return HubSnapshot(self.model, self.tokenizer, self.label, self.version, dict(self.meta))

    def current_is_shipped(self) -> bool:
        """Whether the app's model is still the shipped checkpoint (the one lessons are checked on)."""
        with self.lock:
            return self._shipped is not None and self.model is self._shipped.model

    def shipped(self) -> "HubSnapshot":
        """The shipped model, loaded beside the current one (which stays as it is): for a lesson
        that needs it while the learner's own weights keep serving everything else."""
        with self.lock:
            return self._load_shipped()

    def named(self, name: str) -> "HubSnapshot":
        """A shipped checkpoint by name ("text"), loaded once and kept beside the current model: a
        lesson with ``weights: text`` shows it whatever the learner trained.  ValueError for an
        unknown name, CheckpointError for a missing file."""
        with self.lock:
            if name not in self._named:
                model, tokenizer, label, meta = load_named_with_meta(name)
                self._named[name] = HubSnapshot(model, tokenizer, one_line(label), -2, meta)
            return self._named[name]

    def replace(self, model: "GPT", tokenizer: "CharTokenizer", label: str, meta: dict | None = None) -> None:
        """The new current model; ``meta`` (data, steps, ...) lets lessons check their requirements."""
        with self.lock:
            # the label may quote a checkpoint's meta, which is untrusted: no control characters
            self.model, self.tokenizer, self.label = model, tokenizer, one_line(label)
            self.meta = dict(meta or {})
            self.version += 1


SHIPPED = {"sort": "default.pt", "text": "text.pt"}   # the checkpoints in tutor.model's checkpoints/


def load_named(name: str):
    """A shipped checkpoint by name -> (model, tokenizer, label).

    "sort" is the default model the lessons are written for; "text" has the same shape but was
    trained on the built-in prose, so decoding strategies visibly differ on it.
    """
    model, tokenizer, label, _ = load_named_with_meta(name)
    return model, tokenizer, label


def load_named_with_meta(name: str):
    """load_named, plus the checkpoint's meta (data, steps) that lesson requirements read."""
    from tutor.model.checkpoint import default_checkpoint_path, describe_checkpoint, load_checkpoint

    if name not in SHIPPED:
        raise ValueError(f"no shipped model {name!r}; choose {', '.join(SHIPPED)}")
    model, tokenizer, meta = load_checkpoint(default_checkpoint_path().with_name(SHIPPED[name]))
    return model.eval(), tokenizer, describe_checkpoint(f"shipped {name} model", meta), dict(meta)


def hub_for_checkpoint(spec: str) -> ModelHub:
    """A hub whose current model is the checkpoint at ``spec``, or ``random``: untrained weights of
    the shipped model's shape (seed 0).  Raises CheckpointError for a file that cannot be used."""
    from tutor.model.checkpoint import describe_checkpoint, load_checkpoint, load_default_model

    hub = ModelHub()
    if spec == "random":
        from tutor.model.copies import seeded_model

        shipped, tokenizer, _ = load_default_model()
        model = seeded_model(shipped.config, 0)
        hub.replace(model, tokenizer, "random initial weights of the shipped shape (seed 0, untrained)", {"steps": 0})
    else:
        model, tokenizer, meta = load_checkpoint(spec)
        hub.replace(model.eval(), tokenizer, describe_checkpoint(f"checkpoint {spec}", meta), meta)
    return hub
