"""Training data that needs no download: checkable synthetic tasks and offline prose.

Synthetic tasks (``sort``, ``reverse``) write one example per line::

    3141>1134\\n        sort: the digits before '>' in ascending order, then a newline
    3141>1413\\n        reverse: the digits before '>' backwards, then a newline

so prompting a trained model with ``"3141>"`` and stopping at ``"\\n"`` gives the answer.
Each training row holds one example starting at position 0, padded with newlines; only the
answer and its newline are scored (targets elsewhere are ``IGNORE``), because the digits
before '>' are random and no model can predict them.  One example per row keeps the
attention patterns the lessons show about a single example, and the accuracy of a task is
the exact match of the greedy answer, which a learner can watch rise.

Train and validation inputs are disjoint: a fixed hash of the digit string sends about one
in ten strings to validation, so validation accuracy measures strings never trained on.

``text`` is English prose that every Python install carries: the docstrings of a fixed list
of standard-library modules, read from source with ``ast`` (nothing is imported).  Any other
``--data`` value is a path to a UTF-8 text file.  Text is split by position: the first 90%
trains, the last 10% validates.  Everything is deterministic given a ``torch.Generator``.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import torch

from .tokenizer import UNKNOWN, CharTokenizer

from .formats import DIGITS, END, IGNORE, SEPARATOR, TASKS
from .messages import M_, reason_of

VAL_FRACTION = 0.1
MAX_TEXT_BYTES = 64 * 2**20   # far more than a small model can learn from; keeps memory bounded

# Prose-heavy standard-library modules whose docstrings make the offline ``text`` corpus.
TEXT_MODULES = (
    "argparse", "ast", "asyncio.tasks", "base64", "bisect", "calendar", "collections",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "email.message",
    "enum", "fractions", "functools", "getopt", "gettext", "glob", "gzip", "heapq", "hmac",
    "inspect", "ipaddress", "json", "logging", "mailbox", "netrc", "optparse", "os", "pathlib",
    "pickle", "pprint", "queue", "random", "shlex", "shutil", "smtplib", "socket", "statistics",
    "string", "subprocess", "tarfile", "tempfile", "textwrap", "threading", "timeit", "tokenize",
    "traceback", "typing", "unittest.case", "urllib.parse", "uuid", "warnings", "wave",
    "weakref", "zipfile",
)


def _val_mask(digits: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """True for strings in the validation split: a mixing hash of the digits, 1 in 10."""
    h = torch.zeros(digits.shape[0], dtype=torch.int64)                      # (N,)
    for i in range(digits.shape[1]):
        mixed = ((h + digits[:, i] + 1) * 1103515245 + 12345) & 0x7FFFFFFF   # (N,)
        h = torch.where(i < lengths, mixed, h)
    h = ((h ^ (h >> 15)) * 2246822519) & 0x7FFFFFFF                          # (N,)
    return (h >> 11) % 10 == 0


@dataclass
class SyntheticTask:
    """Digit strings of ``min_len..max_len`` digits and their sorted or reversed answer."""

    name: str = "sort"
    min_len: int = 1
    max_len: int = 8
    tokenizer: CharTokenizer = field(default_factory=CharTokenizer)
    stop: str = END

    def __post_init__(self) -> None:
        if self.name not in TASKS:
            raise ValueError(M_("unknown task {name!r}; choose one of {tasks}", name=self.name, tasks=", ".join(TASKS)))
        if not 1 <= self.min_len <= self.max_len:
            raise ValueError(M_("need 1 <= min_len <= max_len"))
        enc = self.tokenizer.encode(DIGITS + SEPARATOR + END)
        self._digit_ids = torch.tensor(enc[:10])                             # (10,)
        self._sep_id, self._end_id = enc[10], enc[11]

    @property
    def seq_len(self) -> int:
        """Tokens in one training row: the longest example minus its last token."""
        return 2 * self.max_len + 1

    def answer(self, digits: str) -> str:
        return "".join(sorted(digits)) if self.name == "sort" else digits[::-1]

    def format(self, digits: str) -> tuple[str, str]:
        """(prompt, completion) for one digit string, e.g. ("3141>", "1134\\n")."""
        return digits + SEPARATOR, self.answer(digits) + END

    def sample_digits(self, n: int, split: str, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """n digit strings from one split: (digits (n, max_len) with junk past each length, lengths (n,))."""
        want_val = split == "val"
        parts_d, parts_l, have = [], [], 0
        while have < n:
            m = max(16, 2 * (n - have) if not want_val else 12 * (n - have))
            lengths = torch.randint(self.min_len, self.max_len + 1, (m,), generator=generator)  # (m,)
            digits = torch.randint(0, 10, (m, self.max_len), generator=generator)              # (m, max_len)
            keep = _val_mask(digits, lengths) == want_val                                      # (m,)
            parts_d.append(digits[keep])
            parts_l.append(lengths[keep])
            have += int(keep.sum())
        return torch.cat(parts_d)[:n], torch.cat(parts_l)[:n]

    def encode_rows(self, digits: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Inputs and targets for whole examples, padded with newlines; only answers are scored."""
        n, width = digits.shape[0], self.max_len
        pos = torch.arange(width)                                            # (W,)
        valid = pos[None, :] < lengths[:, None]                              # (n, W)
        if self.name == "sort":
            answer = torch.where(valid, digits, 10).sort(dim=1).values     # (n, W), pads sort last
        else:
            back = (lengths[:, None] - 1 - pos[None, :]).clamp(min=0)        # (n, W)
            answer = torch.where(valid, digits.gather(1, back), 10)          # (n, W)
        table = torch.cat([self._digit_ids, torch.tensor([self._end_id])])   # (11,) digit ids + pad
        full = torch.full((n, 2 * width + 2), self._end_id, dtype=torch.long)  # (n, 2W+2)
        full[:, :width] = table[torch.where(valid, digits, 10)]
        full.scatter_(1, lengths[:, None], self._sep_id)                      # '>' right after the digits
        # answer starts at column length+1; write it through a gather from a shifted view
        col = torch.arange(2 * width + 2)                                    # (2W+2,)
        rel = col[None, :] - lengths[:, None] - 1                            # (n, 2W+2)
        in_answer = (rel >= 0) & (rel < lengths[:, None])                    # (n, 2W+2)
        answer_ids = table[answer].gather(1, rel.clamp(0, width - 1))        # (n, 2W+2)
        full = torch.where(in_answer, answer_ids, full)
        x, y = full[:, :-1], full[:, 1:].clone()                             # (n, 2W+1) each
        scored = (col[None, 1:] > lengths[:, None]) & (col[None, 1:] <= 2 * lengths[:, None] + 1)
        y[~scored] = IGNORE
        return x, y

    def get_batch(self, split: str, batch_size: int, generator: torch.Generator, device="cpu"):
        digits, lengths = self.sample_digits(batch_size, split, generator)
        x, y = self.encode_rows(digits, lengths)
        return x.to(device), y.to(device)

    def validation_examples(self, n: int, seed: int = 1234) -> list[str]:
        """A fixed list of held-out digit strings for exact-match accuracy."""
        digits, lengths = self.sample_digits(n, "val", torch.Generator().manual_seed(seed))
        return ["".join(str(int(d)) for d in row[:length]) for row, length in zip(digits, lengths)]

    @torch.no_grad()
    def accuracy(self, model, n: int = 500, device=None, examples: list[str] | None = None) -> float:
        """Fraction of held-out examples whose greedy answer (and newline) is exactly right."""
        examples = examples if examples is not None else self.validation_examples(n)
        device = device or next(model.parameters()).device
        was_training = model.training
        model.eval()
        correct = 0
        try:
            by_len: dict[int, list[str]] = {}
            for s in examples:
                by_len.setdefault(len(s), []).append(s)
            for length, group in by_len.items():
                prompts = torch.tensor([self.tokenizer.encode(s + SEPARATOR) for s in group], device=device)
                seq = prompts                                                # (G, length+1)
                for _ in range(length + 1):
                    logits = model(seq[:, -model.config.block_size:])        # (G, T, V)
                    seq = torch.cat([seq, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
                want = torch.tensor([self.tokenizer.encode(self.answer(s) + END) for s in group], device=device)
                correct += int((seq[:, length + 1:] == want).all(dim=1).sum())
        finally:
            model.train(was_training)
        return correct / max(1, len(examples))

    def describe(self) -> dict:
        return {"data": self.name, "min_len": self.min_len, "max_len": self.max_len,
                "format": f"digits{SEPARATOR}answer\\n", "stop": self.stop}


@functools.lru_cache(maxsize=1)
def builtin_text() -> str:
    """Docstrings of ``TEXT_MODULES`` read from the installed standard library's source (~0.5 MB)."""
    chunks: list[str] = []
    for name in TEXT_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        try:
            tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 40:
                    chunks.append(doc.strip() + "\n\n")
    return "".join(chunks)


# the parts' names as a message says them (translated where it is shown: 训练集, not "train 部分")
SPLIT_WORDS = {"train": M_("training split"), "val": M_("validation split")}


@dataclass
class TextCorpus:
    """A text split 90/10 by position; rows are random windows of ``block_size + 1`` chars."""

    text: str
    name: str = "text"
    block_size: int = 64
    tokenizer: CharTokenizer = field(default_factory=CharTokenizer)
    stop: str | None = None

    def __post_init__(self) -> None:
        self.replaced = _outside_vocabulary(self.name, self.text, self.tokenizer)
        ids = torch.tensor(self.tokenizer.encode(self.text), dtype=torch.long)  # (N,)
        cut = int(len(ids) * (1 - VAL_FRACTION))
        self._splits = {"train": ids[:cut], "val": ids[cut:]}
        for split, part in self._splits.items():
            if len(part) < self.block_size + 2:
                raise ValueError(M_("{name}: the {split} has {count} characters; need more than block_size+1={most}",
                                    name=self.name, split=SPLIT_WORDS[split], count=len(part),
                                    most=self.block_size + 1))

    @property
    def seq_len(self) -> int:
        return self.block_size

    def get_batch(self, split: str, batch_size: int, generator: torch.Generator, device="cpu"):
        ids = self._splits[split]
        starts = torch.randint(0, len(ids) - self.block_size - 1, (batch_size,), generator=generator)  # (B,)
        offsets = starts[:, None] + torch.arange(self.block_size + 1)       # (B, L+1)
        rows = ids[offsets]                                                  # (B, L+1)
        return rows[:, :-1].to(device), rows[:, 1:].to(device)

    def describe(self) -> dict:
        return {"data": self.name, "characters": len(self.text), "val_fraction": VAL_FRACTION,
                "replaced": sum(self.replaced.values())}

    def replaced_note(self) -> str | None:
        """'3,120 characters outside the vocabulary (U+00E9 é, ...) are trained on as '?'', or None."""
        if not self.replaced:
            return None
        common = sorted(self.replaced, key=self.replaced.get, reverse=True)[:5]
        shown = ", ".join(f"U+{ord(c):04X} {c}" if c.isprintable() else f"U+{ord(c):04X}" for c in common)
        more = ", ..." if len(self.replaced) > len(common) else ""
        return (f"{sum(self.replaced.values()):,} characters outside the model's vocabulary ({shown}{more}) "
                f"are trained on as {UNKNOWN!r}")


def _outside_vocabulary(name: str, text: str, tokenizer: CharTokenizer) -> dict[str, int]:
    """Each character the vocabulary lacks -> how often it occurs; ValueError when they are most of
    the text, which would train a model on little but '?' (a tester's text once did, silently)."""
    counts = dict(Counter(text.translate(dict.fromkeys(map(ord, tokenizer.chars)))))   # what is left: unknown
    if sum(counts.values()) * 2 > len(text):
        raise ValueError(M_("{name}: {outside:,} of its {count:,} characters are outside the model's vocabulary, so it "
                            "would be trained mostly on {unknown!r}; give a text written mostly in the characters it "
                            "knows (printable ASCII for the built-in model)",
                            name=name, outside=sum(counts.values()), count=len(text), unknown=UNKNOWN))
    return counts


def load_dataset(spec: str, block_size: int = 64, tokenizer: CharTokenizer | None = None,
                 min_len: int = 1, max_len: int = 8):
    """``sort`` | ``reverse`` | ``text`` | a path to a UTF-8 text file -> a dataset.

    Raises ValueError with a readable message for a missing, unreadable or too-short file.
    """
    tokenizer = tokenizer or CharTokenizer()
    if spec in TASKS:
        task = SyntheticTask(spec, min_len, max_len, tokenizer)
        if task.seq_len > block_size:
            raise ValueError(M_("{spec} with up to {digits} digits needs block_size >= {needed}",
                                spec=spec, digits=max_len, needed=task.seq_len))
        return task
    if spec == "text":
        return TextCorpus(builtin_text(), "text", block_size, tokenizer)
    path = Path(spec).expanduser()
    if not path.is_file():   # also refuses FIFOs and devices, which could block or never end
        raise ValueError(M_("--data {spec!r} is neither sort, reverse, text nor an existing file", spec=spec))
    try:
        with path.open("rb") as handle:   # bounded: a training text is read whole into memory
            raw = handle.read(MAX_TEXT_BYTES + 1)
        if len(raw) > MAX_TEXT_BYTES:
            raise ValueError(M_("{path} is larger than {most} MB; train on a part of it", path=path, most=MAX_TEXT_BYTES // 2**20))
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(M_("cannot read {path} as UTF-8 text: {problem}", path=path, problem=reason_of(exc))) from None
    return TextCorpus(text, str(path), block_size, tokenizer)
