"""The class report's figures, from learners' answers: per learner and lesson, first attempts;
per question, how many were right first time and the wrong answers the class gave most.

"First attempt" is the earliest answer a learner gave to a question (reviews come later), and it
counts as right first time only when it was right without a hint, as the app scores it.  A wrong
answer is counted once per learner who gave it, so one learner retyping it does not make it
look like a belief the class shares; texts that differ only in spacing or letter case are one.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from tutor.classroom.exports import Answer, LearnerExport

TOP_WRONG = 3


@dataclass(frozen=True)
class LessonResult:
    learner: str
    lesson_id: str
    answered: int          # questions of the lesson this learner answered at least once
    right_first: int       # of those, right at the first attempt without a hint


@dataclass(frozen=True)
class QuestionResult:
    lesson_id: str
    question_id: str
    learners: int          # learners who answered it
    right_first: int
    wrong: tuple[tuple[str, int], ...]   # the most common wrong answers, (text, learners), most first


@dataclass(frozen=True)
class ClassReport:
    learners: tuple[str, ...]
    lessons: tuple[LessonResult, ...]
    questions: tuple[QuestionResult, ...]


def first_attempts(answers: tuple[Answer, ...]) -> dict[tuple[str, str], Answer]:
    """(lesson, question) -> the earliest answer (ties: the lower attempt number)."""
    first: dict[tuple[str, str], Answer] = {}
    for answer in sorted(answers, key=lambda a: (a.timestamp, a.attempt)):
        first.setdefault((answer.lesson_id, answer.question_id), answer)
    return first


def belief_key(text: str) -> str:
    """Answers that differ only in spacing or letter case state the same belief."""
    return "".join(text.split()).casefold()


def right_first_time(answer: Answer) -> bool:
    return answer.correct and answer.hints_used == 0


def build_report(learners: list[LearnerExport]) -> ClassReport:
    lessons: list[LessonResult] = []
    answered: Counter = Counter()
    right: Counter = Counter()
    believers: dict[tuple[str, str], Counter] = defaultdict(Counter)
    shown: dict[str, str] = {}   # belief key -> the first way it was written
    for learner in learners:
        first = first_attempts(learner.answers)
        per_lesson: dict[str, list[Answer]] = defaultdict(list)
        for question, answer in first.items():
            per_lesson[question[0]].append(answer)
            answered[question] += 1
            right[question] += right_first_time(answer)
        for lesson_id in sorted(per_lesson):
            group = per_lesson[lesson_id]
            lessons.append(LessonResult(learner.name, lesson_id, len(group), sum(map(right_first_time, group))))
        wrong_by_question: dict[tuple[str, str], set[str]] = defaultdict(set)
        for answer in learner.answers:
            if not answer.correct and answer.text.strip():
                key = belief_key(answer.text)
                shown.setdefault(key, answer.text.strip())
                wrong_by_question[(answer.lesson_id, answer.question_id)].add(key)
        for question, keys in wrong_by_question.items():
            believers[question].update(keys)
    questions = tuple(
        QuestionResult(lesson_id, question_id, answered[(lesson_id, question_id)], right[(lesson_id, question_id)],
                       tuple((shown[key], count) for key, count in
                             sorted(believers[(lesson_id, question_id)].items(), key=lambda kc: (-kc[1], kc[0]))
                             [:TOP_WRONG]))
        for lesson_id, question_id in sorted(answered))
    return ClassReport(tuple(learner.name for learner in learners), tuple(lessons), questions)
