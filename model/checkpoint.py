"""Save and load a model with its vocabulary and a record of how it was trained.

A checkpoint is untrusted input: it is read with ``torch.load(weights_only=True)``, so it
holds only plain dicts, strings, numbers and tensors, and everything in it is checked before
a model is built.  Every problem becomes a ``CheckpointError`` whose message names the file
and what is wrong, so the CLI and the app can show it instead of a traceback.  Saving writes
a temporary file beside the target and ``os.replace``s it, so a crash never leaves half a
checkpoint where a good one was.
"""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import fields
from pathlib import Path

import torch

from .gpt import GPT, GPTConfig
from .tokenizer import CharTokenizer

FORMAT = "transformer-tutor/gpt"
VERSION = 1
_CONFIG_FIELDS = {f.name for f in fields(GPTConfig)}


class CheckpointError(Exception):
    """A checkpoint that is missing, corrupt, or does not match what it claims to hold."""


def default_checkpoint_path() -> Path:
    """The small sort-task model shipped with the package (see the README to rebuild it)."""
    return Path(__file__).resolve().parent / "checkpoints" / "default.pt"


def _plain(value):
    """Meta as types weights_only can read back; anything else is stored as its str()."""
    if value is None:
        return None
    for kind in (bool, int, float, str):  # exact builtins: subclasses (TorchVersion) are refused
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def save_checkpoint(path, model: GPT, tokenizer: CharTokenizer, meta: dict | None = None) -> Path:
    """Atomically write config, vocabulary, weights (on the CPU) and meta to ``path``."""
    path = Path(path)
    if tokenizer.vocab_size != model.config.vocab_size:
        raise ValueError(f"tokenizer has {tokenizer.vocab_size} characters but the model's "
                         f"vocab_size is {model.config.vocab_size}")
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "config": model.config.to_dict(),
        "vocab": tokenizer.chars,
        "state_dict": {k: v.detach().to("cpu").clone() for k, v in model.state_dict().items()},
        "meta": _plain(dict(meta or {})),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a checkpoint is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _read(path: Path) -> dict:
    if not path.exists():
        raise CheckpointError(f"{path}: no such checkpoint file")
    if not path.is_file():
        raise CheckpointError(f"{path}: not a file")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, foreign pickle, objects weights_only refuses...
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [type(exc).__name__]
        detail = next((ln for ln in lines if "WeightsUnpickler error" in ln), lines[0])
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt, truncated or not "
                              f"made by 'tutor train'): {detail[:200]}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a transformer-tutor checkpoint")
    if payload.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint version {payload.get('version')!r}, "
                              f"this tutor reads version {VERSION}")
    return payload


def _config(path: Path, raw) -> GPTConfig:
    if not isinstance(raw, dict):
        raise CheckpointError(f"{path}: config is missing")
    unknown = set(raw) - _CONFIG_FIELDS
    if unknown:
        raise CheckpointError(f"{path}: config has unknown fields {sorted(unknown)}")
    try:
        return GPTConfig(**raw)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: invalid config: {exc}") from None


def _tokenizer(path: Path, vocab, config: GPTConfig, expected: CharTokenizer | None) -> CharTokenizer:
    if not isinstance(vocab, str):
        raise CheckpointError(f"{path}: vocabulary is missing")
    try:
        tokenizer = CharTokenizer(vocab)
    except ValueError as exc:
        raise CheckpointError(f"{path}: invalid vocabulary: {exc}") from None
    if tokenizer.vocab_size != config.vocab_size:
        raise CheckpointError(f"{path}: vocabulary has {tokenizer.vocab_size} characters but the "
                              f"config says vocab_size={config.vocab_size}")
    if expected is not None and expected.chars != tokenizer.chars:
        where = next((i for i, (a, b) in enumerate(zip(vocab, expected.chars)) if a != b),
                     min(len(vocab), len(expected.chars)))
        raise CheckpointError(f"{path}: vocabulary mismatch: checkpoint has {len(vocab)} characters, "
                              f"expected {len(expected.chars)}; first difference at index {where}")
    return tokenizer


def load_checkpoint(path, device="cpu", expected_tokenizer: CharTokenizer | None = None):
    """-> (GPT in eval mode on ``device``, CharTokenizer, meta dict); raises CheckpointError."""
    path = Path(path)
    payload = _read(path)
    config = _config(path, payload.get("config"))
    tokenizer = _tokenizer(path, payload.get("vocab"), config, expected_tokenizer)
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{path}: weights are missing")
    model = GPT(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()][1:4]
        raise CheckpointError(f"{path}: weights do not match the config: {' '.join(lines)[:300]}") from None
    bad = [k for k, v in state.items() if v.is_floating_point() and not torch.isfinite(v).all()]
    if bad:
        raise CheckpointError(f"{path}: weights contain NaN or inf ({', '.join(bad[:3])})")
    meta = payload.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    model.to(device).eval()
    return model, tokenizer, meta


def load_default_model(device="cpu"):
    """The shipped checkpoint -> (GPT, CharTokenizer, meta); what lessons use out of the box."""
    return load_checkpoint(default_checkpoint_path(), device)


def describe_meta(meta: dict) -> str:
    """One line saying which weights these are, for lessons and the CLI."""
    parts = [f"data={meta.get('data', '?')}", f"steps={meta.get('steps', '?')}"]
    for key in ("val_loss", "accuracy"):
        value = meta.get(key)
        if isinstance(value, float) and math.isfinite(value):
            parts.append(f"{key}={value:.4g}" if key != "accuracy" else f"accuracy={value:.1%}")
    if meta.get("created"):
        parts.append(f"created={meta['created']}")
    return " ".join(parts)
