"""``tutor lessons try LESSON QUESTION ANSWER…``: grade answers from the command line.

An author's quick check of how a question grades (and a test tool): each answer is graded as the
lesson screen grades it, against the live model (the shipped one, or ``--checkpoint``), and gets
one line: ``right``, ``wrong`` or ``unreadable`` (kept in English, for scripts), a tab, the answer
as typed, a tab, and the verdict's words in the interface language.  Nothing is recorded.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tutor.common.i18n import _, message_of, translated
from tutor.common.safe_text import one_line


def add_parser(sub) -> None:
    attempt = sub.add_parser("try", help=_("grade answers to one question from the command line"),
                             description=_("Grade each ANSWER to QUESTION of LESSON as the lesson screen grades it, "
                                         "on the live model, and print one line per answer: right, wrong or "
                                         "unreadable, the answer, then the verdict or the nudge. Nothing is "
                                         "recorded. Exit status 0 when every answer was graded."))
    attempt.add_argument("lesson", metavar="LESSON", help=_("a lesson id (built-in or from --lessons) or a lesson file"))
    attempt.add_argument("question", metavar="QUESTION", help=_("the question's id, or its number from 1"))
    attempt.add_argument("answers", nargs="+", metavar="ANSWER", help=_("an answer as a learner would type it"))
    attempt.add_argument("--checkpoint", metavar="PATH", default=None,
                         help=_("grade weights: trained lessons on this checkpoint instead of the shipped one "
                              "('random': untrained weights of the shipped shape)"))
    attempt.set_defaults(func=run_lessons_try)


def _fail(message: str) -> int:
    print(one_line(_("tutor lessons try: {problem}").format(problem=message)), file=sys.stderr)
    return 1


def _lesson(args: argparse.Namespace):
    """The lesson named by id (built-in or from --lessons) or by its file; raises ValueError to report."""
    from tutor.course.catalog import load_catalog, load_lesson
    from tutor.course.loader import LessonFileError

    path = Path(args.lesson)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        try:
            return load_lesson(path)
        except LessonFileError as error:
            raise ValueError(translated(message_of(error))) from None
    found = load_catalog(args.lessons).get(args.lesson)
    if found is None:
        raise ValueError(_("no lesson {lesson}; 'tutor lessons list' lists them").format(lesson=args.lesson))
    return found.lesson


def _question(lesson, name: str):
    for number, question in enumerate(lesson.questions, start=1):
        if name in (question.id, str(number)):
            return question
    raise ValueError(_("lesson {lesson} has no question {question}; it has {ids}").format(
        lesson=lesson.id, question=name, ids=", ".join(q.id for q in lesson.questions)))


def run_lessons_try(args: argparse.Namespace) -> int:
    from tutor.grading.answers import AnswerError
    from tutor.grading.quiz import QuestionError, grade, truth_for
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub, hub_for_checkpoint

    try:
        lesson = _lesson(args)
        question = _question(lesson, args.question)
        hub = hub_for_checkpoint(args.checkpoint) if args.checkpoint else ModelHub()
        live = compute_live(lesson, hub)
        truth = truth_for(question, live.tensors, live.sizes)
    except QuestionError as error:
        return _fail(translated(message_of(error)))
    except Exception as error:   # a checkpoint that cannot be used, a lesson the model cannot run: all reported
        return _fail(translated(message_of(error)))
    for answer in args.answers:
        try:
            result = grade(question, answer, truth, live.sizes)
        except AnswerError as error:
            verdict, words = "unreadable", translated(message_of(error))
        else:
            verdict, words = ("right" if result.correct else "wrong"), result.feedback
        print(f"{verdict}\t{one_line(answer)}\t{one_line(words)}", flush=True)
    return 0
