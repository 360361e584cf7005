"""The look-ahead rule on the question session (issue 29, 2026-12-adversary.md F1): what a
question's screen shows of an untried question's answer makes that question not got (answer
seen); skipping costs nothing.  Milliseconds each: numpy tensors of la-tensors' shapes, no model.

Before: Ctrl+N ×3, Ctrl+G on question 4 (its reveal writes (B, L, D) = (2, 4, 8)), Ctrl+B ×3,
then (2,4,8) was "right first time" on question 1.
"""
from __future__ import annotations

from session_helpers import FIXTURE_LESSONS, TENSORS_LESSON, lesson_from, service, session, tensors_live

from tutor.grading.attempts import Outcome
from tutor.progress.records import Mode
from tutor.session.look_ahead import Sight, Where, look_ahead
from tutor.session.question import Happened

LIVE = tensors_live()
AHEAD = look_ahead(TENSORS_LESSON, LIVE)
LESSON = TENSORS_LESSON.id


def outcomes(progress, lesson=TENSORS_LESSON):
    records = {r.question_id: r for r in progress.store.question_records(lesson.id)}
    return [records[q.id].outcome if q.id in records else None for q in lesson.questions]


def shown(progress, index, lesson=TENSORS_LESSON, ahead=AHEAD, wanted=Mode.SCORED):
    """A question drawn with its live numbers, as the lesson screen draws it."""
    question = session(progress, index, lesson=lesson, wanted=wanted)
    question.look_ahead = ahead
    return question, question.prompt_shown()


def test_the_analysis_finds_both_directions_on_la_tensors():
    assert Sight(3, Where.REVEAL, 0) in AHEAD.sights      # question 4's reveal: shape (2, 4, 8), question 1's answer
    assert Sight(2, Where.REVEAL, 1) in AHEAD.sights      # question 3's reveal embed[0, 0]: (8,), question 2's


def test_route_1_skip_ahead_give_up_and_come_back_is_not_first_try():
    progress = service()
    for index in range(3):                                # Ctrl+N ×3: nothing recorded
        assert shown(progress, index)[1] == ()
    assert outcomes(progress) == [None, None, None, None] and progress.store.answer_count() == 0
    q4, _ = shown(progress, 3)
    step = q4.give_up(LIVE)
    assert step.seen == (0,)                              # the screen says so at the reveal
    q1, _ = shown(progress, 0)                            # Ctrl+B ×3
    assert q1.mode is Mode.PRACTICE and q1.seen_in == ("symbolic", "reveal")
    right = q1.submit("(2,4,8)", LIVE)
    assert right.happened is Happened.RIGHT and right.mode is Mode.PRACTICE
    assert outcomes(progress)[0] is Outcome.MISSED and outcomes(progress)[3] is Outcome.MISSED
    assert progress.store.card(LESSON, "embed-shape") is not None   # a review card, like any not got


def test_a_question_tried_before_the_reveal_keeps_its_record_and_tries():
    progress = service()
    shown(progress, 0)[0].submit("(2, 4)", LIVE)          # one wrong try, then skip ahead
    assert shown(progress, 3)[0].give_up(LIVE).seen == ()
    again, _ = shown(progress, 0)
    assert again.mode is Mode.SCORED and again.encounter.attempts_left == 2 and again.seen_in is None


def test_answering_in_order_resolves_nothing():
    progress = service()
    for index, text in enumerate(["(2, 4, 8)", "(8,)", "64", "(B, L, D)"]):
        question, seen = shown(progress, index)
        step = question.submit(text, LIVE)
        assert (seen, step.happened, step.seen) == ((), Happened.RIGHT, ())
    assert outcomes(progress) == [Outcome.FIRST_TRY] * 4


def test_skipping_a_question_whose_answer_a_later_reveal_shows_makes_it_not_got():
    progress = service()
    shown(progress, 0)[0].submit("(2, 4, 8)", LIVE)
    shown(progress, 1)                                    # Ctrl+N past question 2
    assert shown(progress, 2)[0].submit("64", LIVE).seen == (1,)   # question 3's reveal shows (8,)
    assert outcomes(progress)[1] is Outcome.MISSED


def stating(prompt_or_hint: str):
    """la-tensors with question 2's prompt (or its hint) stating question 1's answer, as
    nu-grad-clipping's question 2 states question 1's factor."""
    text = (FIXTURE_LESSONS / "fixture-tensors.yaml").read_text(encoding="utf-8")
    old = ('"Now pick one token: embed[0, 1] (row 0, position 1). What is its shape?"' if prompt_or_hint == "prompt"
           else '"Which of embed\'s three indices does embed[0, 1] leave free?"')
    assert old in text
    return lesson_from(text.replace(old, '"embed has shape (2, 4, 8); ' + old[1:]), "fixture-tensors.yaml")


def test_a_later_prompt_that_states_an_earlier_answer_makes_the_untried_one_not_got():
    lesson = stating("prompt")
    ahead = look_ahead(lesson, LIVE)
    assert Sight(1, Where.PROMPT, 0) in ahead.sights
    progress = service()
    _q2, seen = shown(progress, 1, lesson, ahead)         # Ctrl+N from question 1: its prompt is read
    assert seen == (0,) and outcomes(progress, lesson)[0] is Outcome.MISSED
    tried = service()
    shown(tried, 0, lesson, ahead)[0].submit("(2, 4, 8)", LIVE)
    assert shown(tried, 1, lesson, ahead)[1] == ()        # in order: question 1 was tried first
    assert outcomes(tried, lesson)[0] is Outcome.FIRST_TRY


def test_a_hint_that_states_an_earlier_answer_counts_when_it_is_shown():
    lesson = stating("hint")
    ahead = look_ahead(lesson, LIVE)
    progress = service()
    question, seen = shown(progress, 1, lesson, ahead)
    assert seen == () and outcomes(progress, lesson)[0] is None   # the hint is not on screen yet
    step = question.hint()
    assert step.hints == 1 and step.seen == (0,)
    assert outcomes(progress, lesson)[0] is Outcome.MISSED


def test_a_reveal_in_review_applies_the_rule_to_the_rest_of_the_lesson():
    progress = service()
    shown(progress, 3)[0].submit("(B, L)", LIVE)          # question 4 tried, wrong: not yet revealed
    assert outcomes(progress)[0] is None
    for _ in range(2):
        shown(progress, 3)[0].submit("(B, L)", LIVE)      # the last try reveals: question 1 answer seen
    assert outcomes(progress)[0] is Outcome.MISSED
    progress.clock.now += __import__("datetime").timedelta(days=2)
    review, _ = shown(progress, 3, wanted=Mode.REVIEW)
    assert review.mode is Mode.REVIEW
    assert review.give_up(LIVE).seen == ()               # question 1 is resolved already: nothing more
