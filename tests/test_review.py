"""The review schedule (FSRS): what comes back, when, and how it is stored."""
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from progress_helpers import resolve
from tutor.progress.records import Answer, Mode
from tutor.grading.attempts import Outcome
from tutor.progress.review import RATINGS, schedule_after_outcome
from tutor.progress.store import ProgressStore

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
GOOD, HARD, AGAIN = Outcome.FIRST_TRY, Outcome.AFTER_RETRY, Outcome.MISSED


def test_outcomes_map_to_good_hard_again():
    assert [RATINGS[o].name for o in (GOOD, HARD, AGAIN)] == ["Good", "Hard", "Again"]


def test_right_first_time_on_a_new_question_never_becomes_a_card():
    assert schedule_after_outcome(None, GOOD, T0) is None


def test_missed_comes_back_in_the_same_sitting():
    card = schedule_after_outcome(None, AGAIN, T0)
    assert T0 < card.due <= T0 + timedelta(minutes=10)


def test_harder_outcomes_come_back_sooner():
    missed = schedule_after_outcome(None, AGAIN, T0)
    later = missed.due + DAY
    dues = [schedule_after_outcome(missed, outcome, later).due for outcome in (AGAIN, HARD, GOOD)]
    assert dues == sorted(dues) and len(set(dues)) == 3


def test_intervals_grow_while_right_first_time():
    card, now, gaps = schedule_after_outcome(None, HARD, T0), T0, []
    for _ in range(5):
        now = card.due
        card = schedule_after_outcome(card, GOOD, now)
        gaps.append(card.due - now)
    assert gaps[-1] > 10 * DAY and gaps[-3:] == sorted(gaps[-3:])


def test_same_history_same_schedule():
    """No fuzzing: replaying a history (import, migration) gives exactly the live app's card."""
    def run():
        card = None
        for i, outcome in enumerate((AGAIN, HARD, GOOD, GOOD)):
            card = schedule_after_outcome(card, outcome, T0 + i * DAY)
        return card
    assert run() == run()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Outcome)), st.integers(0, 40 * 24 * 60)), max_size=20))
def test_schedule_invariants(outcomes):
    card, now = None, T0
    for outcome, gap_minutes in outcomes:
        now += timedelta(minutes=gap_minutes)
        card = schedule_after_outcome(card, outcome, now)
        if card is not None:
            assert card.due > now


def test_store_schedules_cards_on_resolutions_and_reviews_not_on_tries_or_practice(tmp_path):
    with ProgressStore(tmp_path) as store:
        store.record(Answer("attn", "q2", "wrong", False, 0, T0))
        assert store.card("attn", "q2") is None          # an open question does not move review
        resolve(store, "attn", "q2", AGAIN, T0)
        resolve(store, "attn", "q1", GOOD, T0)
        resolve(store, "attn", "q3", HARD, T0)
        assert store.card("attn", "q1") is None
        reviews = store.due_reviews(T0)
        assert reviews.due == [] and T0 < reviews.next_due <= T0 + timedelta(minutes=10)
        practice, _ = store.record(Answer("attn", "q2", "right", True, 0, T0 + timedelta(minutes=1)))
        assert practice.mode is Mode.PRACTICE and store.due_reviews(T0).next_due == reviews.next_due
        later = T0 + 2 * DAY
        assert [c.question_id for c in store.due_reviews(later).due] == ["q2", "q3"]  # most overdue first
        resolve(store, "attn", "q2", GOOD, later, mode=Mode.REVIEW)
        assert store.card("attn", "q2").due > later
        # rated once: a second right answer in the same review is practice and moves nothing
        due = store.card("attn", "q2").due
        again, _ = store.record(Answer("attn", "q2", "right", True, 0, later, mode=Mode.REVIEW))
        assert again.mode is Mode.PRACTICE and store.card("attn", "q2").due == due
        assert [o.role.value for o in store.outcomes() if o.question_id == "q2"] == ["score", "review"]
    with ProgressStore(tmp_path) as reopened:  # cards persist
        assert reopened.card("attn", "q2").due == due


def test_orphan_cards_are_counted_and_never_offered(tmp_path):
    with ProgressStore(tmp_path) as store:
        resolve(store, "kept", "q", AGAIN, T0)
        resolve(store, "removed", "q", AGAIN, T0)
        reviews = store.due_reviews(T0 + DAY, lambda lesson_id, question_id: lesson_id == "kept")
        assert [c.lesson_id for c in reviews.due] == ["kept"] and reviews.orphans == 1
