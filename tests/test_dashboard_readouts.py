"""The shipped text model makes decoding strategies differ; the Sample tab offers it; buttons that
can do nothing are greyed; the command palette reaches the dashboard's actions."""
import pytest
from textual.command import CommandList
from textual.widgets import Button, Input, Select, TabbedContent

from journey_helpers import wait_until
from tutor.live.hub import load_named
from tutor.training.runs import shape_problem
from tutor.training.sampling import SampleRequest, sample_steps
from tutor.ui.app import TutorApp
from tutor.ui.palette import DASHBOARD_ACTIONS, dashboard_action
from tutor.ui.widgets.sample_panel import TASK_HINT, SamplePanel, is_task_model

STRATEGIES = {"greedy": {}, "temperature 1.5": {"strategy": "temperature", "temperature": 1.5},
              "top-k 5": {"strategy": "top-k", "top_k": 5}, "top-p 0.9": {"strategy": "top-p", "top_p": 0.9}}


def continuation(model, tokenizer, **knobs) -> str:
    request = SampleRequest("The function ", max_new=40, seed=0, stop_at_newline=False, **knobs)
    return "".join(step.text for step in sample_steps(model, tokenizer, request))


def test_the_text_model_has_the_lessons_shape_and_names_its_recipe():
    model, tokenizer, label = load_named("text")
    assert shape_problem(model.config) is None
    assert label.startswith("shipped text model (trained on text")
    with pytest.raises(ValueError, match="choose sort, text"):
        load_named("poetry")


def test_four_strategies_write_four_different_texts_on_the_text_model():
    model, tokenizer, _ = load_named("text")
    texts = {name: continuation(model, tokenizer, **knobs) for name, knobs in STRATEGIES.items()}
    assert len(set(texts.values())) == 4, texts
    assert continuation(model, tokenizer, **STRATEGIES["top-k 5"]) == texts["top-k 5"]   # seeded: repeatable


def test_sort_models_are_recognised_from_their_label():
    assert is_task_model("shipped default checkpoint (trained on sort, 1500 steps, accuracy 100%)")
    assert is_task_model("your model: reverse, 300 steps, accuracy 97%")
    assert not is_task_model("shipped text model (trained on text, 4000 steps)")
    assert not is_task_model("your model: notes.txt, 300 steps")


@pytest.fixture
def no_pace(monkeypatch):
    monkeypatch.setattr(SamplePanel, "pace", 0.0)


async def test_sample_tab_says_when_strategies_look_alike_and_offers_the_text_model(no_pace):
    app = TutorApp(watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model_status == "ready", "the model")
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        panel = screen.query_one(SamplePanel)
        assert str(panel.query_one("#sample-message").content) == TASK_HINT
        # nothing runs, nothing to load, the shipped model is on: those buttons are greyed
        assert screen.query_one("#train-stop", Button).disabled
        assert screen.query_one("#train-pause", Button).disabled
        assert screen.query_one("#train-load", Button).disabled
        assert screen.query_one("#train-reset", Button).disabled
        screen.query_one("#train-path", Input).value = "some.pt"
        await pilot.pause()
        assert not screen.query_one("#train-load", Button).disabled
        panel.query_one("#sample-model", Select).value = "text"
        await pilot.pause()
        assert panel.query_one("#sample-prompt", Input).value == "The function "
        outputs = []
        for strategy in ("greedy", "temperature", "top-k", "top-p"):
            panel.query_one("#sample-strategy", Select).value = strategy
            panel.query_one("#sample-temperature", Input).value = "1.5" if strategy == "temperature" else "1.0"
            panel.query_one("#sample-stop", type(panel.query_one("#sample-stop"))).value = False
            await pilot.pause()
            panel.sample()
            await wait_until(pilot, lambda: not panel.running, f"{strategy} to finish")
            outputs.append(panel.output)
        assert len(set(outputs)) == 4, outputs
        assert "shipped text model" in str(panel.query_one("#sample-message").content)
        assert not panel.query_one("#sample-next", Button).disabled and panel.query_one("#sample-prev", Button).disabled


async def test_the_palette_reaches_dashboard_actions(no_pace):
    assert [name for name, *_ in DASHBOARD_ACTIONS] == [
        "train the model", "pause or resume training", "stop training", "sample text from the model",
        "attention heatmap", "back to the shipped model"]
    app = TutorApp(watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model_status == "ready", "the model")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"attention heatmap")
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count, "the palette's matches")
        await pilot.press("enter")
        screen = app.dashboard_screen()
        await wait_until(pilot, lambda: app.screen is screen and screen.query_one(TabbedContent).active == "tab-attention",
                         "the Attention tab")
        await wait_until(pilot, lambda: screen.query_one("#tab-attention").shown is not None, "the heatmap")
        dashboard_action(app, "tab-sample", "sample")
        await wait_until(pilot, lambda: screen.query_one(SamplePanel).output != "", "a sample")
        assert screen.query_one(TabbedContent).active == "tab-sample"
