"""The loader: every problem in a lesson file is pinned to path:line:col with a way to fix it."""
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from tutor.course.loader import MAX_FILE_BYTES, Problem, column_in_value, read_yaml, validate, value_node
from tutor.course.schema import Lesson, LessonIndex

GOOD = """\
format_version: 1
id: tiny
title: "Tiny"
track: la
position: 1
concepts: [la.tensors]
explanation: "x"
formula: {expr: "x", translation: "x"}
model: {weights: random, text: "12"}
probes: [embed]
questions:
  - {id: q, kind: shape, prompt: "?", probe: embed}
"""


def problems(text: str, schema=Lesson) -> list[str]:
    data, root, found = read_yaml("l.yaml", text)
    if not found:
        _, found = validate(schema, data, root, "l.yaml")
    return [str(p) for p in found]


def test_a_good_file_has_no_problems():
    assert problems(GOOD) == []


def test_missing_field_names_itself():
    text = GOOD.replace('title: "Tiny"\n', "")
    assert problems(text) == ["l.yaml:1:1: title: required field is missing; add 'title:'"]


def test_unknown_field_inside_a_question_suggests_the_right_one():
    text = GOOD.replace("probe: embed}", "probe: embed, hnits: [a]}")
    assert problems(text) == ["l.yaml:12:53: questions.0.hnits: unknown field; did you mean 'hints'?"]


def test_wrong_question_kind_lists_the_kinds():
    [message] = problems(GOOD.replace("kind: shape", "kind: shapes"))
    assert message.startswith("l.yaml:12:") and "kind must be one of: shape, values, number" in message


def test_a_number_where_text_belongs_says_to_quote_it():
    [message] = problems(GOOD.replace('text: "12"', "text: 12"))
    assert "model.text" in message and "put the value in quotes" in message


def test_duplicate_keys_point_at_the_second_one():
    assert problems(GOOD + "id: again\n") == ["l.yaml:13:1: id: duplicate key (first at line 2); keep one"]


def test_format_version_2_is_explained():
    [message] = problems(GOOD.replace("format_version: 1", "format_version: 2"))
    assert "this tutor reads format_version: 1" in message


def test_a_bad_probe_reference_is_a_schema_error():
    [message] = problems(GOOD.replace("probes: [embed]", 'probes: ["embed[0:1:2]"]'))
    assert message.startswith("l.yaml:10:10: probes.0:") and "bad slice" in message


def test_yaml_syntax_error_has_a_position():
    [message] = problems(GOOD.replace("title: \"Tiny\"", "title: \"Tiny"))
    assert message.startswith("l.yaml:") and "YAML syntax" in message


def test_trained_weights_refuse_chosen_sizes():
    [message] = problems(GOOD.replace("weights: random", "weights: trained, d_model: 8"))
    assert "weights: random" in message


def test_index_schema_reads_the_shipped_index():
    from tutor.course.catalog import builtin_lessons_dir

    assert problems((builtin_lessons_dir() / "index.yaml").read_text(encoding="utf-8"), LessonIndex) == []


def test_positions_inside_one_line_values():
    text = 'a:\n  expr: "softmax(x"\n  plain: softmax(x\n  block: |\n    softmax(x\n'
    root = yaml.compose(text)
    assert column_in_value(value_node(root, ("a", "expr")), 8) == (2, 17)
    assert column_in_value(value_node(root, ("a", "plain")), 8) == (3, 17)
    assert column_in_value(value_node(root, ("a", "block")), 8) is None
    assert value_node(root, ("a", "missing")) is None


def _lesson_like():
    """Lesson-shaped data with random holes and junk, to reach the validator's corners."""
    scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False),
                       st.text(max_size=20))
    leaf = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                        max_leaves=8)
    base = yaml.safe_load(GOOD)
    keys = st.sampled_from(sorted(base) + ["kind", "answer", "vary", "bind", "titel"])
    return st.dictionaries(keys, leaf, max_size=6).map(lambda extra: {**base, **extra})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300),
                 _lesson_like().map(lambda d: yaml.safe_dump(d, allow_unicode=True))))
def test_random_input_never_raises(text):
    data, root, found = read_yaml("r.yaml", text)
    assert all(isinstance(p, Problem) for p in found)
    if not found:
        model, found = validate(Lesson, data, root, "r.yaml")
        assert (model is None) == bool(found)
    for problem in found:
        assert str(problem).startswith("r.yaml:") and problem.line >= 1 and problem.column >= 1


def test_size_limit_is_in_bytes():
    big = "x: " + "a" * MAX_FILE_BYTES
    [message] = problems(big)
    assert "limited to" in message or "limit" in message
