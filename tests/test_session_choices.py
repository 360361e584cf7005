"""Choices are shuffled per learner (issue 29, 2026-12-adversary.md: 24 of the 42 fixed answers
were b, so typing b scored 57%, and a card came back in Review in the same order).  The order is
seeded by the learner's id (made once per home) and the question, never the clock; a letter typed
names the option in the order shown; ``pin_last`` keeps "none of these" last.  Before: every
learner saw the author's order."""
from __future__ import annotations

import random
from types import SimpleNamespace

from journey_helpers import LESSON as JOURNEY
from session_helpers import lesson_from, service, session

from tutor.grading.kinds import kind_of
from tutor.grading.quiz import grade, truth_for
from tutor.progress.records import Mode
from tutor.session.question import Happened

LESSON = JOURNEY.split("questions:")[0].replace("id: zz-journey", "id: zz-choices") + """\
questions:
  - id: five
    kind: choice
    prompt: "Which is right?"
    choices: ["zero", "one", "two", "three", "none of these"]
    answer: 2
    pin_last: true
"""
CHOICES = lesson_from(LESSON, "zz-choices.yaml")
QUESTION = CHOICES.questions[0]


def order_for(learner: str) -> list[str]:
    question = kind_of(QUESTION).in_learner_order(QUESTION, random.Random(f"{learner}/zz-choices/five"))
    return [pick.text for pick in kind_of(question).options(question)]


def test_the_order_is_the_learners_own_and_none_of_these_stays_last():
    orders = {tuple(order_for(f"learner{n}")) for n in range(40)}
    assert len(orders) > 10                                 # learners see different orders
    assert all(order[-1] == "none of these" for order in orders)
    assert order_for("learner1") == order_for("learner1")   # and each keeps theirs


def test_a_letter_names_the_option_in_the_order_shown_in_the_lesson_and_in_review(tmp_path):
    progress = service(tmp_path)
    question = session(progress, 0, lesson=CHOICES)
    shown = question.options()
    right = next(pick for pick in shown if pick.text == "two")
    wrong = next(pick for pick in shown if pick.text == "one")
    assert shown[-1].text == "none of these"
    live = SimpleNamespace(tensors={}, sizes={}, variant=None, token_labels=[])   # a fixed answer reads none
    assert question.submit(wrong.answer, live).happened is Happened.WRONG
    step = question.submit(right.answer, live)
    assert step.happened is Happened.RIGHT and step.truth.display == f"{right.label}) two"
    again = session(service(tmp_path), 0, lesson=CHOICES, wanted=Mode.REVIEW)   # another run, the same home
    assert [p.text for p in again.options()] == [p.text for p in shown]
    assert progress.learner_id() == service(tmp_path).learner_id()


def test_the_learner_id_is_made_once_per_home_and_not_from_the_clock(tmp_path, monkeypatch):
    made = iter(["first", "second"])
    monkeypatch.setattr("tutor.progress.store.new_learner_id", lambda: next(made))
    assert service(tmp_path / "a").learner_id() == "first" and service(tmp_path / "a").learner_id() == "first"
    assert service(tmp_path / "b").learner_id() == "second"


def test_a_scale_is_shown_in_order_upwards_or_downwards():
    """Ranges shuffled read as a puzzle of their own (an unseen reader found de-temperature-range's
    percentage ranges out of order); ``ordered`` keeps them a scale, as written or reversed, so the truth's
    usual second band is not always b (r8it: 'always b' scored 10 of an it set's 20 choices), and cannot be
    mixed with pin_last."""
    scale = lesson_from(LESSON.replace("pin_last: true", "ordered: true"), "zz-choices.yaml").questions[0]
    written = ["zero", "one", "two", "three", "none of these"]
    seen = set()
    for n in range(20):
        shown = kind_of(scale).in_learner_order(scale, random.Random(f"learner{n}/zz-choices/five"))
        texts = [pick.text for pick in kind_of(shown).options(shown)]
        assert texts in (written, written[::-1])
        seen.add(tuple(texts))
        truth = truth_for(shown, {}, {})
        right = next(pick.answer for pick in kind_of(shown).options(shown) if pick.text == written[scale.answer])
        assert grade(shown, right, truth, {}).correct   # graded by the author's index, whichever end is shown
    assert len(seen) == 2
    import pytest
    from tutor.course.loader import LessonFileError
    with pytest.raises(LessonFileError, match="pin_last"):
        lesson_from(LESSON.replace("pin_last: true", "pin_last: true\n    ordered: true"), "zz-choices.yaml")
