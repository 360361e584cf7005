"""``tutor serve``: one learner's tutor in a web browser, through textual-serve, behind a secret token.

Argument parsing and what is printed live here; the server (access checks, page, session
limit, TLS) is tutor.web.  A class does not run on one ``tutor serve`` (its tabs share one
--home, so two students would become one learner): it runs on a JupyterHub, where each user
gets their own tutor (docs/class.md).
"""
from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys
from pathlib import Path

from tutor.cli.args import whole_number
from tutor.common.i18n import _
from tutor.common.safe_text import one_line
from tutor.web import DEFAULT_MAX_SESSIONS   # the server's modules load only when serving

SERVICE_MAX_SESSIONS = 60   # a class on one service: every student's tab, and some to spare
FORK_SERVER_WAIT = 120   # seconds: its imports take a few on a quiet machine, much longer on a busy one


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve",
        help=_("serve the app in a web browser for one learner (on this machine only, unless --public)"),
        description=_("Serve the tutor as a web page with textual-serve; open the printed address, which "
                      "holds a secret token made for this run, in a browser. For a class, see docs/class.md."),
    )
    parser.add_argument("--port", type=int, default=8000, help=_("port to listen on (default: 8000)"))
    parser.add_argument("--host", default="127.0.0.1",
                        help=_("address to listen on (default: 127.0.0.1, this machine only)"))
    parser.add_argument("--public", action="store_true",
                        help=_("allow a --host other than loopback: anyone who can reach it and has the printed "
                               "address (with its token) can use your tutor; Save, Load and the Train file then "
                               "stay inside --home"))
    parser.add_argument("--max-sessions", type=whole_number(1, 1000), default=None, metavar="N",
                        help=_("browser tabs served at once; the next one gets a 'too many open sessions' "
                               "page (default: {n}; {class_n} with --hub-service)").format(
                            n=DEFAULT_MAX_SESSIONS, class_n=SERVICE_MAX_SESSIONS))
    parser.add_argument("--certfile", type=Path, default=None, metavar="PEM",
                        help=_("serve over HTTPS with this certificate (PEM; with --keyfile unless it holds the key)"))
    parser.add_argument("--keyfile", type=Path, default=None, metavar="PEM", help=_("the certificate's private key"))
    parser.add_argument("--unix-socket", type=Path, default=None, metavar="PATH",
                        help=_("listen on this Unix socket instead of a port, without a token, for a proxy in "
                               "front (jupyter-server-proxy on a JupyterHub); its folder must be private to you"))
    parser.add_argument("--hub", action="store_true",
                        help=_("run as a JupyterHub user's server (the hub starts it, docs/class.md): listen where the "
                               "hub says and let in only that user, logged in by the hub"))
    parser.add_argument("--hub-service", action="store_true",
                        help=_("run as a JupyterHub service, one tutor for every hub user (docs/class.md): each "
                               "student logged in by the hub gets a tab of their own, forked from one preloaded "
                               "process, in a home of their own under --home"))
    parser.add_argument("--hub-group", metavar="GROUP", default=None,
                        help=_("with --hub-service: let in only the members of this hub group"))
    parser.add_argument("--no-fork-server", action="store_true",
                        help=_("start each tab's tutor from scratch instead of forking it from one preloaded "
                               "process (slower to join, more memory per tab)"))
    # SUPPRESS: an absent subcommand --home must not overwrite the global --home with None
    parser.add_argument("--home", metavar="DIR", type=Path, default=argparse.SUPPRESS,
                        help=_("where progress is kept (as the global --home)"))
    parser.add_argument("--lessons", metavar="DIR", type=Path, action="append", dest="serve_lessons", default=[],
                        help=_("add a folder of your own lessons (as the global --lessons; repeatable)"))
    parser.set_defaults(func=run)
    return parser


def tab_arguments(home: Path, lessons: list[Path], lang: str | None, files_in_home: bool) -> list[str]:
    """The tutor's arguments for each browser tab: every global option the server was given (so
    ``tutor --lang zh serve`` serves Chinese).  Paths are absolute: a tab may start elsewhere."""
    parts = ["--home", str(Path(home).expanduser().resolve())]
    for folder in absolute(lessons):
        parts += ["--lessons", str(folder)]
    if lang:
        parts += ["--lang", lang]
    if files_in_home:
        parts.append("--files-in-home")
    return parts


def service_learners(home: Path, lessons: list[Path], lang: str | None, forks=None,
                     program: tuple[str, ...] = (sys.executable, "-m", "tutor")):
    """``--hub-service``'s learners: each hub login's tab runs in its own home under ``home`` with its
    typed paths kept inside it (--files-in-home), forked from ``forks`` when there is one, else
    started as ``program``."""
    from tutor.web.hub_service import Learners

    def command(learner_home: Path) -> str:
        arguments = tab_arguments(learner_home, lessons, lang, True)
        return forks.command(arguments) if forks else shlex.join([*program, *arguments])

    return Learners(home, command)


def absolute(folders: list[Path]) -> list[Path]:
    return [Path(folder).expanduser().resolve() for folder in folders]


def app_command(home: Path, lessons: list[Path], lang: str | None, files_in_home: bool) -> str:
    """The shell command that runs one tab's tutor as its own process: this Python, this tutor."""
    return shlex.join([sys.executable, "-m", "tutor", *tab_arguments(home, lessons, lang, files_in_home)])


def addresses(host: str, port: int, secure: bool) -> list[str]:
    """Where a browser can open the server: the bound address, or for a wildcard the machine's
    name and its outward IP (a name some networks cannot resolve, an IP that always works)."""
    from tutor.web.access import WILDCARDS, display_host, outward_address

    scheme = "https" if secure else "http"
    shown = [display_host(host)]
    if host.strip("[]") in WILDCARDS:
        address = outward_address()
        shown += [address] if address else []
    return [f"{scheme}://{name}:{port}" for name in shown]


def _refuse_host(args) -> int | None:
    from tutor.web.access import is_loopback

    if is_loopback(args.host):
        return None
    if not args.public:
        print(_("tutor serve: error: {host} is reachable from other machines. Anyone who can reach it and has the "
                "printed address could use this tutor and change your progress. Add --public if you mean it.")
              .format(host=one_line(args.host)), file=sys.stderr)
        return 2
    print(_("tutor serve: warning: serving on {host}, reachable from other machines. Anyone who has the printed "
            "address (with its token) can use this tutor and change your progress until the server stops.")
          .format(host=one_line(args.host)), file=sys.stderr)
    return None


def private_folder_problem(socket_path: Path) -> str | None:
    """Why a Unix socket there would be reachable by other accounts, or None.

    Without a token, the folder's permissions are what keep another user of the machine (another
    hub user) out of this learner's tutor.
    """
    import os
    import stat

    try:
        info = os.stat(socket_path.parent)
    except OSError as error:
        return f"{socket_path.parent}: {error.strerror or error}"
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        return _("{folder} must belong to you and be closed to others (chmod 700)").format(folder=one_line(str(socket_path.parent)))
    return None


def hub_gate(args: argparse.Namespace):
    """The hub's login for ``--hub`` (from the spawner's JUPYTERHUB_* environment), or None after
    printing why it cannot run; --hub decides where to listen, so the options that say so are refused."""
    import os

    from tutor.web.hub_login import HubGate, HubLogin, HubSettingsError

    option = "--hub-service" if args.hub_service else "--hub"
    if args.unix_socket or args.certfile or args.public or (args.hub and args.hub_service):
        print(_("tutor serve: error: {option} listens where the hub says, without --unix-socket, --certfile, "
                "--public or the other hub option").format(option=option), file=sys.stderr)
        return None
    try:
        return HubGate(HubLogin.from_environment(os.environ, service=args.hub_service, group=args.hub_group))
    except HubSettingsError as error:
        print(one_line(_("tutor serve: error: {option}: {problem}").format(option=option, problem=error)),
              file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    if args.hub_group is not None and not args.hub_service:
        print(_("tutor serve: error: --hub-group needs --hub-service"), file=sys.stderr)
        return 2
    hub = hub_gate(args) if args.hub or args.hub_service else None
    if (args.hub or args.hub_service) and hub is None:
        return 2
    if args.max_sessions is None:
        args.max_sessions = SERVICE_MAX_SESSIONS if args.hub_service else DEFAULT_MAX_SESSIONS
    if hub is not None:
        args.host, args.port = hub.login.host, hub.login.port
    if not 0 < args.port < 65536:
        print(_("tutor serve: error: --port must be between 1 and 65535, not {port}").format(port=args.port),
              file=sys.stderr)
        return 2
    refused = None if hub else _refuse_host(args)   # on a hub, its login guards every address
    if refused is not None:
        return refused
    if args.keyfile and not args.certfile:
        print(_("tutor serve: error: --keyfile needs --certfile"), file=sys.stderr)
        return 2
    problem = private_folder_problem(args.unix_socket) if args.unix_socket else None
    if problem:
        print(one_line(_("tutor serve: error: {problem}").format(problem=problem)),
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("textual_serve") is None:
        print(_("tutor serve: error: textual-serve is not installed (pip install textual-serve)"), file=sys.stderr)
        return 1
    import secrets
    import ssl

    from tutor.progress.store import resolve_home
    from tutor.web.access import TOKEN_PARAM, AccessPolicy
    from tutor.web.fork_server import ForkServer
    from tutor.web.server import Listen, make_server, tls_context

    context = None
    if args.certfile:
        try:
            context = tls_context(args.certfile, args.keyfile)
        except (OSError, ssl.SSLError) as error:
            print(_("tutor serve: error: cannot use the certificate: {error}").format(error=error), file=sys.stderr)
            return 2
    home = resolve_home(getattr(args, "home", None))
    lessons = list(getattr(args, "lessons", []) or []) + args.serve_lessons
    # without --lang each tab resolves the language as this run did (its setting, then the locale)
    arguments = tab_arguments(home, lessons, getattr(args, "lang", None), args.public or args.files_in_home)
    forks = None if args.no_fork_server else ForkServer.start(absolute(lessons))
    if forks and not forks.wait_ready(FORK_SERVER_WAIT):   # tabs started before it listens would not share
        print(_("tutor serve: warning: the preloaded process for tabs did not start; each tab starts on its own"),
              file=sys.stderr)
    command = forks.command(arguments) if forks else shlex.join([sys.executable, "-m", "tutor", *arguments])
    learners = service_learners(home, lessons, getattr(args, "lang", None), forks) if args.hub_service else None
    token = secrets.token_urlsafe(32)
    listen = Listen(args.host, args.port, args.unix_socket, context)
    policy = None if args.unix_socket or hub else AccessPolicy(token, args.host, args.port, secure=context is not None)

    def announce() -> None:
        if learners:
            print(_("tutor serve: listening on {host}:{port} as a hub service for {who}, each in a home under "
                    "{folder}").format(host=one_line(args.host), port=args.port, folder=one_line(str(home)),
                                       who=one_line(_("the members of hub group {group}").format(group=args.hub_group)
                                                    if args.hub_group else _("every hub user"))), flush=True)
            return
        if hub:
            print(_("tutor serve: listening on {host}:{port} for {user}, logged in by the hub").format(
                host=one_line(args.host), port=args.port, user=one_line(hub.login.user)), flush=True)
            return
        if args.unix_socket:
            print(_("tutor serve: listening on {path}").format(path=one_line(str(args.unix_socket))), flush=True)
            return
        links = "\n".join(f"    {base}/?{TOKEN_PARAM}={token}" for base in addresses(args.host, args.port, bool(context)))
        print(_("tutor serve: open this address in a browser. Anyone who has it can use this tutor until the "
                "server stops; a new token is made each run.\n\n{links}\n\nUp to {n} tabs at once. Ctrl+C stops "
                "the server.").format(links=links, n=args.max_sessions), flush=True)

    from tutor.web.hub_activity import HubActivity

    # a student's server tells the hub they are busy (the idle culler); a hub service has no server of its own
    activity = HubActivity.from_environment(os.environ) if hub is not None and learners is None else None
    server = make_server(command, listen, policy, max_sessions=args.max_sessions, announce=announce, hub=hub,
                         learners=learners, activity=activity)
    try:
        server.serve()
    except OSError as error:   # most often: the port is taken
        print(_("tutor serve: error: cannot listen on {host}:{port}: {error}").format(
            host=one_line(args.host), port=args.port, error=one_line(str(error.strerror or error))), file=sys.stderr)
        return 1
    finally:
        if forks:
            forks.stop()
    return 0
