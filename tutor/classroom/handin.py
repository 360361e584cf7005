"""Handing progress in to a teacher, as nbgrader's exchange does: a folder everyone can write into
and no student can read.

The admin makes the folder once (docs/class.md): ``chmod 1733`` (students write and cannot list;
the sticky bit stops one student replacing another's file; the teacher reads as root), or a
teachers' group with ``chmod 3773`` (the setgid bit gives each hand-in that group, which reads it).
A hand-in is an export named by the student's login (or the name they give), gzip-compressed, with
the name inside it, written beside its final name and renamed over the previous one: the teacher
never reads half a file, and a second hand-in replaces the first.  It is readable by the owner
only, or by the folder's group where the folder passes its group on; never by everyone.
"""
from __future__ import annotations

import os
import stat
import unicodedata
from datetime import datetime
from pathlib import Path

from tutor.common.i18n import M_, ngettext
from tutor.common.safe_text import find_unsafe, neutralise

EXCHANGE_VARIABLE = "TUTOR_CLASS_EXCHANGE"
MAX_NAME_CHARS = 80
SUFFIX = ".json.gz"


class HandInError(Exception):
    """A hand-in that cannot be made; the message (a Message) says why and what to do."""


def exchange_folder(explicit: str | Path | None = None) -> Path:
    """--exchange, else TUTOR_CLASS_EXCHANGE, else HandInError."""
    chosen = explicit or os.environ.get(EXCHANGE_VARIABLE, "").strip()
    if not chosen:
        raise HandInError(M_("no exchange folder: your teacher gives one; pass --exchange DIR or set "
                             "{variable}", variable=EXCHANGE_VARIABLE))
    return Path(chosen).expanduser()


def login_name() -> str:
    """The account's name as the system knows it (not $USER, which anyone can set)."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        import getpass

        return getpass.getuser()


def chosen_name(home: Path | None) -> str:
    """The name the learner set once (the app's hand-in asks, and remembers it), else the login."""
    from tutor.common.settings import load_settings
    from tutor.progress.store import resolve_home

    saved = load_settings(resolve_home(home)).get("name", "").strip()
    return saved or login_name()


def learner_name(given: str | None, home: Path | None = None) -> str:
    """``given`` (--name, the app's name field), else :func:`chosen_name`; HandInError if it is not plain text."""
    name = (given if given is not None else chosen_name(home)).strip()
    if not name or len(name) > MAX_NAME_CHARS or find_unsafe(name, keep=""):
        raise HandInError(M_("a name must be 1 to {most} characters of plain text, not {name}", most=MAX_NAME_CHARS,
                             name=neutralise(repr(name)[:100], keep="")))
    return name


def file_name(name: str) -> str:
    """The hand-in's file name: the name's letters and digits (any script), other characters ``_``."""
    safe = "".join(ch if unicodedata.category(ch)[0] in "LN" or ch in "-_." else "_" for ch in name).lstrip(".")
    return (safe or "learner")[:MAX_NAME_CHARS] + SUFFIX


def hand_in_mode(folder: Path) -> int:
    """0640 where the folder gives its files its group (setgid: the teachers'), else 0600;
    HandInError where the folder is missing or cannot be written."""
    try:
        info = os.stat(folder)
    except OSError as error:
        raise HandInError(M_("cannot use the exchange folder {folder}: {why}", folder=neutralise(str(folder), keep=""),
                             why=error.strerror or str(error))) from None
    if not stat.S_ISDIR(info.st_mode):
        raise HandInError(M_("the exchange folder {folder} is not a folder", folder=neutralise(str(folder), keep="")))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise HandInError(M_("cannot write into the exchange folder {folder}; ask your teacher to check its "
                             "permissions (docs/class.md)", folder=neutralise(str(folder), keep="")))
    return 0o640 if info.st_mode & stat.S_ISGID else 0o600


def hand_in(store, folder: Path, name: str, now: datetime, course=None, stem: str | None = None) -> tuple[Path, int]:
    """Write the learner's export into the exchange folder; (the file, attempts written).  ``stem``:
    the file's name before its suffix when the caller decides it (a hub service: from the login)."""
    from tutor.progress.io import export_json

    target = folder / (stem + SUFFIX if stem else file_name(name))
    attempts = export_json(store, target, now=now, course=course, learner=name, compress=True,
                           mode=hand_in_mode(folder))
    return target, attempts


def handed_in_message(attempts: int, name: str, path: Path) -> str:
    """One sentence for the app's notice and the CLI's line, so "1 attempt" reads right in both."""
    return ngettext("Handed in {attempts} attempt as {name}: {path}", "Handed in {attempts} attempts as {name}: {path}",
                    attempts).format(attempts=attempts, name=name, path=path)
