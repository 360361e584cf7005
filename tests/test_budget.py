"""The compute budget (issue 15.4): a lesson whose live model would take minutes or gigabytes is
refused when it loads, with what to change; the worst lessons the budget allows still compute.
bench/lesson_budget.py prints their measured time and memory (no test times anything)."""
import pytest
from pydantic import ValidationError

from tutor.course.schema import Lesson, ModelSetup
from tutor.course.budget import lesson_cost

HEAVY = ["adam", "landscape", "gradient_descent", "finite_diff", "momentum", "shuffle", "generate", "autograd"]


def rows(B: int, L: int) -> list[str]:
    return ["".join(str((i * 7 + j) % 10) for j in range(L)) for i in range(B)]


def test_the_largest_sizes_with_eight_experiments_are_refused_with_a_fix():
    # before: over 400 s and gigabytes in lessons check; finite_diff alone 30 s and 3.6 GB
    with pytest.raises(ValidationError) as error:
        ModelSetup(weights="random", d_model=512, n_head=16, n_layer=8, text=rows(16, 64), experiments=HEAVY)
    message = str(error.value)
    assert "would need about 430 s" in message and "fewer experiments" in message   # autograd grew a third backward()


def test_vary_ranges_count_at_their_largest():
    small = dict(weights="random", d_model=512, n_head=16, n_layer=8, text=rows(2, 8))
    ModelSetup(**small)
    with pytest.raises(ValidationError, match="budget"):
        ModelSetup(**small, vary={"B": [1, 16], "L": [8, 64]})


def test_the_worst_allowed_lesson_computes():
    from tutor.live.compute import compute_live
    from tutor.live.hub import ModelHub

    model = dict(weights="random", d_model=128, n_head=8, n_layer=4, text=rows(4, 64), experiments=HEAVY)
    assert lesson_cost(4, 64, 128, 8, 4, HEAVY).over() is None
    lesson = Lesson.model_validate(dict(
        format_version=1, id="worst", title="worst", track="la", position=1, concepts=["la.tensors"],
        explanation="x", formula={"expr": "x", "translation": "x"}, probes=["embed"], model=model,
        questions=[{"id": "q", "kind": "shape", "prompt": "p", "probe": "embed"}]))
    live = compute_live(lesson, ModelHub())
    assert live.tensors["embed"].shape == (4, 64, 128) and "finite_diff.gain" in live.tensors
