"""Spaced repetition for questions the learner did not get right first time, scheduled by FSRS.

FSRS (the ``fsrs`` package, the scheduler behind Anki's modern mode) models each question's
memory stability and difficulty from the learner's own history; we only choose the rating:

* right first time, without a hint  -> Good
* right after a retry or a hint     -> Hard
* not got (gave up, or out of tries) -> Again

Two choices suit a tutor rather than a flashcard deck:

* A question right first time, without hints, the first time it is seen never becomes a card:
  the learner already knows it, and reviewing it would waste their time.
* A miss comes back after ``RELEARN_DELAY`` (one learning step of ten minutes), so it can
  reappear in the same sitting while the mistake is fresh; FSRS's default two steps would
  bring a question answered right the next day back again ten minutes later.
* Fuzzing is off, so the same history always gives the same schedule (tests and imports
  replay histories and must agree with the live app).

Cards live in the progress database (table ``review_cards``, the FSRS card as JSON), but the SQL
that reads and writes them is kept here so the scheduling rules and their storage change
together. Functions take a ``sqlite3.Connection``; transactions are the caller's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State

from tutor.grading.attempts import Outcome

RELEARN_DELAY = timedelta(minutes=10)
# One short step: a miss comes back in the same sitting, and the next good answer graduates it.
SCHEDULER = Scheduler(learning_steps=(RELEARN_DELAY,), relearning_steps=(RELEARN_DELAY,), enable_fuzzing=False)
RATINGS = {Outcome.FIRST_TRY: Rating.Good, Outcome.AFTER_RETRY: Rating.Hard, Outcome.MISSED: Rating.Again}

CARDS_DDL = """
CREATE TABLE IF NOT EXISTS review_cards (
    lesson_id   TEXT NOT NULL,
    question_id TEXT NOT NULL,
    due         TEXT NOT NULL,
    card        TEXT NOT NULL,
    PRIMARY KEY (lesson_id, question_id)
);
CREATE INDEX IF NOT EXISTS review_cards_due ON review_cards(due);
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
    """A question's FSRS card, kept as its JSON text so that two equal histories compare equal."""

    card_json: str

    @classmethod
    def of(cls, card: FsrsCard) -> CardState:
        return cls(json.dumps(card.to_dict(), sort_keys=True))

    @property
    def fsrs(self) -> FsrsCard:
        return FsrsCard.from_dict(json.loads(self.card_json))

    @property
    def due(self) -> datetime:
        return parse_iso(json.loads(self.card_json)["due"])

    @property
    def stability(self) -> float | None:
        return self.fsrs.stability

    @property
    def learning(self) -> bool:
        return self.fsrs.state != State.Review


@dataclass(frozen=True)
class Card:
    lesson_id: str
    question_id: str
    state: CardState


def scheduler(parameters: Sequence[float] | None = None) -> Scheduler:
    """Our scheduler (one short step, no fuzz) with the learner's fitted FSRS parameters, if any."""
    if parameters is None:
        return SCHEDULER
    return Scheduler(parameters, learning_steps=(RELEARN_DELAY,), relearning_steps=(RELEARN_DELAY,),
                     enable_fuzzing=False)


def learner_parameters(con: sqlite3.Connection) -> list[float] | None:
    """Parameters ``tutor progress --optimize`` fitted to this learner's reviews (kept in ``meta``)."""
    row = con.execute("SELECT value FROM meta WHERE key = 'fsrs_parameters'").fetchone()
    return json.loads(row[0]) if row else None


def schedule_after_outcome(card: CardState | None, outcome: Outcome | str, now: datetime,
                           parameters: Sequence[float] | None = None) -> CardState | None:
    """Next state of a card after one finished question; ``None`` means "no card needed"."""
    outcome, now = Outcome(outcome), now.astimezone(timezone.utc)
    if card is None:
        if outcome is Outcome.FIRST_TRY:
            return None
        card = CardState.of(FsrsCard(card_id=1, due=now))   # card_id is FSRS's own key; ours is the question
    new, _log = scheduler(parameters).review_card(card.fsrs, RATINGS[outcome], review_datetime=now)
    return CardState.of(new)


_COLUMNS = "lesson_id, question_id, due, card"


def _card_from_row(row: tuple) -> Card:
    lesson_id, question_id, _due, card = row
    return Card(lesson_id, question_id, CardState(card))


def load_card(con: sqlite3.Connection, lesson_id: str, question_id: str) -> CardState | None:
    row = con.execute(f"SELECT {_COLUMNS} FROM review_cards WHERE lesson_id = ? AND question_id = ?",
                      (lesson_id, question_id)).fetchone()
    return _card_from_row(row).state if row else None


def save_card(con: sqlite3.Connection, lesson_id: str, question_id: str, state: CardState) -> None:
    con.execute(f"INSERT OR REPLACE INTO review_cards ({_COLUMNS}) VALUES (?, ?, ?, ?)",
                (lesson_id, question_id, iso(state.due), state.card_json))


def record_review(con: sqlite3.Connection, lesson_id: str, question_id: str, outcome: Outcome | str,
                  now: datetime) -> CardState | None:
    """Apply one finished question to the stored card (inside the caller's transaction)."""
    new = schedule_after_outcome(load_card(con, lesson_id, question_id), outcome, now, learner_parameters(con))
    if new is not None:
        save_card(con, lesson_id, question_id, new)
    return new


def replay(con: sqlite3.Connection, lesson_id: str, question_id: str) -> None:
    """Rebuild one card from the full outcome history, as if every outcome had happened here."""
    con.execute("DELETE FROM review_cards WHERE lesson_id = ? AND question_id = ?", (lesson_id, question_id))
    history = con.execute("SELECT outcome, ts FROM outcomes WHERE lesson_id = ? AND question_id = ?"
                          " ORDER BY ts, id", (lesson_id, question_id)).fetchall()
    for outcome, ts in history:
        record_review(con, lesson_id, question_id, outcome, parse_iso(ts))


@dataclass(frozen=True)
class DueReviews:
    """The one answer to "what is due": the roadmap, ``r`` and ``tutor progress`` all read this.

    Cards whose lesson or question is no longer in the course (renamed, removed) are counted in
    ``orphans`` and never offered, so no view promises a review that cannot be shown.
    """

    due: list[Card]
    orphans: int
    next_due: datetime | None


def due_reviews(con: sqlite3.Connection, now: datetime,
                exists: Callable[[str, str], bool] = lambda lesson_id, question_id: True) -> DueReviews:
    """Most overdue first, so a short session clears the oldest debts."""
    rows = con.execute(f"SELECT {_COLUMNS} FROM review_cards ORDER BY due, lesson_id, question_id").fetchall()
    cards = [_card_from_row(r) for r in rows]
    live = [c for c in cards if exists(c.lesson_id, c.question_id)]
    due = [c for c in live if c.state.due <= now]
    upcoming = [c.state.due for c in live if c.state.due > now]
    return DueReviews(due, len(cards) - len(live), min(upcoming) if upcoming else None)
