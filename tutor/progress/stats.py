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
    """A lesson's questions by their record: seen (open or resolved), tried (a first try, or resolved),
    finished (resolved), and how.

    Counted in questions, never in encounters or answers, so "finished" can never exceed the
    lesson's questions and ``accuracy`` (right first time over tried) cannot be raised by
    practice, a retry, or reopening the lesson.  Over *tried*, not finished: the first try is the
    score, so a wrong first try counts as not right first time at once, and a learner who typed one
    wrong answer and stopped reads 0/1, not 0/0.
    """

    seen: set[str] = field(default_factory=set)
    tried: set[str] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)
    first_try: set[str] = field(default_factory=set)
    after_retry: set[str] = field(default_factory=set)
    last_seen: datetime | None = None

    @property
    def missed(self) -> set[str]:
        return self.finished - self.first_try - self.after_retry

    @property
    def accuracy(self) -> float | None:
        return len(self.first_try) / len(self.tried) if self.tried else None


@dataclass
class TrackStats:
    total_questions: int = 0
    finished_questions: int = 0   # resolved: right first time, right after retry, or not got
    tried_questions: int = 0      # with a first try (a wrong one counts at once), or resolved
    first_try: int = 0            # of which right first time

    @property
    def completion(self) -> float:
        return self.finished_questions / self.total_questions if self.total_questions else 0.0

    @property
    def accuracy(self) -> float | None:
        return self.first_try / self.tried_questions if self.tried_questions else None


def was_tried(record) -> bool:
    """A question counts as tried once it has a first try or an outcome: the first try is the score,
    so the learner's screens and the teacher's report must use this one rule."""
    return record.outcome is not None or bool(record.tries)


def question_counts(records: Iterable, course: Mapping[str, Sequence[str]] | None = None) -> dict[str, LessonStats]:
    """The one count of progress: the roadmap, the lesson summary, Stats, ``tutor progress`` and the
    export all read it. ``records`` are question records; with ``course`` ({lesson: question ids})
    only the questions the course asks today count, so a renamed question cannot inflate a lesson."""
    out: dict[str, LessonStats] = {}
    for r in records:
        if course is not None and r.question_id not in course.get(r.lesson_id, ()):
            continue
        s = out.setdefault(r.lesson_id, LessonStats())
        s.seen.add(r.question_id)
        if was_tried(r):
            s.tried.add(r.question_id)
        if r.outcome is not None:
            s.finished.add(r.question_id)
            {"first_try": s.first_try, "after_retry": s.after_retry}.get(r.outcome.value, set()).add(r.question_id)
        s.last_seen = r.updated if s.last_seen is None else max(s.last_seen, r.updated)
    return out


def track_stats(
    tracks: Mapping[str, Sequence[tuple[str, Sequence[str]]]], stats: Mapping[str, LessonStats]
) -> dict[str, TrackStats]:
    """Only the questions the course lists today count, so renamed or removed questions in old
    history do not inflate a track."""
    out: dict[str, TrackStats] = {}
    for track, lessons in tracks.items():
        ts = out[track] = TrackStats()
        for lesson_id, question_ids in lessons:
            ls, ids = stats.get(lesson_id, LessonStats()), set(question_ids)
            ts.total_questions += len(ids)
            ts.finished_questions += len(ids & ls.finished)
            ts.tried_questions += len(ids & ls.tried)
            ts.first_try += len(ids & ls.first_try)
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
