"""The class report's figures, from learners' question records.

A question's score is its record's outcome, as the app shows it: right first time, right after a
retry, or not got (a give-up is not got); practice and review never count.  The wrong answers are
those of scored tries, taken in attempt order, each counted once per learner who gave it, so one
learner retyping it does not make it look like a belief the class shares; texts that differ only in
full-width forms (a Chinese input method), spacing or letter case are one belief.

The course (lessons in roadmap order, their questions and prompts) comes in as plain data, so a
lesson no learner opened still gets its rows ("0 of 4"), and the figures need no lesson files.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from tutor.classroom.exports import Answer, LearnerExport
from tutor.grading.attempts import DEFAULT_ATTEMPTS, Outcome
from tutor.grading.fullwidth import normalize_answer_text
from tutor.progress.stats import was_tried

TOP_WRONG = 6   # wrong answers listed by name per question; the rest are counted as "others"


@dataclass(frozen=True)
class CourseQuestion:
    id: str
    prompt: str = ""
    allowed: int = DEFAULT_ATTEMPTS   # tries before the reveal: fewer, and not got, is a give-up


@dataclass(frozen=True)
class CourseLesson:
    id: str
    title: str = ""
    questions: tuple[CourseQuestion, ...] = ()


@dataclass(frozen=True)
class WrongAnswer:
    text: str          # normalised: full-width folded to ASCII, spacing made single
    learners: int
    variant: str | None   # the sizes the first learner who gave it saw
    nudge: str = ""    # what the tutor told them (filled in by the live step, where it can run)


@dataclass
class QuestionResult:
    lesson_id: str
    question_id: str
    prompt: str
    learners: int = 0           # learners whose record of it is resolved
    tried: int = 0              # learners with a first try at it (a wrong one counts at once), or resolved
    right_first: int = 0
    after_retry: int = 0
    missed: int = 0
    open: int = 0               # tried, not resolved yet
    wrong: list[WrongAnswer] = field(default_factory=list)   # the commonest, most first
    other_answers: int = 0      # further distinct wrong answers, not listed
    other_learners: int = 0     # how many learners gave those
    variants: list[str] = field(default_factory=list)        # the sizes learners answered at
    expected: dict[str, str] = field(default_factory=dict)   # sizes -> the right answer there

    @property
    def percent(self) -> float | None:
        return 100 * self.right_first / self.tried if self.tried else None


@dataclass(frozen=True)
class LessonResult:
    learner: str
    lesson_id: str
    questions: int         # the lesson's size
    answered: int          # questions of it this learner resolved
    tried: int             # questions of it with a first try, or resolved: what right first time is out of
    right_first: int
    hints: int
    give_ups: int
    seconds: float

    @property
    def done(self) -> bool:
        return self.questions > 0 and self.answered == self.questions


@dataclass(frozen=True)
class LearnerSummary:
    name: str
    account: str | None
    lessons_done: int
    lessons_total: int
    answered: int
    tried: int
    right_first: int
    seconds: float
    hints: int
    give_ups: int
    last_seen: datetime | None
    not_opened: tuple[str, ...]   # lesson ids with no record at all


@dataclass(frozen=True)
class ClassReport:
    course: tuple[CourseLesson, ...]
    learners: tuple[LearnerSummary, ...]
    lessons: tuple[LessonResult, ...]       # every learner x every lesson, opened or not
    questions: tuple[QuestionResult, ...]   # course order

    def hardest_first(self) -> list[QuestionResult]:
        """Tried questions by % right first time, lowest first (then most learners)."""
        tried = [q for q in self.questions if q.tried]
        return sorted(tried, key=lambda q: (q.percent, -q.tried))


def belief_key(text: str) -> str:
    """Answers that differ only in full-width forms, spacing or letter case state the same belief."""
    return "".join(normalize_answer_text(text).split()).casefold()


def shown_answer(text: str) -> str:
    """The belief as the report writes it: full-width folded, runs of spaces made one."""
    return " ".join(normalize_answer_text(text).split())


def course_with_records(course: list[CourseLesson], learners: list[LearnerExport]) -> list[CourseLesson]:
    """The course, plus any lesson or question the learners have records of that it lacks (a
    lesson of their own, or one since renamed): nothing a learner did is left out."""
    known = {(lesson.id, q.id) for lesson in course for q in lesson.questions}
    extra: dict[str, list[str]] = {}
    for learner in learners:
        for record in learner.records:
            if (record.lesson_id, record.question_id) not in known:
                extra.setdefault(record.lesson_id, [])
                if record.question_id not in extra[record.lesson_id]:
                    extra[record.lesson_id].append(record.question_id)
    merged = []
    for lesson in course:
        added = tuple(CourseQuestion(q) for q in extra.pop(lesson.id, []))
        merged.append(CourseLesson(lesson.id, lesson.title, lesson.questions + added))
    merged += [CourseLesson(lesson_id, "", tuple(CourseQuestion(q) for q in sorted(ids)))
               for lesson_id, ids in sorted(extra.items())]
    return merged


def build_report(learners: list[LearnerExport], course: list[CourseLesson] | None = None,
                 lessons: list[str] | None = None) -> ClassReport:
    """``lessons``: only these lesson ids (the teacher's --lesson), in course order."""
    course = course_with_records(list(course or []), learners)
    if lessons:
        course = [lesson for lesson in course if lesson.id in lessons]
    results = {(lesson.id, q.id): QuestionResult(lesson.id, q.id, q.prompt) for lesson in course for q in lesson.questions}
    believers: dict[tuple[str, str], dict[str, set[int]]] = {key: {} for key in results}
    first_way: dict[tuple[str, str, str], Answer] = {}
    summaries, rows = [], []
    for number, learner in enumerate(learners):
        records = {(r.lesson_id, r.question_id): r for r in learner.records}
        for answer in learner.scored:
            key = (answer.lesson_id, answer.question_id)
            if key in results and answer.variant and answer.variant not in results[key].variants:
                results[key].variants.append(answer.variant)
        wrong_here: dict[tuple[str, str], set[str]] = {}
        for answer in learner.scored:   # by question, then attempt number
            if not answer.correct and answer.text.strip() and (answer.lesson_id, answer.question_id) in results:
                belief = belief_key(answer.text)
                first_way.setdefault((answer.lesson_id, answer.question_id, belief), answer)
                wrong_here.setdefault((answer.lesson_id, answer.question_id), set()).add(belief)
        for key, beliefs in wrong_here.items():
            for belief in beliefs:
                believers[key].setdefault(belief, set()).add(number)
        totals = Counter()
        not_opened = []
        for lesson in course:
            counts = Counter()
            seconds = 0.0
            opened = False
            for q in lesson.questions:
                record = records.get((lesson.id, q.id))
                seconds += learner.seconds.get((lesson.id, q.id), 0.0)
                if record is None:
                    continue
                opened = True
                result = results[(lesson.id, q.id)]
                counts["hints"] += record.hints
                if was_tried(record):
                    counts["tried"] += 1
                    result.tried += 1
                if record.outcome is None:
                    result.open += 1
                    continue
                counts["answered"] += 1
                result.learners += 1
                if record.outcome is Outcome.FIRST_TRY:
                    counts["right"] += 1
                    result.right_first += 1
                elif record.outcome is Outcome.AFTER_RETRY:
                    result.after_retry += 1
                else:
                    result.missed += 1
                    counts["give_ups"] += record.tries < q.allowed
            row = LessonResult(learner.name, lesson.id, len(lesson.questions), counts["answered"], counts["tried"],
                               counts["right"], counts["hints"], counts["give_ups"], seconds)
            rows.append(row)
            if not opened:
                not_opened.append(lesson.id)
            totals.update(counts)
            totals["done"] += row.done
            totals["seconds"] += seconds
        summaries.append(LearnerSummary(learner.name, learner.account, totals["done"], len(course), totals["answered"],
                                        totals["tried"], totals["right"], totals["seconds"], totals["hints"], totals["give_ups"],
                                        learner.last_seen, tuple(not_opened)))
    for key, result in results.items():
        ranked = sorted(believers[key].items(),
                        key=lambda kv: (-len(kv[1]), shown_answer(first_way[(*key, kv[0])].text)))
        for belief, who in ranked[:TOP_WRONG]:
            answer = first_way[(*key, belief)]
            result.wrong.append(WrongAnswer(shown_answer(answer.text), len(who), answer.variant))
        result.other_answers = len(ranked[TOP_WRONG:])
        result.other_learners = len(set().union(*(who for _belief, who in ranked[TOP_WRONG:])))
    return ClassReport(tuple(course), tuple(summaries), tuple(rows), tuple(results.values()))
