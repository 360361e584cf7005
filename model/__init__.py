"""A small, readable decoder-only GPT whose every intermediate tensor can be probed.

``model`` never imports ``tutor``: it is plain PyTorch that the app and the lessons read.
"""
from .gpt import GPT, GPTConfig, sinusoidal_table
from .probes import describe_probe, probe_shapes, run_with_probes
from .tokenizer import CharTokenizer

__all__ = ["GPT", "GPTConfig", "CharTokenizer", "describe_probe", "probe_shapes", "run_with_probes", "sinusoidal_table"]
