"""``tutor class``: a student hands in their progress (``submit``); the teacher reads the class (``report``).

The report is printed as Rich tables (every text from a learner's file goes in as plain Text,
never as markup, and the import checks have refused any control character), and written as one
HTML page (--html) and CSV (--csv, --questions-csv).  A bad or foreign file is named on stderr and
skipped; the report is made from the others.
"""
from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from tutor.common.i18n import LANGUAGES, _, current_language, message_of, ngettext, translated


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("class", help=_("hand in progress to a teacher, and the teacher's class report"),
                                   description=_("Tools for teaching a class with the tutor (see docs/class.md)."))
    actions = parser.add_subparsers(dest="class_command", metavar="ACTION", required=True)
    report = actions.add_parser(
        "report", help=_("the class report from learners' hand-ins: who is behind, and what the class believes"),
        description=_("Reads the hand-ins in an exchange folder (--exchange, or TUTOR_CLASS_EXCHANGE) or the "
                      "progress exports given; a learner is named by the name inside the file, else the file's."))
    report.add_argument("exports", metavar="EXPORT", nargs="*", type=Path,
                        help=_("learners' progress exports (.json or .json.gz)"))
    report.add_argument("--exchange", metavar="DIR", type=Path, default=None,
                        help=_("read every hand-in in this exchange folder"))
    report.add_argument("--html", metavar="FILE", type=Path, default=None,
                        help=_("also write the report as one HTML page that needs no network"))
    report.add_argument("--csv", metavar="FILE", type=Path, default=None,
                        help=_("also write one row per learner and lesson, for a gradebook"))
    report.add_argument("--questions-csv", metavar="FILE", type=Path, default=None,
                        help=_("also write one row per question with its most common wrong answers"))
    report.add_argument("--lesson", metavar="ID", action="append", default=None,
                        help=_("only this lesson (may be given more than once)"))
    submit = actions.add_parser(
        "submit", help=_("hand in your progress to your teacher's exchange folder"),
        description=_("Writes your progress, named by your login (or --name), into the exchange folder; a "
                      "second hand-in replaces the first."))
    submit.add_argument("--exchange", metavar="DIR", type=Path, default=None,
                        help=_("the exchange folder (default: TUTOR_CLASS_EXCHANGE)"))
    submit.add_argument("--name", metavar="NAME", default=None, help=_("your name as the teacher sees it "
                                                                       "(default: your login)"))
    submit.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help=_("the tutor home to hand in (default: TUTOR_HOME or the usual folder)"))
    for action in (report, submit):   # the global --lang, accepted here too; main() reads it first
        action.add_argument("--lang", choices=list(LANGUAGES), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    report.set_defaults(func=run)
    submit.set_defaults(func=run_submit)
    return parser


def render(report, console) -> None:
    from rich.table import Table
    from rich.text import Text

    from tutor.classroom.page import duration, percent

    learners = Table(title=_("Learners"), title_justify="left")
    for header in (_("Learner"), _("Lessons done"), _("Right first time"), _("Time spent"), _("Hints"),
                   _("Give-ups"), _("Last seen")):
        # one-word headers and the date stay whole ("Give-u / ps" before)
        learners.add_column(header, overflow="fold", no_wrap=header in (_("Give-ups"), _("Last seen")))
    for who in report.learners:
        learners.add_row(Text(who.name), _("{done} of {total}").format(done=who.lessons_done, total=who.lessons_total),
                         _("{right} of {answered}").format(right=who.right_first, answered=who.tried),
                         duration(who.seconds), str(who.hints), str(who.give_ups),
                         who.last_seen.strftime("%Y-%m-%d") if who.last_seen else "–")   # the page has the time
    questions = Table(title=_("Per question: right first time, and what the class believes"), title_justify="left")
    for header in (_("Lesson"), _("Question"), _("Right first time"), _("Most common wrong answers (learners)")):
        ids = header in (_("Lesson"), _("Question"))   # ids whole on one line: a reader copies them
        questions.add_column(header, no_wrap=ids, overflow="fold", ratio=None if ids else 1)
    for q in report.questions:
        if not q.learners and not q.open:
            continue
        wrong = Text("; ").join(Text(f"{w.text} ×{w.learners}") for w in q.wrong) if q.wrong else Text("—")
        if q.other_answers:
            wrong.append(_("; others ×{learners}").format(learners=q.other_learners))
        questions.add_row(Text(q.lesson_id), Text(q.question_id),
                          f"{q.right_first}/{q.tried} ({percent(q.percent)})", wrong)
    console.print(learners)
    console.print(questions)


def _files(args) -> list[Path] | str:
    """The exports to read, or the error to print."""
    from tutor.classroom.exports import hand_ins
    from tutor.classroom.handin import EXCHANGE_VARIABLE, HandInError, exchange_folder
    from tutor.common.safe_files import os_reason

    files = list(args.exports)
    if args.exchange is not None or not files:
        try:
            folder = exchange_folder(args.exchange)
        except HandInError:
            return _("give progress exports, or an exchange folder with --exchange DIR or {variable}").format(
                variable=EXCHANGE_VARIABLE)
        try:
            files += hand_ins(folder)
        except OSError as error:
            return _("cannot list the exchange folder {folder}: {why} (the teacher reads it as its group's member, "
                     "or with sudo; see docs/class.md)").format(folder=folder, why=translated(os_reason(error)))
    return files


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    from rich.console import Console

    from tutor.classroom.exports import read_class
    from tutor.classroom.gradebook import lessons_csv, questions_csv, write_csv
    from tutor.classroom.report import build_report
    from tutor.common.safe_files import UnsafeFileError, write_atomically
    from tutor.common.safe_text import one_line

    files = _files(args)
    if isinstance(files, str):
        print(one_line(_("tutor class report: error: {error}").format(error=files)), file=sys.stderr)
        return 2
    learners, problems = read_class(files)
    skipped = [one_line(translated(problem)) for problem in problems]
    for problem in skipped:
        print(_("tutor class report: skipped {problem}").format(problem=problem), file=sys.stderr)
    if not learners:
        print(_("tutor class report: error: no readable progress export among the files given"), file=sys.stderr)
        return 1
    from tutor.classroom.outline import course_outline

    catalog = _catalog(args)
    course = course_outline(catalog)
    unknown = [lesson for lesson in args.lesson or [] if lesson not in {item.id for item in course}]
    if unknown:
        print(one_line(_("tutor class report: error: no lesson {ids} in the course").format(ids=", ".join(unknown))),
              file=sys.stderr)
        return 2
    report = build_report(learners, course, args.lesson)
    render(report, Console(file=sys.stdout, highlight=False, markup=False, emoji=False))
    writes = [(args.csv, lambda: write_csv(args.csv, lessons_csv(report))),
              (args.questions_csv, lambda: write_csv(args.questions_csv, questions_csv(report)))]
    if args.html is not None:
        from tutor.classroom.expected import fill_expected, live_truths
        from tutor.classroom.page import render_page

        fill_expected(report, live_truths(catalog))
        page = render_page(report, now or datetime.now(timezone.utc), skipped)
        writes.append((args.html, lambda: write_atomically(args.html, page.encode("utf-8"))))
    for path, write in writes:
        if path is None:
            continue
        try:
            write()
        except UnsafeFileError as error:
            print(_("tutor class report: error: {error}").format(error=one_line(translated(message_of(error)))),
                  file=sys.stderr)
            return 1
        print(_("Wrote {path}").format(path=one_line(str(path))))
    print(ngettext("{n} learner", "{n} learners", len(learners)).format(n=len(learners)) + _(", ") +
          ngettext("{n} file skipped", "{n} files skipped", len(problems)).format(n=len(problems)))
    return 1 if problems else 0


def _catalog(args):
    from tutor.course.catalog import load_catalog

    return load_catalog(getattr(args, "lessons", None) or [], language=current_language())


def run_submit(args: argparse.Namespace, now: datetime | None = None) -> int:
    from tutor.classroom.handin import HandInError, exchange_folder, hand_in, handed_in_message, learner_name
    from tutor.classroom.outline import course_question_ids
    from tutor.common.safe_text import one_line
    from tutor.progress.store import ProgressError, ProgressStore

    try:
        folder = exchange_folder(args.exchange)
        name = learner_name(args.name, getattr(args, "home", None))
        with ProgressStore(getattr(args, "home", None)) as store:
            path, attempts = hand_in(store, folder, name, now or datetime.now(timezone.utc),
                                     course_question_ids(_catalog(args)))
    except (HandInError, ProgressError) as error:
        print(one_line(_("tutor class submit: error: {error}").format(error=translated(message_of(error)))),
              file=sys.stderr)
        return 1
    print(one_line(handed_in_message(attempts, name, path)))
    return 0
