"""Moving a learner's history in and out of the progress store.

These are the operations that touch files other than the database (exports,
backups), so their failure modes are about the user's paths and disk, not
about SQLite; keeping them here leaves :mod:`tutor.progress.store` about keeping
answers safe. They take the store and use its write transaction, so the
locking rules stay defined in one place.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tutor.common.safe_files import UnsafeFileError, write_atomically
from tutor.progress import review
from tutor.progress.import_check import ExportContent, ExportFileError, read_export_file
from tutor.progress.review import iso
from tutor.progress.store import EXPORT_FORMAT, EXPORT_VERSION, ProgressError, ProgressStore, free_name, stamp


def export_json(store: ProgressStore, path: str | Path, now: datetime | None = None) -> int:
    """Write every attempt and every question's outcome to ``path`` (atomically: a reader never
    sees half a file); returns how many attempts were written."""
    answers = [
        {"timestamp": iso(a.timestamp), "lesson_id": a.lesson_id, "question_id": a.question_id,
         "answer": a.answer, "correct": a.correct, "hints_used": a.hints_used, "variant": a.variant,
         "attempt": a.attempt}
        for a in store.answers()
    ]
    outcomes = [
        {"timestamp": iso(o.timestamp), "lesson_id": o.lesson_id, "question_id": o.question_id,
         "outcome": o.outcome.value, "attempts": o.attempts, "hints_used": o.hints_used, "variant": o.variant}
        for o in store.outcomes()
    ]
    pos = store.last_position()
    doc = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
           "exported_at": iso(now or datetime.now(timezone.utc)),
           "last_position": list(pos) if pos else None, "answers": answers, "outcomes": outcomes}
    try:   # never through or over a symlink, FIFO or device; a rename beside the target
        write_atomically(path, json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8"))
    except UnsafeFileError as exc:
        raise ProgressError(str(exc)) from None
    return len(answers)


def import_json(store: ProgressStore, path: str | Path) -> int:
    """Merge attempts and outcomes from an export (version 1 or 2); returns how many attempts were new.

    An attempt's identity is (timestamp, lesson, question, answer text) and an
    outcome's (timestamp, lesson, question), so importing the same file twice,
    or a file that overlaps this database, adds nothing twice. The whole file
    is validated before anything is written, and written in one transaction:
    a bad file changes nothing. Review cards of the touched questions are
    rebuilt by replaying their full outcome history in time order.
    """
    content = read_export(Path(path))
    with store.transaction() as con:
        touched, added = set(), 0
        for row in content.answers:
            if con.execute("INSERT OR IGNORE INTO answers (ts, lesson_id, question_id, answer, correct, hints_used,"
                           " variant, attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row).rowcount:
                added += 1
        for row in content.outcomes:
            if con.execute("INSERT OR IGNORE INTO outcomes (ts, lesson_id, question_id, outcome, attempts,"
                           " hints_used, variant) VALUES (?, ?, ?, ?, ?, ?, ?)", row).rowcount:
                touched.add((row[1], row[2]))
        for lesson_id, question_id in touched:
            review.replay(con, lesson_id, question_id)
        position = content.position
        if position and not con.execute("SELECT 1 FROM meta WHERE key = 'last_position'").fetchone():
            con.execute("INSERT INTO meta (key, value) VALUES ('last_position', ?)", (json.dumps(position),))
    return added


def reset(store: ProgressStore, backup_dir: str | Path | None = None, now: datetime | None = None) -> Path:
    """Copy the database to a timestamped backup, then clear it.

    The write lock is held from before the copy until the data is cleared,
    so an answer another process commits meanwhile is either in the backup
    or not deleted. The copy reads through a second connection, because
    SQLite's backup cannot read from a connection inside a transaction.
    """
    backup_dir = Path(backup_dir) if backup_dir else store.home / "backups"
    try:
        backup_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProgressError(f"cannot create backup directory {backup_dir}: {exc.strerror or exc}") from exc
    target = free_name(backup_dir / f"progress-{stamp(now)}.db")
    with store.transaction() as con:
        src, dst = sqlite3.connect(store.path), sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        for table in ("answers", "outcomes", "review_cards", "meta"):
            con.execute(f"DELETE FROM {table}")
    return target


def read_export(path: Path) -> ExportContent:
    """Read and validate a whole export file (version 1 or 2), or raise ProgressError.

    All parsing of import files is in tutor.progress.import_check, which treats the file as
    untrusted input (regular files only, bounded, every field checked).
    """
    try:
        return read_export_file(path, EXPORT_FORMAT, EXPORT_VERSION)
    except ExportFileError as exc:
        raise ProgressError(str(exc)) from None
