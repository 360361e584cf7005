"""``tutor serve --hub-service``: one tutor for a whole JupyterHub, each student's tab forked from
one preloaded process, each in a home of their own.

Why: a tab's memory is mostly torch (216 MB PSS alone, 142 MB of it private to the process that
imported it), so a tutor per student (``--hub``) costs about what a notebook learner does.  Tabs
forked from one process that imported torch share those pages: 109 MB per learner with 5 at once
against 259 MB per notebook learner (notes9/serve.md).  The price is that the students' tabs run
as one account, so the operating system no longer keeps them apart; this module and the tab do:

* a tab is chosen by the hub login of the session that opens it (tutor.web.hub_login binds a
  session to one login; no URL or message names a student), and runs with that login's home,
  ``learners/NAME-HASH/`` under the service's data folder, 0700 (the hash keeps logins that
  differ only in characters a folder name cannot hold apart);
* the tab's typed paths (checkpoint Save and Load, the Train tab's file) stay inside that home
  (``--files-in-home``), its hand-in is named by the login (TUTOR_HUB_USER), not typed, and the
  service's hub token is not in its environment;
* one tab per login at a time (a second one takes over: two tabs on one progress database would
  interleave), and a download is served only to the login whose tab offered it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from tutor.common.file_scope import HUB_USER_VARIABLE, login_folder_name
from tutor.common.safe_files import private_folder


def without_hub_settings(environment: dict[str, str]) -> dict[str, str]:
    """The environment less the hub's settings and its API token, for processes that have no use for them."""
    return {key: value for key, value in environment.items() if not key.startswith("JUPYTERHUB_")}


LEARNERS = "learners"                  # under the service's data folder: one home per hub login


class Learners:
    """Each hub login's home and tab command, under the service's data folder ``root``."""

    def __init__(self, root: Path, command: Callable[[Path], str]) -> None:
        self.root = Path(root)
        self.command_for_home = command   # the tab's command line for a home (the fork server's launcher)

    def home(self, user: str) -> Path:
        """The login's home, made 0700 (and its parents) if it is not there yet."""
        private_folder(self.root)
        private_folder(self.root / LEARNERS)
        home = self.root / LEARNERS / login_folder_name(user)
        private_folder(home)
        return home

    def command(self, user: str) -> str:
        return self.command_for_home(self.home(user))

    @staticmethod
    def environment(environment: dict[str, str], user: str) -> dict[str, str]:
        """A tab's environment, with the login it is for.  ``environment`` is tutor.web.server's
        tab_environment, which has already left out the hub's settings and the service's token."""
        return environment | {HUB_USER_VARIABLE: user}
