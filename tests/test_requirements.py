"""model.requires: a lesson says which model it needs; the checker skips it elsewhere, the app
offers the shipped model instead, and --checkpoint checks lessons against any model."""
import pytest
from pydantic import ValidationError

from journey_helpers import text_of, wait_until
from tutor.cli.main import main
from tutor.course.catalog import load_catalog
from tutor.course.schema import ModelSetup
from tutor.live.hub import hub_for_checkpoint
from tutor.live.requirements import ModelFacts, unmet_requirement

SORT = ModelFacts("sort", True, 64, 4, 2, "shipped")
REVERSE = ModelFacts("reverse", True, 64, 4, 2, "your model: reverse")
FRESH = ModelFacts(None, False, 64, 4, 2, "fresh weights")


def test_requirements_in_plain_words():
    setup = ModelSetup(requires={"task": "sort", "trained": True})
    assert unmet_requirement(setup, SORT) is None
    assert unmet_requirement(setup, REVERSE) == ("this lesson needs a model trained on the sort task; "
                                                 "the current model is your model: reverse")
    assert unmet_requirement(setup, FRESH) == ("this lesson needs a model trained on the sort task; "
                                                  "the current model is fresh weights")
    assert "n_layer = 4" in unmet_requirement(ModelSetup(requires={"shape": {"n_layer": 4}}), SORT)
    assert unmet_requirement(ModelSetup(requires={"task": ["sort", "reverse"]}), REVERSE) is None


def test_requires_is_for_trained_weights_and_names_known_tasks():
    with pytest.raises(ValidationError, match="weights: random builds its own model"):
        ModelSetup(weights="random", requires={"trained": True})
    with pytest.raises(ValidationError):
        ModelSetup(requires={"task": "sorting"})


def test_check_with_a_checkpoint_skips_with_the_reason(capsys):
    assert main(["lessons", "check", "--checkpoint", "random", "--variants", "0",
                 str(load_catalog().get("pr-confident-wrong").path), str(load_catalog().get("pr-masked-softmax").path)]) == 0
    out = capsys.readouterr().out
    assert "skipped pr-confident-wrong: this lesson needs a model trained on the sort task; the current" in out
    assert "on random initial weights of the shipped shape" in out and "(1 skipped for model.requires): all valid" in out


def test_a_checkpoint_that_cannot_be_read_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    assert main(["lessons", "check", "--checkpoint", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"--checkpoint {bad}:" in err and "Traceback" not in err


async def test_the_app_offers_the_shipped_model_and_keeps_the_learners(tmp_path):
    from tutor.ui.app import TutorApp
    from tutor.ui.screens.lesson import LessonScreen

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    random_hub = hub_for_checkpoint("random")
    app.hub.replace(random_hub.model, random_hub.tokenizer, random_hub.label, random_hub.meta)
    version = app.hub.version
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_lesson("pr-confident-wrong")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        await wait_until(pilot, lambda: "needs a model" in text_of(screen, "#live-status", width=300), "the requirement")
        assert "Ctrl+O" in text_of(screen, "#live-status", width=300)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen.live is not None, "the live tensors on the shipped model")
        assert "shipped default checkpoint" in screen.live.weights_label
        assert app.hub.version == version and app.hub.label == random_hub.label   # the learner's model stays


def test_an_unmet_requirement_is_worded_in_chinese_with_the_model_s_label():
    """Before: 'this lesson needs a model trained on the sort task, trained; the current model is …' was
    English under --lang zh, on the lesson screen and in lessons check."""
    from tutor.common.i18n import set_language, translated

    need = unmet_requirement(ModelSetup(requires={"task": ["sort", "reverse"], "shape": {"n_layer": 4}}),
                             ModelFacts(None, False, 64, 4, 2, "random initial weights (seed 3, untrained)"))
    assert need == ("this lesson needs a model trained on the sort task or the reverse task, n_layer = 4; "
                    "the current model is random initial weights (seed 3, untrained)")
    set_language("zh")
    try:
        shown = translated(need)
    finally:
        set_language("en")
    assert "排序任务" in shown and "n_layer = 4" in shown and "随机" in shown, shown
    assert not any(word in shown for word in ("needs", "trained", "current", "seed", " or ")), shown
