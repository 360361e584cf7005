"""``lessons check``'s half of the look-ahead rule (issue 29, adversary F1): a later question's prompt
or hint that states an earlier question's answer is reported as a warning, with both questions and
the field's line; text that does not is not.  Milliseconds: la-tensors on numpy tensors of the
model's shapes (tests/session_helpers.py), the checker run on them as ``lessons check`` runs it on
the model's, no model loaded.  Before this only an edited lesson's runtime rule was tested."""
from __future__ import annotations

from pathlib import Path

import yaml
from session_helpers import FIXTURE_LESSONS, lesson_from, tensors_live

from tutor.authoring.check_live import LiveChecker
from tutor.authoring.pinned import Pinned

TEXT = (FIXTURE_LESSONS / "fixture-tensors.yaml").read_text(encoding="utf-8")
PROMPT_2 = '"Now pick one token: embed[0, 1] (row 0, position 1). What is its shape?"'
HINT_2 = '"Which of embed\'s three indices does embed[0, 1] leave free?"'


def warnings_for(text: str) -> list:
    """The warnings ``lessons check`` prints for the lesson ``text`` on its own sizes."""
    lesson = lesson_from(text, "fixture-tensors.yaml")
    pinned = Pinned(Path("no-such-dir/fixture-tensors.yaml"), yaml.compose(text))   # no overlay beside it
    LiveChecker(lesson, tensors_live(), pinned, "", own_sizes=True).run(formula_ok=False)
    return [w for w in pinned.warnings if "states the answer to" in w.message]


def stated_in(field: str) -> str:
    old = PROMPT_2 if field == "prompt" else HINT_2
    assert old in TEXT
    return TEXT.replace(old, '"embed has shape (2, 4, 8); ' + old[1:])


def test_a_later_prompt_that_states_an_earlier_answer_is_reported():
    text = stated_in("prompt")
    found = warnings_for(text)
    assert [w.field for w in found] == ["questions.1.prompt"]
    message = found[0].message
    assert message.startswith("question 2 (questions.1, ") and "states the answer to question 1 (questions.0, " in message
    assert "(2, 4, 8)" in message and "in its prompt" in message
    assert found[0].line == next(n for n, line in enumerate(text.splitlines(), 1) if "embed has shape (2, 4, 8)" in line)


def test_a_later_hint_that_states_an_earlier_answer_is_reported():
    found = warnings_for(stated_in("hint"))
    assert [w.field for w in found] == ["questions.1.hints.0"]
    assert "one of its hints" in found[0].message


def test_the_shipped_lesson_states_no_earlier_answer():
    assert warnings_for(TEXT) == []


def test_an_earlier_prompt_stating_a_later_answer_is_the_ordinary_leak_not_this_warning():
    """Question 1's prompt writing question 2's answer (8,) gives question 2 away before it is asked:
    an error with its own message.  This warning is only for a later text and an earlier question."""
    old = '"Predict the shape of the token embeddings (probe embed)'
    assert old in TEXT
    text = TEXT.replace(old, '"One token is (8,). ' + old[1:])
    lesson = lesson_from(text, "fixture-tensors.yaml")
    pinned = Pinned(Path("no-such-dir/fixture-tensors.yaml"), yaml.compose(text))
    LiveChecker(lesson, tensors_live(), pinned, "", own_sizes=True).run(formula_ok=False)
    assert not [w for w in pinned.warnings if "states the answer to" in w.message]
    assert [p.field for p in pinned.problems if "gives away the answer to question 2" in p.message] == \
        ["questions.0.prompt"]
