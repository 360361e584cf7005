"""A question kind is one typed class, and the screen, the help and the checkers ask it instead of naming kinds.

Before: ``QuestionKind`` was a dataclass of untyped callables; the help listed answer formats by
hand (and left out formula and symbolic_shape), the lesson screen's option list assumed the choice
kind's letters, ``lessons check`` read ``question.choices`` and the axis check kept its own list of
kinds and question classes.
"""
from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from tutor.authoring.pinned import Pinned
from tutor.common.i18n import _
from tutor.grading.kinds import KINDS, PickOption, QuestionKind
from tutor.grading.kinds.choice import ChoiceQuestion
from tutor.grading.kinds.shape import ShapeQuestion
from tutor.ui.screens.help import notes

TUTOR = Path(__file__).resolve().parents[1] / "tutor"
KINDS_DIR = TUTOR / "grading" / "kinds"


def choice(*texts: str) -> ChoiceQuestion:
    return ChoiceQuestion(kind="choice", id="c", prompt="Which?", choices=list(texts), answer=0)


@pytest.mark.parametrize("name", list(KINDS))
def test_every_kind_is_an_instance_of_the_typed_base_and_names_itself(name):
    kind = KINDS[name]
    assert isinstance(kind, QuestionKind) and kind.name == name
    assert type(kind).parse is not QuestionKind.parse   # its own code, which a reader can follow


@pytest.mark.parametrize("name", list(KINDS))
def test_the_help_lists_how_to_write_every_kind(name):
    text = notes().plain
    assert _(KINDS[name].answer_format()) in text


def test_the_help_lists_formulas_and_symbolic_shapes_which_it_used_to_leave_out():
    text = notes().plain
    assert "Formulas: " in text and "Shapes in symbols: " in text


def test_a_choice_offers_its_options_and_picking_one_submits_its_letter():
    question = choice("rows", "columns", "neither")
    assert KINDS["choice"].options(question) == [PickOption("a", "rows", "a"), PickOption("b", "columns", "b"),
                                                 PickOption("c", "neither", "c")]
    for pick in KINDS["choice"].options(question):   # the text a pick submits reads back as that option
        assert KINDS["choice"].parse(question, pick.answer, {}) == "abc".index(pick.label)


def test_a_typed_kind_offers_no_pick_list():
    question = ShapeQuestion(kind="shape", id="s", prompt="Shape?", probe="embed")
    assert KINDS["shape"].options(question) == []


def test_the_static_check_asks_the_kind_what_is_wrong_with_a_question():
    from tutor.authoring.check import check_question_texts

    lesson = SimpleNamespace(questions=[choice("two words", "neither"), choice("b", "two words")])
    pinned = Pinned(Path("lesson.yaml"), None)
    check_question_texts(lesson, pinned)
    [problem] = pinned.problems
    assert problem.field == "questions.1.choices.0" and "'b'" in problem.message


def _strings_compared_with_kind(tree: ast.AST) -> set[str]:
    """Constants compared with a ``.kind`` attribute (``q.kind == "shape"``, ``q.kind in ("shape", …)``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(side, ast.Attribute) and side.attr == "kind"
                                                 for side in [node.left, *node.comparators]):
            found |= {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in KINDS}
    return found


def test_no_module_outside_the_kinds_package_picks_by_kind_name():
    offenders = {str(path.relative_to(TUTOR)): names for path in TUTOR.rglob("*.py") if KINDS_DIR not in path.parents
                 if (names := _strings_compared_with_kind(ast.parse(path.read_text(encoding="utf-8"))))}
    assert not offenders


def test_the_screen_and_the_checkers_do_not_read_the_choice_kinds_field():
    """(The lesson format's translatable texts, course/overlay.py and course/placeholders.py, still name
    ``choices``: a choice's options are prose a translator writes, like a prompt.)"""
    for path in [*(TUTOR / "ui").rglob("*.py"), *(TUTOR / "authoring").rglob("*.py")]:
        assert 'question, "choices"' not in path.read_text(encoding="utf-8"), path
