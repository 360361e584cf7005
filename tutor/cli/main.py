"""The ``tutor`` command.  Kept light: Textual and torch load only for the commands that need them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tutor import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutor",
        description="Learn the math behind Transformers by predicting what a real model computes.",
        epilog="Run 'tutor' with no command to open the app.",
    )
    parser.add_argument("--version", action="version", version=f"tutor {__version__}")
    parser.add_argument("--lessons", metavar="DIR", action="append", type=Path, default=[],
                        help="add a folder of your own lesson files to the roadmap (repeatable)")
    parser.add_argument("--home", metavar="DIR", type=Path, default=None,
                        help="where progress is kept (default: the user data directory; or TUTOR_HOME)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.add_parser(commands)
    return parser


def _command_modules():
    """Subcommands that live in their own modules (each exposes add_parser and imports its heavy
    libraries only when it runs)."""
    from tutor.cli import lessons, progress, sample, serve, train

    return [lessons, train, sample, progress, serve]


def run_app(args: argparse.Namespace) -> int:
    from tutor.ui.app import TutorApp

    app = TutorApp(lesson_dirs=args.lessons, home=args.home)
    app.run()
    return app.return_code or 0   # 1 when the learner quit because progress could not be saved


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "func", run_app)
    try:
        return handler(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
