"""What a checkpoint archive declares, read without torch, so its sizes are checked before loading.

Why: ``torch.load`` reads every storage the archive's pickle names into memory before anything
can be checked, so a 1.48 MB file with one deflated extra tensor took 1.36 GB before it was
refused.  Here only the zip's directory and ``data.pkl`` (itself bounded) are read: the pickle
is replayed by a survey unpickler that knows only the few names ``torch.save`` writes for plain
tensors and builds nothing but records of them (``TensorRef``), so the config, every tensor's
shape and every storage's size are known while nothing but the pickle is in memory.  Any other
name refuses the file, as ``weights_only`` would.
"""
from __future__ import annotations

import io
import math
import pickle
import zipfile
from dataclasses import dataclass

from .messages import M_

MAX_PICKLE_BYTES = 4 * 1024 * 1024   # config, vocabulary, names and bounded meta: ~5 KB in practice
ELEMENT_SIZES = {"DoubleStorage": 8, "FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2, "LongStorage": 8,
                 "IntStorage": 4, "ShortStorage": 2, "CharStorage": 1, "ByteStorage": 1, "BoolStorage": 1}


class ArchiveError(Exception):
    """The archive cannot be surveyed; the message says why (without the path: the caller adds it)."""


@dataclass(frozen=True)
class StorageRef:
    key: str
    numel: int
    element_size: int

    @property
    def nbytes(self) -> int:
        return self.numel * self.element_size


@dataclass(frozen=True)
class TensorRef:
    storage: StorageRef
    shape: tuple[int, ...]


@dataclass(frozen=True)
class StorageType:
    name: str


@dataclass(frozen=True)
class Survey:
    payload: object                  # the checkpoint's dict, with TensorRef where tensors would be
    declared: dict[str, int]         # storage key -> bytes the zip declares for its record
    total_declared: int              # every entry's declared (uncompressed) size, added up


def _rebuild_tensor(storage, offset, size, stride, *rest) -> TensorRef:
    if not isinstance(storage, StorageRef) or type(offset) is not int or not isinstance(size, tuple) \
            or not all(type(n) is int and n >= 0 for n in size):
        raise ArchiveError(M_("a tensor record is malformed"))
    return TensorRef(storage, size)


class _SurveyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if (module, name) == ("collections", "OrderedDict"):
            return dict
        if module == "torch" and name in ELEMENT_SIZES:
            return StorageType(name)
        raise ArchiveError(M_("it names {module}.{name}, which a checkpoint never holds", module=module[:40], name=name[:40]))

    def persistent_load(self, pid) -> StorageRef:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], StorageType)
                and type(pid[2]) is str and type(pid[4]) is int and pid[4] >= 0):
            raise ArchiveError(M_("a storage record is malformed"))
        return StorageRef(pid[2], pid[4], ELEMENT_SIZES[pid[1].name])


def survey(path) -> Survey:
    """The archive's pickle replayed into records, and the sizes its zip directory declares."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            pickles = [e for e in entries if e.filename.endswith("/data.pkl") and e.filename.count("/") == 1]
            if len(pickles) != 1:
                raise ArchiveError(M_("it is a zip archive without one data.pkl, so not a torch checkpoint"))
            record = pickles[0]
            if record.file_size > MAX_PICKLE_BYTES:
                raise ArchiveError(M_("its data.pkl declares {size:,} bytes, more than the {most:,} a checkpoint's needs",
                                      size=record.file_size, most=MAX_PICKLE_BYTES))
            with archive.open(record) as handle:
                raw = handle.read(MAX_PICKLE_BYTES + 1)
            prefix = record.filename[: -len("data.pkl")]
            declared = {e.filename[len(prefix) + len("data/"):]: e.file_size for e in entries
                        if e.filename.startswith(prefix + "data/")}
            total = sum(e.file_size for e in entries)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, ValueError) as exc:
        if str(exc) == "File is not a zip file":   # any other file: said in words that can be translated
            raise ArchiveError(M_("it is not a zip archive, which is what torch.save writes")) from None
        raise ArchiveError(M_("not a zip archive as torch.save writes ({detail})", detail=str(exc)[:80])) from None
    if len(raw) > MAX_PICKLE_BYTES:
        raise ArchiveError(M_("its data.pkl is longer than its zip entry declares"))
    try:
        payload = _SurveyUnpickler(io.BytesIO(raw)).load()
    except ArchiveError:
        raise
    except Exception as exc:   # truncated or hostile pickle: any failure means the same thing
        raise ArchiveError(M_("its data.pkl is not a readable pickle ({kind})", kind=type(exc).__name__)) from None
    return Survey(payload, declared, total)


def tensor_refs(value, where: str = "") -> list[tuple[str, TensorRef]]:
    """Every tensor record anywhere in ``value``, with where it is (``meta['weights']``); each
    container is visited once (a pickle can share one list many times over, which a plain walk
    would repeat exponentially)."""
    found, seen, stack = [], set(), [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, TensorRef):
            found.append((at, item))
        elif isinstance(item, (dict, list, tuple)) and id(item) not in seen:
            seen.add(id(item))
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((v, _where(at, k)) for k, v in pairs)
    return found


def _where(at: str, key) -> str:
    key = key[:40] if isinstance(key, str) else key if type(key) is int else type(key).__name__
    return f"{at}[{key!r}]" if at else str(key)


def oversized(survey_: Survey, expected: dict[str, tuple[int, ...]], slack: int) -> str | None:
    """Why the archive would load more than ``expected`` (name -> shape) needs, or None.

    Every tensor must be one of the expected weights, its storage no larger than its shape in
    float64, and each storage's zip record exactly the size the pickle declares for it; the
    whole archive may add ``slack`` bytes (pickle and small records) to that.
    """
    state = survey_.payload.get("state_dict") if isinstance(survey_.payload, dict) else None
    weights = {id(v) for v in state.values()} if isinstance(state, dict) else set()
    strays = [at for at, t in tensor_refs(survey_.payload) if id(t) not in weights]
    if strays:
        return M_("{where} holds a Tensor; a checkpoint holds tensors only as weights in state_dict", where=strays[0])
    unexpected = sorted(set(state) - set(expected)) if isinstance(state, dict) else []
    if unexpected:
        return M_("its weights do not match the config: unexpected {names:.100}", names=repr(unexpected[:3]))
    allowed = 0
    for name, shape in expected.items():
        ref = state.get(name) if isinstance(state, dict) else None
        limit = math.prod(shape) * 8
        allowed += limit
        if isinstance(ref, TensorRef) and ref.storage.nbytes > limit:
            return M_("its weight {name} declares {size:,} bytes; a {shape} weight needs at most {most:,}",
                      name=name[:60], size=ref.storage.nbytes, shape=shape, most=limit)
    for _, ref in tensor_refs(state):
        if survey_.declared.get(ref.storage.key) != ref.storage.nbytes:
            return M_("the record of storage {key} does not have the size its tensor declares", key=ref.storage.key[:20])
    if survey_.total_declared > allowed + slack:
        return M_("its entries declare {size:,} bytes in all; its weights need at most {most:,}",
                  size=survey_.total_declared, most=allowed)
    return None
