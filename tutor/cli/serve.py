"""``tutor serve``: the same app in a web browser, through textual-serve.

textual-serve starts one ``tutor`` process per browser tab, so the served app is exactly the
terminal app, with the same --home and --lessons.  It listens on loopback by default: anyone
who can reach the port can use the app and write to the learner's progress, so a
non-loopback address needs --public, and even then a warning is printed.
"""
from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve",
        help="serve the app in a web browser (on this machine only, unless --public)",
        description="Serve the tutor as a web page with textual-serve; open the printed address in a browser.",
    )
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--public", action="store_true",
                        help="allow a --host other than loopback: anyone who can reach it can use your tutor")
    # SUPPRESS: an absent subcommand --home must not overwrite the global --home with None
    parser.add_argument("--home", metavar="DIR", type=Path, default=argparse.SUPPRESS,
                        help="where progress is kept (as the global --home)")
    parser.add_argument("--lessons", metavar="DIR", type=Path, action="append", dest="serve_lessons", default=[],
                        help="add a folder of your own lessons (as the global --lessons; repeatable)")
    parser.set_defaults(func=run)
    return parser


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
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


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        print(f"tutor serve: error: --port must be between 1 and 65535, not {args.port}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        if not args.public:
            print(f"tutor serve: error: {args.host} is reachable from other machines. Anyone who can reach it "
                  "could use this tutor and change your progress. Add --public if you mean it.", file=sys.stderr)
            return 2
        print(f"tutor serve: warning: serving on {args.host}, reachable from other machines, without a password. "
              "Anyone who can reach it can use this tutor and change your progress.", file=sys.stderr)
    try:
        from textual_serve.server import Server
    except ModuleNotFoundError:
        print("tutor serve: error: textual-serve is not installed (pip install textual-serve)", file=sys.stderr)
        return 1
    command = app_command(getattr(args, "home", None), list(getattr(args, "lessons", []) or []) + args.serve_lessons)
    server = Server(command, host=args.host, port=args.port, title="Transformer math tutor")
    try:
        server.serve()
    except OSError as error:   # most often: the port is taken
        print(f"tutor serve: error: cannot listen on {args.host}:{args.port}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    return 0
