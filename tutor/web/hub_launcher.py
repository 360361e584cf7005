"""The tutor on a JupyterHub: what jupyter-server-proxy needs to start each user's own tutor.

``pip install "transformer-tutor[jupyter]"`` in the users' image registers this function under
jupyter-server-proxy's ``jupyter_serverproxy_servers`` entry point, so each hub user gets a
"Transformer math tutor" tile in the JupyterLab launcher and the tutor at ``/user/NAME/tutor/``.

It runs inside that user's single-user server, as that user, so everything here is theirs:
their progress under their own hub home (``resolve_home``: TUTOR_HOME, else the user data folder
under $HOME), their checkpoints, and a ``tutor serve`` on a Unix socket that jupyter-server-proxy
puts in a new private folder, so no other user of the machine can reach it.  The hub already
logged the user in, so the tutor asks for no token; each tab speaks the browser's language
(Accept-Language) unless the learner picked one in the app.

The launcher tile, though, has one title, read when the user's server starts and shown to every
browser as it is (JupyterLab translates its own tiles, not a proxy's): so it carries the tutor's
name in every language the tutor speaks, the learner's own first (a Chinese browser on an
English hub saw only "Transformer math tutor").
"""
from __future__ import annotations

import sys

from pathlib import Path

from tutor.common.i18n import LANGUAGES, SETTING, in_language, resolve_language
from tutor.web.server import ICONS, TITLE

# A learner on a hub has the tutor open in one or two tabs; a cap keeps a forgotten pile of tabs
# from holding a server's worth of memory that the hub's per-user limit has to pay for.
TABS_PER_USER = 3


def setup_tutor() -> dict:
    """jupyter-server-proxy's server-process settings for the tutor (see its ServerProcess)."""
    from tutor.progress.store import resolve_home

    home = resolve_home(None).expanduser().resolve()
    return {
        # no fork server: a hub user has one tab, and a preloaded parent beside it would only add memory
        "command": [sys.executable, "-m", "tutor", "--home", str(home), "serve", "--unix-socket", "{unix_socket}",
                    "--max-sessions", str(TABS_PER_USER), "--no-fork-server"],
        "unix_socket": True,
        "timeout": 60,   # the first start after an image pull imports Textual and aiohttp from a cold disk
        "new_browser_tab": True,
        "launcher_entry": {"title": launcher_title(home), "icon_path": str(ICONS / "tutor.svg"), "category": "Other"},
    }


def launcher_title(home: Path, environ=None) -> str:
    """The tutor's name in each language it speaks, the learner's first (the one chosen in the app, else
    the locale's): "Transformer math tutor · Transformer 数学导师"."""
    from tutor.common.settings import load_settings

    first = resolve_language(None, load_settings(home).get(SETTING), environ)
    titles = [in_language(code, TITLE) for code in (first, *LANGUAGES)]
    return " · ".join(dict.fromkeys(titles))
