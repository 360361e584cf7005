"""Moving a learner's history in and out of the progress store.

These are the operations that touch files other than the database (exports,
backups), so their failure modes are about the user's paths and disk, not
about SQLite; keeping them here leaves :mod:`tutor.progress.store` about keeping
answers safe. They take the store and use its write transaction, so the
locking rules stay defined in one place.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tutor.progress import review
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
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ProgressError(f"cannot write {path}: {exc.strerror or exc}") from exc
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
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProgressError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProgressError(f"{path} is not a tutor progress export (invalid JSON: {exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT or not isinstance(doc.get("answers"), list):
        raise ProgressError(f"{path} is not a tutor progress export")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= EXPORT_VERSION:
        raise ProgressError(f"{path} has export version {version!r}; this tutor reads up to {EXPORT_VERSION}")
    rows = []
    for i, rec in enumerate(doc["answers"], 1):
        try:
            if not isinstance(rec, dict):
                raise TypeError("not an object")
            for key, kind in (("timestamp", str), ("lesson_id", str), ("question_id", str), ("answer", str),
                              ("correct", bool), ("hints_used", int)):
                if not isinstance(rec.get(key), kind) or (kind is int and isinstance(rec[key], bool)):
                    raise TypeError(f"{key!r} missing or not {kind.__name__}")
            if rec.get("variant") is not None and not isinstance(rec["variant"], str):
                raise TypeError("'variant' must be a string or null")
            if rec["hints_used"] < 0:
                raise ValueError("'hints_used' is negative")
            rows.append((iso(parse_iso(rec["timestamp"])), rec["lesson_id"], rec["question_id"], rec["answer"],
                         int(rec["correct"]), rec["hints_used"], rec.get("variant")))
        except (TypeError, ValueError) as exc:
            raise ProgressError(f"{path}: answer #{i} is invalid: {exc}") from exc
    pos = doc.get("last_position")
    valid_pos = isinstance(pos, list) and len(pos) == 2 and isinstance(pos[0], str) and type(pos[1]) is int
    return rows, pos if valid_pos else None
