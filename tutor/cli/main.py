"""The ``tutor`` command.  Kept light: Textual and torch load only for the commands that need them."""
from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

from tutor import __version__
from tutor.common.i18n import LANGUAGES, _, resolve_language, set_language


def build_parser(commands: bool = True) -> argparse.ArgumentParser:
    """The whole parser; with ``commands=False`` only the app's own options (see ``opens_the_app``)."""
    parser_class = argparse.ArgumentParser
    if commands:   # only then can help be asked for; the app's own parse stays free of the layout module
        from tutor.cli.help_layout import CellArgumentParser as parser_class   # subparsers inherit it

    parser = parser_class(
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
    parser.add_argument("--files-in-home", action="store_true",
                        help=_("the dashboard's Save, Load and Train file box only read and write inside --home "
                               "(tutor serve --public sets this for every tab)"))
    if commands:
        subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
        for module in _command_modules():
            module.add_parser(subparsers)
    return parser


APP_OPTIONS_WITH_VALUES = ("--lessons", "--home", "--lang")


def opens_the_app(argv: list[str] | None) -> bool:
    """Whether the command line is only the app's options (no command, no --help).

    Then the parser needs no subcommands: importing their modules and adding their hundred-odd
    options was part of the app's time to its first paint.  Anything else (a command, a typo,
    an abbreviated option) gets the whole parser and its messages.
    """
    tokens = list(sys.argv[1:] if argv is None else argv)
    i = 0
    while i < len(tokens):
        if tokens[i] in ("-h", "--help") or not tokens[i].startswith("-"):
            return False
        i += 2 if tokens[i] in APP_OPTIONS_WITH_VALUES else 1
    return True


def _command_modules():
    """Subcommands that live in their own modules (each exposes add_parser and imports its heavy
    libraries only when it runs)."""
    from tutor.cli import classroom, lessons, progress, sample, serve, train

    return [lessons, train, sample, progress, serve, classroom]


COMMAND_NAMES = ("lessons", "train", "sample", "progress", "serve", "class")   # the subparsers' names


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
    # after `lessons`, a --lang names the translation to write (`lessons new ID --lang zh`), so
    # there only one before the command is the interface's; other commands take it anywhere
    # (`tutor class report ... --lang zh`)
    argv = sys.argv[1:] if argv is None else argv
    command_at = next((i for i, word in enumerate(argv) if word in COMMAND_NAMES), len(argv))
    interface_words = argv[:command_at] if argv[command_at:command_at + 1] == ["lessons"] else argv
    lang = early.parse_known_args(interface_words)[0].lang
    requested = lang if lang in LANGUAGES else None
    remembered = load_settings(resolve_home(known.home)).get("language")
    from tutor.cli.argparse_words import localize_argparse

    language = set_language(resolve_language(requested, remembered))
    localize_argparse()
    return language


def run_app(args: argparse.Namespace) -> int:
    import gc

    from tutor.ui.app import TutorApp

    app = TutorApp(lesson_dirs=args.lessons, home=args.home, files_in_home=args.files_in_home)
    # What is allocated so far (the modules, the lesson outlines) lives as long as the app: frozen, it
    # is left out of the collector's passes.  Before, the first full pass came during the first
    # paint and went through all of it (about 40 ms, a tenth of the time to the first paint).
    gc.freeze()
    app.run()
    return app.return_code or 0   # 1 when the learner quit because progress could not be saved


def _print_settings_notice(args: argparse.Namespace) -> None:
    from tutor.common.settings import settings_notice
    from tutor.progress.store import resolve_home

    notice = settings_notice(resolve_home(getattr(args, "home", None)))
    if notice:
        print(f"tutor: {notice}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    choose_language(argv)
    parser = build_parser(commands=not opens_the_app(argv))
    args = parser.parse_args(argv)
    handler = getattr(args, "func", run_app)
    if handler is not run_app:   # the app shows it in a notification instead
        _print_settings_notice(args)
    try:
        return handler(args) or 0
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return closed_pipe()
    finally:
        if argv is None:   # a real command, not a test calling main([...]): it is about to exit
            _ignore_interrupts_while_exiting()


def closed_pipe() -> int:
    """The reader went away (`tutor lessons probes | head`): stop quietly, as cat does, with the
    status a shell gives a command ended by SIGPIPE.  Python would also complain when it flushes
    stdout at exit, so stdout now points at /dev/null."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass   # not a real file (a test's capture): nothing will flush into a closed pipe
    return 128 + 13


def _ignore_interrupts_while_exiting() -> None:
    """The command's work is done and said; a Ctrl+C now (a second one, pressed as ``tutor train``
    saves and exits) once broke into torch's and threading's exit hooks with a traceback and
    turned exit code 130 into death by signal.  Exiting takes a moment; let it finish."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:   # not the main thread: no signals to handle here
        pass
