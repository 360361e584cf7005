"""One question on screen: its record from the store, the kind's parse and grade, tries, hints,
give-up, the reveal, and whether a try is scored, review or practice.

Why the state is re-read from the store after every write rather than kept here: two app
instances on one home (or an import while the app runs) move the same record; a session that
trusted its own count would say "1 try left" for a question already resolved elsewhere, or draw a
practice answer as a scored ✓.  So each try goes to the store first, and the step returned is
built from what the store recorded (its mode and attempt number).  Only practice, which the store
counts nowhere, keeps its tries here.
"""
from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from tutor.grading.answers import AnswerError
from tutor.grading.attempts import Encounter
from tutor.grading.kinds import PickOption, Truth, allowed_attempts, kind_of
from tutor.grading.quiz import QuestionError, grade, truth_for
from tutor.progress.records import Answer, Mode
from tutor.progress.service import ProgressService
from tutor.session.look_ahead import LookAhead, Where


class Happened(str, Enum):
    """What one action did, which decides how the screen draws it."""

    RIGHT = "right"                        # graded right: revealed
    WRONG = "wrong"                        # graded wrong, tries left
    LAST_WRONG = "last_wrong"              # graded wrong on the last allowed try: revealed
    GAVE_UP = "gave_up"                    # revealed without an answer
    HINT = "hint"                          # one more hint shown
    UNREADABLE = "unreadable"              # the text could not be read: no try spent
    QUESTION_PROBLEM = "question_problem"  # the lesson is wrong on this model (the author's problem)
    NOT_READY = "not_ready"                # the live tensors are still loading: the text is kept
    GIVEN_AWAY = "given_away"              # this model's text shows the answer: not scored here
    MOVE_ON = "move_on"                    # Enter after the reveal
    NOTHING = "nothing"                    # nothing to do (a give-up after the reveal)


@dataclass(frozen=True)
class Step:
    """What the screen draws after an action: never more than the store recorded."""

    happened: Happened
    mode: Mode = Mode.SCORED       # what the try was stored as: a practice verdict is labelled so
    feedback: str = ""             # the grader's words ("Right (to 2 decimals).")
    attempts_left: int = 0
    truth: Truth | None = None     # set when the answer is revealed
    answer: str | None = None      # the answer shown beside the truth; None after a give-up
    error: Exception | None = None
    hints: int = 0                 # hints shown now (HINT; 0: the question has none)
    seen: tuple[int, ...] = ()     # untried questions this step showed the answer of: now not got

    @property
    def revealed(self) -> bool:
        return self.truth is not None


@dataclass(frozen=True)
class Graded:
    """One typed answer judged, not yet recorded: what the grade step (any thread, no writes) hands
    the record step (the UI thread).  It names its question, so a verdict can never be recorded
    on another one."""

    lesson_id: str
    question_id: str
    text: str
    variant: str                   # the sizes it was graded at, recorded with the try
    truth: Truth | None = None
    correct: bool = False
    feedback: str = ""
    unrecorded: Step | None = None   # unreadable text or a broken question: said, never recorded


class QuestionSession:
    """A question shown in a lesson (``wanted`` scored) or in Review (``wanted`` review).

    ``live`` is the lesson's live result (tensors, sizes, variant), None while it loads;
    ``given_away`` says the learner's own model writes this answer in the text before it, so a
    scored or review try is refused (free) and only practice goes on.
    """

    def __init__(self, progress: ProgressService, lesson, index: int, wanted: Mode,
                 clock: Callable[[], datetime], live_ready: bool = True, look_ahead: LookAhead | None = None) -> None:
        self.progress = progress
        self.lesson = lesson
        self.index = index
        self.question = self._in_learner_order(lesson.questions[index])
        self.wanted = wanted
        self.clock = clock
        self.allowed = allowed_attempts(self.question, lesson.attempts)
        self.given_away = False
        self.look_ahead = look_ahead   # what this question's screen shows of other answers (this draw)
        self.seen_in: tuple[str, str] | None = None   # (question id, where) that showed this answer untried
        self.acted = False    # a try, hint or give-up since shown: new weights wait
        # when it could first be answered (the review log's duration); None while the tensors load
        self.shown_at: datetime | None = clock() if live_ready else None
        self.mode = Mode.SCORED
        self.encounter = Encounter(self.allowed)
        self.open()

    def open(self) -> None:
        """The question's encounter from its record, however it came back on screen (a restart,
        Escape and reopen, Ctrl+N/B, Ctrl+R, a reload, new weights): tries and hints used stay used.
        A record with tries left over from a lesson that since allows fewer is resolved first."""
        lesson_id, question_id = self.lesson.id, self.question.id
        self.mode, self.encounter, _record = self.progress.question(lesson_id, question_id, self.wanted, self.allowed)
        if self.mode is not Mode.PRACTICE and self.encounter.revealed:
            self.progress.give_up(lesson_id, question_id, self.mode, self.allowed, None)
            self.mode, self.encounter, _record = self.progress.question(lesson_id, question_id, self.wanted,
                                                                        self.allowed)
        self.seen_in = self.progress.seen_where(lesson_id, question_id) if self.mode is Mode.PRACTICE else None

    def relabel(self, lesson) -> None:
        """F4: the same question from the lesson in another language; the encounter goes on."""
        self.lesson, self.question = lesson, self._in_learner_order(lesson.questions[self.index])

    def _in_learner_order(self, question):
        """The question as this learner sees it (a choice's options in their own order, seeded by the
        learner and the question: the same in the lesson, after F4 and in Review)."""
        seed = f"{self.progress.learner_id()}/{self.lesson.id}/{question.id}"
        return kind_of(question).in_learner_order(question, random.Random(seed))

    @property
    def revealed(self) -> bool:
        return self.encounter.revealed

    @property
    def tried_before(self) -> bool:
        """An open scored or review encounter with tries already used: the screen says how many are left."""
        return bool(self.encounter.results) and not self.revealed

    def truth(self, live) -> Truth:
        return truth_for(self.question, live.tensors, live.sizes)

    def options(self) -> list[PickOption]:
        """The kind's pick-list (a choice's options), in the order shown; [] for a typed kind."""
        return kind_of(self.question).options(self.question)

    def preview(self, text: str) -> str | None:
        """How the text being typed reads (a formula), none after the reveal."""
        return None if self.revealed else kind_of(self.question).preview(self.question, text)

    def submit(self, text: str, live) -> Step:
        """Grade one typed answer and record it, in one call (the session's tests, and any caller
        for which a grade is never slow); the screens run :meth:`grade` in a worker instead."""
        return self.before_grading(text, live) or self.record(self.grade(text, live))

    def before_grading(self, text: str, live) -> Step | None:
        """What Enter does without grading (move on after the reveal, wait for the tensors, refuse a
        given-away try), or None: the text is to be graded."""
        if self.revealed:
            return Step(Happened.MOVE_ON, self.mode)
        if live is None:
            return Step(Happened.NOT_READY, self.mode)
        if self.given_away and self.mode is not Mode.PRACTICE:
            return Step(Happened.GIVEN_AWAY, self.mode)
        return None

    def grade(self, text: str, live) -> Graded:
        """The verdict on ``text`` against ``live``, written nowhere: a formula's grade can take a
        second and a half of symbolic work (tutor.formulas.budget), so the screens run this in a
        worker thread while the learner can still scroll, ask for a hint or leave."""
        graded = Graded(self.lesson.id, self.question.id, text, live.variant)
        try:
            truth = self.truth(live)
            result = grade(self.question, text, truth, live.sizes)
        except AnswerError as error:   # unreadable text costs no attempt
            return dataclasses.replace(graded, unrecorded=Step(Happened.UNREADABLE, self.mode, error=error))
        except QuestionError as error:
            return dataclasses.replace(graded, unrecorded=Step(Happened.QUESTION_PROBLEM, self.mode, error=error))
        return dataclasses.replace(graded, truth=truth, correct=result.correct, feedback=result.feedback)

    def record(self, graded: Graded) -> Step:
        """Apply a verdict from :meth:`grade` to the store (on the UI thread, where the store is
        written); the step says only what the store recorded.  A verdict that arrives after the
        question was given up meanwhile records nothing: the reveal is already on screen."""
        if (graded.lesson_id, graded.question_id) != (self.lesson.id, self.question.id):
            raise ValueError(f"a verdict on {graded.question_id} cannot be recorded on {self.question.id}")
        if graded.unrecorded is not None:
            return graded.unrecorded
        if self.revealed:
            return Step(Happened.NOTHING, self.mode)
        self.acted = True
        mode = self._store_try(graded.text, graded.correct, graded.variant)
        truth, text = graded.truth, graded.text
        if graded.correct:
            return Step(Happened.RIGHT, mode, graded.feedback, 0, truth, text, seen=self._see(Where.REVEAL))
        if self.revealed:
            return Step(Happened.LAST_WRONG, mode, graded.feedback, 0, truth, text, seen=self._see(Where.REVEAL))
        return Step(Happened.WRONG, mode, graded.feedback, self.encounter.attempts_left)

    def _store_try(self, text: str, correct: bool, variant: str) -> Mode:
        """Write the try, then take the encounter from what was stored: a question resolved in another
        instance makes this try practice, and one tried there continues at the store's attempt."""
        encounter = self.encounter
        answer = Answer(self.lesson.id, self.question.id, text, correct, encounter.hints_used, self.clock(),
                        variant, len(encounter.results) + 1, self.mode, self.allowed, self.shown_at)
        recorded = self.progress.record(answer)
        if recorded is None:   # queued until the database is free: judged by this encounter meanwhile
            encounter.record(correct)
            return self.mode
        stored, _record = recorded
        if stored.mode is Mode.PRACTICE:
            if self.mode is not Mode.PRACTICE:   # resolved elsewhere since shown: a fresh practice encounter
                self.mode, self.encounter = Mode.PRACTICE, Encounter(self.allowed)
            self.encounter.record(correct)
        else:
            self.mode = stored.mode
            self.encounter = Encounter(self.allowed, [False] * (stored.attempt - 1) + [correct],
                                       encounter.hints_before_first, encounter.hints_used)
        return stored.mode

    def give_up(self, live) -> Step:
        """Resolve as not got (in the store first, unless practice), then reveal."""
        if self.revealed or live is None:
            return Step(Happened.NOTHING, self.mode)
        try:
            truth = self.truth(live)
        except QuestionError as error:
            return Step(Happened.QUESTION_PROBLEM, self.mode, error=error)
        self.acted = True
        self.encounter.give_up()
        if self.mode is not Mode.PRACTICE:
            self.progress.give_up(self.lesson.id, self.question.id, self.mode, self.allowed, live.variant,
                                  self.shown_at)
        return Step(Happened.GAVE_UP, self.mode, truth=truth, seen=self._see(Where.REVEAL))

    def hint(self) -> Step:
        """Show one more hint (``hints`` 0: the question has none).  A hint is part of the record
        from the moment it is shown: Ctrl+R or a restart keeps it."""
        hints = self.question.hints
        if not hints:
            return Step(Happened.HINT, self.mode)
        shown = min(self.encounter.hints_used + 1, len(hints))
        self.acted = True
        if not self.revealed:
            self.encounter.hint_shown(shown)
            if self.mode is not Mode.PRACTICE:
                self.progress.hint(self.lesson.id, self.question.id, shown, self.mode, self.allowed)
        return Step(Happened.HINT, self.mode, hints=shown, seen=self._see(Where.HINT, shown))

    def prompt_shown(self) -> tuple[int, ...]:
        """The prompt is on screen with its live numbers (and the hints already used): the untried
        questions whose answer they write are resolved as not got (tutor.session.look_ahead)."""
        return tuple(sorted(set(self._see(Where.PROMPT)) | set(self._see(Where.HINT, self.hints_shown))))

    def _see(self, where: Where, hints: int = 0) -> tuple[int, ...]:
        """Apply the look-ahead rule to what ``where`` shows now; the questions it resolved."""
        if self.look_ahead is None:
            return ()
        resolved = set()
        questions = self.lesson.questions
        for sight in self.look_ahead.shown(self.index, where, hints):
            if sight.question in resolved or any(self._tried(questions[m]) for m in self.look_ahead.excused_by(sight)):
                continue
            other = questions[sight.question]
            if self.progress.answer_seen(self.lesson.id, other.id, self.question.id, where.value,
                                         allowed_attempts(other, self.lesson.attempts)):
                resolved.add(sight.question)
        return tuple(sorted(resolved))

    def _tried(self, question) -> bool:
        """A scored try was made: the learner predicted that answer themselves."""
        record = self.progress.store.question_record(self.lesson.id, question.id)
        return record is not None and record.tries > 0

    @property
    def hints_shown(self) -> int:
        return min(self.encounter.hints_used, len(self.question.hints))
