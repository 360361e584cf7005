"""The ``tutor`` command.  Kept light: Textual and torch load only for the commands that need them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__


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
    _add_lessons_parser(commands)
    for module in _command_modules():
        module.add_parser(commands)
    return parser


def _command_modules():
    """Subcommands that live in their own modules (each exposes add_parser)."""
    import importlib

    found = []
    for name in ("train_command", "sample_command", "progress_command", "serve_command"):
        try:
            found.append(importlib.import_module(f"tutor.{name}"))
        except ModuleNotFoundError as error:
            if error.name != f"tutor.{name}":
                raise
    return found


def _add_lessons_parser(commands) -> None:
    lessons = commands.add_parser("lessons", help="list, check or create lesson files")
    sub = lessons.add_subparsers(dest="lessons_command", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list the lessons on the roadmap")
    listing.set_defaults(func=run_lessons_list)


def run_lessons_list(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .catalog import load_catalog

    catalog = load_catalog(args.lessons)
    table = Table(title="Lessons", show_lines=False)
    for column in ("track", "id", "title", "questions"):
        table.add_column(column)
    for track in catalog.index.tracks:
        for item in catalog.track_lessons(track.id):
            table.add_row(track.id, item.lesson.id, item.lesson.title, str(len(item.lesson.questions)))
    console = Console()
    console.print(table)
    problems = [p for b in catalog.broken for p in b.problems] + catalog.problems
    for problem in problems:
        Console(stderr=True).print(f"[red]problem[/red] {problem}", markup=True, highlight=False)
    return 1 if problems else 0


def run_app(args: argparse.Namespace) -> int:
    from .app import TutorApp

    TutorApp(lesson_dirs=args.lessons, home=args.home).run()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "func", run_app)
    try:
        return handler(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
