"""The right answer at the sizes each learner saw, and the nudge a wrong answer got, for the report.

Why recompute: an export keeps what a learner typed and the sizes shown ("B=2, L=4, D=8, H=2"),
not the truth, which the live model computes per draw.  The lesson's model is run again at those
sizes (found by replaying the size draw, which is seeded), and the question's kind grades the wrong
text as the app did, so the teacher reads what the tutor told the class.  A trained-weights lesson
is run on the shipped model (the learner's own may since differ); a lesson that cannot be run
leaves its cells empty and the rest of the report stands.
"""
from __future__ import annotations

from collections.abc import Callable

from tutor.classroom.report import ClassReport, WrongAnswer
from tutor.grading.answers import AnswerError
from tutor.grading.quiz import grade, truth_for

MAX_SEEDS = 20_000   # the draw's seeds are tried in order until one gives the recorded sizes


def parse_variant(variant: str | None) -> dict[str, int] | None:
    """"B=2, L=4, D=8, H=2" -> {"B": 2, ...}; None for anything else."""
    if not variant:
        return None
    sizes = {}
    for part in variant.split(","):
        name, _sep, value = part.strip().partition("=")
        if not value.strip().isdigit() or name.strip() not in ("B", "L", "D", "H"):
            return None
        sizes[name.strip()] = int(value)
    return sizes


def seed_for(setup, variant: str | None) -> int | None:
    """A variant seed whose draw gives these sizes; None (the lesson's own sizes) when it does not vary."""
    from tutor.live.compute import choose_sizes

    target = parse_variant(variant)
    if not setup.vary or target is None:
        return None
    for seed in range(1, MAX_SEEDS):
        try:
            if choose_sizes(setup, target, seed) == target:
                return seed
        except ValueError:
            return None
    return None


def live_truths(catalog) -> Callable:
    """(lesson_id, variant) -> (lesson, live result) or None, computed once each."""
    from tutor.live.hub import ModelHub
    from tutor.live.compute import compute_live

    hub, done = ModelHub(), {}

    def live(lesson_id: str, variant: str | None):
        if (lesson_id, variant) not in done:
            item = catalog.get(lesson_id)
            try:
                done[(lesson_id, variant)] = None if item is None else (
                    item.lesson, compute_live(item.lesson, hub, seed_for(item.lesson.model, variant), on_shipped=True))
            except Exception:   # a lesson this machine cannot run: its cells stay empty, the report stands
                done[(lesson_id, variant)] = None
        return done[(lesson_id, variant)]
    return live


def fill_expected(report: ClassReport, live: Callable) -> None:
    """Each answered question's right answer at every size learners saw, and each wrong answer's nudge."""
    for result in report.questions:
        if not result.learners and not result.open:
            continue
        for variant in result.variants or [None]:
            truth = _truth(live, result.lesson_id, result.question_id, variant)
            if truth is not None:
                result.expected[variant or ""] = truth[0].display
        result.wrong[:] = [_nudged(live, result.lesson_id, result.question_id, wrong) for wrong in result.wrong]


def _truth(live, lesson_id: str, question_id: str, variant: str | None):
    found = live(lesson_id, variant)
    if found is None:
        return None
    lesson, result = found
    question = next((q for q in lesson.questions if q.id == question_id), None)
    if question is None:
        return None
    try:
        return truth_for(question, result.tensors, result.sizes), question, result.sizes
    except Exception:   # the lesson's question no longer computes here (QuestionError and the like)
        return None


def _nudged(live, lesson_id: str, question_id: str, wrong: WrongAnswer) -> WrongAnswer:
    truth = _truth(live, lesson_id, question_id, wrong.variant)
    if truth is None:
        return wrong
    truth, question, sizes = truth
    try:
        feedback = grade(question, wrong.text, truth, sizes).feedback
    except AnswerError as error:   # the app asked for a readable answer, as here
        feedback = str(error)
    except Exception:
        return wrong
    return WrongAnswer(wrong.text, wrong.learners, wrong.variant, feedback)
