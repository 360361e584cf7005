"""Reading and writing files a user names, without blocking, filling memory or clobbering links.

Why: a path typed by a learner (an import, an export target, a training text) may be a FIFO,
which blocks a plain ``open`` forever; a device such as ``/dev/zero``, which never ends; a
file far larger than anything the tutor writes; or, as an export target, a symlink or a
device that a write-then-rename would silently replace with a regular file.  These helpers
read only regular files, up to a stated size, and write only by a rename beside a regular
file (or a new one), never through or over a link.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class UnsafeFileError(Exception):
    """A path the tutor will not read or write; the message names it and says why."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular_bytes(path: str | Path, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or UnsafeFileError.

    Opened with O_NONBLOCK (a FIFO opens at once instead of waiting for a writer), then
    checked with fstat on the open descriptor, so what is read is what was checked.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise UnsafeFileError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(f"cannot read {path}: it is {_kind(info.st_mode)}; give a regular {what}")
        if info.st_size > max_bytes:
            raise UnsafeFileError(f"cannot read {path}: it is {info.st_size:,} bytes, more than the "
                                  f"{max_bytes:,} a {what} may have")
        chunks, total = [], 0
        while total <= max_bytes:   # the size may have grown since fstat: never read past the cap
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise UnsafeFileError(f"cannot read {path}: it grew past the {max_bytes:,} bytes a {what} may have")
        return b"".join(chunks)
    except OSError as error:
        raise UnsafeFileError(f"cannot read {path}: {error.strerror or error}") from None
    finally:
        os.close(fd)


def check_write_target(path: str | Path) -> None:
    """Refuse a target that is a link, a device, a FIFO or a folder (a new name is fine)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise UnsafeFileError(f"cannot write {path}: {error.strerror or error}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFileError(f"cannot write {path}: it is a symbolic link, which would be replaced, not "
                              "followed; give the real file's path")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFileError(f"cannot write {path}: it is {_kind(info.st_mode)}; give a regular file's path")


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, and rename it over.

    A reader never sees half a file and a crash leaves the old one; an existing file keeps its
    permissions, a new one is private to the user (an export holds the learner's answers).
    """
    path = Path(path)
    check_write_target(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else None
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as error:
        raise UnsafeFileError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        check_write_target(path)   # it may have become a link while we wrote
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise UnsafeFileError(f"cannot write {path}: {error.strerror or error}") from None
        raise


MAX_JSON_DEPTH = 32   # a settings file is 2 levels deep, a progress export 3; room to grow, none to overflow
_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth_over(raw: bytes, max_depth: int) -> bool:
    """Whether the JSON text may nest arrays and objects more than ``max_depth`` deep.

    Why a count before the parse rather than the parser's RecursionError: that error comes
    at the interpreter's recursion limit, which any library in the process may raise (some
    do, for their own deep recursion), and then ``[`` repeated 200,000 times ran the C
    parser off the end of its stack: a segmentation fault, not a message.

    Strings are taken out first (a bracket typed in an answer is text, not depth), every
    bracket becomes ``(`` or ``)``, and each pass takes out the innermost pairs, so the passes
    are the depth.  What cannot pair (a file that does not parse) counts every opener left as
    one more level: never less than the parser would go down before it finds the mistake.
    Every step is a bytes method, so a 64 MB export costs a fraction of its parse.
    """
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")   # no escaped quote can end a string
    parens = b"".join(unescaped.split(b'"')[::2]).translate(_AS_PARENS, _NOT_BRACKETS)
    for passes in range(max_depth + 1):
        shorter = parens.replace(b"()", b"")
        if shorter == parens:   # nothing pairs any more: ")))(((" at most
            return passes + parens.count(b"(") > max_depth
        parens = shorter
    return True


def read_json_file(path: str | Path, max_bytes: int, what: str = "file", max_depth: int = MAX_JSON_DEPTH):
    """The parsed JSON of a regular file of at most ``max_bytes`` and ``max_depth`` levels of
    nesting, or UnsafeFileError saying why.

    Why one reader for every JSON file a user controls (settings, imports): a FIFO, ``/dev/zero``,
    a huge file, bytes that are not UTF-8 and ``[`` nested 100,000 deep (which overflows the
    parser's recursion) each once escaped as a hang, a MemoryError or a traceback.
    """
    import json

    raw = read_regular_bytes(path, max_bytes, what)
    if json_depth_over(raw, max_depth):
        raise UnsafeFileError(f"cannot read {path}: it is nested far more deeply than a {what} is "
                              f"(more than {max_depth} levels)")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UnsafeFileError(f"cannot read {path}: byte {error.start} is not UTF-8") from None
    except json.JSONDecodeError as error:
        raise UnsafeFileError(f"cannot read {path}: invalid JSON at line {error.lineno}, column {error.colno} "
                              f"({error.msg})") from None
    except RecursionError:
        raise UnsafeFileError(f"cannot read {path}: it is nested far more deeply than a {what} is") from None
