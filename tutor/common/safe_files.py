"""Reading and writing files a user names, without blocking, filling memory or clobbering links.

Why: a path typed by a learner (an import, an export target, a training text) may be a FIFO,
which blocks a plain ``open`` forever; a device such as ``/dev/zero``, which never ends; a
file far larger than anything the tutor writes; or, as an export target, a symlink or a
device that a write-then-rename would silently replace with a regular file.  These helpers
read only regular files, up to a stated size, and write only by a rename beside a regular
file (or a new one), never through or over a link.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from tutor.common.i18n import M_, N_
from tutor.common.json_words import json_problem
from tutor.common.safe_text import neutralise


FILE = M_("file")   # what a file is called in a message, unless the caller names it ("settings file")


class UnsafeFileError(Exception):
    """A path the tutor will not read or write; the message names it and says why."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, M_("a folder")), (stat.S_ISFIFO, M_("a FIFO (named pipe)")),
                       (stat.S_ISCHR, M_("a character device")), (stat.S_ISBLK, M_("a block device")),
                       (stat.S_ISSOCK, M_("a socket")), (stat.S_ISLNK, M_("a symbolic link"))):
        if test(mode):
            return name
    return M_("not a regular file")


# the operating system's commonest reasons, in the interface language (strerror is always English)
OS_REASONS = {errno.ENOENT: N_("No such file or directory"), errno.EACCES: N_("Permission denied"),
              errno.EISDIR: N_("Is a directory"), errno.ENOTDIR: N_("Not a directory"),
              errno.ENOSPC: N_("No space left on device"), errno.EROFS: N_("Read-only file system"),
              errno.ELOOP: N_("Too many levels of symbolic links")}


def os_reason(error: OSError) -> str:
    known = OS_REASONS.get(error.errno)
    return M_(known) if known else (error.strerror or str(error))


def _cannot_read(path, why: str) -> UnsafeFileError:
    """The path shown terminal-safe here, so the message can stay a Message (translated where shown)."""
    return UnsafeFileError(M_("cannot read {path}: {why}", path=neutralise(str(path), keep=""), why=why))


def _cannot_write(path, why: str) -> UnsafeFileError:
    return UnsafeFileError(M_("cannot write {path}: {why}", path=neutralise(str(path), keep=""), why=why))


def open_nonblocking(path: str | Path) -> int:
    """A read-only descriptor for ``path``, to be checked with os.fstat before reading: O_NONBLOCK, so
    a FIFO opens at once instead of waiting for a writer; O_NOCTTY, so a terminal is not adopted.
    (For a regular file O_NONBLOCK changes nothing.)"""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags)


def read_regular_bytes(path: str | Path, max_bytes: int, what: str = FILE) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or UnsafeFileError.

    Opened with O_NONBLOCK (a FIFO opens at once instead of waiting for a writer), then
    checked with fstat on the open descriptor, so what is read is what was checked.
    """
    try:
        fd = open_nonblocking(path)
    except OSError as error:
        raise _cannot_read(path, os_reason(error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _cannot_read(path, M_("it is {kind}; give a regular {what}", kind=_kind(info.st_mode), what=what))
        if info.st_size > max_bytes:
            raise _cannot_read(path, M_("it is {size} bytes, more than the {limit} a {what} may have",
                                        size=format(info.st_size, ","), limit=format(max_bytes, ","), what=what))
        chunks, total = [], 0
        while total <= max_bytes:   # the size may have grown since fstat: never read past the cap
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise _cannot_read(path, M_("it grew past the {limit} bytes a {what} may have", limit=format(max_bytes, ","),
                                        what=what))
        return b"".join(chunks)
    except OSError as error:
        raise _cannot_read(path, os_reason(error)) from None
    finally:
        os.close(fd)


def check_write_target(path: str | Path) -> None:
    """Refuse a target that is a link, a device, a FIFO or a folder (a new name is fine)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise _cannot_write(path, os_reason(error)) from None
    if stat.S_ISLNK(info.st_mode):
        raise _cannot_write(path, M_("it is a symbolic link, which would be replaced, not followed; give the real "
                                     "file's path"))
    if not stat.S_ISREG(info.st_mode):
        raise _cannot_write(path, M_("it is {kind}; give a regular file's path", kind=_kind(info.st_mode)))


def write_atomically(path: str | Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, and rename it over.

    A reader never sees half a file and a crash leaves the old one; an existing file keeps its
    permissions, a new one is private to the user (an export holds the learner's answers), unless
    ``mode`` is given (a hand-in the teacher's group reads).
    """
    path = Path(path)
    check_write_target(path)
    try:
        if mode is None:
            mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else None
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as error:
        raise _cannot_write(path, os_reason(error)) from None
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
            raise _cannot_write(path, os_reason(error)) from None
        raise


def private_folder(path: str | Path) -> None:
    """Create ``path`` (and its parents) and make it 0700, whatever the umask, if it is ours.

    Why: a learner's answers are theirs.  On a shared machine (a JupyterHub on Debian, where homes
    are 0755) a data folder made under the default umask let one student read another's progress.
    A folder that was made more open before is closed too; one owned by someone else is left as is.
    """
    path = Path(path)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.stat(path)
    if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, stat.S_IMODE(info.st_mode) & 0o700)


def private_file(path: str | Path) -> None:
    """Create ``path`` empty if it is not there, and make it 0600 if it is ours (see private_folder)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o177:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


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


GZIP_MAGIC = b"\x1f\x8b"


def inflate(raw: bytes, max_bytes: int, path, what: str = FILE) -> bytes:
    """``raw`` as it was before gzip compressed it, refused past ``max_bytes`` (a small file can
    hold gigabytes of zeros: the inflating stops at the cap instead of filling memory)."""
    import zlib

    inflater = zlib.decompressobj(wbits=31)   # 31: a gzip header and trailer
    try:
        data = inflater.decompress(raw, max_bytes + 1)
        if len(data) <= max_bytes and not inflater.eof:
            data += inflater.flush(max_bytes + 1 - len(data))
    except zlib.error:
        raise _cannot_read(path, M_("it is not a whole gzip file")) from None
    if len(data) > max_bytes:
        raise _cannot_read(path, M_("it unpacks to more than the {limit} bytes a {what} may have",
                                    limit=format(max_bytes, ","), what=what))
    if not inflater.eof:
        raise _cannot_read(path, M_("it is not a whole gzip file"))
    return data


def read_json_file(path: str | Path, max_bytes: int, what: str = FILE, max_depth: int = MAX_JSON_DEPTH,
                   inflated_max: int | None = None):
    """The parsed JSON of a regular file of at most ``max_bytes`` and ``max_depth`` levels of
    nesting, or UnsafeFileError saying why.  With ``inflated_max``, a gzip file is read too (known
    by its first bytes, whatever its name), and may unpack to that many bytes.

    Why one reader for every JSON file a user controls (settings, imports): a FIFO, ``/dev/zero``,
    a huge file, bytes that are not UTF-8, ``[`` nested 100,000 deep (which overflows the
    parser's recursion) and an integer of more than 4,300 digits (Python's limit for turning text
    into an int) each once escaped as a hang, a MemoryError or a traceback.
    """
    import json

    raw = read_regular_bytes(path, max_bytes, what)
    if inflated_max is not None and raw.startswith(GZIP_MAGIC):
        raw = inflate(raw, inflated_max, path, what)
    if json_depth_over(raw, max_depth):
        raise _cannot_read(path, M_("it is nested far more deeply than a {what} is (more than {depth} levels)",
                                    what=what, depth=max_depth))
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise _cannot_read(path, M_("byte {offset} is not UTF-8", offset=error.start)) from None
    except json.JSONDecodeError as error:
        raise _cannot_read(path, M_("invalid JSON at line {line}, column {column} ({why})", line=error.lineno,
                                    column=error.colno, why=json_problem(error.msg))) from None
    except RecursionError:
        raise _cannot_read(path, M_("it is nested far more deeply than a {what} is", what=what)) from None
    except ValueError:   # after JSONDecodeError, its subclass: what is left is int()'s digit limit
        raise _cannot_read(path, M_("it holds a number of more than {digits:,} digits, which no {what} has",
                                    digits=sys.get_int_max_str_digits(), what=what)) from None
