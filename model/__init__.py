"""A small, readable decoder-only GPT whose every intermediate tensor can be probed.

``model`` never imports ``tutor``: it is plain PyTorch that the app and the lessons read.

The names below load on first use (PEP 562), not when the package is imported: importing
torch takes seconds, and ``tutor`` reads ``tutor.model.presets`` to build its command line,
so an eager package would put torch in front of the app's first paint.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

_HOMES = {
    ".checkpoint": ("CheckpointError", "default_checkpoint_path", "describe_meta", "load_checkpoint",
                    "load_default_model", "save_checkpoint"),
    ".data": ("SyntheticTask", "TextCorpus", "builtin_text", "load_dataset"),
    ".gpt": ("GPT", "GPTConfig", "sinusoidal_table"),
    ".probes": ("describe_probe", "probe_shapes", "run_with_probes"),
    ".sample": ("TokenDistribution", "beam_search", "filter_logits", "generate", "next_token_distribution",
                "sample_text", "stream", "stream_text"),
    ".tokenizer": ("CharTokenizer",),
    ".train": ("TrainConfig", "Trainer", "TrainingDiverged", "TrainMetrics", "TrainResult"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_HOME_OF)

if TYPE_CHECKING:  # what a type checker and the layout test see; at run time __getattr__ loads these
    from .checkpoint import (CheckpointError, default_checkpoint_path, describe_meta, load_checkpoint,
                             load_default_model, save_checkpoint)
    from .data import SyntheticTask, TextCorpus, builtin_text, load_dataset
    from .gpt import GPT, GPTConfig, sinusoidal_table
    from .probes import describe_probe, probe_shapes, run_with_probes
    from .sample import (TokenDistribution, beam_search, filter_logits, generate, next_token_distribution,
                         sample_text, stream, stream_text)
    from .tokenizer import CharTokenizer
    from .train import TrainConfig, Trainer, TrainingDiverged, TrainMetrics, TrainResult


def __getattr__(name: str):
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value   # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
