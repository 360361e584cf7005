"""The ``tutor`` command.  Kept light: Textual and torch load only for the commands that need them."""
from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

from tutor import __version__
from tutor.common.i18n import LANGUAGES, _, resolve_language, set_language


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutor",
        description=_("Learn the math behind Transformers by predicting what a real model computes."),
        epilog=_("Run 'tutor' with no command to open the app."),
    )
    parser.add_argument("--version", action="version", version=f"tutor {__version__}",
                        help=_("show the version and exit"))
    parser.add_argument("--lessons", metavar="DIR", action="append", type=Path, default=[],
                        help=_("add a folder of your own lesson files to the roadmap (repeatable)"))
    parser.add_argument("--home", metavar="DIR", type=Path, default=None,
                        help=_("where progress is kept (default: the user data directory; or TUTOR_HOME)"))
    parser.add_argument("--lang", choices=list(LANGUAGES), default=None,
                        help=_("the interface and lesson language for this run (default: the language chosen "
                               "in the app, else the locale, else en)"))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.add_parser(commands)
    return parser


def _command_modules():
    """Subcommands that live in their own modules (each exposes add_parser and imports its heavy
    libraries only when it runs)."""
    from tutor.cli import lessons, progress, sample, serve, train

    return [lessons, train, sample, progress, serve]


def choose_language(argv: list[str] | None) -> str:
    """Set the language before the parser is built, so even --help is in it.

    Read with a small parser of its own: the full parser's help texts depend on the answer.
    An invalid --lang is left to the full parser, which says what the choices are.
    """
    from tutor.common.settings import load_settings
    from tutor.progress.store import resolve_home

    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", default=None)
    early.add_argument("--home", default=None)
    known, _rest = early.parse_known_args(argv)
    requested = known.lang if known.lang in LANGUAGES else None
    remembered = load_settings(resolve_home(known.home)).get("language")
    from tutor.cli.argparse_words import localize_argparse

    language = set_language(resolve_language(requested, remembered))
    localize_argparse()
    return language


def run_app(args: argparse.Namespace) -> int:
    from tutor.ui.app import TutorApp

    app = TutorApp(lesson_dirs=args.lessons, home=args.home)
    app.run()
    return app.return_code or 0   # 1 when the learner quit because progress could not be saved


def main(argv: list[str] | None = None) -> int:
    choose_language(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "func", run_app)
    try:
        return handler(args) or 0
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return closed_pipe()


def closed_pipe() -> int:
    """The reader went away (`tutor lessons probes | head`): stop quietly, as cat does, with the
    status a shell gives a command ended by SIGPIPE.  Python would also complain when it flushes
    stdout at exit, so stdout now points at /dev/null."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass   # not a real file (a test's capture): nothing will flush into a closed pipe
    return 128 + 13
