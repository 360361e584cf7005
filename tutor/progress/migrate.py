"""Bringing old progress up to date: schema-1 databases and version-1 exports.

Before issue 10 every answer was a whole encounter with its question: one try, then the reveal.
So each old answer becomes attempt 1 of its own encounter, whose outcome follows from it (right
without a hint = right first time, right with a hint = right after retry, wrong = not got), and the
review cards are rebuilt by replaying those outcomes through FSRS. Nothing recorded is dropped:
the answers keep every field, and the old SM-2 cards were derived from them.
"""
from __future__ import annotations

import sqlite3

from tutor.grading.attempts import Outcome
from tutor.progress import review

OUTCOMES_DDL = """
CREATE TABLE IF NOT EXISTS outcomes (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    lesson_id   TEXT NOT NULL,
    question_id TEXT NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('first_try', 'after_retry', 'missed')),
    attempts    INTEGER NOT NULL,
    hints_used  INTEGER NOT NULL,
    variant     TEXT,
    UNIQUE (ts, lesson_id, question_id)
);
CREATE INDEX IF NOT EXISTS outcomes_lesson ON outcomes(lesson_id, question_id);
"""


def v1_outcome(correct: bool, hints_used: int) -> Outcome:
    """The outcome of a version-1 answer, which was always the one and only attempt."""
    if correct:
        return Outcome.FIRST_TRY if hints_used == 0 else Outcome.AFTER_RETRY
    return Outcome.MISSED


def run_script(con: sqlite3.Connection, script: str) -> None:
    for statement in filter(str.strip, script.split(";")):
        con.execute(statement)


def migrate_v1_to_v2(con: sqlite3.Connection) -> None:
    """Inside the caller's transaction: attempt numbers, outcomes, FSRS cards; the SM-2 table goes."""
    con.execute("ALTER TABLE answers ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1")
    run_script(con, OUTCOMES_DDL + review.CARDS_DDL)
    rows = con.execute("SELECT ts, lesson_id, question_id, correct, hints_used, variant FROM answers"
                       " ORDER BY ts, id").fetchall()
    for ts, lesson_id, question_id, correct, hints, variant in rows:
        con.execute("INSERT OR IGNORE INTO outcomes (ts, lesson_id, question_id, outcome, attempts, hints_used,"
                    " variant) VALUES (?, ?, ?, ?, 1, ?, ?)",
                    (ts, lesson_id, question_id, v1_outcome(bool(correct), hints).value, hints, variant))
    for lesson_id, question_id in {(r[1], r[2]) for r in rows}:
        review.replay(con, lesson_id, question_id)
    con.execute("DROP TABLE IF EXISTS cards")
