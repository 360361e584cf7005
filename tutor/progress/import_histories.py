"""A version-3 export's records checked against its own answers, before anything is written.

Why: the app writes a try and its record in one transaction, so a file whose record disagrees with
its answers was edited (an earlier ``updated``, a first_try after a wrong try, a record with 100
tries and no answers: 2026-12-adversary.md F3).  Such a file is refused naming the question.
"""
from __future__ import annotations

from tutor.common.i18n import M_
from tutor.common.safe_text import neutralise
from tutor.grading.attempts import Outcome
from tutor.progress.records import Mode, QuestionRecord


def check_histories(answers: list[tuple], question_records: list[QuestionRecord], fail) -> tuple[tuple[str, str], ...]:
    """A version-3 file's records must be what its own answers say (the app writes both in one
    transaction): a record with more tries than scored answers, or right with no right answer, or
    right first time after a wrong one, is made up; so are scored or review answers with no record,
    and two scored tries with one attempt number.  Refused, naming the question, before anything is written.

    Returns the questions that have only practice answers and no record in the file: the import
    refuses them unless the store has their record (practice after a resolution exported from a home
    that is imported back in parts).  The app writes every try with its record, so 30 practice rows
    with none were made up, and they were a 30-day streak (closing note of issue 29, F3c)."""
    scored: dict[tuple[str, str], list[tuple]] = {}
    practised: set[tuple[str, str]] = set()
    for row in sorted(answers, key=lambda row: row[0]):
        if row[8] == Mode.PRACTICE.value:
            practised.add((row[1], row[2]))
        else:
            scored.setdefault((row[1], row[2]), [])
        if row[8] == Mode.SCORED.value:
            scored[(row[1], row[2])].append(row)
    recorded = {(r.lesson_id, r.question_id): r for r in question_records}
    for (lesson_id, question_id), rows in scored.items():
        named = _named(lesson_id, question_id)
        if (lesson_id, question_id) not in recorded:
            raise fail(M_("answers for {question} have no record of that question", question=named))
        attempts = [row[7] for row in rows]
        if len(set(attempts)) != len(attempts):
            repeated = next(a for a in attempts if attempts.count(a) > 1)
            raise fail(M_("{question} has two scored answers numbered attempt {attempt}", question=named,
                          attempt=repeated))
    for (lesson_id, question_id), record in recorded.items():
        rows = scored.get((lesson_id, question_id), [])
        named = _named(lesson_id, question_id)
        right = [bool(row[4]) for row in rows]
        if record.tries > len(rows):
            raise fail(M_("the record of {question} counts {tries} tries but the file has {count} scored answers for "
                          "it", question=named, tries=record.tries, count=len(rows)))
        if record.outcome in (Outcome.FIRST_TRY, Outcome.AFTER_RETRY) and not any(right):
            raise fail(M_("the record of {question} says it was answered right, but none of its scored answers is",
                          question=named))
        if record.outcome is Outcome.FIRST_TRY and not right[0]:
            raise fail(M_("the record of {question} says right first time, but its first scored answer is wrong",
                          question=named))
    return tuple(sorted(key for key in practised - recorded.keys() - scored.keys()))


def refuse_unrecorded(unrecorded, has_record, fail) -> None:
    """Practice answers whose question has no record in the file must find one in the store."""
    for lesson_id, question_id in unrecorded:
        if not has_record(lesson_id, question_id):
            raise fail(M_("answers for {question} have no record of that question",
                          question=_named(lesson_id, question_id)))


def _named(lesson_id: str, question_id: str) -> str:
    return f"{neutralise(lesson_id, keep='')}/{neutralise(question_id, keep='')}"
