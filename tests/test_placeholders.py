"""Live numbers in lesson text: {{ probe[index] | format }} is parsed, never evaluated."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutor.course.placeholders import (Placeholder, PlaceholderError, fill, fill_report, find_placeholders, preview,
                                syntax_errors)

TENSORS = {
    "decode.probs": np.array([0.0, 0.25, 0.5812, 0.1688, 1 / 3]),
    "blocks.0.attn.pattern": np.arange(2 * 2 * 3 * 3, dtype=float).reshape(2, 2, 3, 3) / 100,
    "kl.KL_pq": np.array([4.4270]),
    "big": np.arange(20, dtype=float),
    "params.W_E": np.ones((4, 2)),
}
SIZES = {"B": 2, "L": 3, "D": 8, "H": 2, "D_head": 4, "d_k": 4, "d_model": 8, "V": 96, "N": 1, "T": 64}


def filled(text: str) -> str:
    return fill(text, TENSORS, SIZES)


# --- syntax -------------------------------------------------------------------------------------


def test_find_placeholders_reads_reference_format_and_span():
    text = "p = {{ decode.probs[2] | .2f }} and {{D}} and {{ blocks.0.attn.pattern[0, 1, 2, 0:2] }}."
    found = find_placeholders(text)
    assert [(p.ref, p.fmt) for p in found] == [
        ("decode.probs[2]", ".2f"), ("D", None), ("blocks.0.attn.pattern[0, 1, 2, 0:2]", None)]
    assert all(isinstance(p, Placeholder) for p in found)
    assert text[found[0].start:found[0].end] == "{{ decode.probs[2] | .2f }}"
    assert found[1].is_size and not found[0].is_size


def test_text_without_placeholders_is_unchanged():
    for text in ["plain text", "a set {0, 1} and {x}", "one } brace", ""]:
        assert find_placeholders(text) == [] and filled(text) == text and preview(text) == text


@pytest.mark.parametrize("text,words", [
    ("{{ decode.probs[2] | .2x }}", "format '.2x' is not allowed"),
    ("{{ decode.probs[2] | .12f }}", "format '.12f' is not allowed"),
    ("{{ decode.probs[2] | }}", "a format is missing"),
    ("{{ decode.probs[2] | .2f | % }}", "one '|' at most"),
    ("{{ }}", "empty"),
    ("{{ decode.probs[2 }}", "the index must be one [...] at the end"),
    ("{{ decode.probs[1+1] }}", "bad index"),
    ("{{ decode.probs[::2] }}", "bad slice"),
    ("{{ D[0] }}", "D is a size"),
    ("{{ 3 * 4 }}", "is not a probe name"),
    ("left {{ decode.probs[2] and no end", "never closed"),
    ("{{ " + "a" * 300 + " }}", "too long"),
])
def test_syntax_errors_say_what_is_wrong(text, words):
    errors = syntax_errors(text)
    assert len(errors) == 1 and words in str(errors[0]), errors
    with pytest.raises(PlaceholderError, match=None) as caught:
        find_placeholders(text)
    assert words in str(caught.value)
    assert "⟨error: " in preview(text)


def test_syntax_error_positions_point_at_the_placeholder():
    text = "fine {{ D }} then {{ decode.probs[2] | .9z }} end"
    [error] = syntax_errors(text)
    assert text[error.start:error.end] == "{{ decode.probs[2] | .9z }}"
    assert str(error).startswith("placeholder {{ decode.probs[2] | .9z }}: ")


# --- values and formats -------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("{{ decode.probs[2] }}", "0.5812"),
    ("{{ decode.probs[2] | .2f }}", "0.58"),
    ("{{ decode.probs[2] | .0f }}", "1"),
    ("{{ decode.probs[4] | .3g }}", "0.333"),
    ("{{ decode.probs[2] | .1e }}", "5.8e-01"),
    ("{{ decode.probs[2] | % }}", "58%"),
    ("{{ decode.probs[2] | .1% }}", "58.1%"),
    ("{{ decode.probs[1] }}", "0.25"),
    ("{{ decode.probs[0] }}", "0"),
    ("{{ decode.probs[-1] | .2f }}", "0.33"),
    ("{{ kl.KL_pq[0] | .2f }} nats", "4.43 nats"),
    ("{{ kl.KL_pq }}", "4.427"),                       # one element, any number of axes
    ("D = {{ D }}, D_head = {{D_head}}, V = {{ V | .1f }}", "D = 8, D_head = 4, V = 96.0"),
    ("{{ blocks.0.attn.pattern[1, 0, 2, 0:3] | .2f }}", "0.24, 0.25, 0.26"),
    ("{{ decode.probs[1:3] }}", "0.25, 0.5812"),
    ("{{ big[0:12] }}", "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"),
    ("{{ params.W_E[0, 0] }}", "1"),
    ("a {{ decode.probs[2]|.2f}} b {{ decode.probs[1] |%}} c", "a 0.58 b 25% c"),
    ("{{ decode.probs[\n  2] | .2f }}", "0.58"),      # a block scalar may wrap inside a placeholder
])
def test_fill_renders_numbers_lists_and_formats(text, expected):
    assert filled(text) == expected


def test_infinities_and_nan_render_as_words():
    tensors = {"x": np.array([np.inf, -np.inf, np.nan])}
    assert fill("{{ x }}", tensors, {}) == "inf, -inf, nan"
    assert fill("{{ x[1] | .2f }}", tensors, {}) == "-inf"


@pytest.mark.parametrize("text,words", [
    ("{{ decode.prob[2] }}", "unknown probe 'decode.prob'; did you mean 'decode.probs'? Valid probes:"),
    ("{{ decode.probs[9] }}", "index 9 is out of range for axis 0 of size 5"),
    ("{{ decode.probs[0, 0] }}", "indexes 2 axes but decode.probs has 1"),
    ("{{ big }}", "selects 20 values (20,); a placeholder shows one number or a list of at most 12"),
    ("{{ big[0:13] }}", "selects 13 values"),
    ("{{ decode.probs[3:3] }}", "selects no values"),
    ("{{ nope }}", "(or a size name: B, L, D, H, D_head"),
])
def test_fill_errors_name_the_placeholder_and_the_fix(text, words):
    with pytest.raises(PlaceholderError) as caught:
        filled(text)
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"placeholder {text}: ")


def test_unknown_names_list_the_valid_probes_without_the_weights():
    with pytest.raises(PlaceholderError) as caught:
        filled("{{ zzz }}")
    message = str(caught.value)
    assert "valid probes: big, blocks.0.attn.pattern, decode.probs, kl.KL_pq" in message
    assert "params.W_E" not in message


def test_a_size_the_model_does_not_report_is_an_error():
    with pytest.raises(PlaceholderError, match="size 'T' is not known"):
        fill("{{ T }}", TENSORS, {"D": 8})


def test_fill_report_shows_errors_inline_and_keeps_the_rest():
    text = "ok {{ decode.probs[1] }}, bad {{ decode.prob[1] }}, broken {{ decode.probs[1] | x }}."
    out, errors = fill_report(text, TENSORS, SIZES)
    assert out.startswith("ok 0.25, bad ⟨error: placeholder {{ decode.prob[1] }}: unknown probe 'decode.prob'; "
                          "did you mean 'decode.probs'?⟩, broken ⟨error: placeholder {{ decode.probs[1] | x }}: ")
    assert "Valid probes" not in out        # the long list stays out of the lesson text
    assert out.endswith("⟩.")
    assert len(errors) == 2 and all(isinstance(e, PlaceholderError) for e in errors)


def test_preview_hides_values_until_the_tensors_arrive():
    assert preview("p = {{ decode.probs[2] | .2f }}, D = {{ D }}.") == "p = …, D = …."


# --- untrusted input ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "{{ __class__ }}",
    "{{ __class__.__mro__ }}",
    "{{ decode.probs.__class__ }}",
    "{{ decode.probs[0].__class__ }}",
    "{{ a[0] | {0} }}",
    "{{ decode.probs[2] | {0.__class__} }}",
    "{{ decode.probs[2] | !r }}",
    "{{ decode.probs[2] | >10 }}",
    "{{ __import__('os').system('echo pwned') }}",
])
def test_attacks_are_errors_never_evaluated(text, capfd):
    out, errors = fill_report(text, TENSORS, SIZES)
    assert len(errors) == 1 and out.startswith("⟨error: placeholder {{") and out.endswith("⟩")
    assert "<class" not in out and "type" not in out
    assert "pwned" not in capfd.readouterr().out


def test_single_braces_are_plain_text():
    text = "{0.__class__} {0} {} {decode.probs} { {x} }"
    assert filled(text) == text and find_placeholders(text) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("{}|[]:,.%-_ 0123456789abdefgpDLV\n∞") + ["decode.probs", "__class__", "{{",
                                                                               "}}", " | ", ".2f", "big"]),
                max_size=40).map("".join))
def test_random_text_never_raises_anything_but_placeholder_error(text):
    try:
        found = find_placeholders(text)
    except PlaceholderError:
        found = None
    try:
        out = fill(text, TENSORS, SIZES)
    except PlaceholderError:
        out = None
    report, errors = fill_report(text, TENSORS, SIZES)
    assert isinstance(report, str) and isinstance(preview(text), str)
    assert (out is None) == bool(errors)
    if found == [] and out is not None:
        assert out == text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_unicode_text_is_safe(text):
    fill_report(text, TENSORS, SIZES)
    preview(text)
    syntax_errors(text)


def test_a_long_text_of_unclosed_braces_is_quick():
    import time

    text = "{{ " * 3000
    started = time.perf_counter()
    assert len(syntax_errors(text)) == 1
    assert time.perf_counter() - started < 0.5


# --- the checker --------------------------------------------------------------------------------


def _lesson_with(tmp_path: Path, prompt: str, explanation_line: str = "Plain.") -> tuple[Path, str]:
    from tutor.cli.lessons import template_text

    text = template_text("ph-lesson", "Placeholders", "pr", 100, Path("ph-lesson.yaml"), ["pr"])
    old = '    prompt: "What do the weights in row 1 (head 0) add up to?"'
    assert old in text
    text = text.replace(old, f'    prompt: "{prompt}"')
    text = text.replace("  Here: the attention pattern", f"  {explanation_line}\n  Here: the attention pattern")
    path = tmp_path / "ph-lesson.yaml"
    path.write_text(text, encoding="utf-8")
    return path, text


def test_checker_reports_an_unknown_probe_in_a_prompt_at_its_line_and_column(tmp_path):
    from tutor.authoring.check import check_paths

    path, text = _lesson_with(tmp_path, "Row 1 starts {{ blocks.0.attn.patern[0, 0, 1, 0] | .2f }}. Its sum?")
    report = check_paths([path])
    [problem] = report.problems
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "attn.patern" in row)
    column = text.splitlines()[line - 1].index("{{") + 1
    assert (problem.line, problem.column) == (line, column), str(problem)
    assert str(problem).startswith(f"{path}:{line}:{column}: questions.3.prompt: placeholder "
                                   "{{ blocks.0.attn.patern[0, 0, 1, 0] | .2f }}: unknown probe "
                                   "'blocks.0.attn.patern'; did you mean 'blocks.0.attn.pattern'?")


def test_checker_tries_every_size_variant(tmp_path):
    from tutor.authoring.check import check_paths

    # L varies from 4 to 5: row 4 exists for the lesson's own L = 5 but not for the smallest
    path, _ = _lesson_with(tmp_path, "Weight {{ blocks.0.attn.pattern[0, 0, 4, 0] | .3f }} at row 4. Row 1's sum?")
    report = check_paths([path])
    [problem] = report.problems
    assert problem.field == "questions.3.prompt"
    assert "index 4 is out of range for axis 2 of size 4" in problem.message
    assert "the smallest sizes in model.vary" in problem.message


def test_static_check_finds_bad_syntax_in_a_block_scalar_at_its_line(tmp_path):
    from tutor.authoring.check import check_paths

    path, text = _lesson_with(tmp_path, "Row 1's sum?", "The model has D = {{ D | .2q }} features.")
    report = check_paths([path], live=False)
    [problem] = report.problems
    line = next(i for i, row in enumerate(text.splitlines(), 1) if ".2q" in row)
    assert (problem.path, problem.line, problem.field) == (str(path), line, "explanation")
    assert text.splitlines()[line - 1][problem.column - 1:].startswith("{{ D | .2q }}")
    assert "format '.2q' is not allowed" in problem.message


def test_static_check_refuses_placeholders_in_choices_and_the_title(tmp_path):
    from tutor.authoring.check import check_paths

    path, text = _lesson_with(tmp_path, "Row 1's sum?")
    text = text.replace('title: "Placeholders"', 'title: "Placeholders {{ D }}"')
    text = text.replace('      - "−∞ is faster to compute, and a 0 would remove the position as well."', '      - "{{ D }} is faster."')
    path.write_text(text, encoding="utf-8")
    report = check_paths([path], live=False)
    assert {p.field for p in report.problems} == {"title", "questions.4.choices.1"}, report.text()
    assert all("shown as written" in p.message for p in report.problems)


def test_good_placeholders_pass_the_full_check(tmp_path):
    from tutor.authoring.check import check_paths

    path, _ = _lesson_with(tmp_path, "With D = {{ D }}, row 1 is {{ blocks.0.attn.pattern[0, 0, 1, 0:2] | .3f }}. Sum?",
                           "Row 1 of head 0 gives column 0 {{ blocks.0.attn.pattern[0, 0, 1, 0] | % }}.")
    report = check_paths([path])   # (row 0's 100% would give away the row-sum question's 1: the leak check)
    assert report.ok, report.text()


def test_size_names_are_the_ones_the_checker_and_the_live_model_know():
    from tutor.authoring.check import KNOWN_SIZES
    from tutor.course.placeholders import SIZE_NAMES

    assert set(SIZE_NAMES) == set(KNOWN_SIZES)
