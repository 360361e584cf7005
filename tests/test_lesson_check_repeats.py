"""``lessons check`` across lessons (issue 31): a question whose answer a prerequisite already states
in its text, or already asked, is warned at the later question's line, naming the earlier lesson and
its field; the same number in a lesson that is not a prerequisite (even one earlier on the roadmap)
is not, nor a round number.  Lesson files written to a temporary folder, on random weights (no
checkpoint), checked as ``tutor lessons check FOLDER`` and ``tutor lessons check FILE`` check them."""
from __future__ import annotations

from pathlib import Path

from tutor.authoring.check import check_paths

ADVICE = "ask the next idea this lesson adds"


def write(folder: Path, lesson_id: str, position: int, questions: str, prerequisites: str = "[]",
          explanation: str = "A lesson of the course-repeat tests.") -> Path:
    text = f"""format_version: 1
id: {lesson_id}
title: "Repeat test {lesson_id}"
track: la
position: {position}
prerequisites: {prerequisites}
concepts: [la.tensors]
explanation: "{explanation}"
formula:
  expr: "log(V)"
  translation: "The logarithm of the vocabulary size."
model:
  weights: random
  text: ["31415", "27182"]
  d_model: 18
  n_head: 3
  seed: 0
probes: ["blocks.0.attn.pattern"]
questions:
{questions}"""
    path = folder / f"{lesson_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def number(question_id: str, answer: str, reveal: str = "Right.", prompt: str = "Which number?") -> str:
    return (f"  - id: {question_id}\n    kind: number\n    prompt: \"{prompt}\"\n    answer: {answer}\n"
            f"    tolerance: 0.001\n    reveal: \"{reveal}\"\n")


def shape(question_id: str, probe: str) -> str:
    return (f"  - id: {question_id}\n    kind: shape\n    prompt: \"What is the shape of this tensor?\"\n"
            f"    probe: \"{probe}\"\n    reveal: \"One row per text.\"\n")


ASK_LN96 = number("uniform-entropy", "4.5643", prompt="How many nats is a uniform guess over 96 characters?")
STATES_LN96 = number("ln-ten", "2.3026", reveal="ln 10. The same for 96 characters: ln 96 = 4.564 nats.")


def repeats(paths: list[Path]) -> list:
    report = check_paths(paths)
    assert report.ok, report.text()
    return [w for w in report.warnings if ADVICE in w.message]


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def test_an_answer_a_prerequisites_reveal_states_is_warned_at_the_later_question(tmp_path):
    write(tmp_path, "xc-first", 901, STATES_LN96)
    later = write(tmp_path, "xc-later", 902, number("warm-up", "2.5", prompt="Half of five?") + ASK_LN96,
                  prerequisites="[xc-first]")
    found = repeats([tmp_path])
    assert len(found) == 1, found
    warning = found[0]
    assert (warning.path, warning.field) == (str(later), "questions.1")
    assert warning.line == line_of(later, "- id: uniform-entropy")
    assert "question 2 ('uniform-entropy')" in warning.message
    assert "xc-first (a prerequisite)" in warning.message
    assert "reveal of question 1 ('ln-ten') states '4.564'" in warning.message


def test_a_file_checked_alone_is_compared_with_its_prerequisite_beside_it(tmp_path):
    write(tmp_path, "xc-first", 901, STATES_LN96)
    later = write(tmp_path, "xc-later", 902, ASK_LN96, prerequisites="[xc-first]")
    found = repeats([later])
    assert [(w.path, w.field) for w in found] == [(str(later), "questions.0")]


def test_prerequisites_count_transitively(tmp_path):
    write(tmp_path, "xc-first", 901, STATES_LN96)
    write(tmp_path, "xc-middle", 902, number("other", "7.25"), prerequisites="[xc-first]")
    later = write(tmp_path, "xc-later", 903, ASK_LN96, prerequisites="[xc-middle]")
    found = repeats([tmp_path])
    assert [(w.path, w.field) for w in found] == [(str(later), "questions.0")]
    assert "xc-first (a prerequisite)" in found[0].message


def test_the_same_number_in_a_lesson_that_is_not_a_prerequisite_is_not_warned(tmp_path):
    # earlier on the roadmap (same track, lower position), but not a prerequisite: a coincidence as
    # often as a repeat (lessons check measured it on the course: see docs/lessons.md)
    write(tmp_path, "xc-first", 901, STATES_LN96)
    write(tmp_path, "xc-later", 902, ASK_LN96)
    assert repeats([tmp_path]) == []


def test_a_question_a_prerequisite_already_asked_with_the_same_answer_is_warned(tmp_path):
    write(tmp_path, "xc-first", 901, ASK_LN96.replace("uniform-entropy", "untrained-loss"))
    later = write(tmp_path, "xc-later", 902, ASK_LN96, prerequisites="[xc-first]")
    found = repeats([tmp_path])
    assert len(found) == 1, found
    assert found[0].path == str(later) and found[0].line == line_of(later, "- id: uniform-entropy")
    assert "asks again what xc-first (a prerequisite) already asked" in found[0].message
    assert "answer to question 1 ('untrained-loss')" in found[0].message


def test_round_numbers_a_prerequisite_states_are_not_repeats(tmp_path):
    # 16 is a size, 0.25 a quarter: in every lesson, whatever it asks
    write(tmp_path, "xc-first", 901, number("sizes", "3.1416", reveal="Sixteen heads give 16 = 4 · 4, and 0.25 each."))
    write(tmp_path, "xc-later", 902, number("count", "16") + number("quarter", "0.25"), prerequisites="[xc-first]")
    assert repeats([tmp_path]) == []


def test_a_shape_is_asked_again_only_for_the_same_slice(tmp_path):
    write(tmp_path, "xc-first", 901, shape("pattern-shape", "blocks.0.attn.pattern"))
    later = write(tmp_path, "xc-later", 902, shape("scores-shape", "blocks.0.attn.scores")
                  + shape("pattern-again", "blocks.0.attn.pattern"), prerequisites="[xc-first]")
    found = repeats([tmp_path])
    # scores and pattern are both (B, H, L, L): the same numbers, another tensor
    assert [(w.path, w.field) for w in found] == [(str(later), "questions.1")]
    assert "answer to question 1 ('pattern-shape')" in found[0].message


def test_the_roadmap_scope_adds_every_earlier_lesson_after_the_prerequisites(tmp_path):
    """The scope measured against the prerequisites (and not chosen): every lesson before it on the roadmap."""
    from tutor.authoring.check import build_catalog
    from tutor.authoring.course_repeats import PREREQUISITES, ROADMAP, earlier_ids

    first = write(tmp_path, "xc-first", 901, STATES_LN96)
    middle = write(tmp_path, "xc-middle", 902, number("other", "7.25"))
    later = write(tmp_path, "xc-later", 903, ASK_LN96, prerequisites="[xc-middle]")
    catalog = build_catalog([first, middle, later])
    assert earlier_ids(catalog, "xc-later") == [("xc-middle", PREREQUISITES)]
    roadmap = earlier_ids(catalog, "xc-later", ROADMAP)
    assert roadmap[0] == ("xc-middle", PREREQUISITES) and ("xc-first", ROADMAP) in roadmap
    assert all(lesson_id not in ("xc-later",) for lesson_id, _ in roadmap)
