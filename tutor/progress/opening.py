"""Opening the progress file safely: one opener at a time, and a look before touching it.

Kept apart from the store so it stays about keeping answers; both guard the same moment, when
a second ``tutor`` starting while the first creates the database could take a half-written file
for a corrupt one.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tutor.common.safe_files import private_file
from tutor.progress import open_failure

CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class ProgressError(Exception):
    """A problem the user can act on; the message is meant to be shown as is."""


@contextmanager
def opening_lock(home: Path) -> Iterator[None]:
    """Serialise opening across processes: a second tutor starting while the first creates
    the database would otherwise probe a half-written file, call it corrupt and move it aside."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; busy_timeout still guards the writes themselves
        yield
        return
    try:
        private_file(home / "progress.lock")   # 0600 whatever the umask, like everything in the home
        handle = open(home / "progress.lock", "a")
    except OSError:  # a read-only home: opening will report the real problem
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def probe(path: Path) -> tuple[int, bool]:
    """(user_version, corrupt) read through a read-only connection, so a file we
    then refuse is left exactly as it was."""
    if not path.exists() or path.stat().st_size == 0:
        return 0, False
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            ok = con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            return version, not ok
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in CORRUPT_CODES:
            return 0, True
        raise ProgressError(open_failure.explain(path, exc)) from exc
