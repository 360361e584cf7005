"""`tutor lessons check`: every mistake an author can make is reported at its line, with a fix."""
from pathlib import Path

import pytest

from tutor.authoring.check import KNOWN_SIZES, check_paths
from tutor.cli.lessons import template_text


def template(lesson_id: str = "my-lesson", track: str = "pr") -> str:
    return template_text(lesson_id, "My lesson", track, 100, Path(f"{lesson_id}.yaml"), ["pr"])


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_the_template_passes_the_full_check(tmp_path):
    path = write(tmp_path, "my-lesson.yaml", template())
    report = check_paths([path])
    assert report.ok, report.text()
    assert report.lessons == ["my-lesson"]


def test_check_knows_every_size_the_live_model_reports():
    from tutor.course.catalog import load_catalog
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    lesson = load_catalog().get("la-scaled-scores").lesson
    assert set(compute_live(lesson, ModelHub()).sizes) == set(KNOWN_SIZES)


BROKEN_EDITS = [
    # (old, new, needle on the reported line, field, words in the message)
    ("concepts: [pr.masked-softmax, pr.softmax]", "concepts: [pr.masked-softmax, pr.sofmax]",
     "concepts: [", "concepts.1", "did you mean 'pr.softmax'"),
    ('probes: ["blocks.0.attn.scores",', 'probes: ["blocks.0.attn.scroes",',
     "probes:", "probes.0", "did you mean 'blocks.0.attn.scores'"),
    ("    answer: [1, 0]", "    answer: [1, 0.5]", "answer: [1, 0.5]", "questions.2.answer", "the model gives 1, 0"),
    ("    answer: 1\n", "    answer: 2\n", "answer: 2", "questions.3.answer", "disagrees with the model"),
    ('answer: "(B, H, L, L)"', 'answer: "(B, H, L, D)"', '(B, H, L, D)', "questions.1.answer", "has shape"),
    ('    probe: "blocks.0.attn.pattern[0, 0, 1]"', '    probe: "blocks.0.attn.pattern[0, 0, 4]"',
     "pattern[0, 0, 4]", "questions.3.probe", "L=4, D=18, H=3: the smallest sizes in model.vary"),
    ('show: "blocks.0.attn.masked_scores[0, 0]"', 'show: "blocks.0.attn.masked_scores[0, 3]"',
     "masked_scores[0, 3]", "questions.4.show", "out of range"),
]


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    text = template("broken")
    for old, new, *_ in BROKEN_EDITS:
        text = edit(text, old, new)
    path = write(tmp_path_factory.mktemp("broken"), "broken.yaml", text)
    return path, text, check_paths([path])


@pytest.mark.parametrize("old,new,needle,field,words", BROKEN_EDITS, ids=[e[3] for e in BROKEN_EDITS])
def test_each_mistake_is_reported_at_its_line(broken, old, new, needle, field, words):
    path, text, report = broken
    matches = [p for p in report.problems if p.field == field]
    assert matches, report.text()
    assert matches[0].line == line_of(text, needle), str(matches[0])
    assert words in matches[0].message, str(matches[0])
    assert str(matches[0]).startswith(f"{path}:{matches[0].line}:{matches[0].column}: {field}: ")


def test_nothing_else_is_reported(broken):
    _, _, report = broken
    assert len(report.problems) == len(BROKEN_EDITS), report.text()


def test_a_formula_that_does_not_parse_points_at_the_character(tmp_path):
    text = edit(template(), 'expr: "softmax(causal_mask(S))"', 'expr: "softmax(causal_mask(S)"')
    report = check_paths([write(tmp_path, "f.yaml", text)], live=False)
    [problem] = report.problems
    assert problem.field == "formula.expr" and "does not parse" in problem.message
    line = text.splitlines()[problem.line - 1]
    assert line[problem.column - 1] == "("   # the bracket that was never closed
    assert "column 8" in problem.message


def test_a_formula_that_disagrees_with_the_model_fails(tmp_path):
    text = edit(template(), 'S: "blocks.0.attn.scores[0, 0]"', 'S: "blocks.0.attn.scores[0, 1]"')   # another head
    report = check_paths([write(tmp_path, "f.yaml", text)])
    [problem] = report.problems
    assert problem.field == "formula.reproduces" and "DISAGREE" in problem.message
    assert problem.line == line_of(text, "reproduces:")


def test_formula_bindings_are_checked(tmp_path):
    text = edit(template(), '    S: "blocks.0.attn.scores[0, 0]"\n', "    W: 2\n")
    report = check_paths([write(tmp_path, "f.yaml", text)], live=False)
    messages = {p.field: p.message for p in report.problems}
    assert "not in the formula" in messages["formula.bind.W"]
    assert "'S' has no value" in messages["formula.bind"]


def test_a_prerequisite_may_name_a_built_in_lesson_and_cycles_are_found(tmp_path):
    a = edit(template("cyc-a"), "prerequisites: []", "prerequisites: [la-scaled-scores, cyc-b]")
    b = edit(template("cyc-b"), "prerequisites: []", "prerequisites: [cyc-a]")
    write(tmp_path, "cyc-a.yaml", a)
    write(tmp_path, "cyc-b.yaml", b)
    report = check_paths([tmp_path], live=False)
    assert [p.field for p in report.problems] == ["prerequisites.1", "prerequisites.0"], report.text()
    assert "cyc-a -> cyc-b -> cyc-a" in report.problems[0].message


def test_a_duplicate_id_is_reported_and_the_rest_of_the_file_still_checked(tmp_path):
    text = edit(template("la-scaled-scores"), "concepts: [pr.masked-softmax", "concepts: [nope")
    report = check_paths([write(tmp_path, "dup.yaml", text)], live=False)
    fields = {p.field: p for p in report.problems}
    assert "duplicate id 'la-scaled-scores'" in fields["id"].message
    assert fields["id"].line == line_of(text, "id: la-scaled-scores")
    assert "concepts.0" in fields


def test_unknown_experiment_and_unknown_field(tmp_path):
    text = edit(template(), "  seed: 0 ", "  experiments: [shufle]\n  sed: 0 ")
    report = check_paths([write(tmp_path, "e.yaml", text)])
    messages = [str(p) for p in report.problems]
    assert any("model.experiments: unknown experiment 'shufle'; did you mean 'shuffle'?" in m for m in messages), messages
    assert any("model.sed: unknown field; did you mean 'seed'?" in m for m in messages), messages


def test_sizes_that_cannot_run_are_reported_on_the_model(tmp_path):
    text = edit(template(), "    L: [4, 5]", "    L: [4, 5]\n    H: [2, 5]")
    text = edit(text, 'text: ["31415", "27182"]', 'text: ["3141é", "27182"]')
    report = check_paths([write(tmp_path, "s.yaml", text)])
    fields = {p.field: p.message for p in report.problems}
    assert "vocabulary" in fields["model.text"], report.text()
    assert "largest sizes" in fields["model.vary"] and "not divisible" in fields["model.vary"], report.text()
    long = edit(template(), 'text: ["31415", "27182"]', f'text: "{"7" * 70}"')
    long = "".join(line for line in long.splitlines(True) if not line.startswith(("  vary:", "    L: [4, 5]")))
    report = check_paths([write(tmp_path, "s.yaml", long)])
    assert [(p.field, "block_size 64" in p.message) for p in report.problems] == [("model.text", True)], report.text()


def test_trained_lessons_without_a_checkpoint_say_so(tmp_path, monkeypatch):
    from tutor.model.checkpoint import CheckpointError
    from tutor.live.hub import ModelHub

    def missing(self):
        raise CheckpointError("model/checkpoints/default.pt: no such file")

    monkeypatch.setattr(ModelHub, "ensure_loaded", missing)
    text = edit(template(), "  weights: random ", "  weights: trained ")
    for line in ("  d_model: 18", "  n_head: 3"):
        text = "\n".join(x for x in text.splitlines() if not x.startswith(line)) + "\n"
    report = check_paths([write(tmp_path, "t.yaml", text)])
    [problem] = report.problems
    assert problem.field == "model.weights" and "default checkpoint" in problem.message


def test_missing_paths_and_empty_folders(tmp_path):
    report = check_paths([tmp_path / "nope.yaml", tmp_path], live=False)
    assert {p.message for p in report.problems} == {"no such file or folder", "no lesson files (*.yaml) in this folder"}
