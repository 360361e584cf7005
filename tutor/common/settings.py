"""Small preferences (theme, language, kept model) in ``settings.json`` beside the progress database.

Why a file and not the database: a preference must still be remembered when the database
is refused (written by a newer tutor), and it is not history, so export/import and reset
should leave it alone.

Why it is read as untrusted input: every command reads it, even ``--version``, so a file nested
100,000 deep, a FIFO, ``/dev/zero`` or ``{"theme": {}}`` once broke (or hung) every command and
the app.  It is read with the bounded reader used for imports, each known value must have its
type, and anything else means the defaults plus a notice, shown once (``settings_notice``).
A missing file is the normal first start and says nothing.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from tutor.common.i18n import M_, _, message_of, translated
from tutor.common.safe_files import UnsafeFileError, private_file, private_folder, read_json_file
from tutor.common.safe_text import one_line

SETTINGS_NAME = "settings.json"
MAX_SETTINGS_BYTES = 64 * 1024          # a few short values; the file the tutor writes is < 1 KB
# The type each known value must have; unknown keys (from a newer tutor) are kept as they are.
# "name": what the learner is called on a hand-in or export (set once in the app; else the login).
VALUE_TYPES: dict[str, tuple[type, ...]] = {"theme": (str,), "language": (str,), "model": (str, type(None)),
                                            "name": (str,)}


@dataclass(frozen=True)
class SettingsRead:
    values: dict
    unreadable: str | None = None               # why the file could not be read at all
    ignored: tuple[str, ...] = field(default=())  # known keys whose value had the wrong type


def read_settings(home: Path) -> SettingsRead:
    path = Path(home) / SETTINGS_NAME
    if not os.path.lexists(path):
        return SettingsRead({})
    try:
        data = read_json_file(path, MAX_SETTINGS_BYTES, what=M_("settings file"))
    except UnsafeFileError as error:
        return SettingsRead({}, unreadable=message_of(error))
    if not isinstance(data, dict):
        return SettingsRead({}, unreadable=f"{path} holds {type(data).__name__}, not a JSON object")
    ignored = tuple(key for key, kinds in VALUE_TYPES.items() if key in data and type(data[key]) not in kinds)
    return SettingsRead({k: v for k, v in data.items() if k not in ignored}, ignored=ignored)


def load_settings(home: Path) -> dict:
    """The usable values: those of the right type, from a file that could be read (else {})."""
    return read_settings(home).values


_noticed: set[Path] = set()


def settings_notice(home: Path) -> str | None:
    """What was wrong with the settings file, the first time it is asked for in this process.

    One line, with no control characters (the path and the reason come from the file system)."""
    home = Path(home)
    read = read_settings(home)
    if home in _noticed or not (read.unreadable or read.ignored):
        return None
    _noticed.add(home)
    if read.unreadable:
        return one_line(_("Settings not read ({reason}); the defaults are used.").format(
            reason=translated(read.unreadable)))
    return one_line(_("Settings: {keys} in {path} had the wrong type and were ignored; the defaults are used "
                      "for them.").format(keys=", ".join(read.ignored), path=home / SETTINGS_NAME))


def save_setting(home: Path, key: str, value) -> None:
    """Write atomically (temp file, then rename) so a killed process never leaves half a file.

    Values that were refused on reading are dropped; a file that could not be read at all is
    first moved aside to ``settings.json.bad``, so nothing the learner had is lost unseen.
    Raises OSError when the home directory cannot be written; callers decide whether that matters.
    """
    home = Path(home)
    private_folder(home)
    read = read_settings(home)
    data = dict(read.values)
    data[key] = value
    target = home / SETTINGS_NAME
    if read.unreadable:
        os.replace(target, target.with_name(SETTINGS_NAME + ".bad"))
        private_file(target.with_name(SETTINGS_NAME + ".bad"))
    tmp = target.with_name(f"{SETTINGS_NAME}.{os.getpid()}.tmp")
    try:
        private_file(tmp)   # 0600 whatever the umask, like everything in the home
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
