"""Save and load a model with its vocabulary and a record of how it was trained.

A checkpoint is untrusted input: it is read with ``torch.load(weights_only=True)``, so it
holds only plain dicts, strings, numbers and tensors, and everything in it is checked before
a model is built: the config's exact types and bounds first (a hostile size must fail before
it can allocate), then the vocabulary, then every weight's name, dtype and shape against a
model on the ``meta`` device (which allocates nothing), then the meta record (types and
sizes; its text is bounded here but must still be escaped wherever it is displayed).  Every
problem becomes a one-line ``CheckpointError`` naming the file and what is wrong, so the
CLI and the app can show it instead of a traceback.  Saving writes
a temporary file beside the target and ``os.replace``s it, so a crash never leaves half a
checkpoint where a good one was.
"""
from __future__ import annotations

import math
import os
import tempfile
import unicodedata
from dataclasses import fields
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode

from .archive import MAX_PICKLE_BYTES, ArchiveError, oversized, survey
from .gpt import GPT, GPTConfig
from .messages import M_, Message, reason_of
from .tokenizer import CharTokenizer

FORMAT = "transformer-tutor/gpt"
VERSION = 1
_CONFIG_FIELDS = {f.name for f in fields(GPTConfig)}
# Allowed config values: generous for a teaching model, small enough that a hostile file cannot
# make the loader build something huge (n_layer 10**7 once took 7 GB and 51 s to fail).
INT_BOUNDS = {"vocab_size": (2, 4096), "block_size": (1, 4096), "n_layer": (1, 16), "n_head": (1, 64),
              "d_model": (1, 1024), "mlp_ratio": (1, 8)}
CHOICES = {"positions": ("learned", "sinusoidal", "none")}
BOOLS = ("fused_attention", "bias")
# Meta is shown to the learner and read by the CLI: plain values of bounded size only, and the
# fields the code reads must have the type it expects (None always allowed).
MAX_TEXT, MAX_KEY, MAX_ITEMS, MAX_DEPTH = 4096, 100, 256, 6
META_TYPES = {**dict.fromkeys(("data", "stop", "created", "command", "status", "size", "device", "torch",
                                "continued_from", "reproduced"), (str,)),
              **dict.fromkeys(("steps", "seed", "threads"), (int,)),
              **dict.fromkeys(("train_loss", "val_loss", "accuracy", "training_seconds"), (int, float)),
              **dict.fromkeys(("dataset", "train_config"), (dict,))}
_FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.float64)


class CheckpointError(Exception):
    """A checkpoint that is missing, corrupt, or does not match what it claims to hold."""


def default_checkpoint_path() -> Path:
    """The small sort-task model shipped with the package (see the README to rebuild it)."""
    return Path(__file__).resolve().parent / "checkpoints" / "default.pt"


def _plain(value, depth: int = 0):
    """Meta as types weights_only can read back, within the bounds ``load_checkpoint`` enforces.

    Anything else is stored as its str(); over-long text and containers are cut, so a
    checkpoint this module writes is always one it will read.
    """
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        value = str(value)
    for kind in (bool, int, float, str):  # exact builtins: subclasses (TorchVersion) are refused
        if isinstance(value, kind):
            return kind(value)[:MAX_TEXT] if kind is str else kind(value)
    if depth < MAX_DEPTH and isinstance(value, dict):
        return {str(k)[:MAX_KEY]: _plain(v, depth + 1) for k, v in list(value.items())[:MAX_ITEMS]}
    if depth < MAX_DEPTH and isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
    return str(value)[:MAX_TEXT]


def save_checkpoint(path, model: GPT, tokenizer: CharTokenizer, meta: dict | None = None) -> Path:
    """Atomically write config, vocabulary, weights (on the CPU) and meta to ``path``."""
    path = Path(path)
    if tokenizer.vocab_size != model.config.vocab_size:
        raise ValueError(M_("tokenizer has {count} characters but the model's vocab_size is {size}",
                            count=tokenizer.vocab_size, size=model.config.vocab_size))
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


def _show(value, limit: int = 40) -> str:
    """A short, printable repr of an untrusted value for an error message."""
    text = "".join(ch if ch.isprintable() else "?" for ch in repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown_message(value: str, limit: int) -> str:
    """``_show(value)``; a Message of ours that it would show whole and unescaped is a sentence, not
    the file's text, so it is shown as it is (no quotes) and still translated."""
    text = _show(value, limit)
    if isinstance(value, Message) and text[1:-1] == value:
        return value
    return text


def _unreadable(path: Path, detail: str) -> CheckpointError:
    return CheckpointError(M_("{path}: not a readable checkpoint (corrupt, truncated or not made by 'tutor train'): "
                              "{detail}", path=path, detail=_shown_message(detail, 200)))


def _check_declared_sizes(path: Path) -> tuple[GPTConfig, dict[str, tuple[int, ...]]]:
    """Refuse, before torch.load reads a byte of weight, an archive that declares more than its
    config's weights need (see archive.py: a deflated extra tensor once took 1.36 GB to refuse)."""
    if not path.exists():
        raise CheckpointError(M_("{path}: no such checkpoint file", path=path))
    if not path.is_file():
        raise CheckpointError(M_("{path}: not a file", path=path))
    try:
        surveyed = survey(path)
    except ArchiveError as exc:
        raise _unreadable(path, reason_of(exc)) from None
    payload = surveyed.payload
    if not isinstance(payload, dict) or type(payload.get("format")) is not str or payload["format"] != FORMAT:
        raise CheckpointError(M_("{path}: not a transformer-tutor checkpoint", path=path))
    config = _config(path, payload.get("config"))
    expected = _expected_shapes(config)
    problem = oversized(surveyed, expected, slack=MAX_PICKLE_BYTES + 64 * 1024)
    if problem:
        raise CheckpointError(M_("{path}: refused before loading: {problem}", path=path, problem=problem))
    return config, expected


def _read(path: Path) -> dict:
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, foreign pickle, objects weights_only refuses...
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [type(exc).__name__]
        raise _unreadable(path, next((ln for ln in lines if "WeightsUnpickler error" in ln), lines[0])) from None
    if not isinstance(payload, dict) or type(payload.get("format")) is not str or payload["format"] != FORMAT:
        raise CheckpointError(M_("{path}: not a transformer-tutor checkpoint", path=path))
    version = payload.get("version")
    if type(version) is not int or version != VERSION:
        raise CheckpointError(M_("{path}: checkpoint version {version}, this tutor reads version {readable}",
                                 path=path, version=_show(version), readable=VERSION))
    return payload


def _config(path: Path, raw) -> GPTConfig:
    """Every field present, of the exact type, within bounds, before anything is built."""
    if not isinstance(raw, dict):
        raise CheckpointError(M_("{path}: config is missing", path=path))
    if not all(isinstance(k, str) for k in raw):
        raise CheckpointError(M_("{path}: invalid config: field names must be text", path=path))
    unknown = set(raw) - _CONFIG_FIELDS
    if unknown:
        raise CheckpointError(M_("{path}: config has unknown fields {fields}", path=path, fields=_show(sorted(unknown), 80)))
    missing = _CONFIG_FIELDS - set(raw)
    if missing:
        raise CheckpointError(M_("{path}: invalid config: missing fields {fields}", path=path, fields=sorted(missing)))
    for name, (low, high) in INT_BOUNDS.items():
        value = raw[name]
        if type(value) is not int:   # not float 64.0, not bool True
            raise CheckpointError(M_("{path}: invalid config: {name} must be a whole number from {low} to {high}, "
                                     "not {kind} {value}", path=path, name=name, low=low, high=high,
                                     kind=type(value).__name__, value=_show(value)))
        if not low <= value <= high:
            raise CheckpointError(M_("{path}: invalid config: {name}={value} is out of range (allowed: {low} to {high})",
                                     path=path, name=name, value=_show(value), low=low, high=high))
    for name, allowed in CHOICES.items():
        if type(raw[name]) is not str or raw[name] not in allowed:
            raise CheckpointError(M_("{path}: invalid config: {name} must be one of {allowed}, not {value}",
                                     path=path, name=name, allowed=", ".join(allowed), value=_show(raw[name])))
    for name in BOOLS:
        if type(raw[name]) is not bool:
            raise CheckpointError(M_("{path}: invalid config: {name} must be true or false, not {value}",
                                     path=path, name=name, value=_show(raw[name])))
    if raw["d_model"] % raw["n_head"]:
        raise CheckpointError(M_("{path}: invalid config: d_model={d_model} must be divisible by n_head={n_head}",
                                 path=path, d_model=raw["d_model"], n_head=raw["n_head"]))
    try:
        return GPTConfig(**raw)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(M_("{path}: invalid config: {problem}", path=path, problem=reason_of(exc))) from None


class _SkipInitialisers(TorchFunctionMode):
    """Initialisers do nothing inside it: on the meta device they only cost time, and a lot of it.

    ``normal_`` on a meta tensor runs a Python reference that imports ``torch._dynamo`` on first
    use: as long as importing torch itself, and the larger part of the app's "model ready".
    """
    SKIPPED = frozenset({"normal_", "uniform_", "zeros_", "ones_", "constant_", "zero_", "fill_", "trunc_normal_",
                         "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_"})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) in self.SKIPPED:   # nn.init passes the tensor by keyword
            return args[0] if args else (kwargs or {})["tensor"]
        return func(*args, **(kwargs or {}))


def _expected_shapes(config: GPTConfig) -> dict[str, tuple[int, ...]]:
    with torch.device("meta"), _SkipInitialisers():   # builds the model without allocating its weights
        return {k: tuple(v.shape) for k, v in GPT(config).state_dict().items()}


def _check_weights(path: Path, state, expected: dict[str, tuple[int, ...]]) -> None:
    """Names, shapes and dtypes against the config (on the meta device: nothing allocated), then NaN."""
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise CheckpointError(M_("{path}: weights are missing", path=path))
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    if missing or unexpected:
        raise CheckpointError(M_("{path}: weights do not match the config: missing {missing}, unexpected {unexpected}",
                                 path=path, missing=_show(missing, 100), unexpected=_show(unexpected, 100)))
    for name, shape in expected.items():
        tensor = state[name]
        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided or tensor.dtype not in _FLOAT_DTYPES:
            raise CheckpointError(M_("{path}: weights do not match the config: {name} is not a float tensor",
                                     path=path, name=name))
        if tuple(tensor.shape) != shape:
            raise CheckpointError(M_("{path}: weights do not match the config: {name} has shape {shape}, "
                                     "the config needs {needed}", path=path, name=name,
                                     shape=_show(tuple(tensor.shape)), needed=shape))
    bad = [k for k, v in state.items() if not torch.isfinite(v).all()]
    if bad:
        raise CheckpointError(M_("{path}: weights contain NaN or inf ({names})", path=path, names=", ".join(bad[:3])))


def _check_plain(path: Path, value, where: str, depth: int = 0) -> None:
    if value is None or type(value) in (bool, float):
        return
    if type(value) is int:
        if abs(value) >= 2**63:
            raise CheckpointError(M_("{path}: {where} is a number too large to be real", path=path, where=where))
        return
    if type(value) is str:
        if len(value) > MAX_TEXT:
            raise CheckpointError(M_("{path}: {where} is {length} characters long (at most {most})",
                                     path=path, where=where, length=len(value), most=MAX_TEXT))
        return
    if type(value) not in (dict, list, tuple):
        raise CheckpointError(M_("{path}: {where} holds a {kind}; meta holds only plain values",
                                 path=path, where=where, kind=type(value).__name__))
    if depth >= MAX_DEPTH or len(value) > MAX_ITEMS:
        raise CheckpointError(M_("{path}: {where} is nested deeper than {depth} or holds more than {items} items",
                                 path=path, where=where, depth=MAX_DEPTH, items=MAX_ITEMS))
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(value, dict) and (type(key) is not str or len(key) > MAX_KEY):
            raise CheckpointError(M_("{path}: {where} has a field name that is not short text: {key}",
                                     path=path, where=where, key=_show(key)))
        _check_plain(path, item, f"{where}[{_show(key)}]", depth + 1)


def _meta(path: Path, raw) -> dict:
    """The record of how the weights were made: untrusted text, checked for type and size."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise CheckpointError(M_("{path}: meta must be a dict, not {kind}", path=path, kind=type(raw).__name__))
    _check_plain(path, raw, "meta")
    for key, kinds in META_TYPES.items():
        value = raw.get(key)
        if value is not None and (type(value) not in kinds):
            names = " or ".join("a number" if k is float else k.__name__ for k in kinds)
            raise CheckpointError(M_("{path}: meta[{key!r}] must be {names}, not {kind}",
                                     path=path, key=key, names=names, kind=type(value).__name__))
    return raw


def _tokenizer(path: Path, vocab, config: GPTConfig, expected: CharTokenizer | None) -> CharTokenizer:
    if type(vocab) is not str:
        raise CheckpointError(M_("{path}: vocabulary is missing", path=path))
    if len(vocab) != config.vocab_size:
        raise CheckpointError(M_("{path}: vocabulary has {count} characters but the config says vocab_size={size}",
                                 path=path, count=len(vocab), size=config.vocab_size))
    # generated text goes to the terminal as is: no escape, bidi or other invisible characters
    hidden = next((ch for ch in vocab if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cf", "Cs")), None)
    if hidden is not None:
        raise CheckpointError(M_("{path}: invalid vocabulary: control character U+{code:04X}", path=path, code=ord(hidden)))
    try:
        tokenizer = CharTokenizer(vocab)
    except ValueError as exc:
        raise CheckpointError(M_("{path}: invalid vocabulary: {problem}", path=path, problem=reason_of(exc))) from None
    if expected is not None and expected.chars != tokenizer.chars:
        where = next((i for i, (a, b) in enumerate(zip(vocab, expected.chars)) if a != b),
                     min(len(vocab), len(expected.chars)))
        raise CheckpointError(M_("{path}: vocabulary mismatch: checkpoint has {count} characters, expected {expected}; "
                                 "first difference at index {where}", path=path, count=len(vocab),
                                 expected=len(expected.chars), where=where))
    return tokenizer


def load_checkpoint(path, device="cpu", expected_tokenizer: CharTokenizer | None = None):
    """-> (GPT in eval mode on ``device``, CharTokenizer, meta dict); raises CheckpointError."""
    path = Path(path)
    surveyed_config, expected = _check_declared_sizes(path)
    payload = _read(path)
    config = _config(path, payload.get("config"))
    if config != surveyed_config:
        raise CheckpointError(M_("{path}: the file changed while it was read; try again", path=path))
    tokenizer = _tokenizer(path, payload.get("vocab"), config, expected_tokenizer)
    state = payload.get("state_dict")
    _check_weights(path, state, expected)
    meta = _meta(path, payload.get("meta"))
    model = GPT(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:   # not expected after _check_weights; kept as a last line of defence
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()][1:4]
        raise CheckpointError(M_("{path}: weights do not match the config: {detail}",
                                 path=path, detail=" ".join(lines)[:300])) from None
    model.to(device).eval()
    return model, tokenizer, meta


def load_default_model(device="cpu"):
    """The shipped checkpoint -> (GPT, CharTokenizer, meta); what lessons use out of the box."""
    return load_checkpoint(default_checkpoint_path(), device)


def describe_checkpoint(name: str, meta: dict) -> str:
    """What lessons and the dashboard say about a set of weights, e.g.
    "shipped default checkpoint (trained on sort, 1500 steps, accuracy 100%)"."""
    details = []
    if meta.get("data"):
        details.append(f"trained on {meta['data']}")
    if meta.get("steps") is not None:
        details.append(f"{meta['steps']} steps")
    if isinstance(meta.get("accuracy"), (int, float)) and math.isfinite(meta["accuracy"]):
        details.append(f"accuracy {100 * float(meta['accuracy']):.0f}%")
    return f"{name} ({', '.join(details)})" if details else name
