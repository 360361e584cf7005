"""Snapshots of the main screens at 80x24, so a layout regression fails the tests.

Deterministic on purpose: a fixed empty home, no hot-reload polling, the model loaded by the
screens (so no "model ready in 1.5s" subtitle), no pacing, and each snapshot taken once the
screen's workers have finished.  After a deliberate layout change, regenerate them with
``python -m pytest tests/test_snapshots.py --snapshot-update`` and look at the SVGs.
"""
from datetime import datetime, timedelta, timezone

import pytest
from textual.widgets import Input

from journey_helpers import type_answer, wait_for_live, wait_until
from progress_helpers import resolve
from tutor.common.i18n import set_language
from tutor.course.catalog import load_catalog
from tutor.grading.attempts import Outcome
from tutor.progress.stats import LessonStats
from tutor.ui.app import TutorApp
from tutor.ui.screens.lesson_summary import LessonSummaryScreen, summarize
from tutor.ui.widgets.sample_panel import SamplePanel

SIZE = (80, 24)


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setattr(SamplePanel, "pace", 0.0)
    return TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)


def no_blinking(screen) -> None:
    """A blinking cursor is drawn or not depending on the moment of the snapshot."""
    for box in screen.query(Input):
        box.cursor_blink = False


def test_roadmap(app, snap_compare):
    assert snap_compare(app, terminal_size=SIZE)


def lesson_steps(reveal: bool):
    async def run_before(pilot):
        app = pilot.app
        app.open_lesson("pr-masked-softmax", 1)
        await pilot.pause()
        await wait_for_live(pilot, app.screen)
        no_blinking(app.screen)
        if reveal:
            await type_answer(pilot, "d")   # its right choice, "more than each of the three", shown as d
            await wait_until(pilot, lambda: app.screen.query_one("#quiz").scroll_y > 0,
                             "the verdict scrolled to the top")
        await pilot.pause()
    return run_before


def test_lesson_before_the_reveal(app, snap_compare):
    assert snap_compare(app, terminal_size=SIZE, run_before=lesson_steps(reveal=False))


def test_lesson_after_the_reveal(app, snap_compare):
    assert snap_compare(app, terminal_size=SIZE, run_before=lesson_steps(reveal=True))


def opened(lesson_id: str):
    """Steps that open a lesson and wait for its live tensors."""
    async def run_before(pilot):
        app = pilot.app
        app.open_lesson(lesson_id)
        await pilot.pause()
        await wait_for_live(pilot, app.screen)
        no_blinking(app.screen)
        await pilot.pause()
    return run_before


def test_widest_built_in_formula(app, snap_compare):
    """op-lr-schedule's formula (38 columns), the widest built-in one since it-cross-entropy-kl's box
    became the plain cross-entropy, folded into aligned slices in its 35-column box."""
    assert snap_compare(app, terminal_size=SIZE, run_before=opened("op-lr-schedule"))


def test_formula_box_folded_until_its_question(app, snap_compare):
    """op-adam's box is question 2's numerator (issue 31's box rule): on question 1 it is one fold
    line, and its "In words" line is not in the text."""
    assert snap_compare(app, terminal_size=SIZE, run_before=opened("op-adam"))


def test_reveal_of_a_slice(app, snap_compare):
    """la-tensors' `embed[:, -1]` question: the header gives the slice's shape (B, D) beside the whole
    tensor's, uncut at 80 columns."""
    async def run_before(pilot):
        app = pilot.app
        app.open_lesson("la-tensors", 0)
        await pilot.pause()
        await wait_for_live(pilot, app.screen)
        no_blinking(app.screen)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: app.screen.query_one("#quiz").scroll_y > 0, "the verdict scrolled to the top")
        await pilot.pause()
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_lesson_summary(app, snap_compare):
    async def run_before(pilot):
        app = pilot.app
        now = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
        lesson = app.catalog.get("la-tensors").lesson
        ids = [question.id for question in lesson.questions]
        counts = LessonStats(seen=set(ids[:3]), finished=set(ids[:3]), first_try={ids[0]}, after_retry={ids[2]})
        due = {ids[1]: now + timedelta(minutes=10), ids[2]: now + timedelta(days=1)}
        summary = summarize(lesson.id, lesson.title, ids, counts, timedelta(minutes=6, seconds=12), due, app.catalog)
        await app.push_screen(LessonSummaryScreen(summary, now))
        await pilot.pause()
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.fixture
def zh_app(tmp_path):
    set_language("zh")
    yield TutorApp(catalog=load_catalog([], language="zh"), home=tmp_path / "home", preload_model=False,
                   watch_interval=None)
    set_language("en")


def test_lesson_in_chinese(zh_app, snap_compare):
    """Chinese prose wraps evenly between characters at 80 columns."""
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=opened("la-tensors"))


def dashboard_steps(tab_presses: int):
    async def run_before(pilot):
        app = pilot.app
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        app.hub.ensure_loaded()
        screen.model_changed()
        no_blinking(screen)
        tabs = screen.query_one("#dash-tabs")
        for expected in ("tab-sample", "tab-attention")[:tab_presses]:   # each press seen to land, as on screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: tabs.active == expected, f"F8 on {expected}")
        if tab_presses == 2:
            await wait_until(pilot, lambda: screen.query_one("#tab-attention").shown is not None, "the heatmap")
        await pilot.pause()
    return run_before


@pytest.mark.parametrize("tab_presses", [0, 1, 2], ids=["train", "sample", "attention"])
def test_dashboard_tabs(app, snap_compare, tab_presses):
    assert snap_compare(app, terminal_size=SIZE, run_before=dashboard_steps(tab_presses))


def test_roadmap_in_chinese(zh_app, snap_compare):
    assert snap_compare(zh_app, terminal_size=SIZE)


ANSWERED = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("key", ["r", "s"], ids=["review", "stats"])
def test_review_and_stats_in_chinese(zh_app, snap_compare, monkeypatch, key):
    """Two questions answered on a fixed day, seen from the next day (the app's clock is injected);
    review draws new sizes for a question, here from a fixed seed."""
    from tutor.progress.store import ProgressStore
    from tutor.ui.screens import review

    monkeypatch.setattr(review.random, "randrange", lambda start, stop: 7)

    with ProgressStore(zh_app.home) as store:
        resolve(store, "la-tensors", "last-tokens", Outcome.MISSED, ANSWERED)
        resolve(store, "la-tensors", "pos-distinct", Outcome.FIRST_TRY, ANSWERED)

    async def run_before(pilot):
        app = pilot.app
        app.clock = lambda: ANSWERED + timedelta(days=1)
        await pilot.press(key)
        await pilot.pause()
        if key == "r":
            await wait_for_live(pilot, app.screen)
        no_blinking(app.screen)
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)


def test_dashboard_train_tab_in_chinese(zh_app, snap_compare):
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=dashboard_steps(0))


def test_help_in_chinese(zh_app, snap_compare):
    """The help screen's notes wrap between Chinese characters, never inside '(ctrl+g)'."""
    async def run_before(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)


def test_palette_in_chinese(zh_app, snap_compare):
    """Ctrl+P: the placeholder, tutor's entries and Textual's own (Keys, Screenshot) in Chinese."""
    async def run_before(pilot):
        from textual.command import CommandList

        app = pilot.app
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: app.screen.query(CommandList) and
                                app.screen.query_one(CommandList).option_count > 5, "the palette's entries")
        await pilot.press(*"截图")
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count >= 1, "the search")
        no_blinking(app.screen)
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)


async def answered(pilot, lesson_id: str, index: int, answer: str) -> None:
    """Open a lesson at one question, wait for its live tensors and type a wrong answer."""
    pilot.app.open_lesson(lesson_id, index)
    await pilot.pause()
    await wait_for_live(pilot, pilot.app.screen)
    no_blinking(pilot.app.screen)
    await type_answer(pilot, answer)


def test_lesson_at_80x24_with_both_hints(app, snap_compare):
    """Issue 33: la-cbow-skipgram's formula question after a wrong try and two hints: the header
    gone, the formula on one row, eight rows of text, and hint 2 in view."""
    async def run_before(pilot):
        app = pilot.app
        await answered(pilot, "la-cbow-skipgram", 3, "(p - y) @ E")
        await pilot.press("ctrl+t", "ctrl+t")
        await wait_until(pilot, lambda: app.screen.query_one("#quiz").scroll_y > 0, "hint 2 scrolled into view")
        await pilot.pause()
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_formula_nudge_in_chinese(zh_app, snap_compare):
    """Issue 32: a formula that cannot be computed on the tensors is explained in Chinese (the
    matmul shape error was the library's English) and the reading line shows the formula."""
    async def run_before(pilot):
        await answered(pilot, "la-scaled-scores", 3, "Q @ K / sqrt(d_k)")
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)


def test_dashboard_stopped_in_chinese(zh_app, snap_compare):
    """Issue 32: after F7 the status line says 已停止 with the step, never the run's status word."""
    from model.train import TrainMetrics
    from tutor.common.i18n import M_
    from tutor.ui.messages import TrainingEnded
    from tutor.ui.widgets.train_panel import TrainPanel

    steps = dashboard_steps(0)

    async def run_before(pilot):
        await steps(pilot)
        metrics = TrainMetrics(step=115, loss=1.2345, val_loss=1.3021, lr=3e-4, grad_norm=0.52, tokens_per_s=20000.0,
                               accuracy=None, elapsed_s=10.0, eta_s=0.0, total_steps=800)
        pilot.app.screen.query_one(TrainPanel).post_message(
            TrainingEnded("stopped", M_("stopped after {count} steps", count=115), metrics=metrics))
        await pilot.pause()
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)


def test_open_menu_in_chinese(zh_app, snap_compare):
    """Issue 32 U8: the sampling tab's open model menu shows 课程用的模型 whole; the edges of the
    boxes beneath the menu cut its wide characters into spaces before ("程用  模型")."""
    from textual.widgets import Select

    steps = dashboard_steps(1)

    async def run_before(pilot):
        await steps(pilot)
        menu = pilot.app.screen.query_one("#sample-model", Select)
        menu.focus()
        menu.expanded = True
        await pilot.pause()
        await pilot.pause()
    assert snap_compare(zh_app, terminal_size=SIZE, run_before=run_before)
