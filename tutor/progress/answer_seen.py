"""The ``answers_seen`` table: which question's screen showed an untried question its answer.

Why a table and not a flag on the record: the record already says *not got*; this says why, so
that the lesson screen can tell the learner who comes back to the question that they saw its
answer (in question 4's reveal, say) before trying it, rather than leaving them to wonder why a
question they never answered counts.  Written in the same transaction as the resolution.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime

from tutor.progress.review import iso

ANSWER_SEEN_DDL = """
CREATE TABLE IF NOT EXISTS answers_seen (
    lesson_id   TEXT NOT NULL,
    question_id TEXT NOT NULL,
    seen_in     TEXT NOT NULL,
    seen_where  TEXT NOT NULL,
    ts          TEXT NOT NULL,
    PRIMARY KEY (lesson_id, question_id)
);
"""


def save(con: sqlite3.Connection, lesson_id: str, question_id: str, seen_in: str, where: str,
         now: datetime) -> None:
    con.execute("INSERT OR REPLACE INTO answers_seen (lesson_id, question_id, seen_in, seen_where, ts)"
                " VALUES (?, ?, ?, ?, ?)", (lesson_id, question_id, seen_in, where, iso(now)))


def load(con: sqlite3.Connection, lesson_id: str, question_id: str) -> tuple[str, str] | None:
    """(the question whose screen showed it, where on that screen), or None."""
    row = con.execute("SELECT seen_in, seen_where FROM answers_seen WHERE lesson_id = ? AND question_id = ?",
                      (lesson_id, question_id)).fetchone()
    return (row[0], row[1]) if row else None


def load_all(con: sqlite3.Connection) -> list[tuple[str, str, str, str, str]]:
    """Every row as (lesson, question, seen_in, where, time), for an export."""
    return con.execute("SELECT lesson_id, question_id, seen_in, seen_where, ts FROM answers_seen"
                       " ORDER BY ts, lesson_id, question_id").fetchall()


def add(con: sqlite3.Connection, row: tuple[str, str, str, str, str]) -> bool:
    """An imported row (lesson, question, seen_in, where, time), unless this home says why already."""
    return bool(con.execute("INSERT OR IGNORE INTO answers_seen (lesson_id, question_id, seen_in, seen_where, ts)"
                            " VALUES (?, ?, ?, ?, ?)", row).rowcount)
