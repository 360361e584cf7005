"""Regression tests for the author toolkit defects of issue 15: each reproduction, now a clear message."""
import os
from pathlib import Path

import pytest

from tutor.authoring.check import check_paths
from tutor.cli.lessons import template_text
from tutor.course.catalog import load_catalog
from tutor.grading.quiz import grade, truth_for


def template(lesson_id: str = "my-lesson") -> str:
    return template_text(lesson_id, "My lesson", "pr", 100, Path(f"{lesson_id}.yaml"), ["pr"])


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_token_ids_from_the_docs_example_pass_the_live_check(tmp_path):
    # before: TypeError 'in <string>' requires string as left operand, not int
    text = edit(template(), 'text: ["31415", "27182"]', "tokens: [[19, 20, 21, 22, 23], [24, 25, 26, 27, 28]]")
    report = check_paths([write(tmp_path, "t.yaml", text)])
    assert report.ok, report.text()


def test_an_empty_slice_is_reported(tmp_path):
    # before: pattern[0, 0, 2, 5:9] with L <= 7 passed
    text = edit(template(), 'probe: "blocks.0.attn.pattern[0, 0, 0, 0:2]"', 'probe: "blocks.0.attn.pattern[0, 0, 2, 5:9]"')
    text = edit(text, "    answer: [1, 0]           # optional: the check compares it with the model\n", "")
    report = check_paths([write(tmp_path, "e.yaml", text)])
    [problem] = [p for p in report.problems if p.field == "questions.2.probe"]
    assert "selects no values" in problem.message and "axis 0" in problem.message


@pytest.mark.parametrize("tolerance", [".inf", ".nan", "-.inf"])
def test_an_infinite_tolerance_is_refused(tmp_path, tolerance):
    # before: tolerance: .inf passed and accepted any answer
    text = edit(template(), "    reduce: sum\n    tolerance: 0.001", f"    reduce: sum\n    tolerance: {tolerance}")
    report = check_paths([write(tmp_path, "i.yaml", text)], live=False)
    [problem] = report.problems
    assert problem.field == "questions.3.tolerance" and ("finite" in problem.message or "greater" in problem.message)


def test_a_choice_text_that_is_a_choice_number_is_reported(tmp_path):
    # before: choices ["2", "1"] were graded by position: typing "1" picked choice a) "2"
    text = edit(template(), '''      - "e^0 = 1, so a 0 would still get weight; e^(−∞) = 0 removes the position."
      - "−∞ is faster to compute, and a 0 would remove the position as well."''', '      - "2"\n      - "1"\n      - "0"')
    report = check_paths([write(tmp_path, "c.yaml", text)], live=False)
    fields = {p.field: p.message for p in report.problems}
    assert set(fields) == {"questions.4.choices.0", "questions.4.choices.1"}, report.text()
    assert "picks choice b)" in fields["questions.4.choices.0"]


def test_a_wrong_symbolic_shape_never_grades_right_by_coincidence(tmp_path):
    # before: with H = 1, (B, H, L, D) was accepted for (B, H, L, D/H); with B = H = 2, (H, B, L, L) for (B, H, L, L)
    # the course no longer asks a per-head shape (la-qkv-projection's went in 48eb9d8), so the scores
    # question is asked for q's (B, H, L, D_head) here
    lesson = load_catalog().get("la-scaled-scores").lesson
    question = next(q for q in lesson.questions if q.kind == "symbolic_shape")
    question = question.model_copy(update={"answer": "(B, H, L, D_head)", "probe": "blocks.0.attn.q"})
    sizes = {"B": 2, "L": 4, "D": 8, "H": 1, "D_head": 8, "d_k": 8, "d_model": 8, "V": 96, "N": 1, "T": 64}
    truth = truth_for(question, {"blocks.0.attn.q": __import__("numpy").zeros((2, 1, 4, 8))}, sizes)
    assert grade(question, "(B, H, L, D_head)", truth, sizes).correct
    assert not grade(question, "(B, H, L, D)", truth, sizes).correct
    scores = load_catalog().get("la-scaled-scores").lesson
    question = next(q for q in scores.questions if q.kind == "symbolic_shape")      # now cached-two
    question = question.model_copy(update={"answer": "(B, H, L, L)", "probe": "blocks.0.attn.scores"})
    sizes |= {"H": 2, "D_head": 4, "d_k": 4}
    truth = truth_for(question, {}, sizes) if question.probe is None else \
        truth_for(question, {question.probe.split("[")[0]: __import__("numpy").zeros((2, 2, 4, 4))}, sizes)
    assert not grade(question, "(H, B, L, L)", truth, sizes).correct
    assert grade(question, "(B, H, L, L)", truth, sizes).correct


def test_the_check_tries_sizes_that_tell_the_size_names_apart(tmp_path):
    # a file answer right only because H = 1 makes D equal D/H
    text = edit(template(), "  n_head: 3 ", "  n_head: 1 ")
    text = edit(text, 'answer: "(B, H, L, L)"', 'answer: "(B, H, L, D)"')
    text = edit(text, 'probe: "blocks.0.attn.pattern"   # the check', 'probe: "blocks.0.attn.q"   # the check')
    report = check_paths([write(tmp_path, "s.yaml", text)])
    [problem] = report.problems
    assert problem.field == "questions.1.answer" and "tell every size name apart" in problem.message, report.text()


def test_a_file_checked_alone_may_name_a_sibling_as_prerequisite(tmp_path):
    # before: "no lesson has the id 'first'" when checking second.yaml alone
    write(tmp_path, "first.yaml", template("first"))
    second = write(tmp_path, "second.yaml", edit(template("second"), "prerequisites: []", "prerequisites: [first]"))
    report = check_paths([second], live=False)
    assert report.ok, report.text()
    assert report.lessons == ["second"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_directly_is_not_a_regular_file(tmp_path):
    # before: "no such file or folder"
    fifo = tmp_path / "lesson.yaml"
    os.mkfifo(fifo)
    report = check_paths([fifo], live=False)
    [problem] = report.problems
    assert "not a regular file" in problem.message


def test_an_infinite_truth_is_flagged_unless_the_answer_expects_it(tmp_path):
    # issue 10.3: a NaN or inf truth the lesson does not say it expects
    text = edit(template(), 'probe: "blocks.0.attn.pattern[0, 0, 0, 0:2]"', 'probe: "blocks.0.attn.masked_scores[0, 0, 0, 1:3]"')
    unexpected = edit(text, "    answer: [1, 0]           # optional: the check compares it with the model\n", "")
    report = check_paths([write(tmp_path, "n.yaml", unexpected)])
    [problem] = report.problems
    assert problem.field == "questions.2.probe" and "the model gives -inf" in problem.message
    expected = edit(text, "    answer: [1, 0]  ", '    answer: ["-inf", "-inf"]  ')
    assert check_paths([write(tmp_path, "n.yaml", expected)]).ok
