"""Bringing old progress up to date: schema-1 and schema-2 databases, version-1 and version-2 exports.

Before issue 10 every answer was a whole encounter with its question: one try, then the reveal.
So each old answer becomes attempt 1 of its own encounter, whose outcome follows from it (right
without a hint = right first time, right with a hint = right after retry, wrong = not got), and the
review cards are rebuilt by replaying those outcomes through FSRS. Nothing recorded is dropped:
the answers keep every field, and the old SM-2 cards were derived from them.

Schema 2 recorded encounters; schema 3 records questions (:mod:`tutor.progress.records`). Every
attempt and outcome is kept; :func:`derive_question` reads a question's history to say which of
them was its score: the FIRST outcome resolves the question, the attempts up to it are its scored
tries, and later ones were practice (or review: schema 2 could not tell; their outcomes keep
moving the schedule as before, as ``legacy``). The first outcome is taken at its word except
where the attempts show it could not be: a "right first time" after a wrong try (Ctrl+R, a
restart) is right after retry. A question with attempts but no outcome is open with those tries.
Migration and import of a version-2 export use this one function, so both give the same records.
"""
from __future__ import annotations

import sqlite3

from tutor.grading.attempts import Outcome
from tutor.progress import record_sql, review
from tutor.progress.records import Mode, QuestionRecord, Role
from tutor.progress.review import parse_iso

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
    role        TEXT NOT NULL DEFAULT 'score',
    duration_ms INTEGER,
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


def derive_question(answers: list[tuple], outcomes: list[tuple]) -> tuple[QuestionRecord, list[Mode], list[tuple[Role, str]]]:
    """One question's history in time order, as rows (ts, lesson, question, answer, correct, hints,
    variant, attempt) and (ts, lesson, question, outcome, attempts, hints, variant): its record, each
    answer's mode and each outcome's (role, outcome)."""
    lesson_id, question_id = (answers or outcomes)[0][1:3]
    first = outcomes[0] if outcomes else None
    if first is None:   # open, or resolved by a right try whose outcome a killed app never wrote
        right = next((i for i, a in enumerate(answers) if a[4]), None)
        count = len(answers) if right is None else right + 1
    else:
        count = sum(1 for a in answers if a[0] <= first[0])   # time order: the scored tries come first
    scored = answers[:count]
    modes = [Mode.SCORED] * count + [Mode.PRACTICE] * (len(answers) - count)
    hints = max([a[5] for a in scored] + ([first[5]] if first else []), default=0)
    before_first = scored[0][5] if scored else (first[5] if first else 0)
    honest_first = not scored or (scored[0][4] and scored[0][5] == 0)
    if first is not None:
        outcome = Outcome(first[3])
        if outcome is Outcome.FIRST_TRY and not honest_first:
            outcome = Outcome.AFTER_RETRY
        tries, updated, variant = max(len(scored), first[4]), first[0], first[6]
    elif any(a[4] for a in scored):
        outcome = Outcome.FIRST_TRY if honest_first else Outcome.AFTER_RETRY
        tries, updated, variant = len(scored), scored[-1][0], scored[-1][6]
    else:
        outcome, tries, updated, variant = None, len(scored), scored[-1][0], scored[-1][6]
    record = QuestionRecord(lesson_id, question_id, tries, hints, before_first, variant, outcome, parse_iso(updated))
    roles = [(Role.SCORE, outcome.value) if i == 0 else (Role.LEGACY, o[3]) for i, o in enumerate(outcomes)]
    return record, modes, roles


def by_question(rows: list[tuple]) -> dict[tuple[str, str], list[tuple]]:
    grouped: dict[tuple[str, str], list[tuple]] = {}
    for row in sorted(rows, key=lambda r: r[0]):
        grouped.setdefault((row[1], row[2]), []).append(row)
    return grouped


def migrate_v2_to_v3(con: sqlite3.Connection) -> None:
    """Inside the caller's transaction: modes, roles, one record per question, cards replayed."""
    con.execute("ALTER TABLE answers ADD COLUMN mode TEXT NOT NULL DEFAULT 'scored'")
    if "role" not in {row[1] for row in con.execute("PRAGMA table_info(outcomes)")}:   # (made by v1 -> v2 here)
        con.execute("ALTER TABLE outcomes ADD COLUMN role TEXT NOT NULL DEFAULT 'score'")
        con.execute("ALTER TABLE outcomes ADD COLUMN duration_ms INTEGER")
    run_script(con, record_sql.RECORDS_DDL)
    answers = by_question(con.execute("SELECT ts, lesson_id, question_id, answer, correct, hints_used, variant,"
                                      " attempt FROM answers ORDER BY ts, id").fetchall())
    outcomes = by_question(con.execute("SELECT ts, lesson_id, question_id, outcome, attempts, hints_used, variant"
                                       " FROM outcomes ORDER BY ts, id").fetchall())
    for key in answers.keys() | outcomes.keys():
        record, modes, roles = derive_question(answers.get(key, []), outcomes.get(key, []))
        for number, (row, mode) in enumerate(zip(answers.get(key, []), modes), 1):
            if mode is not Mode.SCORED or row[7] != number:   # the scored tries come first: numbered 1, 2, …
                con.execute("UPDATE answers SET mode = ?, attempt = ? WHERE ts = ? AND lesson_id = ? AND question_id = ?"
                            " AND answer = ?", (mode.value, number if mode is Mode.SCORED else row[7], *row[:4]))
        for row, (role, outcome) in zip(outcomes.get(key, []), roles):
            con.execute("UPDATE outcomes SET role = ?, outcome = ? WHERE ts = ? AND lesson_id = ? AND question_id = ?",
                        (role.value, outcome, row[0], row[1], row[2]))
        record_sql.save(con, record)
        review.replay(con, *key)
