"""The look-ahead rule for the dashboard's Sample tab: a distribution shown is an answer seen.

Why: the Sample tab prints, for each generated token, the model's next-token distribution before
and after the strategy's filters.  Run on the open lesson's own text with the lesson's own model,
it shows what that lesson asks: de-top-k-top-p's kept tokens and their renormalised
probabilities (questions 2 and 3), de-greedy's greedy token (2026-12-adversary.md F4).  So, as
with a later question's reveal (tutor.session.look_ahead), a run of the Sample tab that shows the
distribution after exactly the lesson's text resolves the lesson's untried questions that read
the model's next-token output as not got (answer seen), and the learner is told at once.
Sampling first and opening the lesson afterwards is the same sight: each run is kept in the store
with the weights' digest (tutor.live.model_identity), and when one of those questions opens on the
very same weights with a run that showed the distribution after exactly its text, the question is
resolved the same way before the learner can try it (:func:`sighted_on_opening`), even after a
restart.  Sampling any other text, or with any other weights, costs nothing: the tab stays a calculator.
"""
from __future__ import annotations

from collections.abc import Sequence

from tutor.grading.kinds import allowed_attempts, kind_of
from tutor.progress.service import ProgressService

# Experiments whose probes are the model's next-token distribution (or continuation) after the
# lesson's batch row 0: what the Sample tab prints for the same text on the same model.
NEXT_TOKEN_EXPERIMENTS = ("decode", "generate", "next_token", "beam", "decoding_compare")
INPUT_ONLY = ("generate.input_greedy",)   # greedy after only the row's digits before '>'
SEPARATOR = ">"
SAMPLE_TAB = "sample"   # seen_in and where of the note: no question of the lesson showed it


def contexts(prompt: str, tokens: Sequence[str]) -> list[str]:
    """The texts the tab showed a distribution after: the prompt, then each token appended."""
    shown, text = [prompt], prompt
    for token in tokens[:-1]:
        text += token
        shown.append(text)
    return shown


def lesson_text(lesson) -> str | None:
    """The text whose next-token distribution the lesson's questions read: its batch row 0, on a
    trained model (the learner's or the shipped text model); None for random weights or token ids."""
    rows = lesson.model.rows
    if lesson.model.weights not in ("trained", "text") or not rows or not isinstance(rows[0], str):
        return None
    return rows[0]


def shows_after(text: str, prompt: str, tokens: Sequence[str]) -> bool:
    """Whether a run from ``prompt`` that appended ``tokens`` showed the distribution after ``text``:
    :func:`contexts` without building every context (a run may append 10,000 tokens)."""
    if not text.startswith(prompt):
        return False
    rest, so_far = text[len(prompt):], ""
    for token in tokens[:-1]:
        if so_far == rest or len(so_far) >= len(rest):
            return so_far == rest
        so_far += token
    return so_far == rest


def questions_shown(lesson, shown_after: Sequence[str]) -> list[int]:
    """Indices of the lesson's questions whose answer a distribution after one of ``shown_after``
    writes: the lesson runs a trained model on its batch row 0, and the question reads a next-token
    experiment after a text among them (:func:`question_texts`)."""
    shown = set(shown_after)
    return [index for index, question in enumerate(lesson.questions) if question_texts(lesson, question) & shown]


def question_texts(lesson, question) -> set[str]:
    """The texts after which the next-token output the question reads comes: the lesson's row 0, or
    for ``generate.input_greedy`` only the row's characters before '>' (tutor.experiments.decoding:
    de-greedy's loop asks what greedy writes after '3142', not after '3142>12')."""
    text = lesson_text(lesson)
    if text is None:
        return set()
    texts = set()
    for ref in list(kind_of(question).reads(question)) + [getattr(question, "show", None) or ""]:
        name = ref.split("[", 1)[0]
        if name.split(".", 1)[0] in NEXT_TOKEN_EXPERIMENTS:
            texts.add(_before_separator(text) if name in INPUT_ONLY else text)
    return texts


def _before_separator(text: str) -> str:
    """As the experiment cuts the row: before its first '>' when one comes after the first character."""
    return text[:text.index(SEPARATOR, 1)] if SEPARATOR in text[1:] else text


def sample_seen(progress: ProgressService, lesson, shown_after: Sequence[str]) -> tuple[int, ...]:
    """Apply the rule: the untried questions this run showed the answer of, now not got."""
    resolved = []
    for index in questions_shown(lesson, shown_after):
        question = lesson.questions[index]
        if progress.answer_seen(lesson.id, question.id, SAMPLE_TAB, SAMPLE_TAB,
                                allowed_attempts(question, lesson.attempts)):
            resolved.append(index)
    return tuple(resolved)


def sighted_on_opening(progress: ProgressService, lesson, index: int, model: str) -> bool:
    """Question ``index`` opens on the weights ``model``: if a Sample run on those weights showed the
    distribution after exactly the text the question reads, and it is untried, it is resolved now as
    not got (answer seen, "in the dashboard's Sample tab").  Returns whether it was."""
    question = lesson.questions[index]
    texts = question_texts(lesson, question) if model else set()
    if not texts:
        return False
    runs = progress.samples_shown(model)
    if not any(shows_after(text, prompt, tokens) for text in texts for prompt, tokens in runs):
        return False
    return progress.answer_seen(lesson.id, question.id, SAMPLE_TAB, SAMPLE_TAB,
                                allowed_attempts(question, lesson.attempts))
