"""Both leak checks take per-kind behaviour from the question-kind registry, and the formula box
is text the learner reads.

Before: the reveal check chose by class and by name (``question.kind == "formula"``), so a kind's
own hooks were never asked; and the text check read the formula's translation but not the
formula itself, so a lesson whose box drew a question's answer passed ``lessons check``.  (Since
issue 31's box rule the screen folds such a box; the check warns only where ``formula.given`` pins it.)
"""
from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tutor.live import reveal_leaks
from tutor.authoring.check import check_paths
from tutor.course.catalog import builtin_lessons_dir
from tutor.grading.kinds import KINDS, QuestionKind, Truth
from tutor.grading.kinds.base import probe_read

BOX = '''  expr: "A.T @ dZ"
  translation: "The gradient of head 0's values (row 0, block 0): value j collects the output gradient of every query, weighted by the attention that query pays to j."
  matrices: [A, dZ]
  bind:
    A: "attn_grad.A[0, 0]"
    dZ: "attn_grad.dz_heads[0, 0]"
  reproduces: "attn_grad.dv_heads[0, 0]"
'''
# the box draws question 1's answer: a formula that still reproduces its own probe
ANSWER_IN_BOX = '''  expr: "(dY @ W_out.T) * g"
  translation: "The gradient of block 0's W_Q: its input rows (one per token), transposed, times the gradient at its output rows."
  matrices: [dY, W_out]
  bind: {dY: "attn_grad.dY", W_out: "params.blocks.0.mlp.W_out", g: "attn_grad.gelu_grad"}
  reproduces: "attn_grad.dpre"
'''


def test_an_answer_drawn_in_the_formula_box_folds_it_and_a_given_box_is_warned_at_its_line(tmp_path):
    """Since the box rule (issue 31) such a box is folded on the lesson screen until question 1 is
    tried, so the check passes it; pinned open as the lesson's given, it is warned at its column."""
    text = (builtin_lessons_dir() / "ca-backprop-attention.yaml").read_text(encoding="utf-8")
    assert text.count(BOX) == 1
    text = text.replace(BOX, ANSWER_IN_BOX).replace("id: ca-backprop-attention\n", "id: ca-backprop-copy\n", 1)
    path = tmp_path / "ca-backprop-copy.yaml"
    path.write_text(text, encoding="utf-8")
    report = check_paths([path], variants=0)
    assert not [p for p in report.problems + report.warnings if p.field.startswith("formula")], report.text()
    path.write_text(text.replace(ANSWER_IN_BOX, ANSWER_IN_BOX + "  given: true\n"), encoding="utf-8")
    report = check_paths([path], variants=0)
    found = [p for p in report.warnings if "states the answer to question 1" in p.message]
    assert found, report.text()
    line = next(i + 1 for i, row in enumerate(text.splitlines()) if row.startswith('  expr: "(dY'))
    assert (found[0].field, found[0].line, found[0].column) == ("formula.expr", line, 9 + 1)
    assert "(dY @ W_out.T) * g" in found[0].message


def lesson_of(*questions):
    return SimpleNamespace(questions=list(questions))


def question(kind: str, qid: str, probe: str, show=None):
    return SimpleNamespace(kind=kind, id=qid, probe=probe, show=show, reduce="value", answer="X", prompt="")


def test_the_reveal_check_asks_the_kind_which_cells_its_answer_is_read_from(monkeypatch):
    tensors = {"t": np.arange(6, dtype=float).reshape(2, 3)}
    first, later = question("number", "first", "t[0, 1]"), question("formula", "later", "t[0]")
    truths = {0: Truth(1.0, "1", tensors["t"][0, 1], "t[0, 1]"), 1: Truth(None, "X", tensors["t"][0], "t[0]")}
    # the whole of t is on screen after question 1: a formula's answer is not written by its numbers
    assert reveal_leaks.find_reveal_leaks(lesson_of(first, later), tensors, {}, truths) == []
    # a kind that says its answer is read off its probe's cells gets that check, with no edit to the checker
    monkeypatch.setattr(KINDS["formula"], "reads", probe_read)
    [leak] = reveal_leaks.find_reveal_leaks(lesson_of(first, later), tensors, {}, truths)
    assert (leak.revealed_by, leak.question, leak.shown) == (0, 1, "every value of t[0]")


def test_what_else_a_reveal_writes_comes_from_the_kind(monkeypatch):
    tensors = {"t": np.arange(6, dtype=float).reshape(2, 3)}
    first, later = question("number", "first", "t[1, 1]"), question("formula", "later", "u")
    truths = {0: Truth(4.0, "4", tensors["t"][1, 1], "t[1, 1]"), 1: Truth(None, "X", None, "u")}
    monkeypatch.setattr(KINDS["formula"], "shown_on_reveal",
                        lambda q, truth, reveal, tensors, sizes: f"a view of {reveal.array.shape}")
    [leak] = reveal_leaks.find_reveal_leaks(lesson_of(first, later), tensors, {}, truths)
    assert leak.shown == "a view of (2, 3)"


def test_a_kind_cannot_leave_out_the_reveal_hook():
    hooks = {name: (lambda *args: None) for name in ("parse", "truth", "matches", "nudge", "shown_in",
                                                     "answer_format")}
    without_reads = type("NewKind", (QuestionKind,), {"name": "new", "question": object, **hooks})
    with pytest.raises(TypeError, match="reads"):
        without_reads()


def test_the_reveal_check_names_no_kind_and_no_question_class():
    tree = ast.parse(Path(reveal_leaks.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert not {name for name in imported if name.endswith("Question")}
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                and getattr(node.func, "id", "") == "isinstance"]
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in KINDS]
