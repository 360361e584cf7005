"""Paths typed into the app, confined to the learner's home when the app is served to others.

Why: ``tutor serve --public`` hands the dashboard's Save, Load and Train-file boxes to anyone
with the address, and they ran with the teacher's account: a Save replaced a text file with a
checkpoint, the File box read any path.  Confined, a typed path is taken relative to the home,
resolved (symlinks and ``..`` followed) and refused unless it stays inside.
"""
from __future__ import annotations

from pathlib import Path

from tutor.common.i18n import _


# Set by ``tutor serve --hub-service`` for each tab: the hub login it is for (tutor.web.hub_service);
# the hand-in is then named by it, since the tabs of all students run as one account.
HUB_USER_VARIABLE = "TUTOR_HUB_USER"


class OutsideHomeError(ValueError):
    """A path that leaves the home while files are confined to it; the message is shown as is."""


def typed_path(text: str, home: Path, confined: bool) -> Path:
    """The file ``text`` names: as typed (``~`` expanded), or, when ``confined``, inside ``home``.

    Confined, a relative path is relative to the home; the check is on the fully resolved path,
    so a symlink inside the home that points out of it is refused too.
    """
    if not confined:
        return Path(text).expanduser()
    root = Path(home).expanduser().resolve()
    typed = Path(text)
    resolved = (typed if typed.is_absolute() else root / typed).resolve()
    if resolved != root and root not in resolved.parents:
        raise OutsideHomeError(_("only files inside {home} can be used here (this tutor is served to others)")
                               .format(home=root))
    return resolved


def login_folder_name(login: str) -> str:
    """A folder (and hand-in) name for a hub login, which may hold any character: its letters and
    digits of any script, ``-`` and ``_`` (at most 40, so a teacher can tell whose it is: 张伟 stays
    张伟), then 12 hex digits of its SHA-256, so that two logins never share one ("a/b" and "a_b"
    differ) and ``..``, ``/``, NUL or a right-to-left mark never reach a path."""
    import hashlib

    readable = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in login)[:40].strip("_") or "user"
    return f"{readable}-{hashlib.sha256(login.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"
