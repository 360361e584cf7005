"""Why the progress database could not be opened, in words a learner can act on.

SQLite says only "unable to open database file".  The usual causes are on the learner's
side and each has its own fix: ``progress.db`` is a symlink to something that no longer
exists (a moved sync folder), it is a folder, or the home folder is read-only (a shared or
mounted directory).  The store wraps every opening error with this explanation and the path.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tutor.common.safe_text import one_line

FIX = "Choose another folder with --home DIR or TUTOR_HOME."


def explain(path: Path, error: sqlite3.Error | OSError) -> str:
    """'cannot open progress database PATH: WHY. FIX' (the path neutralised: it may hold anything)."""
    return one_line(f"cannot open progress database {path}: {_reason(Path(path), error)}. {FIX}")


def _reason(path: Path, error: sqlite3.Error | OSError) -> str:
    home = path.parent
    if path.is_symlink() and not path.exists():
        return f"it is a symbolic link to {os.readlink(path)}, which does not exist"
    if path.is_dir():
        return "it is a folder, not a database file"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return "the file is not readable and writable by you"
    if not path.exists() and not os.access(home, os.W_OK | os.X_OK):
        return f"the folder {home} is read-only, so the database cannot be created there"
    for side in ("-wal", "-shm", "-journal"):
        companion = path.with_name(path.name + side)
        if companion.exists() and not os.access(companion, os.R_OK | os.W_OK):
            return f"{companion.name} beside it is not writable by you"
    detail = getattr(error, "strerror", None) or str(error)
    return f"SQLite says: {detail}"
