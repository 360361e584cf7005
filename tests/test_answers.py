"""The answer parser: forgiving about form, never a traceback."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from tutor.grading.answers import AnswerError, parse_choice, parse_number, parse_shape, parse_symbolic_shape, parse_values

SIZES = {"B": 2, "H": 2, "L": 4, "D": 8, "D_head": 4}


@pytest.mark.parametrize("text", ["(2, 2, 4, 4)", "2,2,4,4", "[2 2 4 4]", "2x2x4x4", "2×2×4×4", " ( 2 ,2, 4,4 ) "])
def test_shape_forms(text):
    assert parse_shape(text) == (2, 2, 4, 4)


@pytest.mark.parametrize("text", ["", "   ", "abc", "(2, two)", "2.5, 4", "-1, 4", "1" * 50])
def test_shape_garbage_is_a_clear_message(text):
    with pytest.raises(AnswerError) as error:
        parse_shape(text)
    assert str(error.value)


@pytest.mark.parametrize("text,value", [("0.25", 0.25), ("1/4", 0.25), ("-inf", -math.inf), ("inf", math.inf),
                                        ("−∞", -math.inf), ("25%", 0.25), ("1e-3", 0.001), ("(3)", 3.0)])
def test_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["1/0", "abc", "1//2", "1e999", "nann", "nan/2"])
def test_bad_numbers(text):
    with pytest.raises(AnswerError):
        parse_number(text)


@pytest.mark.parametrize("text", ["nan", "NaN", "(nan)"])
def test_nan_can_be_typed(text):
    assert math.isnan(parse_number(text))


def test_values_list():
    assert parse_values("[1, -inf, 1/4 0.25]") == [1.0, -math.inf, 0.25, 0.25]


def test_choice_by_letter_number_or_text():
    choices = ["alpha", "beta", "gamma"]
    assert parse_choice("b", choices) == 1
    assert parse_choice("B)", choices) == 1
    assert parse_choice("3", choices) == 2
    assert parse_choice("Gamma", choices) == 2
    with pytest.raises(AnswerError, match="a–c"):
        parse_choice("d", choices)


@pytest.mark.parametrize("text", ["(B, H, L, L)", "B,H,L,L", "(B H L L)", "(B, H, L, D/H)", "(B, H, L, D_head)"])
def test_symbolic_shapes_by_substitution(text):
    assert parse_symbolic_shape(text, SIZES) == (2, 2, 4, 4)


def test_symbolic_shape_implicit_product_and_unknown_names():
    assert parse_symbolic_shape("(B, L, 4D)", SIZES) == (2, 4, 32)
    with pytest.raises(AnswerError, match="unknown size 'Q'"):
        parse_symbolic_shape("(B, Q)", SIZES)
    with pytest.raises(AnswerError):
        parse_symbolic_shape("(B, D/3)", SIZES)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_random_text_never_raises_anything_but_answer_error(text):
    for parse in (parse_shape, parse_number, parse_values, lambda t: parse_choice(t, ["x", "y"]),
                  lambda t: parse_symbolic_shape(t, SIZES)):
        try:
            parse(text)
        except AnswerError:
            pass
