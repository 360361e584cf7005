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
"""
from __future__ import annotations

import sys

from tutor.common.i18n import _
from tutor.web.server import TITLE

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
        "launcher_entry": {"title": _(TITLE), "category": "Other"},
    }
