"""A small, readable decoder-only GPT whose every intermediate tensor can be probed.

``model`` never imports ``tutor``: it is plain PyTorch that the app and the lessons read.
Names load on first use (PEP 562), so light modules such as ``formats`` and ``presets`` can be
imported without torch.
"""
from __future__ import annotations

import importlib

_HOMES = {
    "CheckpointError": "checkpoint",
    "default_checkpoint_path": "checkpoint",
    "describe_checkpoint": "checkpoint",
    "load_checkpoint": "checkpoint",
    "load_default_model": "checkpoint",
    "save_checkpoint": "checkpoint",
    "SyntheticTask": "data",
    "TextCorpus": "data",
    "builtin_text": "data",
    "load_dataset": "data",
    "GPT": "gpt",
    "GPTConfig": "gpt",
    "sinusoidal_table": "gpt",
    "describe_probe": "probes",
    "probe_shapes": "probes",
    "run_with_probes": "probes",
    "TokenDistribution": "sample",
    "beam_search": "sample",
    "filter_logits": "sample",
    "generate": "sample",
    "next_token_distribution": "sample",
    "sample_text": "sample",
    "stream": "sample",
    "stream_text": "sample",
    "CharTokenizer": "tokenizer",
    "TrainConfig": "train",
    "Trainer": "train",
    "TrainingDiverged": "train",
    "TrainMetrics": "train",
    "TrainResult": "train",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
