"""The one door from the app to the learner's progress: every graded try, hint and give-up.

The question session (:mod:`tutor.session`) hands it an :class:`~tutor.progress.records.Answer` and gets
back the try as stored and the question's record, from which the verdict is drawn; so the record is
written before the screen shows anything.
Why the waiting and the queue: another process (``tutor progress --import``) may hold the write
lock for a moment. Each write waits for it (SQLite's busy timeout, then a few more tries); if the
database still refuses, the answer is queued in memory, written first thing at the next write
and at exit, and the learner is told once. An answer is never dropped.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime

from tutor.grading.attempts import Encounter
from tutor.progress.records import Answer, Mode, QuestionRecord
from tutor.progress.stats import LessonStats, question_counts
from tutor.progress.store import ProgressError, ProgressStore

RETRIES = 3   # after the busy timeout (5 s): a batch of an import takes milliseconds


class ProgressService:
    def __init__(self, store: ProgressStore | None, clock: Callable[[], datetime],
                 on_failure: Callable[[Exception], None] = lambda error: None) -> None:
        # a session that cannot save keeps its records in memory: the same rules, for this run only
        self.store = store if store is not None else ProgressStore.in_memory()
        self.saving = store is not None
        self.clock = clock
        self.on_failure = on_failure
        self.pending: list[Answer] = []
        self.session_answers: list[Answer] = []   # this run's tries as stored, for the journey and tests
        self._learner_id: str | None = None

    def question(self, lesson_id: str, question_id: str, wanted: Mode,
                 allowed: int) -> tuple[Mode, Encounter, QuestionRecord]:
        """What a try on the question would be now (scored, review or practice), the encounter it
        continues, and the record: every route that shows a question again starts here."""
        self.flush()
        return self.store.encounter_for(lesson_id, question_id, wanted, allowed, self.clock())

    def record(self, answer: Answer) -> tuple[Answer, QuestionRecord] | None:
        """Store one graded try: the try as stored (its mode and attempt are the store's) and the record
        after it; None when it could only be queued (the session then judges from its own encounter,
        which the stored record will agree with once the queue is written)."""
        self.flush()
        if self.pending:
            self.pending.append(answer)
            return None
        result = self._write(lambda: self.store.record(answer))
        if result is None:
            self.pending.append(answer)
            return None
        stored, record = result
        self.session_answers.append(stored)
        return stored, record

    def hint(self, lesson_id: str, question_id: str, shown: int, mode: Mode, allowed: int) -> None:
        self._write(lambda: self.store.record_hint(lesson_id, question_id, shown, mode, allowed, self.clock()))

    def give_up(self, lesson_id: str, question_id: str, mode: Mode, allowed: int, variant: str | None,
                shown_at: datetime | None = None) -> QuestionRecord | None:
        self.flush()
        return self._write(lambda: self.store.record_give_up(lesson_id, question_id, mode, allowed, variant,
                                                             self.clock(), shown_at))

    def answer_seen(self, lesson_id: str, question_id: str, seen_in: str, where: str, allowed: int) -> bool:
        """The look-ahead rule: resolve an untried question whose answer was shown (see the store)."""
        self.flush()
        return bool(self._write(lambda: self.store.record_answer_seen(lesson_id, question_id, seen_in, where,
                                                                      allowed, self.clock())))

    def sample_shown(self, model: str, prompt: str, tokens: list[str]) -> None:
        """The Sample tab showed distributions on the weights ``model`` (see tutor.session.sample_sight)."""
        self._write(lambda: self.store.record_sample_shown(model, prompt, tokens, self.clock()))

    def samples_shown(self, model: str) -> list[tuple[str, list[str]]]:
        return self.store.samples_shown(model)

    def rename_question(self, old: tuple[str, str], new: tuple[str, str]) -> None:
        """An author's edit renamed a question (hot reload): its record goes with it (see the store)."""
        self.flush()
        self._write(lambda: self.store.rename_question(old, new))

    def seen_where(self, lesson_id: str, question_id: str) -> tuple[str, str] | None:
        return self.store.answer_seen(lesson_id, question_id)

    def learner_id(self) -> str:
        """The home's learner id (made on first use): seeds the order of a question's choices."""
        if self._learner_id is None:
            self._learner_id = self.store.learner_id()
        return self._learner_id

    def lesson_counts(self, lesson_id: str, question_ids: list[str]) -> LessonStats:
        """The lesson summary's numbers, from the same count as the roadmap's."""
        return question_counts(self.store.question_records(lesson_id), {lesson_id: question_ids}).get(
            lesson_id, LessonStats())

    def flush(self) -> None:
        """Write queued answers, oldest first; stop at the first that still cannot be written."""
        while self.pending:
            answer = self.pending[0]
            result = self._write(lambda: self.store.record(answer), tell=False)
            if result is None:
                return
            self.pending.pop(0)
            self.session_answers.append(result[0])

    def close(self) -> None:
        self.flush()
        self.store.close()

    def _write(self, write, tell: bool = True):
        for _ in range(RETRIES):
            try:
                return write()
            except sqlite3.OperationalError as error:   # locked or busy: wait again
                last = error
            except (ProgressError, sqlite3.Error) as error:
                last = error
                break
        if tell:
            self.on_failure(last)
        return None
