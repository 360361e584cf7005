"""What the screens say about progress, as plain strings (no Textual here).

Kept apart from the screens so the wording can be tested without running the app, and so
the roadmap, the stats screen and the review screen agree on it.  Every status is spelled out
in text (✓ / ◐ / ○ plus counts), never signalled by colour alone.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from tutor.common.i18n import _, ngettext

from tutor.progress.stats import streak_ending
from tutor.progress.store import LessonStats, ProgressStore, TrackStats, track_stats


@dataclass(frozen=True)
class ReviewItem:
    """A due card the current catalog can still ask (its lesson and question exist)."""

    lesson_id: str
    question_index: int


@dataclass
class Snapshot:
    """Everything the roadmap and stats screen show, read once per refresh."""

    lessons: dict[str, LessonStats] = field(default_factory=dict)
    tracks: dict[str, TrackStats] = field(default_factory=dict)
    due: list[ReviewItem] = field(default_factory=list)
    next_due: datetime | None = None
    per_day: dict[date, int] = field(default_factory=dict)
    streak: int = 0
    orphans: int = 0   # due-or-not cards of questions the course no longer has
    saving: bool = True


def course_questions(catalog) -> dict[str, list[tuple[str, list[str]]]]:
    """{track: [(lesson, [question ids])]}: the shape ``track_stats`` wants."""
    return {track.id: [(item.lesson.id, [q.id for q in item.lesson.questions])
                       for item in catalog.track_lessons(track.id)]
            for track in catalog.index.tracks}


def question_exists(catalog) -> Callable[[str, str], bool]:
    """Whether the course still asks a question: cards of removed ones are orphans, never offered."""
    def exists(lesson_id: str, question_id: str) -> bool:
        item = catalog.get(lesson_id)
        return item is not None and any(q.id == question_id for q in item.lesson.questions)
    return exists


def take_snapshot(store: ProgressStore | None, catalog, now: datetime) -> Snapshot:
    if store is None:
        return Snapshot(saving=False)
    lessons = store.all_lesson_stats({lesson_id: ids for track in course_questions(catalog).values()
                                      for lesson_id, ids in track})
    reviews = store.due_reviews(now, question_exists(catalog))
    due = []
    for card in reviews.due:
        ids = [q.id for q in catalog.get(card.lesson_id).lesson.questions]
        due.append(ReviewItem(card.lesson_id, ids.index(card.question_id)))
    tz = datetime.now().astimezone().tzinfo   # the learner's local days, as the store counts them
    per_day = store.answers_per_day(tz)       # read once: the streak is counted from the same days
    return Snapshot(lessons, track_stats(course_questions(catalog), lessons), due, reviews.next_due,
                    per_day, streak_ending(per_day, now.astimezone(tz).date()), reviews.orphans)


def lesson_label(item, stats: LessonStats | None) -> str:
    """'✓ 3/3 Title · 67% first time': done means finished (its first attempt resolved: right, right
    after retry, or not got); the percentage is of those questions right first time, so retrying,
    practice or reopening the lesson cannot raise it."""
    return "".join(lesson_label_parts(item, stats))


def lesson_label_parts(item, stats: LessonStats | None) -> tuple[str, str, str]:
    """``lesson_label`` as (mark and count, title, score): a narrow roadmap shortens the title
    alone, so the score is never the part cut off."""
    ids = {q.id for q in item.lesson.questions}
    done = len(ids & stats.finished) if stats else 0
    mark = "✓" if ids and done == len(ids) else ("◐" if stats and stats.seen else "○")
    score = ""
    if stats and stats.accuracy is not None:
        score = _(" · {percent} first time").format(percent=f"{stats.accuracy:.0%}")
    return f"{mark} {done}/{len(ids)} ", item.lesson.title, score


def track_label(title: str, lesson_count: int, stats: TrackStats | None) -> str:
    if not lesson_count:
        return _("{title} (no lessons yet)").format(title=title)
    done = stats.completion if stats else 0.0
    lessons = ngettext("{count} lesson", "{count} lessons", lesson_count).format(count=lesson_count)
    return _("{title} · {lessons} · {done} done").format(title=title, lessons=lessons, done=f"{done:.0%}")


def review_label(snapshot: Snapshot, now: datetime) -> str:
    if not snapshot.saving:
        return _("Review (off: progress is not being saved)")
    label = _("Review ({count} due)").format(count=len(snapshot.due))
    if not snapshot.due and snapshot.next_due is not None:
        label += _(" · next {when}").format(when=when(snapshot.next_due, now))
    return label


def stats_label(snapshot: Snapshot) -> str:
    return ngettext("Stats · streak {count} day", "Stats · streak {count} days", snapshot.streak).format(
        count=snapshot.streak)


def when(moment: datetime, now: datetime) -> str:
    """A due time as a person says it: 'now', 'in 8 min', 'in 3 h', 'in 2 days'."""
    delta = moment - now
    if delta <= timedelta(0):
        return _("now")
    minutes = delta.total_seconds() / 60
    if minutes < 60:
        return _("in {count} min").format(count=max(1, round(minutes)))
    if minutes < 48 * 60:
        return _("in {count} h").format(count=round(minutes / 60))
    return _("in {count} days").format(count=round(minutes / 1440))


def recent_days(per_day: dict[date, int], today: date, days: int = 30) -> list[int]:
    """Answers on each of the last ``days`` days, oldest first, zeros included."""
    return [per_day.get(today - timedelta(days=offset), 0) for offset in range(days - 1, -1, -1)]
