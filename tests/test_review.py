"""The review schedule: what comes back, when, and how it is stored."""
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from tutor.progress.store import ProgressStore
from tutor.progress.review import MIN_EASE, RELEARN_DELAY, CardState, schedule_after_answer

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def test_right_first_time_without_hints_never_becomes_a_card():
    assert schedule_after_answer(None, correct=True, hints_used=0, now=T0) is None


def test_missed_is_due_soon():
    card = schedule_after_answer(None, correct=False, hints_used=0, now=T0)
    assert card is not None
    assert T0 < card.due <= T0 + RELEARN_DELAY
    assert card.reps == 0 and card.interval_days == 0


def test_right_with_hints_still_comes_back():
    card = schedule_after_answer(None, correct=True, hints_used=2, now=T0)
    assert card is not None and card.due == T0 + DAY


def test_intervals_grow_while_right_then_lapse_when_missed():
    card = schedule_after_answer(None, False, 0, T0)
    intervals, now = [], T0
    for _ in range(4):
        now = card.due
        card = schedule_after_answer(card, True, 0, now)
        intervals.append(card.interval_days)
    assert intervals[:2] == [1.0, 6.0]
    assert intervals == sorted(intervals) and len(set(intervals)) == 4
    ease_before = card.ease
    now = card.due
    lapsed = schedule_after_answer(card, False, 0, now)
    assert lapsed.lapses == card.lapses + 1
    assert lapsed.reps == 0 and lapsed.interval_days == 0
    assert lapsed.due == now + RELEARN_DELAY
    assert lapsed.ease < ease_before
    # after a lapse the ladder restarts from one day
    assert schedule_after_answer(lapsed, True, 0, lapsed.due).interval_days == 1.0


def test_hints_lower_ease_compared_with_clean_answer():
    card = CardState(due=T0, interval_days=6.0, ease=2.5, reps=2)
    clean = schedule_after_answer(card, True, 0, T0)
    hinted = schedule_after_answer(card, True, 1, T0)
    assert hinted.ease < card.ease < clean.ease
    assert hinted.due < T0 + timedelta(days=6.0 * clean.ease)


def test_reanswering_before_due_does_not_inflate_interval():
    card = schedule_after_answer(schedule_after_answer(None, False, 0, T0), True, 0, T0 + timedelta(minutes=1))
    assert card.interval_days == 1.0
    again = schedule_after_answer(card, True, 0, T0 + timedelta(minutes=2))
    assert again == card


def test_ease_never_falls_below_floor():
    card = None
    for i in range(30):
        card = schedule_after_answer(card, False, 3, T0 + i * DAY)
    assert card.ease == MIN_EASE


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 40 * 24 * 60)), max_size=25))
def test_schedule_invariants(answers):
    card, now = None, T0
    for correct, hints, gap_minutes in answers:
        now += timedelta(minutes=gap_minutes)
        card = schedule_after_answer(card, correct, hints, now)
        if card is None:
            continue
        assert card.ease >= MIN_EASE
        assert card.interval_days >= 0
        assert card.due > now
        if not correct:
            assert card.due == now + RELEARN_DELAY


def test_store_schedules_cards_on_record(tmp_path):
    with ProgressStore(tmp_path) as store:
        store.record_answer("attn", "q1", "3", correct=True, now=T0)
        store.record_answer("attn", "q2", "wrong", correct=False, now=T0)
        store.record_answer("attn", "q3", "4x4", correct=True, hints_used=1, now=T0)
        assert store.card("attn", "q1") is None
        assert store.due_count(T0) == 0
        assert store.next_due() == T0 + RELEARN_DELAY
        soon = T0 + RELEARN_DELAY
        assert [(c.lesson_id, c.question_id) for c in store.due_cards(soon)] == [("attn", "q2")]
        later = T0 + 2 * DAY
        assert [c.question_id for c in store.due_cards(later)] == ["q2", "q3"]  # most overdue first
        store.record_answer("attn", "q2", "right", correct=True, now=later)
        assert store.card("attn", "q2").interval_days == 1.0
        assert store.due_count(later) == 1
    with ProgressStore(tmp_path) as reopened:  # cards persist
        assert reopened.card("attn", "q2").interval_days == 1.0
