"""Writing the learner's tries to their question records (a mixin of :class:`tutor.progress.store.ProgressStore`).

Every write is one short transaction that stores the try, moves the question's record and, when
that resolves it, its outcome and review card together: a killed app loses at most the try it was
writing, and the screen shows a verdict only after this returns. The store, not the screen,
decides whether a try is scored, review or practice, and which attempt it is, from the record:
so no route through the screens can give a question a second first attempt. Time comes in with
the answer (or as ``now``), never read here; under the lock it is moved after the question's last try.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime, timedelta

from tutor.grading.attempts import Encounter
from tutor.progress import answer_seen, record_sql, review, sample_sightings
from tutor.progress.records import Answer, Mode, QuestionRecord, Role, storable_answer
from tutor.progress.review import iso, parse_iso


class RecordingMixin:
    def record(self, answer: Answer) -> tuple[Answer, QuestionRecord]:
        """Store one graded try; returns it as stored (mode, attempt, folded text, time) and the record after it."""
        answer = dataclasses.replace(answer, answer=storable_answer(answer.answer))

        def act(encounter: Encounter) -> int:
            if answer.hints_used > encounter.hints_used:
                encounter.hint_shown(answer.hints_used)
            return encounter.record(answer.correct)

        with self.transaction() as con:
            answer = dataclasses.replace(answer, timestamp=self._after_last(con, answer))
            mode, record, attempt = self._advance(con, answer.lesson_id, answer.question_id, answer.mode,
                                                  answer.tries_allowed, answer.variant, answer.timestamp, act,
                                                  answer.shown_at)
            stored = dataclasses.replace(answer, mode=mode, attempt=attempt or answer.attempt)
            stored = dataclasses.replace(stored, timestamp=self._insert_answer(con, stored))
        return dataclasses.replace(stored, timestamp=parse_iso(iso(stored.timestamp))), record

    def record_hint(self, lesson_id: str, question_id: str, shown: int, mode: Mode, allowed: int,
                    now: datetime) -> QuestionRecord:
        """A hint is part of the record from the moment it is shown: Ctrl+R or a restart keeps it."""
        def act(encounter: Encounter) -> None:
            encounter.hint_shown(shown)

        with self.transaction() as con:
            return self._advance(con, lesson_id, question_id, mode, allowed, None, now, act)[1]

    def record_give_up(self, lesson_id: str, question_id: str, mode: Mode, allowed: int, variant: str | None,
                       now: datetime, shown_at: datetime | None = None) -> QuestionRecord:
        """Giving up resolves the question (or the review) as not got."""
        with self.transaction() as con:
            return self._advance(con, lesson_id, question_id, mode, allowed, variant, now, Encounter.give_up,
                                 shown_at)[1]

    def record_answer_seen(self, lesson_id: str, question_id: str, seen_in: str, where: str, allowed: int,
                           now: datetime) -> bool:
        """A question's answer was on screen before its first try (the look-ahead rule,
        tutor.session.look_ahead): resolve it as not got, and say where it was seen.  A question
        already tried or resolved keeps its record (its first attempt came first); returns
        whether this resolved it."""
        with self.transaction() as con:
            record = record_sql.load(con, lesson_id, question_id)
            if record is not None and (record.tries or record.resolved):
                return False
            self._advance(con, lesson_id, question_id, Mode.SCORED, allowed, None, now, Encounter.give_up)
            answer_seen.save(con, lesson_id, question_id, seen_in, where, now)
            return True

    def answer_seen(self, lesson_id: str, question_id: str) -> tuple[str, str] | None:
        """Where a question resolved by the look-ahead rule had its answer shown, or None."""
        with self._lock:
            return answer_seen.load(self._con, lesson_id, question_id)

    def answers_seen(self) -> list[tuple[str, str, str, str, str]]:
        """Every look-ahead resolution's note: (lesson, question, seen_in, where, time)."""
        with self._lock:
            return answer_seen.load_all(self._con)

    def record_sample_shown(self, model: str, prompt: str, tokens: list[str], now: datetime) -> None:
        """The Sample tab showed the distributions after ``prompt`` and each token on the weights
        ``model`` (a digest): kept so a lesson opened later on those weights can apply the look-ahead rule."""
        with self.transaction() as con:
            sample_sightings.save(con, model, prompt, tokens, now)

    def samples_shown(self, model: str) -> list[tuple[str, list[str]]]:
        """(prompt, tokens) of every Sample run on the weights ``model``."""
        with self._lock:
            return sample_sightings.load(self._con, model)

    def rename_question(self, old: tuple[str, str], new: tuple[str, str]) -> bool:
        """Carry a question's whole history (tries, record, outcomes, card, answer-seen note) to the
        (lesson, question) id an author's edit gave it, so the renamed question continues its record;
        unless the new id has a history of its own, which is never overwritten.  Returns whether it moved."""
        with self.transaction() as con:
            taken = con.execute("SELECT 1 FROM question_records WHERE lesson_id = ? AND question_id = ? UNION ALL "
                                "SELECT 1 FROM answers WHERE lesson_id = ? AND question_id = ? LIMIT 1",
                                new + new).fetchone()
            if taken:
                return False
            moved = 0
            for table in ("answers", "outcomes", "question_records", "review_cards", "answers_seen"):
                moved += con.execute(f"UPDATE {table} SET lesson_id = ?, question_id = ? WHERE lesson_id = ?"
                                     " AND question_id = ?", new + old).rowcount
            if old[0] == new[0]:   # a note naming the renamed question as where an answer was seen
                con.execute("UPDATE answers_seen SET seen_in = ? WHERE lesson_id = ? AND seen_in = ?",
                            (new[1], old[0], old[1]))
            return bool(moved)

    def question_record(self, lesson_id: str, question_id: str) -> QuestionRecord | None:
        with self._lock:
            return record_sql.load(self._con, lesson_id, question_id)

    def question_records(self, lesson_id: str | None = None) -> list[QuestionRecord]:
        with self._lock:
            return record_sql.load_all(self._con, lesson_id)

    def encounter_for(self, lesson_id: str, question_id: str, wanted: Mode, allowed: int,
                      now: datetime) -> tuple[Mode, Encounter, QuestionRecord]:
        """What a try on this question would be now, the encounter it would continue (a practice one
        is fresh), and the question's record (an unseen question: an empty one)."""
        with self._lock:
            record = record_sql.load(self._con, lesson_id, question_id)
            record = record or QuestionRecord(lesson_id, question_id, updated=now)
            mode, key = self._mode(self._con, record, wanted, now)
        if mode is Mode.SCORED:
            return mode, record.encounter(allowed), record
        return mode, record.review_encounter(allowed, key) if mode is Mode.REVIEW else Encounter(allowed), record

    def _mode(self, con, record: QuestionRecord, wanted: Mode, now: datetime) -> tuple[Mode, str | None]:
        """Review only while the card is due (once rated it is not); scored only until resolved."""
        wanted = Mode(wanted)
        if wanted is Mode.REVIEW:
            card = review.load_card(con, record.lesson_id, record.question_id)
            if card is not None and card.due <= now:
                return Mode.REVIEW, iso(card.due)
            return Mode.PRACTICE, None
        if wanted is Mode.SCORED and not record.resolved:
            return Mode.SCORED, None
        return Mode.PRACTICE, None

    def _advance(self, con, lesson_id: str, question_id: str, wanted: Mode, allowed: int, variant: str | None,
                 now: datetime, act: Callable[[Encounter], int | None],
                 shown_at: datetime | None = None) -> tuple[Mode, QuestionRecord, int | None]:
        """Move the question's scored or review encounter by ``act``; resolve it when it ends."""
        stored = record_sql.load(con, lesson_id, question_id)
        record = stored or QuestionRecord(lesson_id, question_id, variant=variant, updated=now)
        mode, key = self._mode(con, record, wanted, now)
        if mode is Mode.PRACTICE:
            if stored is None:   # a try at a question never opened in its lesson (Review after a reset elsewhere)
                record_sql.save(con, record)   # is seen: every answer belongs to a record (the import and streak ask)
            return mode, record, None
        encounter = record.encounter(allowed) if mode is Mode.SCORED else record.review_encounter(allowed, key)
        attempt = None
        if not encounter.revealed:   # (tries left over from a lesson that since allowed fewer: resolve it)
            attempt = act(encounter)
        elif mode is Mode.SCORED:
            mode = Mode.PRACTICE
        if mode is Mode.SCORED or (mode is Mode.PRACTICE and not record.resolved):
            record = record.with_encounter(encounter, variant or record.variant, now)
            if record.resolved:
                self._resolve(con, record, encounter, Role.SCORE, now, shown_at)
        else:
            record = dataclasses.replace(record, updated=now).with_review(
                encounter, None if encounter.outcome else key)
            if encounter.outcome:
                self._resolve(con, record, encounter, Role.REVIEW, now, shown_at)
        record_sql.save(con, record)
        return mode, record, attempt

    def _resolve(self, con, record: QuestionRecord, encounter: Encounter, role: Role, now: datetime,
                 shown_at: datetime | None) -> None:
        outcome = encounter.outcome
        duration = None if shown_at is None else max(0, min(round((now - shown_at).total_seconds() * 1000),
                                                            7 * 24 * 3600 * 1000))
        while not con.execute(
            "INSERT OR IGNORE INTO outcomes (ts, lesson_id, question_id, outcome, attempts, hints_used, variant, role,"
            " duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (iso(now), record.lesson_id, record.question_id, outcome.value, len(encounter.results),
             encounter.hints_used, record.variant, role.value, duration),
        ).rowcount:
            now += timedelta(microseconds=1)
        review.record_review(con, record.lesson_id, record.question_id, outcome, now)

    @staticmethod
    def _after_last(con, a: Answer) -> datetime:
        """The try's time, fixed inside the write lock: never before the question's last stored try.  Two
        app instances each read their clock before waiting for the lock, so the one that waited would
        otherwise store attempt 2 older than attempt 1, and a report ordering by time would swap them."""
        last = con.execute("SELECT MAX(ts) FROM answers WHERE lesson_id = ? AND question_id = ?",
                           (a.lesson_id, a.question_id)).fetchone()[0]
        if last is None or iso(a.timestamp) > last:
            return a.timestamp
        return parse_iso(last) + timedelta(microseconds=1)

    @staticmethod
    def _insert_answer(con, a: Answer) -> datetime:
        """(timestamp, lesson, question, answer) identifies an answer for import; a genuine repeat within
        the clock's resolution is shifted by 1 µs so it is kept, not mistaken for a duplicate."""
        now = a.timestamp
        while not con.execute(
            "INSERT OR IGNORE INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant, attempt,"
            " mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (iso(now), a.lesson_id, a.question_id, a.answer, int(a.correct), int(a.hints_used), a.variant,
             int(a.attempt), a.mode.value),
        ).rowcount:
            now += timedelta(microseconds=1)
        return now
