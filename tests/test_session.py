"""The question loop's rules, tested on the question session directly (no Textual, no model):
each test is a route a learner can take (2026-12-adversary.md and issue 19), in milliseconds.

Before the session existed these rules lived in the lesson screen, and F9 (a stale screen) was
broken: a second app instance drew a plain ✓ for a try the store had recorded as practice, and
"1 try left" after the question was resolved.
"""
from __future__ import annotations

from datetime import timedelta

from session_helpers import T0, TENSORS_LESSON, Clock, service, session, tensors_live

from tutor.grading.attempts import Outcome
from tutor.progress.records import Mode
from tutor.session.question import Happened

LIVE = tensors_live()
LESSON = TENSORS_LESSON.id


def record_of(progress, question_id="embed-shape"):
    return progress.store.question_record(LESSON, question_id)


def test_a_right_first_answer_is_first_try_and_reveals():
    progress = service()
    step = session(progress, 0).submit("(2, 4, 8)", LIVE)
    assert step.happened is Happened.RIGHT and step.mode is Mode.SCORED and step.revealed
    assert record_of(progress).outcome is Outcome.FIRST_TRY


def test_wrong_tries_count_down_then_the_last_one_reveals():
    progress = service()
    question = session(progress, 0)
    assert [question.submit(text, LIVE).attempts_left for text in ("(2, 4)", "(4, 8)")] == [2, 1]
    last = question.submit("(8, 8)", LIVE)
    assert last.happened is Happened.LAST_WRONG and last.revealed
    assert record_of(progress).outcome is Outcome.MISSED
    assert question.submit("(2, 4, 8)", LIVE).happened is Happened.MOVE_ON   # nothing graded after the reveal


def test_unreadable_text_costs_no_try_and_nothing_is_graded_before_the_tensors():
    progress = service()
    question = session(progress, 0)
    assert question.submit("two by four", LIVE).happened is Happened.UNREADABLE
    assert question.submit("(2, 4, 8)", None).happened is Happened.NOT_READY
    assert record_of(progress) is None and progress.store.answer_count() == 0


def test_every_route_back_to_a_question_continues_its_record():
    """Restart, Escape and reopen, Ctrl+N/B, Ctrl+R, reload, new weights: each opens a new session."""
    progress = service()
    session(progress, 0).submit("(2, 4)", LIVE)
    again = session(progress, 0)
    assert again.mode is Mode.SCORED and again.tried_before and again.encounter.attempts_left == 2
    step = again.submit("(2, 4, 8)", tensors_live(1, 5))   # new sizes, same record
    assert step.happened is Happened.WRONG   # the truth is the new draw's (1, 5, 8)
    assert again.submit("(1, 5, 8)", tensors_live(1, 5)).happened is Happened.RIGHT
    assert record_of(progress).outcome is Outcome.AFTER_RETRY


def test_a_hint_before_the_first_try_makes_a_right_answer_after_retry_and_is_kept():
    progress = service()
    assert session(progress, 0).hint().hints == 1
    again = session(progress, 0)
    assert again.hints_shown == 1
    again.submit("(2, 4, 8)", LIVE)
    assert record_of(progress).outcome is Outcome.AFTER_RETRY


def test_give_up_is_not_got_and_typing_the_revealed_answer_after_is_practice():
    """F2's first half, in the app: give up, reopen, type the revealed answer."""
    progress = service()
    step = session(progress, 0).give_up(LIVE)
    assert step.happened is Happened.GAVE_UP and step.truth.display.endswith("(2, 4, 8)")
    reopened = session(progress, 0)
    assert reopened.mode is Mode.PRACTICE
    practice = reopened.submit("(2, 4, 8)", LIVE)
    assert practice.happened is Happened.RIGHT and practice.mode is Mode.PRACTICE
    assert record_of(progress).outcome is Outcome.MISSED
    assert [a.mode for a in progress.store.answers()] == [Mode.PRACTICE]


def test_a_stale_session_draws_what_the_store_recorded(tmp_path):
    """F9 / reliability row 31: two app instances on one home, both on one question."""
    clock = Clock()
    first, second = service(tmp_path, clock), service(tmp_path, clock)
    a, b = session(first, 0), session(second, 0)
    assert a.submit("(2, 4)", LIVE).attempts_left == 2
    assert b.submit("(4, 8)", LIVE).attempts_left == 1     # the store's attempt 2, not b's first
    last = a.submit("(8, 8)", LIVE)                         # attempt 3: resolved
    assert last.happened is Happened.LAST_WRONG
    stale = b.submit("(2, 4, 8)", LIVE)                    # b still showed "1 try left"
    assert stale.happened is Happened.RIGHT and stale.mode is Mode.PRACTICE   # labelled practice, as stored
    record = record_of(first)
    assert (record.outcome, record.tries) == (Outcome.MISSED, 3)
    assert [(x.attempt, x.mode) for x in first.store.answers()][:3] == [
        (1, Mode.SCORED), (2, Mode.SCORED), (3, Mode.SCORED)]
    assert first.store.answers()[3].mode is Mode.PRACTICE


def test_wrong_in_one_instance_then_right_in_the_other_is_after_retry(tmp_path):
    clock = Clock()
    first, second = service(tmp_path, clock), service(tmp_path, clock)
    a, b = session(first, 0), session(second, 0)
    a.submit("(2, 4)", LIVE)
    step = b.submit("(2, 4, 8)", LIVE)
    assert step.happened is Happened.RIGHT and step.mode is Mode.SCORED
    assert record_of(first).outcome is Outcome.AFTER_RETRY


def test_a_give_up_in_a_stale_session_after_a_resolution_elsewhere_changes_nothing(tmp_path):
    clock = Clock()
    first, second = service(tmp_path, clock), service(tmp_path, clock)
    a, b = session(first, 0), session(second, 0)
    a.submit("(2, 4, 8)", LIVE)
    assert b.give_up(LIVE).happened is Happened.GAVE_UP
    assert record_of(first).outcome is Outcome.FIRST_TRY


def test_review_rates_a_due_card_once_and_continues_it_across_sessions():
    """Held routes 2 and 3: a wrong try in review, Ctrl+R or a restart, then right: Hard."""
    clock = Clock()
    progress = service(clock=clock)
    session(progress, 0).give_up(LIVE)                     # not got: a card due in minutes
    clock.now += timedelta(days=1)
    review = session(progress, 0, wanted=Mode.REVIEW)
    assert review.mode is Mode.REVIEW
    assert review.submit("(2, 4)", LIVE).attempts_left == 2
    again = session(progress, 0, wanted=Mode.REVIEW)       # a restart mid-review
    assert again.mode is Mode.REVIEW and again.encounter.attempts_left == 2
    assert again.submit("(2, 4, 8)", LIVE).mode is Mode.REVIEW
    after = session(progress, 0, wanted=Mode.REVIEW)       # rated: practice now
    assert after.mode is Mode.PRACTICE
    roles = [(o.role.value, o.outcome) for o in progress.store.outcomes()]
    assert roles == [("score", Outcome.MISSED), ("review", Outcome.AFTER_RETRY)]


def test_practising_a_due_card_in_its_lesson_moves_nothing():
    """Held route 4."""
    clock = Clock()
    progress = service(clock=clock)
    session(progress, 0).give_up(LIVE)
    due = progress.store.card(LESSON, "embed-shape").due
    clock.now += timedelta(days=1)
    step = session(progress, 0).submit("(2, 4, 8)", LIVE)   # in the lesson, not in Review
    assert step.mode is Mode.PRACTICE and progress.store.card(LESSON, "embed-shape").due == due


def test_a_choice_allows_one_try_fewer_than_its_options():
    from session_helpers import journey_lesson

    progress = service()
    pick = session(progress, 1, lesson=journey_lesson())
    assert pick.allowed == 1
    assert pick.submit("b", LIVE).happened is Happened.LAST_WRONG


def test_a_try_stamped_before_the_last_one_is_stored_after_it(tmp_path):
    """Reliability rows 19 and 29: two instances read their clocks before the write lock, so the
    second try to commit could carry the earlier time; before, its answer row sorted first."""
    from tutor.progress.records import Answer
    from tutor.progress.store import ProgressStore

    with ProgressStore(tmp_path) as store:
        store.record(Answer(LESSON, "embed-shape", "(2, 4)", False, 0, T0 + timedelta(milliseconds=3)))
        second, record = store.record(Answer(LESSON, "embed-shape", "(2, 4, 8)", True, 0, T0))   # its clock 3 ms behind
        answers = store.answers()
    assert [a.attempt for a in sorted(answers, key=lambda a: a.timestamp)] == [1, 2]
    assert second.timestamp > T0 + timedelta(milliseconds=3) and record.outcome is Outcome.AFTER_RETRY


def test_grading_writes_nothing_and_the_record_step_stores_the_verdict():
    """Issue 30: the grade step runs off the UI thread, so it must not touch the store."""
    progress = service()
    question = session(progress, 0)
    graded = question.grade("(2, 4, 8)", LIVE)
    assert graded.correct and record_of(progress) is None and progress.store.answers() == []
    step = question.record(graded)
    assert step.happened is Happened.RIGHT and record_of(progress).outcome is Outcome.FIRST_TRY


def test_a_verdict_arriving_after_a_give_up_records_nothing():
    progress = service()
    question = session(progress, 0)
    graded = question.grade("(2, 4)", LIVE)   # graded in the worker while the learner presses Ctrl+G
    question.give_up(LIVE)
    assert question.record(graded).happened is Happened.NOTHING
    assert [answer.attempt for answer in progress.store.answers() if answer.text == "(2, 4)"] == []


def test_a_verdict_is_never_recorded_on_another_question():
    import pytest

    progress = service()
    graded = session(progress, 0).grade("(2, 4, 8)", LIVE)
    with pytest.raises(ValueError):
        session(progress, 1).record(graded)
    assert record_of(progress) is None and record_of(progress, "one-token") is None


def test_unreadable_text_is_graded_as_said_and_never_recorded():
    progress = service()
    question = session(progress, 0)
    graded = question.grade("two by four", LIVE)
    assert question.record(graded).happened is Happened.UNREADABLE and progress.store.answers() == []


def test_hints_and_a_give_up_go_on_while_a_grade_is_still_running(monkeypatch):
    """The screen stays live while an answer is graded (adversary F5: a formula's grade froze the app for
    70 s): the grade step shares no lock with what the UI thread does meanwhile.  Without Pilot or the
    clock: the kind's grade is held on an event in a real thread while this thread shows a hint and
    gives up; then the held verdict arrives and records nothing (its question was given up meanwhile)."""
    import threading

    import tutor.session.question as module

    started, release, graded = threading.Event(), threading.Event(), []
    real_grade = module.grade

    def held_grade(*args, **kwargs):
        started.set()
        assert release.wait(10), "the test never released the grade"
        return real_grade(*args, **kwargs)

    monkeypatch.setattr(module, "grade", held_grade)
    progress = service()
    question = session(progress, 0)
    worker = threading.Thread(target=lambda: graded.append(question.grade("(2, 4, 8)", LIVE)))
    worker.start()
    try:
        assert started.wait(10)
        assert question.hint().hints == 1 and record_of(progress).hints == 1      # written while grading
        assert question.give_up(LIVE).happened is Happened.GAVE_UP
        assert record_of(progress).outcome is Outcome.MISSED and worker.is_alive()
    finally:
        release.set()
        worker.join(10)
    assert graded[0].correct and question.record(graded[0]).happened is Happened.NOTHING
    assert progress.store.answers() == []
