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
from tutor.progress.import_check import ExportFileError, read_export
from tutor.progress.review import iso, parse_iso
from tutor.progress.store import EXPORT_FORMAT, EXPORT_VERSION, ProgressError, ProgressStore, free_name, stamp


def export_json(store: ProgressStore, path: str | Path) -> int:
    """Write every answer to ``path`` (atomically: a reader never sees half
    a file); returns how many were written."""
    answers = [
        {"timestamp": iso(a.timestamp), "lesson_id": a.lesson_id, "question_id": a.question_id,
         "answer": a.answer, "correct": a.correct, "hints_used": a.hints_used, "variant": a.variant}
        for a in store.answers()
    ]
    pos = store.last_position()
    doc = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": iso(datetime.now(timezone.utc)),
           "last_position": list(pos) if pos else None, "answers": answers}
    try:   # never through or over a symlink, FIFO or device; a rename beside the target
        write_atomically(path, json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8"))
    except UnsafeFileError as exc:
        raise ProgressError(str(exc)) from None
    return len(answers)


def import_json(store: ProgressStore, path: str | Path) -> int:
    """Merge answers from an export; returns how many were new.

    An answer's identity is (timestamp, lesson, question, answer text), so
    importing the same file twice, or a file that overlaps this database,
    adds nothing twice. The whole file is validated before anything is
    written, and written in one transaction: a bad file changes nothing.
    Review cards of the touched questions are rebuilt by replaying their
    full history in time order, as if every answer had been given here.
    """
    rows, position = _read_export(Path(path))
    with store.transaction() as con:
        touched, added = set(), 0
        for row in rows:
            cur = con.execute(
                "INSERT OR IGNORE INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            if cur.rowcount:
                touched.add((row[1], row[2]))
                added += 1
        for lesson_id, question_id in touched:
            con.execute("DELETE FROM cards WHERE lesson_id = ? AND question_id = ?", (lesson_id, question_id))
            history = con.execute("SELECT correct, hints_used, ts FROM answers WHERE lesson_id = ?"
                                  " AND question_id = ? ORDER BY ts, id", (lesson_id, question_id)).fetchall()
            for correct, hints, ts in history:
                review.record_review(con, lesson_id, question_id, bool(correct), hints, parse_iso(ts))
        if position and not con.execute("SELECT 1 FROM meta WHERE key = 'last_position'").fetchone():
            con.execute("INSERT INTO meta (key, value) VALUES ('last_position', ?)", (json.dumps(position),))
    return added


def reset(store: ProgressStore, backup_dir: str | Path | None = None) -> Path:
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
    target = free_name(backup_dir / f"progress-{stamp()}.db")
    with store.transaction() as con:
        src, dst = sqlite3.connect(store.path), sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        for table in ("answers", "cards", "meta"):
            con.execute(f"DELETE FROM {table}")
    return target


def _read_export(path: Path) -> tuple[list[tuple], list | None]:
    """Validate a whole export file into insertable rows, or raise ProgressError."""
    try:
        return read_export(path, EXPORT_FORMAT, EXPORT_VERSION)
    except ExportFileError as exc:
        raise ProgressError(str(exc)) from None
