"""Every shipped lesson loads, and its questions can be answered from the live model."""
import pytest

from tutor.course.catalog import load_catalog
from tutor.course.loader import LessonFileError
from tutor.course.catalog import load_lesson
from tutor.grading.quiz import grade, truth_for

CATALOG = load_catalog()


def test_every_shipped_lesson_loads_without_problems():
    assert CATALOG.lessons, "no lessons shipped"
    assert not CATALOG.broken, [str(p) for b in CATALOG.broken for p in b.problems]
    assert not CATALOG.problems, [str(p) for p in CATALOG.problems]


def test_the_first_tracks_teach_the_three_core_lessons():
    ids = {item.lesson.id for item in CATALOG.ordered()}
    assert {"la-qkv-projection", "la-scaled-scores", "pr-masked-softmax"} <= ids


def test_scores_shape_answer_comes_from_the_model():
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    lesson = CATALOG.get("la-scaled-scores").lesson
    live = compute_live(lesson, ModelHub())
    question = lesson.questions[0]
    truth = truth_for(question, live.tensors, live.sizes)
    assert truth.value == (2, 3, 5, 5)
    assert grade(question, "2x3x5x5", truth, live.sizes).correct
    assert not grade(question, "(2, 4, 4)", truth, live.sizes).correct


def test_a_broken_file_points_at_file_line_and_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("format_version: 1\nid: x\ntitel: oops\n", encoding="utf-8")
    with pytest.raises(LessonFileError) as error:
        load_lesson(path)
    messages = [str(p) for p in error.value.problems]
    assert any(f"{path}:3:1: titel: unknown field; did you mean 'title'?" in m for m in messages), messages


def test_python_object_tags_are_refused(tmp_path):
    path = tmp_path / "evil.yaml"
    path.write_text("format_version: !!python/object/apply:os.system ['touch /tmp/tutor-pwned']\n")
    with pytest.raises(LessonFileError, match="tag"):
        load_lesson(path)


def test_every_shipped_lesson_passes_the_full_check():
    """The CI gate for lesson authors: `tutor lessons check` on the built-in lessons, live model included."""
    from tutor.authoring.check import check_paths

    report = check_paths(variants=1)   # own sizes, both corners of model.vary and one draw: fast enough for CI
    assert report.lessons, "no lessons checked"
    assert report.ok, "\n" + report.text()


def test_token_ids_can_replace_text_and_are_checked_against_the_vocabulary():
    from tutor.course.schema import Lesson
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    data = CATALOG.get("la-scaled-scores").lesson.model_dump()
    data["model"]["tokens"] = [[19, 20, 21, 22], [23, 24, 25, 26]]
    live = compute_live(Lesson.model_validate(data), ModelHub())
    assert live.rows == ["2345", "6789"]
    data["model"]["tokens"] = [[19, 20, 21, 500]]
    with pytest.raises(ValueError, match="outside the vocabulary"):
        compute_live(Lesson.model_validate(data), ModelHub())
    data["model"]["tokens"] = [[1, 2], [3]]
    with pytest.raises(ValueError, match="same length"):
        Lesson.model_validate(data)
