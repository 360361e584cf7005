"""The three checks of issue 19: a reveal that shows a later answer, sizes that cannot tell two
axes apart, and a right choice that stands out by its length.  Each defect is put back into a
copy of the built-in lesson it was found in, and must be reported at its field's line and column."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tutor.authoring.check import check_paths
from tutor.course.catalog import builtin_lessons_dir
from tutor.grading.reveal_focus import question_reveal, reveal_for


def copy_of(tmp_path: Path, lesson_id: str, *edits: tuple[str, str]) -> tuple[Path, str]:
    text = (builtin_lessons_dir() / f"{lesson_id}.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / f"{lesson_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path, text


def moved_after(text: str, question_id: str, after_id: str) -> str:
    """The lesson text with one question's block moved after another's."""
    head, _, body = text.partition("questions:\n")
    blocks = re.split(r"(?=^  - id: )", body, flags=re.M)
    by_id = {re.match(r"  - id: (\S+)", b).group(1): b if b.endswith("\n") else b + "\n" for b in blocks if b}
    order = [q for q in by_id if q != question_id]
    order.insert(order.index(after_id) + 1, question_id)
    return head + "questions:\n" + "".join(by_id[q] for q in order)


def at(text: str, needle: str, key: str) -> tuple[int, int]:
    """(line, column) of ``key:`` on the line holding ``needle``: where the checker pins a field."""
    number, line = next((i + 1, line) for i, line in enumerate(text.splitlines()) if needle in line)
    return number, line.index(key + ":") + 1


def reported(path: Path, words: str, warnings: bool = False) -> list:
    report = check_paths([path])
    found = report.warnings if warnings else report.problems
    return [p for p in found if words in p.message]


# --- a reveal that shows a later answer ----------------------------------------------------

REVEAL_DEFECTS = [
    # (lesson, edits, needle on the pinned line, key, field, later question)
    ("la-one-hot-vs-dense", [('    show: "embedding.digit_nearest"', '    show: "embedding.digit_cos"')],
     'show: "embedding.digit_cos"', "show", "questions.2.show", "'farthest'"),
    ("pr-padding-mask", [('    show: "padding.pattern[1, 0, -1]"', '    show: "padding.unguarded[1, 0]"')],
     'show: "padding.unguarded[1, 0]"', "show", "questions.2.show", "'empty-row-softmax'"),
    ("co-sinusoidal-pe", [('    show: "sinusoid.similarity"', '    show: "sinusoid.pair_gap"')],
     'show: "sinusoid.pair_gap"', "show", "questions.2.show", "'which-pair'"),
    ("de-decoding-comparison", [('show: "decoding_compare.repetition"', 'show: "decoding_compare.hot_drop"')],
     'show: "decoding_compare.hot_drop"', "show", "questions.0.show", "'hot-logprob-drop'"),
]


@pytest.mark.parametrize("lesson,edits,needle,key,field,later", REVEAL_DEFECTS,
                         ids=[f"{d[0]}-{d[4]}" for d in REVEAL_DEFECTS])
def test_a_reveal_that_shows_a_later_answer_is_reported_at_its_field(tmp_path, lesson, edits, needle, key,
                                                                      field, later):
    path, text = copy_of(tmp_path, lesson, *edits)
    found = [p for p in reported(path, "which answers question") if later in p.message]
    assert found, check_paths([path]).text()
    assert found[0].field == field
    assert (found[0].line, found[0].column) == at(text, needle, key), str(found[0])


BEAM_VS_GREEDY = """  - id: beam-vs-greedy
    kind: choice
    prompt: "Is beam search's text more likely per character than greedy's?"
    choices: ["yes, beam's text is more likely", "no, greedy's is at least as likely"]
    answer: {sign: "decoding_compare.beam_gain", positive: 0, negative: 1, zero: 1}
    show: "decoding_compare.beam_gain"
    reveal: "Beam minus greedy: {{ decoding_compare.beam_gain[0] | .3f }} per character."
"""


def test_beam_against_greedy_is_given_away_by_the_two_log_probs_shown_before_it(tmp_path):
    # a likelihood question (showing every strategy's ln p) before
    # beam-vs-greedy (the lesson no longer asks it: the question is put back in the copy)
    path, text = copy_of(tmp_path, "de-decoding-comparison")
    text += BEAM_VS_GREEDY                               # after hot-logprob-drop, which shows every ln p
    path.write_text(text, encoding="utf-8")
    found = reported(path, "answers question 5 (questions.4, 'beam-vs-greedy')")
    assert found and "difference is decoding_compare.beam_gain" in found[0].message, check_paths([path]).text()
    assert (found[0].line, found[0].column) == at(text, 'show: "decoding_compare.logprob"', "show")


def test_show_limits_the_reveal_to_its_slice():
    tensors = {"t": np.arange(24, dtype=float).reshape(2, 3, 4)}
    whole = reveal_for(tensors, "t[1, 2]", {})
    assert whole.array.shape == (2, 3, 4) and whole.view == ()
    alone = reveal_for(tensors, "t[1, 2]", {}, limit=True)
    assert alone.array.tolist() == [20.0, 21.0, 22.0, 23.0] and alone.view == (1, 2)
    assert not alone.highlights   # every cell on screen is the asked slice


def test_the_screen_and_the_check_build_the_same_reveal():
    class Question:
        show, probe, reduce = "t[0]", "t[0]", "argmax"

    tensors = {"t": np.array([[0.0, 3.0, 1.0], [5.0, 0.0, 0.0]])}
    reveal = question_reveal(Question(), "t[0]", tensors, {})
    assert reveal.array.tolist() == [0.0, 3.0, 1.0]       # row 1 (whose max is 5) is not on screen
    assert reveal.focus == (1,) and reveal.asked.tolist() == [False, True, False]


# --- sizes that cannot tell two axes apart -------------------------------------------------

def old_sizes(lesson_id: str) -> tuple[str, str]:
    """The edit back to the old sizes, D = 8 and H = 2 on two rows of four, whatever the lesson's texts and sizes."""
    text = (builtin_lessons_dir() / f"{lesson_id}.yaml").read_text(encoding="utf-8")
    now = re.search(r'  text: \[.*\n  d_model: \d+\n  n_head: \d+\n', text).group(0)
    return now, '  text: ["3141", "2718"]\n  d_model: 8\n  n_head: 2\n'


SIZE_DEFECTS = [
    ("la-scaled-scores", ["scores-shape", "cached-two"]),
    ("la-qkv-projection", ["q-shape"]),
]


@pytest.mark.parametrize("lesson,questions", SIZE_DEFECTS, ids=[d[0] for d in SIZE_DEFECTS])
def test_sizes_that_cannot_tell_two_axes_apart_are_reported(tmp_path, lesson, questions):
    path, text = copy_of(tmp_path, lesson, old_sizes(lesson))
    found = reported(path, "cannot tell its axes apart")
    assert [re.search(r"\(questions\.\d+, '([^']+)'\)", p.message).group(1) for p in found] == questions, check_paths([path]).text()
    for problem in found:
        assert "both 2" in problem.message and "(B) and 1 (H)" in problem.message
        question_id = re.search(r"\(questions\.\d+, '([^']+)'\)", problem.message).group(1)
        start = text.index(f"  - id: {question_id}\n")
        offset = next(i for i, line in enumerate(text[start:].splitlines()) if line.startswith("    probe:"))
        assert (problem.line, problem.column) == (text[:start].count("\n") + offset + 1, 5)


def test_sizes_a_learner_may_draw_must_tell_the_axes_apart_too(tmp_path):
    """la-tensors' embed[:, 1:-1, 0] is (B, L − 2): its own sizes told the axes apart, but "new
    sizes" could draw B = 3, L = 5, a corner of model.vary the check did not run, and (3, 3) grades
    either order right.  Every corner now runs, and each run's axes are checked."""
    path, _text = copy_of(tmp_path, "la-tensors", ("    L: [6, 7]", "    L: [5, 7]"))
    found = reported(path, "cannot tell its axes apart")
    assert len(found) == 1 and "'cut-middle-first'" in found[0].message, check_paths([path]).text()
    assert "B=3, L=5" in found[0].message and "corner of model.vary" in found[0].message


# --- a right choice that stands out by its length ------------------------------------------

CHOICE_DEFECTS = [
    ("pr-padding-mask", '"only the pad queries: the causal mask hides every later one"',
     '"only the pad queries: a real query comes before every pad, and the causal mask already hides later positions"',
     ['"every real query: each one sees the pads at the end of its row"', '"every real query"'],
     ['"none at all: a pad is a real token id, so it is ordinary input"', '"none at all"']),
    ("op-curvature", '"it shrinks, jumping across the bottom at each step"', None,
     ['"it shrinks, staying on the same side of the bottom"', '"it creeps"'],
     ['"it grows: the steps overshoot further and further"', '"it grows"']),
    ("co-permutation", '"Changed: the four digits now get other position vectors added"', None,
     ['"Changed: \'>\' now gets another position vector added to its row"', '"Changed"'],
     ['"Unchanged: it still reads the same five tokens, in another order"', '"Unchanged"']),
    ("op-gradient-descent", '"more, but only a few times as much as the short step did"', None,
     ['"about 100 times as much: 100 times the step down the same slope"', '"about 100 times"'],
     ['"less than the short step did: the long step lands past the dip"', '"less"']),
]


@pytest.mark.parametrize("lesson,right,old_right,first,second", CHOICE_DEFECTS, ids=[d[0] for d in CHOICE_DEFECTS])
def test_a_right_choice_that_alone_carries_a_reason_is_warned_about(tmp_path, lesson, right, old_right, first,
                                                                    second):
    edits = [tuple(first), tuple(second)] + ([(right, old_right)] if old_right else [])
    path, text = copy_of(tmp_path, lesson, *edits)
    [warning] = reported(path, "a learner can pick it by its length", warnings=True)
    needle = old_right or right
    line = next(i + 1 for i, row in enumerate(text.splitlines()) if needle in row)
    assert (warning.line, warning.column) == (line, text.splitlines()[line - 1].index("- ") + 3)
    assert warning.field.startswith("questions.") and ".choices." in warning.field


def test_every_built_in_lesson_passes_the_three_checks():
    report = check_paths()
    assert report.ok, report.text()
    mine = ("which answers question", "cannot tell its axes apart", "a learner can pick it by its length")
    assert not [w for w in report.warnings if any(words in w.message for words in mine)]


def test_every_built_in_lesson_passes_them_on_random_weights_too():
    from tutor.live.hub import hub_for_checkpoint

    report = check_paths(hub=hub_for_checkpoint("random"))
    assert report.ok, report.text()


def test_la_dot_geometry_by_hand_writes_its_entries_in_tenths_and_states_no_answer_on_random_weights():
    """On untrained weights the pair-floor question's answer is about −0.10, and by-hand's prompt showed its
    one-decimal entry "-0.1": the check warned that a learner who skips ahead reads the answer
    (issue 31; failed before).  Whole tenths ("0.1 × [[-3, 5], …]") state no non-whole answer."""
    from tutor.live.hub import hub_for_checkpoint

    report = check_paths([builtin_lessons_dir() / "la-dot-geometry.yaml"], hub=hub_for_checkpoint("random"))
    assert report.ok, report.text()
    assert not [w for w in report.warnings if "states the answer" in w.message], report.text()
