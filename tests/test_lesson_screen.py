"""The lesson screen at 80x24: question, answer box and formula on screen together, the prose
scrolling under PageUp/PageDown while the answer box has focus, toasts away from the answer box,
and the formula check as a short mark."""
import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from journey_helpers import graded, open_live_lesson, text_of, wait_for_live
from tutor.progress.store import ProgressStore
from tutor.ui.app import TutorApp
from tutor.ui.screens.lesson import LessonScreen
from tutor.ui.screens.lesson_live import formula_mark
from tutor.live.formula_check import FormulaCheck

SMALL = (80, 24)


def shown_at_its_top(app, widget) -> bool:
    """The widget's first line is on screen and is what the screen paints there (not a toast, not
    scrolled away, not under the footer)."""
    region = widget.region
    # its first line above the footer's; a text taller than its pane goes on below, in the pane that scrolls
    if region.height == 0 or region.y < 0 or region.y >= app.size.height - 1:
        return False
    painted, _ = app.screen.get_widget_at(region.x + 1, region.y)
    return painted is widget or widget in painted.ancestors


# the first lesson, the longest question, the tallest formula, a long explanation
@pytest.mark.parametrize("lesson_id", ["la-tensors", "op-curvature", "it-kl-penalty", "pr-masked-softmax"])
async def test_question_answer_box_and_formula_share_one_small_screen(tmp_path, lesson_id):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_live_lesson(pilot, lesson_id)
        await pilot.pause()
        for selector in ("#question", "#answer", "#formula"):
            assert shown_at_its_top(app, screen.query_one(selector)), selector
        assert screen.query_one("#answer", Input).has_focus


async def test_page_keys_in_the_answer_box_scroll_the_prose(tmp_path):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_live_lesson(pilot, "la-tensors")
        body = screen.query_one("#lesson-body", VerticalScroll)
        assert body.max_scroll_y > 0, "the explanation should not fit in the prose pane at 80x24"
        await pilot.press("2", "pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("pageup")
        await pilot.pause()
        assert body.scroll_y == 0
        assert screen.query_one("#answer", Input).value == "2" and screen.query_one("#answer", Input).has_focus


async def test_the_welcome_back_toast_leaves_the_answer_box_free(tmp_path):
    with ProgressStore(tmp_path) as store:
        store.set_last_position("la-tensors", 1)
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen) and screen.question_index == 1
        await pilot.pause()
        toasts = list(screen.query("Toast"))
        assert toasts, "the welcome-back note should be showing"
        answer = screen.query_one("#answer").region
        assert all(not toast.region.overlaps(answer) for toast in toasts)
        assert shown_at_its_top(app, screen.query_one("#answer"))


async def test_the_formula_check_is_a_short_mark(tmp_path):
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_live_lesson(pilot, "la-tensors")
        assert text_of(screen, "#formula-check") == "✓ formula matches the model"
        assert "difference" not in text_of(screen, "#live-status", width=200)


def test_only_a_failing_formula_check_shows_numbers():
    assert formula_mark(FormulaCheck(1e-9, True, "agree")).plain == "✓ formula matches the model"
    assert formula_mark(FormulaCheck(None, True, "not computed from the model")).plain == ""
    failing = formula_mark(FormulaCheck(0.25, False, "DISAGREE")).plain
    assert "0.25" in failing and failing.startswith("✗")


async def test_a_tall_formula_leaves_an_explanation_line_on_a_small_screen(tmp_path):
    """Before: it-kl-penalty's nine-row fraction took the prose pane down to the title and the
    weights line.  At 80x24 it is drawn on one row now (issue 33); at 120x40 as SymPy draws it.  (The lesson
    itself now writes its optimum as a softmax; a copy keeps the tall form.)"""
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "lessons" / "it-kl-penalty.yaml").read_text(encoding="utf-8")
    # the two-outcome form it had (nine rows drawn), shown only: the copy drops its `reproduces:`
    tall = source.replace("id: it-kl-penalty", "id: tall-kl-penalty").replace(
        'expr: "softmax(log(pi_ref) + r / beta)"', 'expr: "pi_ref * exp(r / beta) / (pi_ref * exp(r / beta) + 1 - pi_ref)"')
    tall = "\n".join(line for line in tall.splitlines() if not line.startswith("  reproduces:"))
    assert "+ 1 - pi_ref" in tall and "reproduces" not in tall
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "tall-kl-penalty.yaml").write_text(tall, encoding="utf-8")
    for size, flat in ((SMALL, True), ((120, 40), False)):
        app = TutorApp(home=tmp_path, lesson_dirs=[tmp_path / "mine"], preload_model=False, watch_interval=None)
        async with app.run_test(size=size) as pilot:
            screen = await open_live_lesson(pilot, "tall-kl-penalty")
            await pilot.pause()
            for selector in ("#explanation", "#question", "#answer", "#formula"):
                assert shown_at_its_top(app, screen.query_one(selector)), (size, selector)
            box = screen.query_one("#formula")
            shown = box.form_at(box.content_size.width)
            if flat:   # at 120x40 it is drawn when it fits the formula row; either way the prose stays in view
                assert "beta" in shown and box.size.height == 1, (size, shown)   # a compact screen's one row


async def test_enter_in_the_reveal_table_moves_on_and_shift_tab_goes_back(tmp_path):
    """Before: Tab into the reveal, then Enter did nothing; getting back took Shift+Tab twice and
    the footer did not say so."""
    from textual.widgets import Footer

    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_live_lesson(pilot, "la-tensors")
        await pilot.press("ctrl+g", "tab")
        await pilot.pause()
        table = screen.query_one("#real-tensor")
        assert table.has_focus
        footer = {binding.description for _key, (_node, binding, *_rest) in app.screen.active_bindings.items()
                  if binding.show}
        assert "Answer box" in footer and screen.query_one(Footer).display
        await pilot.press("shift+tab")
        assert screen.query_one("#answer", Input).has_focus
        await pilot.press("tab", "enter")
        await graded(pilot)
        await pilot.pause()
        assert screen.question_index == 1 and screen.query_one("#answer", Input).has_focus
