"""A dashboard tab is one DashboardTab and one yield: F8, focus, the model and the language reach it
with no other edit (a tab added by hand used to be unreachable with F8 until it was listed twice)."""
import pytest
from textual.app import ComposeResult
from textual.widgets import Input, Static

from journey_helpers import wait_until
from tutor.common.i18n import set_language
from tutor.ui.app import TutorApp
from tutor.ui.dashboard_mixin import DASHBOARD
from tutor.ui.screens.dashboard import DashboardScreen
from tutor.ui.widgets.dashboard_tab import DashboardTab


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language("en")


class CountingTab(DashboardTab):
    """A tab that counts the model changes it is told about; its title is a word the catalogs know."""
    TITLE, TAB_ID = "Stats", "tab-counting"

    def __init__(self) -> None:
        super().__init__()
        self.models_seen = 0

    def compose(self) -> ComposeResult:
        yield Static("no focusable widget above the box")
        yield Input(id="counting-box")

    def model_changed(self) -> None:
        self.models_seen += 1


class QuietTab(DashboardTab):
    """A tab with nothing to focus: F8 passes through it and on."""
    TITLE, TAB_ID = "Help", "tab-quiet"

    def compose(self) -> ComposeResult:
        yield Static("words only")


class LongerDashboard(DashboardScreen):
    def tabs(self) -> ComposeResult:
        yield from super().tabs()
        yield CountingTab()
        yield QuietTab()


async def test_f8_focus_model_changes_and_the_language_reach_a_new_tab(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.install_screen(LongerDashboard(), DASHBOARD)
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, LongerDashboard)
        tabs = screen.query_one("#dash-tabs")
        counting = screen.query_one(CountingTab)
        seen = counting.models_seen
        # one press at a time, each seen to land (as on screen): a press sent while the Tabs widget's own
        # switch message is still queued can be undone by it on a loaded machine
        for expected in ("tab-sample", "tab-attention", "tab-counting"):
            await pilot.press("f8")
            await wait_until(pilot, lambda: tabs.active == expected, f"F8 on {expected}")
        await wait_until(pilot, lambda: screen.query_one("#counting-box", Input).has_focus, "focus in the new tab")
        await pilot.press("f8")
        await wait_until(pilot, lambda: tabs.active == "tab-quiet", "F8 on the tab with nothing to focus")
        await pilot.press("f8")
        await wait_until(pilot, lambda: tabs.active == "tab-train", "F8 round to the first tab")
        await wait_until(pilot, lambda: screen.query_one("#train-go").has_focus, "the Train tab's own focus")
        app.model_replaced()
        await wait_until(pilot, lambda: counting.models_seen > seen, "the new tab told of the model")
        await pilot.press("f4")
        await wait_until(pilot, lambda: str(tabs.get_tab("tab-counting").label) == "统计", "the new tab's title in zh")
        assert str(tabs.get_tab("tab-quiet").label) == "帮助"
