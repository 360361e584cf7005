"""``tutor serve``: the same app in a web browser, through textual-serve, behind a secret token.

textual-serve starts one ``tutor`` process per browser tab, so the served app is exactly the
terminal app, with the same --home and --lessons.  Anyone who can open its WebSocket can type
into the learner's progress and, through the dashboard's Save, write files; and "only on
127.0.0.1" is no protection from the learner's own browser: any web page may open a WebSocket to
a loopback port, or rebind its own DNS name to 127.0.0.1.  So, as notebook servers do:

* each run makes a secret token and prints the address with it (``/?token=…``); the first
  page load trades it for an HttpOnly, SameSite=Strict cookie, which the page's own scripts,
  styles and WebSocket then carry, and which another site's page never gets;
* every request (page, static file, download, WebSocket upgrade) without the right token is
  refused with 403, compared in constant time;
* the Host header must name the served address (a rebound ``evil.example`` is refused), and an
  Origin header, when the browser sends one, must too.

The checks are one aiohttp middleware added to textual-serve's own application, so its
routes and handlers are used as they are.
"""
from __future__ import annotations

import argparse
import hmac
import importlib.util
import ipaddress
import secrets
import shlex
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tutor.common.i18n import _

TOKEN_PARAM = "token"
WILDCARDS = ("0.0.0.0", "::", "")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve",
        help=_("serve the app in a web browser (on this machine only, unless --public)"),
        description=_("Serve the tutor as a web page with textual-serve; open the printed address, which "
                    "holds a secret token made for this run, in a browser."),
    )
    parser.add_argument("--port", type=int, default=8000, help=_("port to listen on (default: 8000)"))
    parser.add_argument("--host", default="127.0.0.1",
                        help=_("address to listen on (default: 127.0.0.1, this machine only)"))
    parser.add_argument("--public", action="store_true",
                        help=_("allow a --host other than loopback: anyone who can reach it and has the printed "
                             "address (with its token) can use your tutor"))
    # SUPPRESS: an absent subcommand --home must not overwrite the global --home with None
    parser.add_argument("--home", metavar="DIR", type=Path, default=argparse.SUPPRESS,
                        help=_("where progress is kept (as the global --home)"))
    parser.add_argument("--lessons", metavar="DIR", type=Path, action="append", dest="serve_lessons", default=[],
                        help=_("add a folder of your own lessons (as the global --lessons; repeatable)"))
    parser.set_defaults(func=run)
    return parser


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def app_command(home: Path | None, lessons: list[Path]) -> str:
    """The shell command textual-serve runs for each browser tab: this Python, this tutor.

    Paths are made absolute because the served process may start in another directory.
    """
    parts = [sys.executable, "-m", "tutor"]
    if home is not None:
        parts += ["--home", str(Path(home).expanduser().resolve())]
    for folder in lessons:
        parts += ["--lessons", str(Path(folder).expanduser().resolve())]
    return shlex.join(parts)


class AccessPolicy:
    """Who may talk to the server: the right token, and a Host (and Origin) naming this server.

    Host names are what a DNS-rebinding page cannot fake: its requests carry its own name.  A
    wildcard --host serves every address of the machine, so any IP literal and the machine's
    own names are accepted there; the token still guards every request.
    """

    def __init__(self, token: str, host: str, port: int) -> None:
        self.token, self.port = token, port
        self.cookie = f"tutor_token_{port}"   # cookies ignore ports: two servers must not share one
        bound = host.strip("[]").lower()
        self.any_ip = bound in WILDCARDS
        names = {"localhost", "127.0.0.1", "::1", bound} - {""}
        if self.any_ip:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        self.names = names

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def netloc_ok(self, netloc: str, scheme: str = "http") -> bool:
        """``host[:port]`` names this server (default ports filled in from the scheme)."""
        try:
            parts = urlsplit(f"//{netloc}")
            port = parts.port or {"http": 80, "https": 443}.get(scheme)
        except ValueError:   # a port that is not a number, or out of range
            return False
        name = (parts.hostname or "").lower()
        if not name or port != self.port or parts.username is not None:
            return False
        return name in self.names or (self.any_ip and _is_ip(name))

    def origin_ok(self, origin: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and self.netloc_ok(parts.netloc, parts.scheme)

    def refusal(self, host: str | None, origin: str | None, token: str | None) -> str | None:
        """Why a request is refused, or None to let it through."""
        if not host or not self.netloc_ok(host):
            return "this server answers only to its own address (Host header refused)"
        if origin is not None and not self.origin_ok(origin):
            return "requests from another site's page are refused (Origin header refused)"
        if not self.token_ok(token):
            return "open the address 'tutor serve' printed, with its ?token=..., to use this tutor"
        return None


def guard_middleware(policy: AccessPolicy):
    """An aiohttp middleware applying ``policy`` to every request, WebSocket upgrades included."""
    from aiohttp import hdrs, web

    @web.middleware
    async def guard(request: web.Request, handler):
        from_query = request.query.get(TOKEN_PARAM)
        reason = policy.refusal(request.headers.get(hdrs.HOST), request.headers.get(hdrs.ORIGIN),
                                from_query if from_query is not None else request.cookies.get(policy.cookie))
        if reason is not None:
            raise web.HTTPForbidden(text=f"403 Forbidden: {reason}\n")
        response = await handler(request)
        if from_query is not None and not response.prepared:
            # the page's own sub-requests and WebSocket carry the token from here on
            response.set_cookie(policy.cookie, policy.token, httponly=True, samesite="Strict", path="/")
        return response

    return guard


def make_server(command: str, host: str, port: int, token: str):
    """A textual-serve Server whose application refuses what ``AccessPolicy`` refuses."""
    from textual_serve.server import Server

    policy = AccessPolicy(token, host, port)
    shown = display_host(host)

    class GuardedServer(Server):
        async def _make_app(self):
            app = await super()._make_app()
            app.middlewares.append(guard_middleware(policy))
            return app

        async def on_startup(self, app) -> None:
            print(f"tutor serve: open this address in a browser (its token is new each run):\n\n"
                  f"    {self.public_url}/?{TOKEN_PARAM}={token}\n\nCtrl+C stops the server.", flush=True)

    return GuardedServer(command, host=host, port=port, title="Transformer math tutor",
                         public_url=f"http://{shown}:{port}")


def display_host(host: str) -> str:
    """The host as a browser should be sent to it: brackets for IPv6, a name for a wildcard."""
    bare = host.strip("[]")
    if bare in WILDCARDS:
        return socket.gethostname()
    return f"[{bare}]" if ":" in bare else bare


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        print(f"tutor serve: error: --port must be between 1 and 65535, not {args.port}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        if not args.public:
            print(f"tutor serve: error: {args.host} is reachable from other machines. Anyone who can reach it "
                  "and has the printed address could use this tutor and change your progress. Add --public "
                  "if you mean it.", file=sys.stderr)
            return 2
        print(f"tutor serve: warning: serving on {args.host}, reachable from other machines. Anyone who has "
              "the printed address (with its token) can use this tutor and change your progress.", file=sys.stderr)
    if importlib.util.find_spec("textual_serve") is None:
        print("tutor serve: error: textual-serve is not installed (pip install textual-serve)", file=sys.stderr)
        return 1
    command = app_command(getattr(args, "home", None), list(getattr(args, "lessons", []) or []) + args.serve_lessons)
    server = make_server(command, args.host, args.port, secrets.token_urlsafe(32))
    try:
        server.serve()
    except OSError as error:   # most often: the port is taken
        print(f"tutor serve: error: cannot listen on {args.host}:{args.port}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    return 0
