"""One encounter with a question: attempts until a right answer, a give-up, or the last allowed try.

The outcome is what the learner knew on their *first* attempt, because that is what review and
accuracy are about; later attempts only tell right-after-retry from not-got. Nothing is graded
after the reveal, so re-typing a revealed answer can never turn a miss into a success.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from tutor.common.i18n import N_, _

DEFAULT_ATTEMPTS = 3
OUTCOME_LABELS = {"first_try": N_("right first time"), "after_retry": N_("right after retry"), "missed": N_("not got")}


class Outcome(str, Enum):
    """Stored by value in the progress database and exports; the labels are what learners read."""

    FIRST_TRY = "first_try"      # right on the first attempt, no hint before it
    AFTER_RETRY = "after_retry"  # right on a later attempt, or on the first after a hint
    MISSED = "missed"            # gave up, or used every attempt

    @property
    def label(self) -> str:
        return _(OUTCOME_LABELS[self.value])


@dataclass
class Encounter:
    allowed: int = DEFAULT_ATTEMPTS
    results: list[bool] = field(default_factory=list)
    hints_before_first: int = 0
    hints_used: int = 0
    gave_up: bool = False

    @property
    def revealed(self) -> bool:
        return self.gave_up or any(self.results) or len(self.results) >= self.allowed

    @property
    def attempts_left(self) -> int:
        return max(0, self.allowed - len(self.results))

    def hint_shown(self, count: int) -> None:
        self.hints_used = max(self.hints_used, count)
        if not self.results:
            self.hints_before_first = self.hints_used

    def record(self, correct: bool) -> int:
        """Count one graded attempt; returns its 1-based number. Refused after the reveal."""
        if self.revealed:
            raise RuntimeError("this question was already revealed; nothing is graded after the reveal")
        self.results.append(bool(correct))
        return len(self.results)

    def give_up(self) -> None:
        if not self.revealed:
            self.gave_up = True

    @property
    def outcome(self) -> Outcome | None:
        """None until the reveal: an open encounter has no outcome yet."""
        if not self.revealed:
            return None
        if self.results and self.results[0] and self.hints_before_first == 0:
            return Outcome.FIRST_TRY
        return Outcome.AFTER_RETRY if any(self.results) else Outcome.MISSED
