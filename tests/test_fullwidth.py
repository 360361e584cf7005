"""Answers typed with a Chinese input method: full-width digits, letters and punctuation."""
import math

import pytest
from hypothesis import given, strategies as st

from textual import events
from textual.keys import _character_to_key

from journey_helpers import graded, open_live_lesson, text_of, wait_for_live
from tutor.grading.answers import AnswerError, parse_choice, parse_number, parse_shape, parse_symbolic_shape, \
    parse_values
from tutor.grading.fullwidth import normalize_answer_text
from tutor.ui.app import TutorApp


@pytest.mark.parametrize("typed", ["（2，2，4，4）", "（２，２，４，４）", "２ｘ２ｘ４ｘ４", "【2　2　4　4】", "2、2、4、4",
                                   "（2，2，4，4）。", "〔2,2,4,4〕"])
def test_full_width_shapes_read_as_their_ascii(typed):
    assert parse_shape(typed) == (2, 2, 4, 4)


@pytest.mark.parametrize("typed, value", [("１／４", 0.25), ("0。25", 0.25), ("－∞", -math.inf), ("－ｉｎｆ", -math.inf),
                                          ("２５％", 0.25), ("½", 0.5), ("−1", -1.0), ("０．５。", 0.5)])
def test_full_width_numbers(typed, value):
    assert parse_number(typed) == value


def test_full_width_values_use_either_comma():
    assert parse_values("［０．５，０．５，０、０］") == [0.5, 0.5, 0.0, 0.0]


def test_choice_letters_in_either_width():
    choices = ["one", "two", "three"]
    assert parse_choice("Ｂ", choices) == 1
    assert parse_choice("ｃ", choices) == 2
    assert parse_choice("（ａ）", choices) == 0
    assert parse_choice("２", choices) == 1


def test_symbolic_shapes_in_full_width():
    sizes = {"B": 2, "H": 4, "L": 5, "D": 8}
    assert parse_symbolic_shape("（Ｂ，Ｈ，Ｌ，Ｌ）", sizes) == (2, 4, 5, 5)
    assert parse_symbolic_shape("（B，L，4D）", sizes) == (2, 5, 32)


def test_a_full_stop_inside_text_is_not_a_decimal_point():
    assert normalize_answer_text("a。b") == "a。b"
    with pytest.raises(AnswerError):
        parse_number("1。。2")


@given(st.text(max_size=60))
def test_normalisation_never_raises_and_is_idempotent(text):
    once = normalize_answer_text(text)
    assert normalize_answer_text(once) == once


async def type_as_an_input_method_does(pilot, text: str) -> None:
    """Key events as the terminal driver makes them from committed IME text (Pilot.press only
    knows key names, and has none for most full-width characters)."""
    for character in text:
        pilot.app.screen.focused.post_message(events.Key(_character_to_key(character), character))
    await pilot.pause()
    await pilot.press("enter")
    await graded(pilot)
    await pilot.pause()


async def test_pilot_full_width_shape_answer_is_graded_right(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_live_lesson(pilot, "la-scaled-scores")
        await type_as_an_input_method_does(pilot, "（２，３，５，５）")
        assert "Right" in text_of(screen, "#feedback")
        assert "(2, 3, 5, 5)" in text_of(screen, "#your-answer")
        assert app.progress.session_answers[-1].correct is True
