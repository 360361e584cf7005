"""The ``question_records`` table: one row per learner x lesson x question (see :mod:`.records`).

Functions take a ``sqlite3.Connection``; transactions are the caller's, so a graded try, its
record and its review card change together or not at all.
"""
from __future__ import annotations

import sqlite3

from tutor.grading.attempts import Outcome
from tutor.progress.records import QuestionRecord
from tutor.progress.review import iso, parse_iso

RECORDS_DDL = """
CREATE TABLE IF NOT EXISTS question_records (
    lesson_id          TEXT NOT NULL,
    question_id        TEXT NOT NULL,
    tries              INTEGER NOT NULL,
    hints              INTEGER NOT NULL,
    hints_before_first INTEGER NOT NULL,
    variant            TEXT,
    outcome            TEXT CHECK (outcome IN ('first_try', 'after_retry', 'missed')),
    updated            TEXT NOT NULL,
    review_key         TEXT,
    review_tries       INTEGER NOT NULL DEFAULT 0,
    review_hints       INTEGER NOT NULL DEFAULT 0,
    review_hints_first INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (lesson_id, question_id)
);
"""
COLUMNS = ("lesson_id, question_id, tries, hints, hints_before_first, variant, outcome, updated, review_key,"
           " review_tries, review_hints, review_hints_first")


def from_row(row: tuple) -> QuestionRecord:
    lesson_id, question_id, tries, hints, first, variant, outcome, updated, key, r_tries, r_hints, r_first = row
    return QuestionRecord(lesson_id, question_id, tries, hints, first, variant,
                          Outcome(outcome) if outcome else None, parse_iso(updated), key, r_tries, r_hints, r_first)


def to_row(record: QuestionRecord) -> tuple:
    r = record
    return (r.lesson_id, r.question_id, r.tries, r.hints, r.hints_before_first, r.variant,
            r.outcome.value if r.outcome else None, iso(r.updated), r.review_key, r.review_tries, r.review_hints,
            r.review_hints_before_first)


def load(con: sqlite3.Connection, lesson_id: str, question_id: str) -> QuestionRecord | None:
    row = con.execute(f"SELECT {COLUMNS} FROM question_records WHERE lesson_id = ? AND question_id = ?",
                      (lesson_id, question_id)).fetchone()
    return from_row(row) if row else None


def load_all(con: sqlite3.Connection, lesson_id: str | None = None) -> list[QuestionRecord]:
    where = " WHERE lesson_id = ?" if lesson_id else ""
    rows = con.execute(f"SELECT {COLUMNS} FROM question_records{where} ORDER BY lesson_id, question_id",
                       (lesson_id,) if lesson_id else ()).fetchall()
    return [from_row(row) for row in rows]


def save(con: sqlite3.Connection, record: QuestionRecord) -> None:
    con.execute(f"INSERT OR REPLACE INTO question_records ({COLUMNS}) VALUES ({', '.join('?' * 12)})",
                to_row(record))
