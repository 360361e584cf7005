"""``tutor class report``: a teacher merges learners' progress exports into where the class goes wrong.

Printed as Rich tables (every text from a learner's file goes in as plain Text, never as markup,
and the import checks have refused any control character), written as CSV with --csv.  A bad or
foreign file is named on stderr and skipped; the report is made from the others.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tutor.common.i18n import LANGUAGES, _, message_of, ngettext, translated


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("class", help=_("a teacher's report on a class, from learners' progress exports"),
                                   description=_("Tools for teaching a class with the tutor (see docs/class.md)."))
    actions = parser.add_subparsers(dest="class_command", metavar="ACTION", required=True)
    report = actions.add_parser(
        "report", help=_("merge learners' exports: first attempts per learner and lesson, and per question the "
                         "most common wrong answers"),
        description=_("Each learner runs 'tutor progress --export NAME.json' and hands the file in; a learner is "
                      "named by the file, or by a 'learner' name inside it."))
    report.add_argument("exports", metavar="EXPORT.json", nargs="+", type=Path, help=_("learners' progress exports"))
    report.add_argument("--csv", metavar="FILE", type=Path, default=None,
                        help=_("also write one row per learner and lesson, for a gradebook"))
    report.add_argument("--questions-csv", metavar="FILE", type=Path, default=None,
                        help=_("also write one row per question with its most common wrong answers"))
    # the global --lang, accepted here too (tutor class report ... --lang zh); main() reads it first
    report.add_argument("--lang", choices=list(LANGUAGES), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    report.set_defaults(func=run)
    return parser


def render(report, console) -> None:
    from rich.table import Table
    from rich.text import Text

    lessons = Table(title=_("First attempts, per learner and lesson"), title_justify="left")
    for header in (_("Learner"), _("Lesson"), _("Answered"), _("Right first time")):
        lessons.add_column(header, justify="right" if header not in (_("Learner"), _("Lesson")) else "left",
                           overflow="fold")   # an id or a header cut with … could not be read back
    for row in report.lessons:
        lessons.add_row(Text(row.learner), Text(row.lesson_id), str(row.answered), str(row.right_first))
    questions = Table(title=_("Per question: right first time, and what the class believes"), title_justify="left")
    for header in (_("Lesson"), _("Question"), _("Right first time"), _("Most common wrong answers (learners)")):
        # ids whole on one line (a reader copies them); the answers take what is left of the line
        ids = header in (_("Lesson"), _("Question"))
        questions.add_column(header, no_wrap=ids, overflow="fold", ratio=None if ids else 1)
    for q in report.questions:
        wrong = Text("; ").join(Text(f"{text} ×{count}") for text, count in q.wrong) if q.wrong else Text("—")
        questions.add_row(Text(q.lesson_id), Text(q.question_id), f"{q.right_first}/{q.learners}", wrong)
    console.print(lessons)
    console.print(questions)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tutor.classroom.exports import read_class
    from tutor.classroom.gradebook import lessons_csv, questions_csv, write_csv
    from tutor.classroom.report import build_report
    from tutor.common.safe_files import UnsafeFileError
    from tutor.common.safe_text import one_line

    learners, problems = read_class(args.exports)
    for problem in problems:
        print(_("tutor class report: skipped {problem}").format(problem=one_line(translated(problem))), file=sys.stderr)
    if not learners:
        print(_("tutor class report: error: no readable progress export among the files given"), file=sys.stderr)
        return 1
    report = build_report(learners)
    render(report, Console(file=sys.stdout, highlight=False, markup=False, emoji=False))
    for path, text in ((args.csv, lessons_csv), (args.questions_csv, questions_csv)):
        if path is None:
            continue
        try:
            write_csv(path, text(report))
        except UnsafeFileError as error:
            print(_("tutor class report: error: {error}").format(error=one_line(translated(message_of(error)))),
                  file=sys.stderr)
            return 1
        print(_("Wrote {path}").format(path=one_line(str(path))))
    print(ngettext("{n} learner", "{n} learners", len(learners)).format(n=len(learners)) + _(", ") +
          ngettext("{n} file skipped", "{n} files skipped", len(problems)).format(n=len(problems)))
    return 1 if problems else 0
