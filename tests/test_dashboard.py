"""The dashboard with Textual's Pilot: open/close, start/pause/stop, sampling, attention, lessons.

Training uses a tiny preset (a few dozen steps of 8 rows) so each run takes about a second.
"""
import asyncio

import pytest
from textual import events
from textual.widgets import Input, Select

from journey_helpers import wait_until
from tutor.training import runs as dt
from tutor.ui.app import TutorApp
from tutor.ui.screens.dashboard import DashboardScreen
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.widgets.sample_panel import SamplePanel
from tutor.ui.widgets.train_panel import TrainPanel


@pytest.fixture(autouse=True)
def tiny_preset(monkeypatch):
    monkeypatch.setitem(dt.PRESETS, "test", dt.Preset("test: 30 steps", 30, 8, 10))
    monkeypatch.setitem(dt.PRESETS, "long", dt.Preset("long: many steps", 100_000, 8, 10))
    monkeypatch.setattr(dt, "ACCURACY_EXAMPLES", 30)
    monkeypatch.setattr(SamplePanel, "pace", 0.0)


async def key(pilot, name: str) -> None:
    """Press a key while training runs: Pilot.press waits for the process to go idle (up to 2 s a
    key), which it never does while a trainer keeps a core busy."""
    pilot.app.post_message(events.Key(name, name if len(name) == 1 else None))
    for _ in range(3):
        await asyncio.sleep(0.02)


async def click(pilot, selector: str) -> None:
    """A button ignores clicks while it still shows its last press (about 0.2 s)."""
    button = pilot.app.screen.query_one(selector)
    await wait_until(pilot, lambda: not button.has_class("-active"),
                     "the button to be clickable", busy=True, seconds=2)
    await pilot.click(selector)
    await pilot.pause()


async def open_dashboard(pilot, app) -> DashboardScreen:
    await pilot.press("f3")
    await pilot.pause()
    assert isinstance(app.screen, DashboardScreen)
    return app.screen


def choose(screen, selector: str, value) -> None:
    screen.query_one(selector, Select).value = value


def message(screen, selector: str = "#train-message") -> str:
    content = screen.query_one(selector).content
    return getattr(content, "plain", str(content))


async def train(pilot, screen, preset: str = "test") -> None:
    choose(screen, "#train-preset", preset)
    await key(pilot, "f5")


async def test_f3_opens_the_dashboard_from_a_lesson_and_goes_back(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("la-scaled-scores")
        await pilot.pause()
        lesson = app.screen
        assert isinstance(lesson, LessonScreen) and lesson.query_one(Input).has_focus
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("f3")
        await pilot.pause()
        assert app.screen is lesson
        await pilot.press("ctrl+d")           # also from the answer box, which would take letters
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is lesson
        assert lesson.query_one(Input).value == ""


async def test_roadmap_d_opens_it_and_everything_fits_at_80x24(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        for tab, ids in (("tab-train", ["train-go", "train-stop", "train-load", "train-path", "train-chart",
                                        "train-lr", "train-start"]),
                         ("tab-sample", ["sample-go", "sample-seed", "sample-stop", "sample-dist"]),
                         ("tab-attention", ["attn-go", "attn-head", "attn-box"])):
            screen.query_one("#dash-tabs").active = tab
            await pilot.pause()
            for name in ids:
                region = screen.query_one(f"#{name}").region
                assert region.width > 0 and region.height > 0, name
                assert region.right <= 80 and region.bottom <= 23, (name, region)


async def test_start_pause_resume_stop_publishes_the_weights_to_the_lessons(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        panel = screen.train_panel
        await train(pilot, screen, "long")
        await wait_until(pilot, lambda: panel.state == "training" and panel.metrics is not None,
                         "training", busy=True)
        await key(pilot, "f6")
        await wait_until(pilot, lambda: panel.state == "paused" and panel.run.paused, "the pause", busy=True)
        step = -1
        for _ in range(50):                               # a step already in flight may finish (slow when busy)
            if panel.run.step_count == step:
                break
            step = panel.run.step_count
            await asyncio.sleep(0.3)
        await asyncio.sleep(0.5)
        assert panel.run.step_count == step       # a paused trainer takes no more steps
        await key(pilot, "f5")                            # resume
        await wait_until(pilot, lambda: panel.state == "training", "the resume", busy=True)
        await wait_until(pilot, lambda: panel.val_points, "an evaluation", busy=True)
        assert app.hub.label.startswith("your model: sort") and "to go" in app.hub.label
        await key(pilot, "f7")
        await wait_until(pilot, lambda: not panel.training_active and panel.state == "idle", "the stop", busy=True)
        assert "stopped after" in message(screen)
        assert app.hub.label.startswith("your model: sort,") and "to go" not in app.hub.label
        assert app.hub.model.config.d_model == 64 and not app.hub.model.training
        assert panel.train_points and panel.unsaved


async def test_a_finished_run_shows_in_an_open_lesson_when_the_learner_comes_back(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("pr-masked-softmax")
        await pilot.pause()
        lesson = app.screen
        await wait_until(pilot, lambda: lesson.live is not None, "the lesson's tensors", busy=True)
        shipped = lesson.live.tensors["blocks.0.attn.pattern"].copy()
        assert "shipped" in lesson.live.weights_label
        screen = await open_dashboard(pilot, app)
        await train(pilot, screen)
        await wait_until(pilot, lambda: screen.train_panel.state == "idle" and app.hub.label.startswith("your"),
                         "the run to finish", busy=True)
        assert "trained 30 steps" in message(screen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: lesson.live is not None and lesson.live.weights_label.startswith("your model"),
                         "the lesson to recompute", busy=True)
        assert "your model: sort, 30 steps" in message(lesson, "#live-status")
        assert abs(lesson.live.tensors["blocks.0.attn.pattern"] - shipped).max() > 1e-3


async def test_training_from_the_current_model_continues_it(tmp_path):
    """Before: every run "From: current model" failed at its first step ("Training failed after 0
    steps: RuntimeError: element 0 of tensors does not require grad"): the lessons' copy of the
    model, which the run started from, has no gradients."""
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        choose(screen, "#train-start", "current")
        await train(pilot, screen)
        await wait_until(pilot, lambda: screen.train_panel.last_ending, "the run to end", busy=True)
        assert "trained 30 steps" in message(screen), message(screen)
        assert app.hub.label.startswith("your model: sort, 30 steps, accuracy ")
        assert app.hub.label.endswith(", continued from shipped default checkpoint")


async def test_sampling_top_k_1_equals_greedy_and_shows_the_distribution(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        await pilot.press("f8")                            # Sample tab, focus in the prompt
        panel = screen.query_one(SamplePanel)
        assert screen.query_one("#sample-prompt", Input).has_focus
        await pilot.press("enter")                         # greedy on "3142>"
        await wait_until(pilot, lambda: not panel.running and panel.steps, "greedy output", busy=True)
        greedy = panel.output
        assert greedy == "1234\n"                          # the shipped model sorts
        first = panel.steps[0].candidates
        assert first[0].text == "1" and first[0].after == 1.0

        choose(screen, "#sample-strategy", "top-k")
        screen.query_one("#sample-top-k", Input).value = "1"
        screen.query_one("#sample-temperature", Input).value = "1.5"
        screen.query_one("#sample-seed", Input).value = "7"
        await click(pilot, "#sample-go")
        await wait_until(pilot, lambda: not panel.running and panel.steps, "top-k output", busy=True)
        assert panel.output == greedy
        assert [c.after for c in panel.steps[0].candidates[1:]] == [0.0] * (len(panel.steps[0].candidates) - 1)

        for strategy in ("temperature", "top-p", "beam"):
            choose(screen, "#sample-strategy", strategy)
            await click(pilot, "#sample-go")
            await wait_until(pilot, lambda: not panel.running and panel.steps, strategy, busy=True)
            assert panel.output and "sampling" not in message(screen, "#sample-message")
        await click(pilot, "#sample-prev")
        assert panel.shown == 0

        await pilot.press("f8")                            # Attention: the sample's text, tokens on both axes
        await wait_until(pilot, lambda: screen.query_one("#tab-attention").shown is not None,
                         "the heatmap", busy=True)
        assert screen.query_one("#attn-text", Input).value == "3142>" + panel.output.rstrip("\n")
        await pilot.press("f8", "f8")                      # back to Sample: a new output is shown next time
        choose(screen, "#sample-strategy", "greedy")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not panel.running and panel.output == greedy, "greedy again", busy=True)
        await pilot.press("f8", "f8")
        assert screen.query_one("#attn-text", Input).value == "3142>1234"
        choose(screen, "#attn-layer", 1)
        choose(screen, "#attn-head", 3)
        await wait_until(pilot, lambda: screen.query_one("#tab-attention").shown == (1, 3),
                         "layer 1 head 3", busy=True)


async def test_sampling_errors_are_said_in_the_panel(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        screen.query_one("#dash-tabs").active = "tab-sample"
        await pilot.pause()
        screen.query_one("#sample-prompt", Input).value = ""
        await click(pilot, "#sample-go")
        assert "type a prompt" in message(screen, "#sample-message")
        screen.query_one("#sample-prompt", Input).value = "12>"
        choose(screen, "#sample-strategy", "top-p")
        screen.query_one("#sample-top-p", Input).value = "2"
        await click(pilot, "#sample-go")
        assert "top-p must be in (0, 1]" in message(screen, "#sample-message")
        screen.query_one("#sample-max", Input).value = "lots"
        await click(pilot, "#sample-go")
        assert "max tokens must be a whole number" in message(screen, "#sample-message")


async def test_training_errors_end_with_a_message_and_the_app_keeps_going(tmp_path, monkeypatch):
    """A bad file, a bad number, a diverging run and running out of memory, one after another."""
    from tutor.model.train import Trainer

    (tmp_path / "short.txt").write_text("too short", encoding="utf-8")
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00\x81" * 100)
    cases = [
        (dict(data="file", path="/no/such/file.txt"), "neither sort, reverse, text nor an existing file"),
        (dict(data="file", path=str(tmp_path / "short.txt")), "need more than block_size+1"),
        (dict(data="file", path=str(tmp_path / "binary.bin")), "cannot read"),
        (dict(data="file", path="  "), "type the path of a UTF-8 text file"),
        (dict(lr="fast"), "learning rate must be a number"),
        (dict(lr="1e6"), "The lessons keep the model they had"),
        (dict(memory=True), "Out of memory after 0 steps: try the quick size"),
    ]
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        panel = screen.train_panel
        for setup, expected in cases:
            if setup.get("memory"):
                monkeypatch.setattr(Trainer, "step", lambda self: (_ for _ in ()).throw(MemoryError("no 1.2 GiB")))
                monkeypatch.setattr(TrainPanel, "in_process", True)   # a spawned process would not see the patch
            screen.query_one("#dash-tabs").active = "tab-train"
            await pilot.pause()
            choose(screen, "#train-data", setup.get("data", "sort"))
            screen.query_one("#train-file", Input).value = setup.get("path", "")
            screen.query_one("#train-lr", Input).value = setup.get("lr", "3e-3")
            await train(pilot, screen)
            await wait_until(pilot, lambda: expected in message(screen) and not panel.training_active,
                             expected, busy=True)
            assert panel.state == "idle" and app.hub.model is None   # nothing was handed to the lessons
            await pilot.pause()                            # focus moved off the disabled Start: let it settle
            await pilot.press("f8")                        # still answering keys
            await wait_until(pilot, lambda: screen.query_one("#dash-tabs").active == "tab-sample",
                             "F8 switches tab", busy=True)
            # the Tabs widget confirms a switch with a message of its own: let it arrive before the next
            # case sets the tab back, or it would undo that (a test-only race: a learner presses keys)
            await pilot.pause()


async def test_checkpoints_save_load_refuse_a_wrong_shape_and_reset(tmp_path):
    import torch

    from tutor.model import GPT, CharTokenizer, GPTConfig, save_checkpoint

    tok = CharTokenizer()
    save_checkpoint(tmp_path / "wide.pt", GPT(GPTConfig(vocab_size=tok.vocab_size, d_model=32, n_head=4)), tok, {})
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        path = screen.query_one("#train-path", Input)
        await train(pilot, screen)
        await wait_until(pilot, lambda: screen.train_panel.state == "idle" and "trained" in message(screen),
                         "run", busy=True)
        trained = app.hub.model
        path.value = str(tmp_path / "mine.pt")
        await click(pilot, "#train-save")
        await wait_until(pilot, lambda: "Saved" in message(screen), "the save", busy=True)
        assert not screen.train_panel.unsaved

        for name, expected in (("wide.pt", "written for the shipped shape"), ("junk.pt", "not a readable checkpoint"),
                               ("missing.pt", "no such checkpoint file")):
            version = app.hub.version
            path.value = str(tmp_path / name)
            await click(pilot, "#train-load")
            await wait_until(pilot, lambda: expected in message(screen), expected, busy=True)
            assert app.hub.version == version and app.hub.model is trained

        await click(pilot, "#train-reset")
        await wait_until(pilot, lambda: "shipped" in app.hub.label, "the reset", busy=True)
        path.value = str(tmp_path / "mine.pt")
        await click(pilot, "#train-load")
        await wait_until(pilot, lambda: "checkpoint mine.pt" in app.hub.label, "the load", busy=True)
        assert "trained on sort, 30 steps" in app.hub.label
        for a, b in zip(app.hub.model.parameters(), trained.parameters()):
            assert torch.equal(a, b)


async def test_quitting_while_training_offers_to_keep_the_weights_and_the_next_start_loads_them(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        panel = screen.train_panel
        await train(pilot, screen, "long")
        await wait_until(pilot, lambda: panel.metrics is not None, "training", busy=True)
        await key(pilot, "ctrl+q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "KeepWeightsScreen", "the question", busy=True)
        await key(pilot, "escape")                       # cancel: still training
        await wait_until(pilot, lambda: app.screen is screen, "the question to close", busy=True)
        assert panel.training_active
        await key(pilot, "ctrl+q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "KeepWeightsScreen", "the question again", busy=True)
        await key(pilot, "k")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit", busy=True)
    assert not panel.training_active
    kept = tmp_path / "checkpoints" / "last.pt"
    assert kept.is_file()

    again = TutorApp(preload_model=True, home=tmp_path, watch_interval=None)
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: again.model_status == "ready", "the model", busy=True)
        assert again.hub.label.startswith("your model, kept from last time (trained on sort")
        assert again.hub.meta.get("data") == "sort"      # lessons with requires: know its task
        screen = await open_dashboard(pilot, again)
        await click(pilot, "#train-reset")
        await wait_until(pilot, lambda: "shipped" in again.hub.label, "the reset", busy=True)
    third = TutorApp(preload_model=True, home=tmp_path, watch_interval=None)
    async with third.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: third.model_status == "ready", "the model", busy=True)
        assert third.hub.label.startswith("shipped")


async def test_quit_without_keeping_and_plain_quit_when_nothing_was_trained(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        await train(pilot, screen, "long")
        await wait_until(pilot, lambda: screen.train_panel.metrics is not None, "training", busy=True)
        await key(pilot, "ctrl+q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "KeepWeightsScreen", "the question", busy=True)
        await key(pilot, "d")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit", busy=True)
    assert not (tmp_path / "checkpoints" / "last.pt").exists()

    plain = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with plain.run_test(size=(80, 24)) as pilot:
        await open_dashboard(pilot, plain)
        await key(pilot, "ctrl+q")
        await wait_until(pilot, lambda: not plain.is_running, "a plain quit", busy=True)
