"""Issue 24, authors: what `tutor lessons check`, `probes`, `schema` and `new` tell a lesson author."""
import json
from pathlib import Path

from tutor.authoring.check import check_paths
from tutor.live.leaks import question_label
from tutor.cli.main import main
from tutor.course.placeholders import VOCABULARY, PlaceholderError, fill
from tutor.course.schema import QUESTION_KINDS, SCHEMA_FILE_NAME, Lesson

LESSONS = Path(__file__).resolve().parents[1] / "lessons"


def copy_of(tmp_path: Path, lesson_id: str, *edits: tuple[str, str]) -> Path:
    text = (LESSONS / f"{lesson_id}.yaml").read_text(encoding="utf-8")
    text = text.replace(f"id: {lesson_id}\n", f"id: {lesson_id}-copy\n", 1)
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / f"{lesson_id}-copy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def messages(report) -> list[str]:
    return [f"{p.field}: {p.message}" for p in report.problems]


def test_a_reduce_typo_gets_a_did_you_mean_instead_of_the_whole_list(tmp_path):
    path = copy_of(tmp_path, "pr-softmax", ("reduce: min", "reduce: minn"))
    found = messages(check_paths([path], live=False))
    assert "questions.2.reduce: unknown value 'minn'; did you mean 'min'?" in found   # smallest, the third question
    assert not any("count_distinct" in line for line in found)


def test_an_unknown_field_no_longer_hides_the_files_other_mistakes(tmp_path):
    path = copy_of(tmp_path, "pr-softmax", ("    tolerance: 0.01", "    tolerence: 0.01"),
                   ("concepts: [pr.softmax]", "concepts: [pr.softmaxx]"))
    found = messages(check_paths([path], live=False))
    assert "questions.1.tolerence: unknown field; did you mean 'tolerance'?" in found
    # before: the unknown field stopped the file at the schema, so the concept typo went unseen
    assert any(line.startswith("concepts.0: unknown concept id 'pr.softmaxx'") for line in found), found


def test_a_question_is_named_by_its_number_its_path_and_its_id_together():
    assert question_label(2, "total") == "question 3 (questions.2, 'total')"


def test_a_leak_message_names_the_question_as_its_field_does(tmp_path):
    hint = ("      - \"Measure every rival against the winner: how many times the winner's weight does the runner-up "
            "carry, and how many the third?\"")
    path = copy_of(tmp_path, "pr-softmax", (hint, '      - "The answer is 0.96."'))
    leaks = [p for p in check_paths([path], variants=0).problems if "gives away" in p.message]
    assert leaks and all("question 2 (questions.1, 'guess-share')" in p.message and p.field.startswith("questions.1")
                         for p in leaks), [str(p) for p in leaks]


def test_layernorm_output_after_scale_and_shift_is_a_probe(capsys):
    import torch
    from tutor.model import GPT, GPTConfig, run_with_probes

    model = GPT(GPTConfig(vocab_size=96, block_size=8, n_layer=1, n_head=2, d_model=8))
    with torch.no_grad():
        model.blocks[0].ln1.weight.uniform_(0.5, 2.0)
        model.blocks[0].ln1.bias.uniform_(-1.0, 1.0)
    _, probes = run_with_probes(model, torch.tensor([[1, 2, 3, 4]]))
    ln = model.blocks[0].ln1
    expected = probes["blocks.0.ln1.normalized"] * ln.weight + ln.bias                      # (1, L, D)
    assert torch.allclose(probes["blocks.0.ln1.out"], expected)
    assert {"blocks.0.ln2.out", "ln_final.out"} <= set(probes)
    assert main(["lessons", "probes"]) == 0
    out = capsys.readouterr().out
    assert "blocks.0.ln1.out" in out and "ln_final.out" in out


def test_a_placeholder_names_the_token_an_id_stands_for():
    import numpy as np

    tensors = {VOCABULARY: np.array([ord(c) for c in "\n ab1"], dtype=float), "top": np.array([4.0, 1.0, 0.0]),
               "p": np.array([0.25])}
    assert fill("top: {{ top[0] | token }}; then {{ top[1:3] | token }}", tensors, {}) == "top: '1'; then '␣', '\\n'"
    for bad in ("{{ p[0] | token }}", "{{ top[0] | tokens }}"):
        try:
            fill(bad, tensors, {})
        except PlaceholderError as error:
            assert "token" in str(error)
        else:
            raise AssertionError(bad)


def test_a_placeholder_spells_a_row_of_token_ids_as_one_terminal_safe_line():
    """de-decoding-comparison shows what each strategy wrote: the ids as text, a newline or an escape visible."""
    import numpy as np

    tensors = {VOCABULARY: np.array([ord(c) for c in "\n ab\x1b"], dtype=float),
               "samples": np.array([[2.0, 3.0, 1.0, 0.0, 4.0, 2.0], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0]])}
    assert fill("wrote {{ samples[0] | text }}.", tensors, {}) == "wrote \u201cab \u240a\u241ba\u201d."
    long = {**tensors, "samples": np.full((1, 65), 2.0)}
    for bad, data, word in (("{{ samples | text }}", tensors, "one row"), ("{{ samples[0] | text }}", long, "at most 64"),
                            ("{{ samples[0] | text }}", {"samples": tensors["samples"]}, "vocabulary")):
        try:
            fill(bad, data, {})
        except PlaceholderError as error:
            assert word in str(error)
        else:
            raise AssertionError(bad)


def test_the_decoding_comparison_shows_each_strategys_text_only_after_its_questions():
    """Greedy's text is the input of the first question (its repetition, counted from the text), so
    only prompts about greedy quote it; the other strategies' texts first appear in reveals, and the
    sampled texts come last, after every question about sampling."""
    from tutor.course.catalog import builtin_lessons_dir, load_lesson

    lesson = load_lesson(builtin_lessons_dir() / "de-decoding-comparison.yaml")
    shown = [i for i, q in enumerate(lesson.questions) if "| text }}" in (q.reveal or "")]
    ids = [q.id for q in lesson.questions]
    assert [ids[i] for i in shown] == ["greedy-distinct-2", "hot-logprob-drop"] and shown[-1] == len(ids) - 1
    quoting = [i for i, q in enumerate(lesson.questions) if "| text" in q.prompt]
    assert "| text" not in lesson.explanation and [ids[i] for i in quoting] == ["greedy-loop-repetition", "greedy-distinct-2"]
    assert all("samples[0, 0]" in lesson.questions[i].prompt and "samples[1" not in lesson.questions[i].prompt
               for i in quoting)


def test_a_reveal_says_the_top_token_live(tmp_path):
    path = copy_of(tmp_path, "pr-softmax", ("the winner is id {{ next_token.top_ids[0, 4, 0] }}, the digit '1' that",
                                            "the winner is {{ next_token.top_ids[0, 4, 0] | token }}, the digit that"))
    report = check_paths([path], variants=0)
    assert report.ok, messages(report)
    from tutor.course.catalog import load_lesson
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    lesson = load_lesson(path)
    live = compute_live(lesson, ModelHub())
    assert "the winner is '1', the digit that" in fill(lesson.questions[0].reveal, live.tensors, live.sizes)


def test_lessons_schema_prints_json_schema_of_every_field_and_kind(capsys):
    assert main(["lessons", "schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("https://json-schema.org/") and schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(Lesson.model_fields)
    mapping = schema["properties"]["questions"]["items"]["discriminator"]["mapping"]
    assert set(mapping) == set(QUESTION_KINDS) and "formula" in mapping   # every registered kind, formula too


def test_lessons_new_points_the_yaml_language_server_at_a_schema_beside_it(tmp_path, capsys):
    assert main(["lessons", "new", "my-schema", "--dir", str(tmp_path)]) == 0
    first_line = (tmp_path / "my-schema.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first_line == f"# yaml-language-server: $schema=./{SCHEMA_FILE_NAME}"
    capsys.readouterr()
    main(["lessons", "schema"])
    assert (tmp_path / SCHEMA_FILE_NAME).read_text(encoding="utf-8") == capsys.readouterr().out
