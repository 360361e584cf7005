"""``tutor progress``: look at, back up, move or reset the learner's history
without starting the full-screen app (which is no help over ssh or in a script).

Every failure the user can cause (bad path, unreadable file, newer database)
ends as one line on stderr and exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from datetime import datetime, timezone, tzinfo

from rich.console import Console
from rich.table import Table

from tutor.common.i18n import N_, _, message_of, ngettext, translated
from tutor.common.safe_text import one_line
from tutor.progress.store import ProgressError, ProgressStore

RESET_PROMPT = N_("Reset all progress? A backup is kept. [y/N] ")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "progress",
        help=_("show, export, import or reset your progress"),
        description=_("Without options, print a summary of your progress."),
    )
    # SUPPRESS: when the main CLI also has a global --home, an absent
    # subcommand --home must not overwrite the global value with None.
    parser.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                        help=_("tutor data directory (default: $TUTOR_HOME or the platform data dir)"))
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--export", metavar="FILE", help=_("write all answers to a JSON file"))
    action.add_argument("--import", dest="import_file", metavar="FILE",
                        help=_("merge answers from a JSON export (safe to repeat)"))
    action.add_argument("--reset", action="store_true", help=_("back up, then clear all progress"))
    action.add_argument("--export-reviews", metavar="FILE.csv",
                        help=_("write the review log (card, rating, time, duration) as CSV for FSRS tools"))
    action.add_argument("--optimize", action="store_true",
                        help=_("fit FSRS parameters to your own reviews; kept only if they predict better"))
    parser.add_argument("--name", metavar="NAME",
                        help=_("with --export: the name your teacher sees (default: the name you set in the app's "
                               "hand-in, else your login)"))
    parser.add_argument("--yes", "-y", action="store_true", help=_("do not ask before --reset"))
    parser.set_defaults(func=run)
    return parser


def _export_name(args: argparse.Namespace) -> str:
    """The student's name inside an export, so a teacher's report names them whatever the file is called."""
    from tutor.classroom.handin import HandInError, learner_name

    try:
        return learner_name(getattr(args, "name", None), getattr(args, "home", None))
    except HandInError as error:
        raise ProgressError(message_of(error)) from None


def run(args: argparse.Namespace, now: datetime | None = None, tz: tzinfo | None = None) -> int:
    """``now`` and ``tz`` default to the clock and this machine's zone; tests pass both."""
    # here, not at the top: every ``tutor`` start builds this parser, and the import checks load pydantic
    from tutor.progress.io import export_json, import_json, reset

    now = now or datetime.now(timezone.utc)
    out = Console(file=sys.stdout, highlight=False, soft_wrap=True, markup=False)  # ids and paths may hold "[...]"
    try:
        with ProgressStore(getattr(args, "home", None)) as store:
            if store.message:
                print(one_line(_("tutor progress: warning: {message}").format(message=store.message)), file=sys.stderr)
            if getattr(args, "export", None):
                n = export_json(store, args.export, now=now, course=_course(getattr(args, "lessons", None) or []),
                                learner=_export_name(args))
                records = len(store.question_records())
                out.print(one_line(_("Exported {attempts} attempts and {records} question records to {path}").format(
                    attempts=n, records=records, path=args.export)))
                if _is_gzip(args.export):
                    out.print(_("It is gzip-compressed: larger than an import reads as plain JSON; "
                                "'tutor progress --import' and 'tutor class report' read it as it is."))
            elif getattr(args, "import_file", None):
                added = import_json(store, args.import_file)
                out.print(one_line(_("Imported {answers} new answers, {outcomes} new outcomes and {records} new "
                                     "question records, and changed {changed} question records, from {path}").format(
                    answers=added.answers, outcomes=added.outcomes, records=added.records, changed=added.changed,
                    path=args.import_file)))
            elif getattr(args, "export_reviews", None):
                from tutor.progress.review_log import export_reviews_csv

                n = export_reviews_csv(store, args.export_reviews)
                out.print(one_line(_("Exported {count} reviews to {path}").format(count=n, path=args.export_reviews)))
            elif getattr(args, "optimize", False):
                _optimize(store, out)
            elif getattr(args, "reset", False):
                if not getattr(args, "yes", False) and not _confirm():
                    out.print(_("Nothing was changed."))
                    return 0
                backup = reset(store, now=now)
                out.print(one_line(_("Progress reset. Backup kept at {path}").format(path=backup)))
            else:
                _summary(store, out, now, tz, getattr(args, "lessons", None) or [])
    except (ProgressError, OSError, sqlite3.Error) as exc:
        print(one_line(_("tutor progress: error: {error}").format(error=translated(message_of(exc)))), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_("tutor progress: interrupted"), file=sys.stderr)
        return 130
    return 0


def _optimize(store: ProgressStore, out: Console) -> None:
    from tutor.progress.review_log import MIN_REVIEWS, optimize

    try:
        result = optimize(store)
    except ImportError as error:   # the optimizer's own extras (pandas, tqdm) are not installed
        raise ProgressError(_("FSRS's optimizer is not available here: {error}").format(error=error)) from None
    losses = {"after": f"{result.loss_after:.4f}", "before": f"{result.loss_before:.4f}"} if not result.needed else {}
    if result.needed:
        out.print(_("{reviews} reviews so far count for FSRS (a day or more after the card's last one); "
                    "it needs {least}, so {more} more.").format(reviews=result.reviews, least=MIN_REVIEWS,
                                                                more=result.needed))
    elif result.kept:
        out.print(_("New FSRS parameters fitted to your {reviews} reviews and kept: on held-out reviews "
                    "their log loss is {after} against {before}.").format(reviews=result.reviews, **losses))
    else:
        out.print(_("Parameters fitted to your {reviews} reviews did not predict held-out reviews better "
                    "({after} against {before}); the ones in use are kept.").format(reviews=result.reviews, **losses))


def _confirm() -> bool:
    sys.stdout.write(_(RESET_PROMPT))
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _is_gzip(path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _course(lesson_dirs, catalog=None) -> dict[str, list[str]]:
    """{lesson: question ids} of the course today: the counts are of these questions only."""
    from tutor.course.catalog import load_catalog

    catalog = catalog or load_catalog(lesson_dirs)
    return {item.lesson.id: [q.id for q in item.lesson.questions] for item in catalog.ordered()}


def _moment(when: datetime | None, tz: tzinfo | None, width: int) -> str:
    """The date, and the time of day where the screen has room for it (100 columns or more)."""
    if when is None:
        return "-"
    return when.astimezone(tz).strftime("%Y-%m-%d %H:%M" if width >= 100 else "%Y-%m-%d")


def _narrowest(header: str, values: list[str], console: Console) -> int:
    """The narrowest column that shows each value on one line and its header on at most two,
    broken at a space or between Chinese characters (never inside an English word, and never
    leaving one character alone on a line)."""
    from rich.cells import cell_len
    from rich.text import Text

    floor = max([cell_len(value) for value in values] + [cell_len(word) for word in header.split() if word.isascii()])
    for width in range(floor, cell_len(header)):
        lines = Text(header).wrap(console, width)
        if len(lines) <= 2 and all(len(line.plain.strip()) >= 2 for line in lines):
            return width
    return max(floor, cell_len(header))


def lesson_table(rows: list[list], console: Console) -> Table:
    """One row a lesson: the title, then the numbers in columns just wide enough for them, so a
    title gets the rest of the line: at 80 columns every title up to 39 cells stays whole."""
    from rich import box
    from rich.text import Text

    from tutor.ui.widgets.prose import Prose

    headers = (_("Finished"), _("First time"), _("After retry"), _("Not got"), _("Last seen"))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    widths = [_narrowest(header, [row[i] for row in rows], console) for i, header in enumerate(headers, start=1)]
    # on a terminal a title longer than the rest of the line ends in … (wrapped, its last character
    # or word sat alone on a line of its own); into a file or a pipe it is kept whole
    rest = console.width - sum(widths) - 2 * len(widths)
    cut = console.is_terminal and rest >= 12
    table.add_column(_("Lesson"), max_width=rest if cut else None, no_wrap=cut, overflow="ellipsis" if cut else "fold")
    for i, (header, width) in enumerate(zip(headers, widths), start=1):
        table.add_column(header, width=width, justify="left" if i == len(headers) else "right", overflow="fold")
    for title, *numbers in rows:   # a whole title wraps between Chinese characters too (Prose)
        table.add_row(Text(_ellipsized(title, rest)) if cut else Prose(Text(title)), *numbers)
    return table


def _ellipsized(title: str, width: int) -> str:
    """``title`` cut to ``width`` cells, ending in …: Rich's own ellipsis pads a wide character that
    does not fit with a space first ("做线性 …")."""
    from rich.cells import cell_len, chop_cells

    if cell_len(title) <= width:
        return title
    return chop_cells(title, width - 1)[0].rstrip() + "…"


def _summary(store: ProgressStore, out: Console, now: datetime, tz: tzinfo | None, lesson_dirs) -> None:
    from tutor.course.catalog import load_catalog
    from tutor.ui.progress_labels import question_exists

    catalog = load_catalog(lesson_dirs)
    course = _course(lesson_dirs, catalog)
    stats = store.all_lesson_stats(course)   # the roadmap's, the summary's and Stats' counts
    out.print(_("Progress in {path}").format(path=one_line(str(store.path))), style="bold")
    if not stats:
        answers = store.answer_count()
        out.print(_("No answers recorded yet.") if not answers else ngettext(
            "{count} answer recorded, none to a question the course asks today.",
            "{count} answers recorded, none to a question the course asks today.", answers).format(count=answers))
        return
    finished = sum(len(s.finished) for s in stats.values())
    tried = sum(len(s.tried) for s in stats.values())   # a wrong first try counts at once
    first_try = sum(len(s.first_try) for s in stats.values())
    out.print(_("Questions finished: {finished}   Right first time: {accuracy}   Answers: {answers}   "
                "Streak: {days} day(s)").format(
        finished=finished, accuracy=_pct(first_try / tried if tried else None),
        answers=store.answer_count(), days=store.streak_days(tz=tz, now=now)))
    rows = []
    for lesson_id, s in sorted(stats.items()):
        item = catalog.lessons.get(lesson_id)
        # the title a learner knows the lesson by; the id only for a lesson no longer in the course
        title = one_line(item.lesson.title) if item is not None else lesson_id
        rows.append([title, f"{len(s.finished)}/{len(course[lesson_id])}", _pct(s.accuracy),
                     str(len(s.after_retry)), str(len(s.missed)), _moment(s.last_seen, tz, out.width)])
    table = lesson_table(rows, out)
    out.print(table)
    reviews = store.due_reviews(now, question_exists(catalog))
    line = _("Reviews due now: {count}").format(count=len(reviews.due))
    if not reviews.due and reviews.next_due:
        line += _(" (next {moment})").format(moment=reviews.next_due.astimezone(tz).strftime('%Y-%m-%d %H:%M'))
    if reviews.orphans:
        line += _("; {count} more for questions no longer in the course (not shown in review)").format(
            count=reviews.orphans)
    out.print(line)
