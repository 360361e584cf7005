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
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tutor.grading.attempts import Outcome
from tutor.progress import review
from tutor.progress.migrate import v1_outcome
from tutor.progress.review import iso, parse_iso
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


@dataclass(frozen=True)
class ExportContent:
    """A whole export file, validated into rows ready to insert."""

    answers: list[tuple]    # (ts, lesson, question, answer, correct, hints, variant, attempt)
    outcomes: list[tuple]   # (ts, lesson, question, outcome, attempts, hints, variant)
    position: list | None


def _check_fields(rec, fields) -> None:
    if not isinstance(rec, dict):
        raise TypeError("not an object")
    for key, kind in fields:
        if not isinstance(rec.get(key), kind) or (kind is int and isinstance(rec[key], bool)):
            raise TypeError(f"{key!r} missing or not {kind.__name__}")
    if rec.get("variant") is not None and not isinstance(rec["variant"], str):
        raise TypeError("'variant' must be a string or null")
    if rec["hints_used"] < 0:
        raise ValueError("'hints_used' is negative")


def read_export(path: Path) -> ExportContent:
    """Read and validate a whole export file (all parsing of import files is here), or raise ProgressError.

    A version-1 file has answers only: each was one try followed by the reveal, so each becomes
    attempt 1 with its own outcome, exactly as a version-1 database is migrated.
    """
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
    if version >= 2 and not isinstance(doc.get("outcomes"), list):
        raise ProgressError(f"{path} is a version-{version} export without its 'outcomes' list")
    answers, outcomes = [], []
    for i, rec in enumerate(doc["answers"], 1):
        try:
            _check_fields(rec, (("timestamp", str), ("lesson_id", str), ("question_id", str), ("answer", str),
                                ("correct", bool), ("hints_used", int)))
            attempt = rec.get("attempt", 1) if version >= 2 else 1
            if type(attempt) is not int or attempt < 1:
                raise ValueError("'attempt' must be a whole number from 1")
            ts = iso(parse_iso(rec["timestamp"]))
            answers.append((ts, rec["lesson_id"], rec["question_id"], rec["answer"], int(rec["correct"]),
                            rec["hints_used"], rec.get("variant"), attempt))
            if version == 1:
                outcome = v1_outcome(rec["correct"], rec["hints_used"])
                outcomes.append((ts, rec["lesson_id"], rec["question_id"], outcome.value, 1, rec["hints_used"],
                                 rec.get("variant")))
        except (TypeError, ValueError) as exc:
            raise ProgressError(f"{path}: answer #{i} is invalid: {exc}") from exc
    for i, rec in enumerate(doc.get("outcomes", []) if version >= 2 else [], 1):
        try:
            _check_fields(rec, (("timestamp", str), ("lesson_id", str), ("question_id", str), ("outcome", str),
                                ("attempts", int), ("hints_used", int)))
            outcome = Outcome(rec["outcome"])
            outcomes.append((iso(parse_iso(rec["timestamp"])), rec["lesson_id"], rec["question_id"], outcome.value,
                             rec["attempts"], rec["hints_used"], rec.get("variant")))
        except (TypeError, ValueError) as exc:
            raise ProgressError(f"{path}: outcome #{i} is invalid: {exc}") from exc
    pos = doc.get("last_position")
    valid_pos = isinstance(pos, list) and len(pos) == 2 and isinstance(pos[0], str) and type(pos[1]) is int
    return ExportContent(answers, outcomes, pos if valid_pos else None)
