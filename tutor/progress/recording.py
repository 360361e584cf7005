"""Writing the learner's attempts and outcomes (a mixin of :class:`tutor.progress.store.ProgressStore`).

Kept apart so the store module stays about opening, migrating and guarding the file. Each write is
one short transaction through the store's ``transaction()``; time always comes in as ``now``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from tutor.grading.attempts import Outcome
from tutor.progress import review
from tutor.progress.migrate import v1_outcome
from tutor.progress.review import iso, parse_iso


@dataclass(frozen=True)
class Answer:
    lesson_id: str
    question_id: str
    answer: str
    correct: bool
    hints_used: int
    timestamp: datetime
    variant: str | None = None
    attempt: int = 1


@dataclass(frozen=True)
class OutcomeRecord:
    """How one encounter with a question ended; its outcome is judged by the first attempt."""

    lesson_id: str
    question_id: str
    outcome: Outcome
    attempts: int
    hints_used: int
    timestamp: datetime
    variant: str | None = None


class RecordingMixin:
    def record_attempt(
        self,
        lesson_id: str,
        question_id: str,
        answer: str,
        correct: bool,
        hints_used: int = 0,
        variant: str | None = None,
        attempt: int = 1,
        now: datetime | None = None,
    ) -> Answer:
        """Store one graded attempt (review moves only when the encounter ends: ``record_outcome``).

        (timestamp, lesson, question, answer) identifies an answer for import;
        a genuine repeat within the clock's resolution is shifted by 1 µs so it
        is kept, not mistaken for a duplicate.
        """
        now = now or datetime.now(timezone.utc)
        with self.transaction() as con:
            now = self._insert_attempt(con, lesson_id, question_id, answer, correct, hints_used, variant, attempt, now)
        return Answer(lesson_id, question_id, answer, bool(correct), int(hints_used), parse_iso(iso(now)), variant,
                      attempt)

    def record_outcome(
        self,
        lesson_id: str,
        question_id: str,
        outcome: Outcome | str,
        attempts: int,
        hints_used: int = 0,
        variant: str | None = None,
        now: datetime | None = None,
    ) -> OutcomeRecord:
        """Store how an encounter ended and reschedule its review card, atomically."""
        now, outcome = now or datetime.now(timezone.utc), Outcome(outcome)
        with self.transaction() as con:
            now = self._insert_outcome(con, lesson_id, question_id, outcome, attempts, hints_used, variant, now)
            review.record_review(con, lesson_id, question_id, outcome, now)
        return OutcomeRecord(lesson_id, question_id, outcome, int(attempts), int(hints_used), parse_iso(iso(now)),
                             variant)

    def record_answer(
        self,
        lesson_id: str,
        question_id: str,
        answer: str,
        correct: bool,
        hints_used: int = 0,
        variant: str | None = None,
        now: datetime | None = None,
    ) -> Answer:
        """One answer that is a whole encounter (one try, then the reveal), as every answer was in version 1."""
        now = now or datetime.now(timezone.utc)
        with self.transaction() as con:
            now = self._insert_attempt(con, lesson_id, question_id, answer, correct, hints_used, variant, 1, now)
            outcome = v1_outcome(correct, hints_used)
            self._insert_outcome(con, lesson_id, question_id, outcome, 1, hints_used, variant, now)
            review.record_review(con, lesson_id, question_id, outcome, now)
        return Answer(lesson_id, question_id, answer, bool(correct), int(hints_used), parse_iso(iso(now)), variant)

    @staticmethod
    def _insert_attempt(con, lesson_id, question_id, answer, correct, hints_used, variant, attempt, now) -> datetime:
        while not con.execute(
            "INSERT OR IGNORE INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant, attempt)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (iso(now), lesson_id, question_id, answer, int(correct), int(hints_used), variant, int(attempt)),
        ).rowcount:
            now += timedelta(microseconds=1)
        return now

    @staticmethod
    def _insert_outcome(con, lesson_id, question_id, outcome, attempts, hints_used, variant, now) -> datetime:
        while not con.execute(
            "INSERT OR IGNORE INTO outcomes (ts, lesson_id, question_id, outcome, attempts, hints_used, variant)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (iso(now), lesson_id, question_id, Outcome(outcome).value, int(attempts), int(hints_used), variant),
        ).rowcount:
            now += timedelta(microseconds=1)
        return now

