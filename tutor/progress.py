"""The learner's answer history, kept in one SQLite file.

Why SQLite and these settings: two ``tutor`` processes (say, the app and
``tutor progress``) may touch the file at once, and a killed process must lose
at most the answer it was writing. WAL mode lets readers and one writer work
side by side, ``busy_timeout`` makes a second writer wait instead of failing,
and every answer is its own short ``BEGIN IMMEDIATE`` transaction.

The schema version is kept in ``PRAGMA user_version``. A file written by a newer
tutor is refused untouched (we cannot know what dropping its data would break);
a file SQLite cannot read is moved aside, never deleted, and a fresh one begins.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path

import platformdirs

from tutor import review
from tutor.review import iso, parse_iso

SCHEMA_VERSION = 1
EXPORT_FORMAT = "tutor-progress"
EXPORT_VERSION = 1
DB_NAME = "progress.db"
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS answers (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    lesson_id   TEXT NOT NULL,
    question_id TEXT NOT NULL,
    answer      TEXT NOT NULL,
    correct     INTEGER NOT NULL,
    hints_used  INTEGER NOT NULL,
    variant     TEXT,
    UNIQUE (ts, lesson_id, question_id, answer)
);
CREATE INDEX IF NOT EXISTS answers_lesson ON answers(lesson_id, question_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
    + review.CARDS_DDL
)


class ProgressError(Exception):
    """A problem the user can act on; the message is meant to be shown as is."""


@dataclass(frozen=True)
class Answer:
    lesson_id: str
    question_id: str
    answer: str
    correct: bool
    hints_used: int
    timestamp: datetime
    variant: str | None = None


@dataclass
class LessonStats:
    answered_questions: set[str] = field(default_factory=set)
    correct_questions: set[str] = field(default_factory=set)
    attempts: int = 0
    correct_attempts: int = 0
    last_seen: datetime | None = None

    @property
    def accuracy(self) -> float | None:
        return self.correct_attempts / self.attempts if self.attempts else None


@dataclass
class TrackStats:
    total_questions: int = 0
    completed_questions: int = 0  # answered correctly at least once
    attempts: int = 0
    correct_attempts: int = 0

    @property
    def completion(self) -> float:
        return self.completed_questions / self.total_questions if self.total_questions else 0.0

    @property
    def accuracy(self) -> float | None:
        return self.correct_attempts / self.attempts if self.attempts else None


def resolve_home(explicit: str | Path | None = None) -> Path:
    """Explicit argument (``--home``) beats ``TUTOR_HOME`` beats the platform dir."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("TUTOR_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("tutor", appauthor=False))


def track_stats(
    tracks: Mapping[str, Sequence[tuple[str, Sequence[str]]]], stats: Mapping[str, LessonStats]
) -> dict[str, TrackStats]:
    """Completion counts only the questions the course lists today, so renamed or
    removed questions in old history do not inflate it; accuracy uses every
    attempt in the track's lessons."""
    out: dict[str, TrackStats] = {}
    for track, lessons in tracks.items():
        ts = out[track] = TrackStats()
        for lesson_id, question_ids in lessons:
            ls = stats.get(lesson_id, LessonStats())
            ts.total_questions += len(set(question_ids))
            ts.completed_questions += len(set(question_ids) & ls.correct_questions)
            ts.attempts += ls.attempts
            ts.correct_attempts += ls.correct_attempts
    return out


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def _free_name(base: Path) -> Path:
    """``base`` or ``base.N``: two recoveries in one second must not overwrite."""
    candidate, n = base, 1
    while candidate.exists():
        candidate, n = base.with_name(f"{base.name}.{n}"), n + 1
    return candidate


def _probe(path: Path) -> tuple[int, bool]:
    """(user_version, corrupt) read through a read-only connection, so a file we
    then refuse is left exactly as it was."""
    if not path.exists() or path.stat().st_size == 0:
        return 0, False
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            ok = con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            return version, not ok
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in _CORRUPT_CODES:
            return 0, True
        raise ProgressError(f"cannot open progress database {path}: {exc}") from exc


class ProgressStore:
    """Open (creating if needed) the progress database under ``home``.

    ``recovered_from`` is the path an unreadable database was moved to, and
    ``message`` a sentence saying so, for the caller to show the learner.
    """

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = resolve_home(home)
        self.path = self.home / DB_NAME
        self.recovered_from: Path | None = None
        self.message: str | None = None
        self._lock = threading.RLock()
        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProgressError(f"cannot create tutor home {self.home}: {exc}") from exc
        version, corrupt = _probe(self.path)
        if corrupt:
            self._move_aside()
        elif version > SCHEMA_VERSION:
            raise ProgressError(
                f"{self.path} was written by a newer version of tutor (schema {version}, "
                f"this version understands up to {SCHEMA_VERSION}). Upgrade tutor, or use "
                f"--home / TUTOR_HOME to point at another directory. The file was not changed."
            )
        # check_same_thread=False: the app may record from a worker thread; _lock serialises use.
        self._con = sqlite3.connect(self.path, timeout=5, isolation_level=None, check_same_thread=False)
        try:
            # FULL: one fsync per answer is invisible at human pace and survives power loss too.
            for pragma in ("busy_timeout = 5000", "journal_mode = WAL", "synchronous = FULL"):
                self._con.execute(f"PRAGMA {pragma}")
            with self._tx() as con:  # IMMEDIATE: two first-time openers take turns
                if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        con.execute(statement)
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            self._con.close()
            raise ProgressError(f"cannot open progress database {self.path}: {exc}") from exc

    def _move_aside(self) -> None:
        target = _free_name(self.path.with_name(f"{DB_NAME}.corrupt-{_stamp()}"))
        try:
            os.replace(self.path, target)
            for suffix in ("-wal", "-shm"):  # the WAL may hold the only copy of recent answers
                side = self.path.with_name(DB_NAME + suffix)
                if side.exists():
                    os.replace(side, target.with_name(target.name + suffix))
        except FileNotFoundError:  # another tutor process moved it first
            return
        except OSError as exc:
            raise ProgressError(f"{self.path} is unreadable and could not be moved aside: {exc}") from exc
        self.recovered_from = target
        self.message = (
            f"The progress database could not be read; it was moved to {target} "
            f"and a new one was started."
        )

    # -- plumbing ---------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. IMMEDIATE takes the write lock up front, so a
        busy database makes us wait (busy_timeout) rather than fail mid-way."""
        with self._lock:
            self._con.execute("BEGIN IMMEDIATE")
            try:
                yield self._con
            except BaseException:
                self._con.execute("ROLLBACK")
                raise
            self._con.execute("COMMIT")

    def _read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        with self._lock:
            return self._con.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- answers ----------------------------------------------------------

    def record_answer(
        self,
        lesson_id: str,
        question_id: str,
        answer: str,
        correct: bool,
        hints_used: int = 0,
        variant: str | None = None,
        now: datetime | None = None,
    ) -> Answer:
        """Store one answer and reschedule its review card, atomically.

        (timestamp, lesson, question, answer) identifies an answer for import;
        a genuine repeat within the clock's resolution is shifted by 1 µs so it
        is kept, not mistaken for a duplicate.
        """
        now = now or datetime.now(timezone.utc)
        with self._tx() as con:
            while not con.execute(
                "INSERT OR IGNORE INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (iso(now), lesson_id, question_id, answer, int(correct), int(hints_used), variant),
            ).rowcount:
                now += timedelta(microseconds=1)
            review.record_review(con, lesson_id, question_id, correct, hints_used, now)
        return Answer(lesson_id, question_id, answer, bool(correct), int(hints_used), parse_iso(iso(now)), variant)

    def answers(self, lesson_id: str | None = None) -> list[Answer]:
        sql = "SELECT lesson_id, question_id, answer, correct, hints_used, ts, variant FROM answers"
        rows = self._read(sql + (" WHERE lesson_id = ?" if lesson_id else "") + " ORDER BY ts, id",
                          (lesson_id,) if lesson_id else ())
        return [Answer(l, q, a, bool(c), h, parse_iso(t), v) for l, q, a, c, h, t, v in rows]

    def answer_count(self) -> int:
        return self._read("SELECT COUNT(*) FROM answers")[0][0]

    def set_last_position(self, lesson_id: str, question_index: int) -> None:
        with self._tx() as con:
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('last_position', ?)",
                        (json.dumps([lesson_id, int(question_index)]),))

    def last_position(self) -> tuple[str, int] | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'last_position'")
        if not rows:
            return None
        lesson_id, index = json.loads(rows[0][0])
        return lesson_id, index

    # -- summaries --------------------------------------------------------

    def all_lesson_stats(self) -> dict[str, LessonStats]:
        rows = self._read("SELECT lesson_id, question_id, COUNT(*), SUM(correct), MAX(ts)"
                          " FROM answers GROUP BY lesson_id, question_id")
        out: dict[str, LessonStats] = {}
        for lesson_id, question_id, attempts, correct, last in rows:
            s = out.setdefault(lesson_id, LessonStats())
            s.answered_questions.add(question_id)
            if correct:
                s.correct_questions.add(question_id)
            s.attempts += attempts
            s.correct_attempts += correct
            seen = parse_iso(last)
            s.last_seen = seen if s.last_seen is None else max(s.last_seen, seen)
        return out

    def lesson_stats(self, lesson_id: str) -> LessonStats:
        return self.all_lesson_stats().get(lesson_id, LessonStats())

    def track_stats(self, tracks: Mapping[str, Sequence[tuple[str, Sequence[str]]]]) -> dict[str, TrackStats]:
        return track_stats(tracks, self.all_lesson_stats())

    def answers_per_day(self, tz: tzinfo | None = None) -> dict[date, int]:
        """Days are the learner's local days (``tz``), not UTC ones: a streak
        should not break because midnight UTC fell in the afternoon."""
        tz = tz or datetime.now().astimezone().tzinfo
        return dict(sorted(Counter(parse_iso(t).astimezone(tz).date()
                                   for (t,) in self._read("SELECT ts FROM answers")).items()))

    def streak_days(self, today: date | None = None, tz: tzinfo | None = None) -> int:
        """Consecutive days with an answer, ending today, or yesterday if the
        learner has not practised yet today (the streak is still alive)."""
        tz = tz or datetime.now().astimezone().tzinfo
        days = self.answers_per_day(tz)
        day = today or datetime.now(tz).date()
        if day not in days:
            day -= timedelta(days=1)
        streak = 0
        while day in days:
            streak, day = streak + 1, day - timedelta(days=1)
        return streak

    # -- review -----------------------------------------------------------

    def due_cards(self, now: datetime | None = None) -> list[review.Card]:
        with self._lock:
            return review.due_cards(self._con, now or datetime.now(timezone.utc))

    def due_count(self, now: datetime | None = None) -> int:
        with self._lock:
            return review.due_count(self._con, now or datetime.now(timezone.utc))

    def next_due(self) -> datetime | None:
        with self._lock:
            return review.next_due(self._con)

    def card(self, lesson_id: str, question_id: str) -> review.CardState | None:
        with self._lock:
            return review.load_card(self._con, lesson_id, question_id)

    # -- export / import / reset -------------------------------------------

    def export_json(self, path: str | Path) -> int:
        """Write every answer to ``path`` (atomically: a reader never sees half
        a file); returns how many were written."""
        answers = [
            {"timestamp": iso(a.timestamp), "lesson_id": a.lesson_id, "question_id": a.question_id,
             "answer": a.answer, "correct": a.correct, "hints_used": a.hints_used, "variant": a.variant}
            for a in self.answers()
        ]
        pos = self.last_position()
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

    def import_json(self, path: str | Path) -> int:
        """Merge answers from an export; returns how many were new.

        An answer's identity is (timestamp, lesson, question, answer text), so
        importing the same file twice, or a file that overlaps this database,
        adds nothing twice. The whole file is validated before anything is
        written, and written in one transaction: a bad file changes nothing.
        Review cards of the touched questions are rebuilt by replaying their
        full history in time order, as if every answer had been given here.
        """
        rows, position = _read_export(Path(path))
        with self._tx() as con:
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

    def reset(self, backup_dir: str | Path | None = None) -> Path:
        """Copy the database to a timestamped backup, then clear it.

        The write lock is held from before the copy until the data is cleared,
        so an answer another process commits meanwhile is either in the backup
        or not deleted. The copy reads through a second connection, because
        SQLite's backup cannot read from a connection inside a transaction.
        """
        backup_dir = Path(backup_dir) if backup_dir else self.home / "backups"
        try:
            backup_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProgressError(f"cannot create backup directory {backup_dir}: {exc.strerror or exc}") from exc
        target = _free_name(backup_dir / f"progress-{_stamp()}.db")
        with self._tx() as con:
            src, dst = sqlite3.connect(self.path), sqlite3.connect(target)
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
