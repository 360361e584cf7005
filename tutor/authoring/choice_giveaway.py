"""Does the right choice stand out by its length?

A learner who cannot tell the options apart picks the one that explains itself: when only the
right choice carries a justification ("only the pad queries: a real query comes before every
pad, and the causal mask already hides later positions" against "none at all"), it is the
longest by far.  Measured on the 47 built-in choice questions: a right choice more than twice
as long as the longest wrong one, and longer than 40 characters, was always the only one that
carried a reason; below that, choices of different lengths are ordinary (a number against a
sentence, a short answer among short answers).  A warning, not an error: the author decides.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.common.i18n import M_
from tutor.live.leaks import question_label
from tutor.grading.kinds.choice import ChoiceQuestion

RATIO = 2.0          # the right choice against the longest wrong one
MIN_CHARS = 40       # shorter than this, a difference in length is no tell


@dataclass(frozen=True)
class LongRightChoice:
    index: int          # the question
    choice: int         # the right choice, for this model
    length: int
    longest_wrong: int

    def message(self, lesson) -> str:
        question = lesson.questions[self.index]
        return M_("the right choice of {question} is {length} characters, more than {ratio}x the longest wrong one "
                  "({longest}): a learner can pick it by its length; give every choice the same form (each with its "
                  "reason, or none), and keep the reason for the reveal", question=question_label(self.index, question.id),
                  length=self.length, ratio=format(RATIO, "g"), longest=self.longest_wrong)


def long_right_choices(lesson, truths: dict[int, object]) -> list[LongRightChoice]:
    """Choice questions whose right choice (``truths[i].value`` on the live model) stands out by length."""
    found = []
    for index, truth in sorted(truths.items()):
        question = lesson.questions[index]
        if not isinstance(question, ChoiceQuestion) or len(question.choices) < 2:
            continue
        right = int(truth.value)
        lengths = [len(choice.strip()) for choice in question.choices]
        longest_wrong = max(length for i, length in enumerate(lengths) if i != right)
        if lengths[right] > MIN_CHARS and lengths[right] > RATIO * longest_wrong:
            found.append(LongRightChoice(index, right, lengths[right], longest_wrong))
    return found
