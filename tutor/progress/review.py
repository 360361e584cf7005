"""Spaced repetition for questions the learner missed or needed hints for.

The schedule is SM-2 (SuperMemo 2) with two small changes that suit a tutor
rather than a flashcard deck:

* A question answered right, without hints, the first time it is seen never
  becomes a card: the learner already knows it, reviewing it wastes their time.
* A missed question comes back after ``RELEARN_DELAY`` (minutes, not a day), so
  it can reappear in the same sitting while the mistake is still fresh.

SM-2 was chosen over FSRS because it needs no dependency, is ~30 lines, and its
behaviour is easy to reason about and test; FSRS's advantage (fitted per-user
parameters) only pays off with thousands of reviews, which a course with a few
hundred questions never reaches.

Cards live in the progress database (table ``cards``), but the SQL that reads
and writes them is kept here so the scheduling rules and their storage change
together. Functions take a ``sqlite3.Connection``; transactions are the caller's.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

RELEARN_DELAY = timedelta(minutes=10)
INITIAL_EASE = 2.5
MIN_EASE = 1.3
HINT_QUALITY = 3  # SM-2 "correct, with serious difficulty"
CLEAN_QUALITY = 5  # SM-2 "perfect response"

CARDS_DDL = """
CREATE TABLE IF NOT EXISTS cards (
    lesson_id     TEXT NOT NULL,
    question_id   TEXT NOT NULL,
    due           TEXT NOT NULL,
    interval_days REAL NOT NULL,
    ease          REAL NOT NULL,
    reps          INTEGER NOT NULL,
    lapses        INTEGER NOT NULL,
    last_review   TEXT,
    PRIMARY KEY (lesson_id, question_id)
);
CREATE INDEX IF NOT EXISTS cards_due ON cards(due);
"""


def iso(dt: datetime) -> str:
    """One canonical UTC text form, so stored times compare as strings and
    identical instants always produce identical text (import de-duplication
    depends on that)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_iso(text: str) -> datetime:
    dt = datetime.fromisoformat(text)
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


@dataclass(frozen=True)
class CardState:
    """Scheduling state only; the (lesson, question) key is held by ``Card``."""

    due: datetime
    interval_days: float = 0.0
    ease: float = INITIAL_EASE
    reps: int = 0  # successful reviews since the last lapse
    lapses: int = 0
    last_review: datetime | None = None


@dataclass(frozen=True)
class Card:
    lesson_id: str
    question_id: str
    state: CardState


def schedule_after_answer(
    card: CardState | None, correct: bool, hints_used: int, now: datetime
) -> CardState | None:
    """Next state of a card after one answer; ``None`` means "no card needed".

    A correct answer given before the card is due, once it has passed at least
    one review, leaves it unchanged: otherwise re-answering a question several
    times in one sitting would inflate its interval to weeks.
    """
    if card is None:
        if correct and hints_used == 0:
            return None
        card = CardState(due=now)
    if not correct:
        return replace(
            card,
            due=now + RELEARN_DELAY,
            interval_days=0.0,
            ease=max(MIN_EASE, card.ease - 0.2),
            reps=0,
            lapses=card.lapses + (1 if card.last_review is not None else 0),
            last_review=now,
        )
    if card.reps > 0 and now < card.due:
        return card
    quality = CLEAN_QUALITY if hints_used == 0 else HINT_QUALITY
    if card.reps == 0:
        interval = 1.0
    elif card.reps == 1:
        interval = 6.0
    else:
        interval = round(card.interval_days * card.ease, 2)
    q = 5 - quality
    ease = max(MIN_EASE, card.ease + 0.1 - q * (0.08 + q * 0.02))
    return replace(
        card,
        due=now + timedelta(days=interval),
        interval_days=interval,
        ease=round(ease, 4),
        reps=card.reps + 1,
        last_review=now,
    )


def _card_from_row(row: tuple) -> Card:
    lesson_id, question_id, due, interval, ease, reps, lapses, last = row
    state = CardState(parse_iso(due), interval, ease, reps, lapses, parse_iso(last) if last else None)
    return Card(lesson_id, question_id, state)


_COLUMNS = "lesson_id, question_id, due, interval_days, ease, reps, lapses, last_review"


def load_card(con: sqlite3.Connection, lesson_id: str, question_id: str) -> CardState | None:
    row = con.execute(
        f"SELECT {_COLUMNS} FROM cards WHERE lesson_id = ? AND question_id = ?",
        (lesson_id, question_id),
    ).fetchone()
    return _card_from_row(row).state if row else None


def save_card(con: sqlite3.Connection, lesson_id: str, question_id: str, state: CardState) -> None:
    con.execute(
        f"INSERT OR REPLACE INTO cards ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            lesson_id,
            question_id,
            iso(state.due),
            state.interval_days,
            state.ease,
            state.reps,
            state.lapses,
            iso(state.last_review) if state.last_review else None,
        ),
    )


def record_review(
    con: sqlite3.Connection, lesson_id: str, question_id: str, correct: bool, hints_used: int, now: datetime
) -> CardState | None:
    """Apply one answer to the stored card (inside the caller's transaction)."""
    new = schedule_after_answer(load_card(con, lesson_id, question_id), correct, hints_used, now)
    if new is not None:
        save_card(con, lesson_id, question_id, new)
    return new


def due_cards(con: sqlite3.Connection, now: datetime) -> list[Card]:
    """Most overdue first, so a short session clears the oldest debts."""
    rows = con.execute(f"SELECT {_COLUMNS} FROM cards WHERE due <= ? ORDER BY due", (iso(now),))
    return [_card_from_row(r) for r in rows]


def due_count(con: sqlite3.Connection, now: datetime) -> int:
    return con.execute("SELECT COUNT(*) FROM cards WHERE due <= ?", (iso(now),)).fetchone()[0]


def next_due(con: sqlite3.Connection) -> datetime | None:
    row = con.execute("SELECT MIN(due) FROM cards").fetchone()
    return parse_iso(row[0]) if row and row[0] else None
