"""Writing progress in tests the way the app does: through ProgressStore.record and the record's rules."""
from datetime import datetime, timezone

from tutor.grading.attempts import Outcome
from tutor.progress.records import Answer, Mode


def answer_once(store, lesson_id, question_id, text, correct, hints_used=0, variant=None, now=None,
                mode=Mode.SCORED):
    """One try at a question that allows one: it resolves an unseen question (right, right after a
    hint, or not got); a resolved one makes it practice. Returns the stored answer."""
    now = now or datetime.now(timezone.utc)
    stored, _record = store.record(Answer(lesson_id, question_id, text, correct, hints_used, now, variant,
                                          mode=mode, tries_allowed=1))
    return stored


def resolve(store, lesson_id, question_id, outcome, now, mode=Mode.SCORED, hints_used=0):
    """Play the tries that end a question (or a due card's review) with ``outcome``; returns the record."""
    outcome = Outcome(outcome)
    if outcome is Outcome.MISSED:
        return store.record_give_up(lesson_id, question_id, mode, 3, None, now)
    if outcome is Outcome.AFTER_RETRY:
        store.record(Answer(lesson_id, question_id, "wrong", False, hints_used, now, mode=mode))
    return store.record(Answer(lesson_id, question_id, "right", True, hints_used, now, mode=mode))[1]
