"""Moving a learner's history in and out of the progress store.

These are the operations that touch files other than the database (exports,
backups), so their failure modes are about the user's paths and disk, not
about SQLite; keeping them here leaves :mod:`tutor.progress.store` about keeping
answers safe. They take the store and use its write transaction, so the
locking rules stay defined in one place.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import time
from collections import Counter
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from tutor.common.i18n import message_of
from tutor.common.safe_files import UnsafeFileError, private_folder, write_atomically
from tutor.grading.attempts import Outcome
from tutor.progress import answer_seen, record_sql, review
from tutor.progress.import_check import MAX_IMPORT_BYTES, ExportContent, ExportFileError, read_export_file, refusal
from tutor.progress.import_histories import refuse_unrecorded
from tutor.progress.records import Answer, Mode, QuestionRecord, merge_records
from tutor.progress.review import iso
from tutor.progress.store import EXPORT_FORMAT, EXPORT_VERSION, ProgressError, ProgressStore, free_name, stamp


BATCH_ROWS = 500      # rows per import transaction: the app's next answer waits for one batch, never the whole file
BATCH_PAUSE = 0.005   # seconds between batches, in which a waiting writer (the app) takes the lock


def export_document(store: ProgressStore, now: datetime | None = None,
                    course: Mapping[str, Sequence[str]] | None = None) -> dict:
    """Every attempt, outcome and question record, and the counts the roadmap shows (``course``:
    {lesson: question ids} of the course today; without it, every recorded question counts)."""
    stored = store.answers()
    attempts = _attempt_numbers(stored)
    answers = [
        {"timestamp": iso(a.timestamp), "lesson_id": a.lesson_id, "question_id": a.question_id,
         "answer": a.answer, "correct": a.correct, "hints_used": a.hints_used, "variant": a.variant,
         "attempt": attempts.get(i, a.attempt), "mode": a.mode.value}
        for i, a in enumerate(stored)
    ]
    outcomes = [
        {"timestamp": iso(o.timestamp), "lesson_id": o.lesson_id, "question_id": o.question_id,
         "outcome": o.outcome.value, "attempts": o.attempts, "hints_used": o.hints_used, "variant": o.variant,
         "role": o.role.value, "duration_ms": o.duration_ms}
        for o in store.outcomes()
    ]
    records = [
        {"lesson_id": r.lesson_id, "question_id": r.question_id, "tries": r.tries, "hints_used": r.hints,
         "hints_before_first": r.hints_before_first, "variant": r.variant,
         "outcome": r.outcome.value if r.outcome else None, "updated": iso(r.updated)}
        for r in _with_practice_records(store.question_records(), stored)
    ]
    lessons = {lesson_id: {"seen": len(s.seen), "tried": len(s.tried), "finished": len(s.finished), "first_try": len(s.first_try),
                           "after_retry": len(s.after_retry), "missed": len(s.missed)}
               for lesson_id, s in sorted(store.all_lesson_stats(course).items())}
    seen = [{"lesson_id": l, "question_id": q, "seen_in": s, "where": w, "timestamp": t}
            for l, q, s, w, t in store.answers_seen()]
    pos = store.last_position()
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
            "exported_at": iso(now or datetime.now(timezone.utc)), "learner_id": store.known_learner_id(),
            "last_position": list(pos) if pos else None, "answers": answers, "outcomes": outcomes,
            "records": records, "answers_seen": seen, "lessons": lessons}


def _with_practice_records(records: list, answers: Sequence[Answer]) -> list:
    """The store's records, and an open one (no tries) for each question that has only practice answers
    and no record: a home written before every try came with its record (a Review try after a reset in
    another window) still exports a file its own import accepts, since an import refuses answers with no record."""
    recorded = {(r.lesson_id, r.question_id) for r in records}
    missing: dict[tuple[str, str], Answer] = {}
    for a in answers:
        key = (a.lesson_id, a.question_id)
        if key not in recorded and a.mode is Mode.PRACTICE:
            missing.setdefault(key, a)
    for a in answers:   # a scored or review answer with no record is not the app's: the import refuses it
        missing.pop((a.lesson_id, a.question_id), None) if a.mode is not Mode.PRACTICE else None
    return records + [QuestionRecord(a.lesson_id, a.question_id, variant=a.variant, updated=a.timestamp)
                      for a in missing.values()]


def _attempt_numbers(answers: Sequence[Answer]) -> dict[int, int]:
    """Each scored try's number among its question's, 1, 2, … in attempt then time order: a home
    migrated to question records before they were numbered again holds two attempt 1s where a new
    sizes draw restarted the count, and an import refuses two scored tries with one number."""
    numbered: dict[int, int] = {}
    seen: Counter = Counter()
    scored = sorted((i for i, a in enumerate(answers) if a.mode is Mode.SCORED),
                    key=lambda i: (answers[i].lesson_id, answers[i].question_id, answers[i].attempt,
                                   answers[i].timestamp))
    for i in scored:
        key = (answers[i].lesson_id, answers[i].question_id)
        seen[key] += 1
        numbered[i] = seen[key]
    return numbered


def export_json(store: ProgressStore, path: str | Path, now: datetime | None = None,
                course: Mapping[str, Sequence[str]] | None = None, learner: str | None = None,
                compress: bool = False, mode: int | None = None) -> int:
    """Write :func:`export_document` to ``path`` (atomically: a reader never sees half a file);
    returns how many attempts were written.  ``learner`` names the student inside the file.

    Gzip-compressed when asked, or when the JSON is more than an import reads uncompressed
    (a store of 290,000 answers is 92 MB of JSON, 6 MB compressed): whatever one machine writes,
    the import reads back, since it knows a gzip file by its first bytes.
    """
    doc = export_document(store, now, course)
    if learner is not None:
        doc["learner"] = learner
    data = json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8")
    if compress or len(data) > MAX_IMPORT_BYTES:
        data = gzip.compress(data, compresslevel=6, mtime=0)
    try:   # never through or over a symlink, FIFO or device; a rename beside the target
        write_atomically(path, data, mode=mode)
    except UnsafeFileError as exc:
        raise ProgressError(message_of(exc)) from None
    return len(doc["answers"])


class Imported(NamedTuple):
    """What an import really did (an outcome or a record can be new where no answer is; a record
    that was there can change: a merged history, or a score lowered by an earlier wrong try)."""

    answers: int
    outcomes: int
    records: int
    changed: int = 0
    seen: int = 0              # notes of answers seen before a first try, now kept here
    learner_id: bool = False   # whether this home took the file's learner id (its order of choices)


def import_json(store: ProgressStore, path: str | Path) -> Imported:
    """Merge an export (version 1, 2 or 3) into the store; returns what was new and what changed.

    An attempt's identity is (timestamp, lesson, question, answer text) and an outcome's
    (timestamp, lesson, question), so importing the same file twice, or a file that overlaps this
    database, adds nothing twice. The whole file is validated before anything is written, so a bad
    file changes nothing; then rows go in batches of ``BATCH_ROWS``, each its own short
    transaction, so the app answering meanwhile waits for one batch, not the whole file (an
    interrupted import is completed by importing the file again). Two histories of one question
    merge as :func:`tutor.progress.records.merge_records` says (never better than either: the
    store's resolution stays unless the file's is worse, and the earliest scored try of both
    decides first-try), their scored tries are numbered again in time order, and each touched
    question's card is replayed from its outcomes.
    """
    content = read_export(Path(path))
    try:   # before anything is written, as every other refusal
        refuse_unrecorded(content.unrecorded, lambda *key: store.question_record(*key) is not None,
                          lambda reason: refusal(str(path), reason))
    except ExportFileError as exc:
        raise ProgressError(message_of(exc)) from None
    took_id = _take_learner_id(store, content.learner_id)
    added_answers = _insert(store, content.answers, "answers (ts, lesson_id, question_id, answer, correct,"
                            " hints_used, variant, attempt, mode)")
    added_outcomes = _insert(store, content.outcomes, "outcomes (ts, lesson_id, question_id, outcome, attempts,"
                             " hints_used, variant, role, duration_ms)")
    added_records = changed_records = added_seen = 0
    seen = {(row[0], row[1]): row for row in content.seen}
    replayed = Counter((row[1], row[2]) for row in content.outcomes)   # a card replays its question's outcomes
    for batch in _batches(content.records, lambda r: 1 + replayed[(r.lesson_id, r.question_id)]):
        with store.transaction() as con:
            for theirs in batch:
                mine = record_sql.load(con, theirs.lesson_id, theirs.question_id)
                merged = merge_records(mine, theirs, _scored_in_order(con, theirs.lesson_id, theirs.question_id))
                if merged != mine:
                    added_records += mine is None
                    changed_records += mine is not None
                    record_sql.save(con, merged if mine is None else dataclasses.replace(
                        merged, review_key=mine.review_key, review_tries=mine.review_tries,
                        review_hints=mine.review_hints, review_hints_before_first=mine.review_hints_before_first))
                _one_score(con, merged)
                review.replay(con, theirs.lesson_id, theirs.question_id)
                note = seen.get((theirs.lesson_id, theirs.question_id))
                if note and merged is theirs and merged.outcome is Outcome.MISSED \
                        and not merged.tries:   # the file's look-ahead resolution is the one kept
                    added_seen += answer_seen.add(con, note)
    position = content.position
    if position:
        with store.transaction() as con:
            if not con.execute("SELECT 1 FROM meta WHERE key = 'last_position'").fetchone():
                con.execute("INSERT INTO meta (key, value) VALUES ('last_position', ?)", (json.dumps(position),))
    return Imported(added_answers, added_outcomes, added_records, changed_records, added_seen, took_id)


def _take_learner_id(store: ProgressStore, theirs: str | None) -> bool:
    """A home with no history yet (fresh, or just reset) takes the file's learner id, so the choices
    come back in the order this learner saw them; a home with answers of its own keeps its id, so
    the order its learner sees does not change under them (their imported questions then show in
    this home's order).  Returns whether the file's id was taken."""
    if theirs is None:
        return False
    with store.transaction() as con:
        mine = con.execute("SELECT value FROM meta WHERE key = 'learner_id'").fetchone()
        if mine and mine[0] == theirs:
            return False
        if mine and con.execute("SELECT 1 FROM answers UNION ALL SELECT 1 FROM question_records LIMIT 1").fetchone():
            return False
        con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('learner_id', ?)", (theirs,))
        return True


def _scored_in_order(con, lesson_id: str, question_id: str) -> list[bool]:
    """Whether each scored try of the question was right, in time order, numbered again 1, 2, … in that
    order: two histories each had an attempt 1, and the merged question has one of each."""
    rows = con.execute("SELECT id, correct FROM answers WHERE lesson_id = ? AND question_id = ? AND mode = 'scored'"
                       " ORDER BY ts, id", (lesson_id, question_id)).fetchall()
    for number, (row_id, _correct) in enumerate(rows, 1):
        con.execute("UPDATE answers SET attempt = ? WHERE id = ? AND attempt != ?", (number, row_id, number))
    return [bool(correct) for _row_id, correct in rows]


def _insert(store: ProgressStore, rows: list[tuple], into: str) -> int:
    """Rows not already there, ``BATCH_ROWS`` per transaction; returns how many were new."""
    added = 0
    for batch in _batches(rows):
        with store.transaction() as con:
            for row in batch:
                added += con.execute(f"INSERT OR IGNORE INTO {into} VALUES ({', '.join('?' * len(row))})",
                                     row).rowcount
    return added


def _batches(rows: list, weight=lambda row: 1) -> Iterator[list]:
    """Runs of rows weighing at most ``BATCH_ROWS`` together (a heavier row goes alone)."""
    batch, load = [], 0
    for row in rows:
        if batch and load + weight(row) > BATCH_ROWS:
            yield batch
            time.sleep(BATCH_PAUSE)
            batch, load = [], 0
        batch.append(row)
        load += weight(row)
    if batch:
        yield batch


def _one_score(con, record) -> None:
    """After a merge a question has one score outcome, the record's; any other becomes legacy."""
    rows = con.execute("SELECT id, outcome, ts FROM outcomes WHERE lesson_id = ? AND question_id = ? AND role = 'score'"
                       " ORDER BY ts, id", (record.lesson_id, record.question_id)).fetchall()
    for row_id, _outcome, _ts in rows[1:]:
        con.execute("UPDATE outcomes SET role = 'legacy' WHERE id = ?", (row_id,))
    if rows and record.outcome is not None:
        con.execute("UPDATE outcomes SET outcome = ? WHERE id = ?", (record.outcome.value, rows[0][0]))


def reset(store: ProgressStore, backup_dir: str | Path | None = None, now: datetime | None = None) -> Path:
    """Copy the database to a timestamped backup, then clear it.

    The write lock is held from before the copy until the data is cleared,
    so an answer another process commits meanwhile is either in the backup
    or not deleted. The copy reads through a second connection, because
    SQLite's backup cannot read from a connection inside a transaction.
    """
    chosen = backup_dir
    backup_dir = Path(backup_dir) if backup_dir else store.home / "backups"
    try:
        if chosen:
            backup_dir.mkdir(parents=True, exist_ok=True)
        else:
            private_folder(backup_dir)   # in the home: as private as the answers it keeps
    except OSError as exc:
        raise ProgressError(f"cannot create backup directory {backup_dir}: {exc.strerror or exc}") from exc
    target = free_name(backup_dir / f"progress-{stamp(now)}.db")
    with store.transaction() as con:
        src, dst = sqlite3.connect(store.path), sqlite3.connect(target)
        try:
            src.backup(dst)
            os.chmod(target, 0o600)   # a copy of the answers is as private as they are
        finally:
            src.close()
            dst.close()
        for table in ("answers", "outcomes", "review_cards", "question_records", "answers_seen", "sample_sightings",
                      "meta"):
            con.execute(f"DELETE FROM {table}")
    return target


def read_export(path: Path) -> ExportContent:
    """Read and validate a whole export file (version 1, 2 or 3), or raise ProgressError.

    All parsing of import files is in tutor.progress.import_check, which treats the file as
    untrusted input (regular files only, bounded, every field checked).
    """
    try:
        return read_export_file(path, EXPORT_FORMAT, EXPORT_VERSION)
    except ExportFileError as exc:
        raise ProgressError(message_of(exc)) from None
