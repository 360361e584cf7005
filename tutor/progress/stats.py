"""Summaries of the answer history, kept apart from the SQLite store.

They work on plain rows and dates, so the roadmap and ``tutor progress`` can
be tested (and later changed) without a database, and the store stays about
keeping answers safe.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo

from tutor.progress.review import parse_iso


@dataclass
class LessonStats:
    """``attempts`` counts finished encounters with questions and ``correct_attempts`` those right on the
    first try without a hint, so ``accuracy`` is first-attempt accuracy: retries cannot raise it."""

    answered_questions: set[str] = field(default_factory=set)
    correct_questions: set[str] = field(default_factory=set)   # right at least once (first try or after)
    attempts: int = 0
    correct_attempts: int = 0
    last_seen: datetime | None = None

    @property
    def accuracy(self) -> float | None:
        return self.correct_attempts / self.attempts if self.attempts else None


@dataclass
class TrackStats:
    total_questions: int = 0
    completed_questions: int = 0  # answered correctly at least once
    attempts: int = 0             # finished encounters
    correct_attempts: int = 0     # of which right first time

    @property
    def completion(self) -> float:
        return self.completed_questions / self.total_questions if self.total_questions else 0.0

    @property
    def accuracy(self) -> float | None:
        return self.correct_attempts / self.attempts if self.attempts else None


def lesson_stats_from_rows(rows: Iterable[tuple[str, str, int, int | None, int | None, str]]) -> dict[str, LessonStats]:
    """Rows are per question (lesson, question, encounters, right first time, right at all, last ts),
    so SQLite does the counting and Python only folds questions into lessons."""
    out: dict[str, LessonStats] = {}
    for lesson_id, question_id, encounters, first_try, right, last in rows:
        s = out.setdefault(lesson_id, LessonStats())
        s.answered_questions.add(question_id)
        if right:
            s.correct_questions.add(question_id)
        s.attempts += encounters
        s.correct_attempts += first_try or 0
        seen = parse_iso(last)
        s.last_seen = seen if s.last_seen is None else max(s.last_seen, seen)
    return out


def track_stats(
    tracks: Mapping[str, Sequence[tuple[str, Sequence[str]]]], stats: Mapping[str, LessonStats]
) -> dict[str, TrackStats]:
    """Completion counts only the questions the course lists today, so renamed or
    removed questions in old history do not inflate it; accuracy is the first
    attempt of every encounter in the track's lessons."""
    out: dict[str, TrackStats] = {}
    for track, lessons in tracks.items():
        ts = out[track] = TrackStats()
        for lesson_id, question_ids in lessons:
            ls = stats.get(lesson_id, LessonStats())
            ts.total_questions += len(set(question_ids))
            ts.completed_questions += len(set(question_ids) & ls.correct_questions)
            ts.attempts += ls.attempts
            ts.correct_attempts += ls.correct_attempts
    return out


def answers_per_day(timestamps: Iterable[str], tz: tzinfo) -> dict[date, int]:
    """Days are the learner's local days (``tz``), not UTC ones: a streak
    should not break because midnight UTC fell in the afternoon."""
    return dict(sorted(Counter(parse_iso(t).astimezone(tz).date() for t in timestamps).items()))


def streak_ending(days: Container[date], today: date) -> int:
    """Consecutive days with an answer, ending today, or yesterday if the
    learner has not practised yet today (the streak is still alive)."""
    day = today
    if day not in days:
        day -= timedelta(days=1)
    streak = 0
    while day in days:
        streak, day = streak + 1, day - timedelta(days=1)
    return streak
