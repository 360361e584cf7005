"""The look-ahead rule for the dashboard's Sample tab: a distribution shown is an answer seen.

Why: the Sample tab prints, for each generated token, the model's next-token distribution before
and after the strategy's filters.  Run on the open lesson's own text with the lesson's own model,
it shows what that lesson asks: de-top-k-top-p's kept tokens and their renormalised
probabilities (questions 2 and 3), de-greedy's greedy token (2026-12-adversary.md F4).  So, as
with a later question's reveal (tutor.session.look_ahead), a run of the Sample tab that shows the
distribution after exactly the lesson's text resolves the lesson's untried questions that read
the model's next-token output as not got (answer seen), and the learner is told at once.
Sampling any other text, or with another model, or before opening the lesson, costs nothing: the
tab stays a calculator.
"""
from __future__ import annotations

from collections.abc import Sequence

from tutor.grading.kinds import allowed_attempts, kind_of
from tutor.progress.service import ProgressService

# Experiments whose probes are the model's next-token distribution (or continuation) after the
# lesson's batch row 0: what the Sample tab prints for the same text on the same model.
NEXT_TOKEN_EXPERIMENTS = ("decode", "generate", "next_token", "beam", "decoding_compare")
SAMPLE_TAB = "sample"   # seen_in and where of the note: no question of the lesson showed it


def contexts(prompt: str, tokens: Sequence[str]) -> list[str]:
    """The texts the tab showed a distribution after: the prompt, then each token appended."""
    shown, text = [prompt], prompt
    for token in tokens[:-1]:
        text += token
        shown.append(text)
    return shown


def questions_shown(lesson, shown_after: Sequence[str]) -> list[int]:
    """Indices of the lesson's questions whose answer a distribution after one of ``shown_after``
    writes: the lesson runs the trained model on its batch row 0, that text is among them, and
    the question reads a next-token experiment."""
    rows = lesson.model.rows
    if lesson.model.weights != "trained" or not rows or not isinstance(rows[0], str) or rows[0] not in shown_after:
        return []
    found = []
    for index, question in enumerate(lesson.questions):
        read = list(kind_of(question).reads(question)) + [getattr(question, "show", None) or ""]
        if any(ref.split(".", 1)[0] in NEXT_TOKEN_EXPERIMENTS for ref in read if ref):
            found.append(index)
    return found


def sample_seen(progress: ProgressService, lesson, shown_after: Sequence[str]) -> tuple[int, ...]:
    """Apply the rule: the untried questions this run showed the answer of, now not got."""
    resolved = []
    for index in questions_shown(lesson, shown_after):
        question = lesson.questions[index]
        if progress.answer_seen(lesson.id, question.id, SAMPLE_TAB, SAMPLE_TAB,
                                allowed_attempts(question, lesson.attempts)):
            resolved.append(index)
    return tuple(resolved)
