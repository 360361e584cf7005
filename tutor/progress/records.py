"""What is recorded about a learner and one question: the answer value, and the question's record.

Why a record per *question* and not per encounter: every route that shows a question again
(a restart, Escape and reopen, Ctrl+N/Ctrl+B, Ctrl+R, a hot reload, a language switch, new
weights) used to open a fresh encounter, and a fresh encounter is a fresh first attempt. So the
record is the one place the first attempt lives: unseen (no row), open (tries and hints used,
the sizes last answered) and resolved (right first time, right after retry, not got). Once
resolved, answering again is practice and never changes the score; review keeps its own
encounter per due card, keyed by that card's due time, so it too is rated once.

The rules of an encounter are :class:`tutor.grading.attempts.Encounter`'s; a record only says how
far one has gone, so the same rules judge a question whatever the screen did in between.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from tutor.common.safe_text import neutralise
from tutor.grading.attempts import DEFAULT_ATTEMPTS, Encounter, Outcome

# Tabs, newlines and other control whitespace fold to one space: what import accepts is what is stored.
_CONTROL_WHITESPACE = {ord(c): " " for c in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029"}


class Mode(str, Enum):
    """Which figures a graded try can move; stored by value with every answer."""

    SCORED = "scored"      # the question's own record: its first attempt is the score
    REVIEW = "review"      # a due review card's first encounter in a review: moves the schedule
    PRACTICE = "practice"  # anything after those: graded and shown, counted nowhere


class Role(str, Enum):
    """What an outcome row did to the schedule and scores."""

    SCORE = "score"        # the question's resolution (one per question)
    REVIEW = "review"      # a review rating
    LEGACY = "legacy"      # a later encounter from before question records (schema 2): kept for the schedule


def fold_answer(text: str) -> str:
    """Control whitespace (a pasted ``2\\t4\\t8``) becomes spaces, as the grader already reads it."""
    return text.translate(_CONTROL_WHITESPACE)


def storable_answer(text: str) -> str:
    """What the store keeps of a typed answer: folded, and any other control made a visible stand-in,
    so every stored answer is one that import accepts (an export always imports again)."""
    return neutralise(fold_answer(text), keep="")


@dataclass(frozen=True)
class Answer:
    """One graded try, the single value that travels from the screen to the progress store.

    The screen fills what it knows (the text, whether it was right, the hints it showed, the sizes,
    the mode it meant and the tries the question allows); the store decides the stored ``attempt``
    and ``mode`` from the question's record, so no screen can open a fresh first attempt.
    """

    lesson_id: str
    question_id: str
    answer: str
    correct: bool
    hints_used: int
    timestamp: datetime
    variant: str | None = None
    attempt: int = 1
    mode: Mode = Mode.SCORED
    tries_allowed: int = dataclasses.field(default=DEFAULT_ATTEMPTS, compare=False)
    shown_at: datetime | None = dataclasses.field(default=None, compare=False)   # the review log's duration

    @property
    def practice(self) -> bool:
        return self.mode is Mode.PRACTICE


@dataclass(frozen=True)
class OutcomeRecord:
    """An outcome row: a question's resolution (``Role.SCORE``) or a review rating."""

    lesson_id: str
    question_id: str
    outcome: Outcome
    attempts: int
    hints_used: int
    timestamp: datetime
    variant: str | None = None
    role: Role = Role.SCORE
    duration_ms: int | None = None   # from the question's showing to this rating, where known


@dataclass(frozen=True)
class QuestionRecord:
    """One learner x lesson x question. ``outcome`` None means open; ``review_key`` is the due time
    (ISO text) of the card whose review encounter the ``review_*`` counts belong to."""

    lesson_id: str
    question_id: str
    tries: int = 0
    hints: int = 0
    hints_before_first: int = 0
    variant: str | None = None
    outcome: Outcome | None = None
    updated: datetime | None = None
    review_key: str | None = None
    review_tries: int = 0
    review_hints: int = 0
    review_hints_before_first: int = 0

    @property
    def resolved(self) -> bool:
        return self.outcome is not None

    def encounter(self, allowed: int) -> Encounter:
        """The question's scored encounter as far as it has gone (all tries so far were wrong)."""
        return Encounter(allowed, [False] * self.tries, self.hints_before_first, self.hints)

    def review_encounter(self, allowed: int, key: str) -> Encounter:
        """This card's review encounter; a card due at another time starts a fresh one."""
        if self.review_key != key:
            return Encounter(allowed)
        return Encounter(allowed, [False] * self.review_tries, self.review_hints_before_first, self.review_hints)

    def with_encounter(self, encounter: Encounter, variant: str | None, now: datetime) -> QuestionRecord:
        return dataclasses.replace(self, tries=len(encounter.results), hints=encounter.hints_used,
                                   hints_before_first=encounter.hints_before_first, variant=variant,
                                   outcome=encounter.outcome, updated=now)

    def with_review(self, encounter: Encounter, key: str | None) -> QuestionRecord:
        """``key`` None: the review was rated, and the next one starts afresh."""
        if key is None:
            return dataclasses.replace(self, review_key=None, review_tries=0, review_hints=0,
                                       review_hints_before_first=0)
        return dataclasses.replace(self, review_key=key, review_tries=len(encounter.results),
                                   review_hints=encounter.hints_used,
                                   review_hints_before_first=encounter.hints_before_first)


# Worse first: an import may lower a resolution, never raise it.
_RANK = {Outcome.MISSED: 0, Outcome.AFTER_RETRY: 1, Outcome.FIRST_TRY: 2}


def merge_records(mine: QuestionRecord | None, theirs: QuestionRecord,
                  scored: Sequence[bool] = ()) -> QuestionRecord:
    """Two histories of one question (an import), never better than either: a resolved record in the
    store stays (an imported one never replaces it, whatever its ``updated`` says) unless the imported
    one is resolved worse (a give-up or an answer seen before a ``--reset``, then right after it:
    the learner did not get it, whichever history came first); else the imported resolution, else
    the further open one.  ``scored`` is whether each scored try of both histories together was
    right, in time order: when the earliest was wrong the question is not right first time,
    whichever machine resolved it (two wrong tries on one, then right on the other)."""
    if mine is None:
        merged = theirs
    elif mine.resolved and theirs.resolved:
        merged = theirs if _RANK[theirs.outcome] < _RANK[mine.outcome] else mine
    elif mine.resolved or not theirs.resolved:
        merged = mine if mine.resolved or (mine.tries, mine.hints) >= (theirs.tries, theirs.hints) else theirs
    else:
        merged = theirs
    if merged.outcome is Outcome.FIRST_TRY and scored and not scored[0]:
        right = next((i for i, correct in enumerate(scored) if correct), len(scored) - 1)
        merged = dataclasses.replace(merged, outcome=Outcome.AFTER_RETRY, tries=max(merged.tries, right + 1))
    return merged
