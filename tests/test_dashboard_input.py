"""Issue 24, dashboard: Save that confirms, the Attention tab's model, full-width prompts, focus.

With Textual's Pilot at 80x24 on the shipped model; no training.
"""
import pytest
from textual.widgets import Button, Input

from tutor.cli.main import main
from tutor.common.prompt_chars import fold_full_width, prompt_ids
from tutor.model import CharTokenizer
from tutor.ui.app import TutorApp
from tutor.ui.screens.dashboard import DashboardScreen
from tutor.ui.widgets.attention_view import AttentionView
from tutor.ui.widgets.sample_panel import SamplePanel

from journey_helpers import wait_until


@pytest.fixture(autouse=True)
def no_pace(monkeypatch):
    monkeypatch.setattr(SamplePanel, "pace", 0.0)


def message(screen, selector: str) -> str:
    content = screen.query_one(selector).content
    return getattr(content, "plain", str(content))


async def dashboard(pilot, app) -> DashboardScreen:
    await pilot.press("f3")
    await pilot.pause()
    assert isinstance(app.screen, DashboardScreen)
    return app.screen


def test_full_width_prompts_fold_and_foreign_characters_are_named():
    tokenizer = CharTokenizer()
    assert fold_full_width("３１４２＞　ａ") == "3142> a"
    assert prompt_ids(tokenizer, "３１４２＞") == tokenizer.encode("3142>")
    with pytest.raises(ValueError, match=r"'é' \(U\+00E9\), '中' \(U\+4E2D\)"):
        prompt_ids(tokenizer, "31é中>")
    assert fold_full_width("2²") == "2²"    # only the full-width block: a superscript is not a digit typed


def test_cli_sample_reads_a_full_width_prompt_as_its_ascii_twin(capsys):
    assert main(["sample", "3142>"]) == 0
    ascii_out = capsys.readouterr()
    assert main(["sample", "３１４２＞"]) == 0
    assert capsys.readouterr() == ascii_out
    assert main(["sample", "31é>"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "'é' (U+00E9)" in err and "?" not in err.split("cannot read")[1].split(":")[0]


async def test_save_of_unchanged_weights_waits_for_a_second_save(tmp_path):
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, app)
        target = tmp_path / "copy.pt"
        screen.query_one("#train-path", Input).value = str(target)
        screen.query_one("#train-save", Button).focus()
        await pilot.press("enter")          # one stray Tab + Enter: before, this wrote the shipped weights
        await wait_until(pilot, lambda: "Press Save again" in message(screen, "#train-message"), "the first Save's note")
        assert not target.exists()
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Saved" in message(screen, "#train-message"), "the confirmed save")
        assert target.exists()


async def test_sample_and_attention_boxes_fold_full_width_and_name_foreign_characters(tmp_path):
    app = TutorApp(home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, app)
        screen.query_one("#dash-tabs").active = "tab-sample"
        await pilot.pause()
        panel = screen.query_one(SamplePanel)
        outputs = []
        for prompt in ("3142>", "３１４２＞"):
            screen.query_one("#sample-prompt", Input).value = prompt
            panel.query_one("#sample-go", Button).press()
            await wait_until(pilot, lambda: "\n" in message(screen, "#sample-output") or "1234" in message(screen, "#sample-output"),
                        "a sample")
            await wait_until(pilot, lambda: not panel.running, "the end of the sample")
            outputs.append(message(screen, "#sample-output"))
        assert outputs[0] == outputs[1] and "?" not in outputs[1]
        screen.query_one("#sample-prompt", Input).value = "31中>"
        await pilot.pause(0.3)
        panel.query_one("#sample-go", Button).press()
        await wait_until(pilot, lambda: "'中' (U+4E2D)" in message(screen, "#sample-message"), "the named character")

        screen.query_one("#dash-tabs").active = "tab-attention"
        await pilot.pause()
        view = screen.query_one(AttentionView)
        screen.query_one("#attn-text", Input).value = "３１４２＞"
        view.show()
        await wait_until(pilot, lambda: view.drawn is not None, "the pattern")
        assert view.drawn.labels == ["3", "1", "4", "2", ">"]
        # which model drew it: the app's model, named under the map
        assert f"Drawn by: {app.hub.label}" in message(screen, "#attn-message")
        screen.query_one("#attn-text", Input).value = "3é"
        view.show()
        await wait_until(pilot, lambda: "'é' (U+00E9)" in message(screen, "#attn-message"), "the named character")


async def test_focus_is_plain_to_see_on_the_dashboard(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, app)
        save, load = screen.query_one("#train-save", Button), screen.query_one("#train-lr", Input)
        unfocused_button, unfocused_input = save.rich_style, load.rich_style
        save.focus()
        await pilot.pause()
        assert save.rich_style.reverse and not unfocused_button.reverse
        load.focus()
        await pilot.pause()
        assert load.rich_style.bgcolor != unfocused_input.bgcolor and load.rich_style.bold


def contrast(style) -> float:
    """WCAG contrast ratio of a rich Style's colour on its background."""
    def luminance(color) -> float:
        channels = []
        for value in color.get_truecolor():
            c = value / 255
            channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    high, low = sorted((luminance(style.color), luminance(style.bgcolor)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_the_roadmaps_tree_connectors_show_in_the_light_theme(tmp_path):
    from textual.widgets import Tree

    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert not app.current_theme.dark
        tree = app.screen.query_one("#roadmap-tree", Tree)
        guides = tree.get_component_rich_style("tree--guides")
        assert contrast(guides) >= 2.0, contrast(guides)   # before: 250 on 251, a ratio of about 1.03


async def test_typing_in_a_dashboard_box_repaints_it_without_a_layout_pass(tmp_path, monkeypatch):
    """Issue 33: each key in a box cost a layout pass of the whole dashboard (Textual's Input
    re-lays-out the screen when its text's width changes), GIL time taken from a training run.
    The box must still scroll to its cursor once the text is wider than it."""
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await dashboard(pilot, app)
        box = screen.query_one("#train-lr", Input)      # 9 columns wide
        box.value = ""
        box.focus()
        await pilot.pause()
        passes = []
        layout = screen._refresh_layout
        monkeypatch.setattr(screen, "_refresh_layout", lambda *args, **kw: (passes.append(1), layout(*args, **kw))[1])
        for char in "0.000123456789":
            await pilot.press(char)
        await pilot.pause()
        assert box.value == "0.000123456789"
        assert passes == []
        shown = "".join(segment.text for segment in box.render_line(0))
        assert "456789" in shown and not shown.startswith("0.000")   # scrolled to the cursor at the end
