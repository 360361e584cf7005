"""Issue 24: answers as Chinese learners type them, beyond full-width forms."""
import math

import pytest

from tutor.common.i18n import set_language
from tutor.grading.answers import AnswerError, parse_choice, parse_number, parse_shape, parse_symbolic_shape, \
    parse_values

SIZES = {"B": 2, "L": 4, "D": 8, "H": 2, "D_head": 4}


@pytest.mark.parametrize("text,shape", [
    ("（B，L，4×D）", (2, 4, 32)),         # before: × split it into four axes, (2, 4, 4, 8)
    ("(B, L, 4·D)", (2, 4, 32)),            # the lessons' own notation; before: refused
    ("(B, H, L, H·D_head)", (2, 2, 4, 8)),
    ("(B, L, 4⋅D)", (2, 4, 32)),
    ("B×H×L×L", (2, 2, 4, 4)),              # no comma anywhere: × still separates, as x does
])
def test_a_times_sign_inside_a_symbolic_axis_is_a_product(text, shape):
    assert parse_symbolic_shape(text, SIZES) == shape


@pytest.mark.parametrize("text", ["4,096", "４，０９６", "4 096", "4096"])
def test_a_single_number_may_group_thousands_with_commas(text):
    assert parse_number(text) == 4096


def test_a_comma_not_followed_by_three_digits_is_not_a_thousands_separator():
    with pytest.raises(AnswerError):
        parse_number("4,09")
    assert parse_number("1,000,000.5") == 1_000_000.5


def test_in_a_shape_or_a_list_a_comma_always_separates():
    assert parse_shape("4,096") == (4, 96)
    assert parse_values("4,096") == [4, 96]


@pytest.mark.parametrize("text", ["6⁴,9⁶", "2⁶", "(2, 3²)", "x₂"])
def test_superscript_digits_are_refused_not_joined(text):
    for parse in (parse_number, parse_shape, parse_values):
        with pytest.raises(AnswerError, match="superscript"):
            parse(text)


@pytest.mark.parametrize("text,value", [("负无穷", -math.inf), ("负无穷大", -math.inf), ("正无穷", math.inf),
                                        ("无穷大", math.inf)])
def test_infinity_in_chinese_words_is_the_value(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text,words", [("20个", "个"), ("约 0.99", "约"), ("≈0.5", "≈"), ("3 层", "层")])
def test_a_number_with_a_word_is_refused_with_the_form_expected(text, words):
    with pytest.raises(AnswerError) as caught:
        parse_number(text)
    assert words in str(caught.value) and "write the number alone" in str(caught.value)


def test_the_refusals_are_said_in_chinese():
    set_language("zh")
    try:
        with pytest.raises(AnswerError, match="只写数字"):
            parse_number("20个")
        with pytest.raises(AnswerError, match="上标"):
            parse_number("2⁶")
    finally:
        set_language("en")


def test_xuan_b_picks_b():
    assert parse_choice("选b", ["one", "two", "three"]) == 1
    assert parse_choice("选 C", ["one", "two", "three"]) == 2


def test_the_word_to_leave_out_is_quoted_in_chinese_marks():
    """Before: "只写数字，不用加 '约'：容差已经考虑了四舍五入，例如写 4.56": Python's quotes inside a
    Chinese sentence, and two colons in a row once the screen put "看不懂这个答案：" before it."""
    set_language("zh")
    try:
        with pytest.raises(AnswerError) as hedged:
            parse_number("约 4.56")
        assert str(hedged.value) == "只写数字，不要加“约”（容差已经考虑了四舍五入），例如 4.56"
        with pytest.raises(AnswerError) as counted:
            parse_number("20个")
        assert str(counted.value) == "只写数字，不要带量词“个”，例如 20"
    finally:
        set_language("en")


def test_an_unreadable_formula_s_message_ends_one_sentence_once():
    """Before: "Couldn't read that: syntax error at column 3: invalid syntax. Perhaps you forgot a
    comma?. Try again.": Python's own question mark, then the screen's full stop."""
    from tutor.formulas.parse import FormulaError, parse_formula
    from tutor.ui.screens.lesson_quiz import unreadable_text

    with pytest.raises(FormulaError) as comma:
        parse_formula("f(a b)")
    with pytest.raises(FormulaError) as unclosed:
        parse_formula("softmax(Q")
    assert unreadable_text(comma.value).plain == ("Couldn't read that: syntax error at column 3: invalid syntax. "
                                                  "Perhaps you forgot a comma? Try again.")
    assert unreadable_text(unclosed.value).plain.endswith("'(' was never closed. Try again.")
    set_language("zh")
    try:
        assert unreadable_text(comma.value).plain == \
            "看不懂这个答案：第 3 列有语法错误：写法无效（可能漏了运算符，如 *，或逗号）。请再试一次。"
    finally:
        set_language("en")
