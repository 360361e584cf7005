"""A small, readable decoder-only GPT whose every intermediate tensor can be probed.

``model`` never imports ``tutor``: it is plain PyTorch that the app and the lessons read.
"""
from .checkpoint import (CheckpointError, default_checkpoint_path, describe_meta, load_checkpoint,
                         load_default_model, save_checkpoint)
from .data import SyntheticTask, TextCorpus, builtin_text, load_dataset
from .gpt import GPT, GPTConfig, sinusoidal_table
from .probes import describe_probe, probe_shapes, run_with_probes
from .sample import (TokenDistribution, beam_search, filter_logits, generate, next_token_distribution,
                     sample_text, stream, stream_text)
from .tokenizer import CharTokenizer
from .train import TrainConfig, Trainer, TrainingDiverged, TrainMetrics, TrainResult

__all__ = [
    "GPT", "GPTConfig", "CharTokenizer", "describe_probe", "probe_shapes", "run_with_probes", "sinusoidal_table",
    "CheckpointError", "default_checkpoint_path", "describe_meta", "load_checkpoint", "load_default_model",
    "save_checkpoint",
    "SyntheticTask", "TextCorpus", "builtin_text", "load_dataset",
    "TokenDistribution", "beam_search", "filter_logits", "generate", "next_token_distribution", "sample_text",
    "stream", "stream_text",
    "TrainConfig", "Trainer", "TrainingDiverged", "TrainMetrics", "TrainResult",
]
