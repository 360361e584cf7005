"""The learner's answer history, kept in one SQLite file.

Why SQLite and these settings: two ``tutor`` processes (say, the app and
``tutor progress``) may touch the file at once, and a killed process must lose
at most the answer it was writing. WAL mode lets readers and one writer work
side by side, a second writer waits (``transaction`` polls for the lock) instead of
failing, and every answer is its own short ``BEGIN IMMEDIATE`` transaction.

Every graded try is an ``answers`` row (scored, review or practice); every question has
one ``question_records`` row (open, then resolved), and each resolution or review rating is
an ``outcomes`` row, which is what moves the review schedule. Time always comes in with the
answer or as ``now`` (tests and imports pass it; the app passes its clock), never read inside a function.

The schema version is kept in ``PRAGMA user_version``; versions 1 (before attempts and
outcomes) and 2 (before question records) are migrated in place, see :mod:`tutor.progress.migrate`.
A file written by a newer tutor is refused untouched (we cannot know what dropping its data would break);
a file SQLite cannot read is moved aside, never deleted, and a fresh one begins.

Summaries live in :mod:`tutor.progress.stats`, export/import/reset in
:mod:`tutor.progress.io`; the names callers know are still importable from here.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime, timezone, tzinfo
from pathlib import Path

import platformdirs

from tutor.common.safe_files import private_file, private_folder
from tutor.grading.attempts import Outcome
from tutor.progress import answer_seen, open_failure, record_sql, review, sample_sightings
# ProgressError is imported from here by callers.
from tutor.progress.opening import ProgressError, opening_lock, probe
from tutor.progress.migrate import OUTCOMES_DDL, migrate_v1_to_v2, migrate_v2_to_v3, run_script
from tutor.progress.recording import RecordingMixin
# Answer and OutcomeRecord are imported from here by callers.
from tutor.progress.records import Answer, Mode, OutcomeRecord, Role
# LessonStats, TrackStats and track_stats are imported from here by callers.
from tutor.progress.stats import (LessonStats, TrackStats, answers_per_day, question_counts,
                                  streak_ending, track_stats)
from tutor.progress.review import DueReviews, parse_iso

SCHEMA_VERSION = 3
EXPORT_FORMAT = "tutor-progress"
EXPORT_VERSION = 3
DB_NAME = "progress.db"
WRITE_PATIENCE = 5.0       # seconds a write waits for another process's lock before it fails
BUSY_POLL_MS = 5           # SQLite's own wait per try; transaction() polls around it

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
    attempt     INTEGER NOT NULL DEFAULT 1,
    mode        TEXT NOT NULL DEFAULT 'scored',
    UNIQUE (ts, lesson_id, question_id, answer)
);
CREATE INDEX IF NOT EXISTS answers_lesson ON answers(lesson_id, question_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
    + OUTCOMES_DDL
    + review.CARDS_DDL
    + record_sql.RECORDS_DDL
    + answer_seen.ANSWER_SEEN_DDL
    + sample_sightings.SAMPLE_SIGHTINGS_DDL
)


def new_learner_id() -> str:
    return secrets.token_hex(8)


def resolve_home(explicit: str | Path | None = None) -> Path:
    """Explicit argument (``--home``) beats ``TUTOR_HOME`` beats the platform dir."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("TUTOR_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("tutor", appauthor=False))


def stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone().strftime("%Y%m%d-%H%M%S")


def free_name(base: Path) -> Path:
    """``base`` or ``base.N``: two recoveries in one second must not overwrite."""
    candidate, n = base, 1
    while candidate.exists():
        candidate, n = base.with_name(f"{base.name}.{n}"), n + 1
    return candidate


class ProgressStore(RecordingMixin):
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
            private_folder(self.home)   # 0700: on a shared machine no one else reads the answers
        except OSError as exc:
            raise ProgressError(f"cannot create tutor home {self.home}: {exc}") from exc
        with opening_lock(self.home):
            self._open()

    @classmethod
    def in_memory(cls) -> ProgressStore:
        """The same rules over a database that lives and dies with this process: a session whose
        progress cannot be saved still keeps each question's record while it runs."""
        store = cls.__new__(cls)
        store.home, store.path, store.recovered_from, store.message = None, None, None, None
        store._lock = threading.RLock()
        store._con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        with store.transaction() as con:
            run_script(con, _SCHEMA)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return store

    def _open(self) -> None:
        """Probe, recover, connect and create the schema; the caller holds the opening lock."""
        version, corrupt = probe(self.path)
        if corrupt:
            self._move_aside()
        elif version > SCHEMA_VERSION:
            raise ProgressError(
                f"{self.path} was written by a newer version of tutor (schema {version}, "
                f"this version understands up to {SCHEMA_VERSION}). Upgrade tutor, or use "
                f"--home / TUTOR_HOME to point at another directory. The file was not changed."
            )
        # check_same_thread=False: the app may record from a worker thread; _lock serialises use.
        try:
            for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"):   # 0600 whatever the umask;
                if name == DB_NAME or self.path.with_name(name).exists():   # SQLite gives its side files the same
                    private_file(self.path.with_name(name))
        except OSError:
            pass   # a read-only home or a foreign file: connecting reports what is wrong
        try:
            self._con = sqlite3.connect(self.path, timeout=5, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise ProgressError(open_failure.explain(self.path, exc)) from exc
        try:
            # FULL: one fsync per answer is invisible at human pace and survives power loss too.
            for pragma in ("busy_timeout = 5000", "journal_mode = WAL", "synchronous = FULL"):
                self._con.execute(f"PRAGMA {pragma}")
            self._con.execute(f"PRAGMA busy_timeout = {BUSY_POLL_MS}")   # writes wait in transaction()
            with self.transaction() as con:  # IMMEDIATE: two first-time openers take turns
                found = con.execute("PRAGMA user_version").fetchone()[0]
                if found == 1:
                    migrate_v1_to_v2(con)
                if found in (1, 2):
                    migrate_v2_to_v3(con)
                if found < SCHEMA_VERSION:
                    run_script(con, _SCHEMA)
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.execute(answer_seen.ANSWER_SEEN_DDL)   # added within schema 3: an older tutor ignores it
                con.execute(sample_sightings.SAMPLE_SIGHTINGS_DDL)   # likewise
        except sqlite3.Error as exc:
            self._con.close()
            raise ProgressError(open_failure.explain(self.path, exc)) from exc

    def _move_aside(self) -> None:
        target = free_name(self.path.with_name(f"{DB_NAME}.corrupt-{stamp()}"))
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
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. IMMEDIATE takes the write lock up front, so a
        busy database makes us wait rather than fail mid-way.

        The wait polls every millisecond (up to ``WRITE_PATIENCE`` seconds) instead of leaving it
        to SQLite's busy handler, which between tries sleeps up to 100 ms: against another
        process writing batch after batch (an import) that handler almost never found the lock
        free, and an answer waited seconds; polling takes the pause between two batches."""
        with self._lock:
            self._begin()
            try:
                yield self._con
            except BaseException:
                self._con.execute("ROLLBACK")
                raise
            self._con.execute("COMMIT")

    def _begin(self) -> None:
        deadline = time.monotonic() + WRITE_PATIENCE
        while True:
            try:
                self._con.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                busy = getattr(exc, "sqlite_errorcode", 5) & 0xFF in (5, 6)   # SQLITE_BUSY, SQLITE_LOCKED
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(0.001)

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

    def answers(self, lesson_id: str | None = None) -> list[Answer]:
        sql = "SELECT lesson_id, question_id, answer, correct, hints_used, ts, variant, attempt, mode FROM answers"
        rows = self._read(sql + (" WHERE lesson_id = ?" if lesson_id else "") + " ORDER BY ts, id",
                          (lesson_id,) if lesson_id else ())
        return [Answer(l, q, a, bool(c), h, parse_iso(t), v, n, Mode(m)) for l, q, a, c, h, t, v, n, m in rows]

    def outcomes(self, lesson_id: str | None = None) -> list[OutcomeRecord]:
        sql = "SELECT lesson_id, question_id, outcome, attempts, hints_used, ts, variant, role, duration_ms FROM outcomes"
        rows = self._read(sql + (" WHERE lesson_id = ?" if lesson_id else "") + " ORDER BY ts, id",
                          (lesson_id,) if lesson_id else ())
        return [OutcomeRecord(l, q, Outcome(o), n, h, parse_iso(t), v, Role(r), d)
                for l, q, o, n, h, t, v, r, d in rows]

    def answer_count(self) -> int:
        return self._read("SELECT COUNT(*) FROM answers")[0][0]

    def outcome_count(self) -> int:
        return self._read("SELECT COUNT(*) FROM outcomes")[0][0]

    def learner_id(self) -> str:
        """A random id made once per home (kept in ``meta``): it seeds the order a learner sees a
        question's choices in, so that order is theirs and stays put; never the clock."""
        rows = self._read("SELECT value FROM meta WHERE key = 'learner_id'")
        if rows:
            return rows[0][0]
        with self.transaction() as con:
            con.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('learner_id', ?)", (new_learner_id(),))
            return con.execute("SELECT value FROM meta WHERE key = 'learner_id'").fetchone()[0]

    def known_learner_id(self) -> str | None:
        """The home's learner id if one was made (an export carries it; reading never makes one)."""
        rows = self._read("SELECT value FROM meta WHERE key = 'learner_id'")
        return rows[0][0] if rows else None

    def set_last_position(self, lesson_id: str, question_index: int) -> None:
        with self.transaction() as con:
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('last_position', ?)",
                        (json.dumps([lesson_id, int(question_index)]),))

    def last_position(self) -> tuple[str, int] | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'last_position'")
        if not rows:
            return None
        lesson_id, index = json.loads(rows[0][0])
        return lesson_id, index

    # -- summaries --------------------------------------------------------

    def all_lesson_stats(self, course: Mapping[str, Sequence[str]] | None = None) -> dict[str, LessonStats]:
        """Per lesson, counted in questions (see :func:`tutor.progress.stats.question_counts`); ``course``
        ({lesson: question ids}) limits them to the questions the course asks today."""
        return question_counts(self.question_records(), course)

    def lesson_stats(self, lesson_id: str) -> LessonStats:
        return self.all_lesson_stats().get(lesson_id, LessonStats())

    def track_stats(self, tracks: Mapping[str, Sequence[tuple[str, Sequence[str]]]]) -> dict[str, TrackStats]:
        return track_stats(tracks, self.all_lesson_stats())

    def answers_per_day(self, tz: tzinfo | None = None) -> dict[date, int]:
        """Local days, ``tz`` defaulting to this machine's; see :func:`tutor.progress.stats.answers_per_day`.
        Only answers that belong to a question record count: the app writes every try with its record,
        so an answer without one came from an edited import (30 made-up practice rows were a 30-day streak)."""
        tz = tz or datetime.now().astimezone().tzinfo
        return answers_per_day((t for (t,) in self._read(
            "SELECT ts FROM answers AS a WHERE EXISTS (SELECT 1 FROM question_records AS r"
            " WHERE r.lesson_id = a.lesson_id AND r.question_id = a.question_id)")), tz)

    def streak_days(self, today: date | None = None, tz: tzinfo | None = None, now: datetime | None = None) -> int:
        """Still alive if the last answer was yesterday; see :func:`tutor.progress.stats.streak_ending`.

        ``today`` is the learner's local day of ``now`` (in ``tz``): pass either, never rely on the clock in tests.
        """
        tz = tz or datetime.now().astimezone().tzinfo
        today = today or (now or datetime.now(timezone.utc)).astimezone(tz).date()
        return streak_ending(self.answers_per_day(tz), today)

    # -- review -----------------------------------------------------------

    def due_reviews(self, now: datetime, exists=lambda lesson_id, question_id: True) -> DueReviews:
        """The one source of "what is due"; ``exists`` says whether the course still has a question."""
        with self._lock:
            return review.due_reviews(self._con, now, exists)

    def card(self, lesson_id: str, question_id: str) -> review.CardState | None:
        with self._lock:
            return review.load_card(self._con, lesson_id, question_id)
