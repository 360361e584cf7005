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


@dataclass
class ModelHub:
    """The app's current model: the shipped checkpoint until the learner trains their own.

    The dashboard swaps in new weights; lessons read ``version`` to know their tensors are stale.
    """

    model: "GPT | None" = None
    tokenizer: "CharTokenizer | None" = None
    label: str = ""
    version: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def ensure_loaded(self) -> None:
        with self.lock:
            if self.model is None:
                from tutor.model.checkpoint import describe_checkpoint, load_default_model
                model, tokenizer, meta = load_default_model()
                self.model, self.tokenizer = model.eval(), tokenizer
                self.label = one_line(describe_checkpoint("shipped default checkpoint", meta))
                self.version += 1

    def current(self) -> "HubSnapshot":
        """Model, tokenizer, label and version read together, so a lesson's tensors are never
        labelled with weights the dashboard swapped in while they were being computed."""
        self.ensure_loaded()
        with self.lock:
            return HubSnapshot(self.model, self.tokenizer, self.label, self.version)

    def replace(self, model: "GPT", tokenizer: "CharTokenizer", label: str) -> None:
        with self.lock:
            # the label may quote a checkpoint's meta, which is untrusted: no control characters
            self.model, self.tokenizer, self.label = model, tokenizer, one_line(label)
            self.version += 1
