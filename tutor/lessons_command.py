"""``tutor lessons ...``: list, check and create lesson files."""
from __future__ import annotations

import argparse


def add_parser(commands) -> None:
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
