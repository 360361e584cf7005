"""Every registered question kind is one unit: these tests run over ``KINDS``, not over a list.

A new kind in tutor/grading/kinds/ is picked up here with no edit: it must declare its own
question class (the lesson schema takes it from the registry), have an example in
docs/lessons.md, and bring a leak hook that finds its own live answer in the text before the
question. A kind that leaves its leak hook out cannot be built at all (``shown_in`` has no
default); one whose hook finds nothing fails ``test_every_kind_finds_its_own_answer_in_text``.
"""
import re
from pathlib import Path

import pytest
import yaml
from typing import Literal

from tutor.course.schema import QUESTION_KINDS, Lesson
from tutor.grading.fields import QuestionBase
from tutor.grading.kinds import KINDS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "lessons.md"


def docs_examples() -> dict[str, tuple[dict, dict]]:
    """kind -> (its first question example in docs/lessons.md, the complete example lesson)."""
    blocks = dict(re.findall(r"<!-- example: ([\w-]+) -->\n```yaml\n(.*?)```",
                             DOCS.read_text(encoding="utf-8"), flags=re.DOTALL))
    lesson = yaml.safe_load(blocks.pop("lesson"))
    found: dict[str, tuple[dict, dict]] = {}
    for block in blocks.values():
        for item in yaml.safe_load(block):
            found.setdefault(item["kind"], (item, lesson))
    return found


@pytest.mark.parametrize("name", list(KINDS))
def test_every_kind_declares_its_question_class(name):
    question = KINDS[name].question
    assert issubclass(question, QuestionBase)
    assert question.model_fields["kind"].annotation == Literal[name]
    assert QUESTION_KINDS[name] is question   # the lesson schema's union is the registry's


@pytest.mark.parametrize("name", list(KINDS))
def test_every_kind_finds_its_own_answer_in_text(name, hub):
    """The docs example's live answer, written out as the reveal shows it, is a leak the check finds."""
    from tutor.live.leaks import find_leaks
    from tutor.grading.quiz import truth_for
    from tutor.live.compute import compute_live

    examples = docs_examples()
    assert name in examples, f"docs/lessons.md has no example of kind {name!r}"
    question, lesson = examples[name]
    lesson = Lesson.model_validate(lesson | {"questions": [question]})
    live = compute_live(lesson, hub)
    truth = truth_for(lesson.questions[0], live.tensors, live.sizes)
    assert not find_leaks(lesson, live.tensors, live.sizes, {0: truth})   # the example gives nothing away
    leaky = lesson.model_copy(update={"explanation": f"{lesson.explanation}\n\nThe answer is {truth.display}."})
    [leak] = find_leaks(leaky, live.tensors, live.sizes, {0: truth})
    assert leak.loc == ("explanation",) and leak.question == 0
