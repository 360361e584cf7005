"""Small preferences (the theme) kept in ``settings.json`` beside the progress database.

Why a file and not the database: a preference must still be remembered when the database
is refused (written by a newer tutor), and it is not history, so export/import and reset
should leave it alone.  A missing or unreadable file simply means the defaults.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

SETTINGS_NAME = "settings.json"


def load_settings(home: Path) -> dict:
    try:
        data = json.loads((Path(home) / SETTINGS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_setting(home: Path, key: str, value) -> None:
    """Write atomically (temp file, then rename) so a killed process never leaves half a file.

    Raises OSError when the home directory cannot be written; callers decide whether that matters.
    """
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    data = load_settings(home)
    data[key] = value
    target = home / SETTINGS_NAME
    tmp = target.with_name(f"{SETTINGS_NAME}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
