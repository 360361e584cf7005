"""The dashboard: train the model, sample from it, look at its attention; F3 from anywhere.

Installed once and kept (never unmounted), so a run started here goes on while the learner
reads a lesson, and its metrics keep arriving; F3 or Escape only hides it.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static, TabbedContent, TabPane

from tutor.ui.footer import Footer
from tutor.common.i18n import N_, _
from tutor.live.weights_label import localized_label
from tutor.ui.localize import localize_bindings
from tutor.ui.relabel import relabel
from tutor.ui.widgets.attention_view import AttentionView
from tutor.ui.widgets.dashboard_tab import DashboardTab
from tutor.ui.widgets.sample_panel import SamplePanel
from tutor.ui.widgets.train_panel import TrainPanel


class DashboardTabs(TabbedContent):
    """Textual's tabs, switched only by F8, a click on a tab or the palette, never by focus.

    Textual follows the focus into a pane (a pane posts Focused when a widget in it is focused).
    While training kept the UI thread busy, a pane's Focused from one F8 arrived after the next
    F8 and switched back: F8 seemed dead on the Attention tab, or the strip showed one tab over
    another's content.  On the dashboard the focus only ever moves within the open pane.
    """

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        event.prevent_default()   # not Textual's handler either
        event.stop()


class DashboardScreen(Screen):
    # The compact widgets' own focus is a background one shade off the panel (235 on 234): after
    # a Tab nobody could tell what Enter would press.  Reverse a focused button and give a focused
    # box the accent, in both themes and without colour (NO_COLOR keeps reverse and bold).
    DEFAULT_CSS = """
    #dash-weights { padding: 0 1; height: auto; max-height: 2; color: $text-muted; }   /* a long label wraps once */
    #dash-tabs { height: 1fr; }
    #dash-tabs TabPane { padding: 0 1; }
    DashboardScreen Button.-textual-compact:focus { text-style: bold reverse; }
    DashboardScreen Input.-textual-compact:focus { background: $accent 45%; text-style: bold; }
    DashboardScreen Select.-textual-compact:focus > SelectCurrent { background: $accent 45%; text-style: bold; }
    DashboardScreen Checkbox.-textual-compact:focus { background: $accent 45%; text-style: bold; }
    """
    # F5 is the open tab's own Go button, named for it in the footer: on the Sample tab it
    # started a training run from new weights that replaced a trained model (check_action).
    BINDINGS = [
        Binding("escape", "close", N_("Back")),
        Binding("f5", "start", N_("Start")),
        Binding("f5", "resume", N_("Resume")),
        Binding("f5", "sample", N_("Sample")),
        Binding("f5", "show_attention", N_("Show")),
        # off the footer, which 80 columns cannot hold whole; the Train tab has their buttons and ? lists them
        Binding("f6", "pause", N_("Pause"), show=False),
        Binding("f7", "stop", N_("Stop"), show=False),
        Binding("f8", "next_tab", N_("Next tab")),
    ]

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)

    def tabs(self) -> ComposeResult:
        """The tabs, in F8's order: each is one DashboardTab."""
        yield TrainPanel()
        yield SamplePanel()
        yield AttentionView()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="dash-weights")
        with DashboardTabs(id="dash-tabs"):
            yield from self.tabs()
        yield Footer()

    @property
    def train_panel(self) -> TrainPanel:
        return self.query_one(TrainPanel)

    def on_mount(self) -> None:
        self.title = _("Dashboard")
        self.model_changed()
        self.app.model_signal.subscribe(self, lambda _label: self.model_changed(), immediate=True)

    def on_screen_resume(self) -> None:
        self.model_changed()

    def model_changed(self) -> None:
        """The app's model was replaced (trained, loaded, reset): say which, and tell every tab."""
        hub = self.app.hub
        label = hub.label or (_("loading the model…") if hub.model is None else "")
        line = Text(_("Weights: "), style="bold")
        line.append(localized_label(label))
        self.query_one("#dash-weights", Static).update(line)
        for tab in self.query(DashboardTab):
            tab.model_changed()

    def relabel(self) -> None:
        """After a language switch: the same dashboard (its run, chart, samples kept), in the new words."""
        localize_bindings(self)
        self.title = _("Dashboard")
        relabel(self)   # every worded text, the tabs' titles among them
        for tab in self.query(DashboardTab):
            tab.relabel()
        self.model_changed()   # the weights line, the Train tab's buttons and status
        self.refresh_bindings()

    F5_ON = {"tab-train": ("start", "resume"), "tab-sample": ("sample",), "tab-attention": ("show_attention",)}

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """F5 runs only the open tab's action; the Train tab's says Resume while paused."""
        if not any(action in actions for actions in self.F5_ON.values()):
            return True
        if action not in self.F5_ON.get(self.query_one(TabbedContent).active, ()):
            return False
        if action in ("start", "resume"):
            return (self.train_panel.state == "paused") == (action == "resume")
        return True

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # a quick second F8 has already moved on: focusing this pane now would split strip and content
        if isinstance(event.pane, DashboardTab) and event.pane.id == event.tabbed_content.active:
            event.pane.activated()
        self.refresh_bindings()   # the footer's F5 names the new tab's action

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_start(self) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active != "tab-train":   # even an unchanged value is re-applied later, undoing a quick F8
            tabs.active = "tab-train"
        self.train_panel.start_or_resume()

    def action_resume(self) -> None:
        self.train_panel.start_or_resume()

    def action_sample(self) -> None:
        self.query_one(SamplePanel).sample()

    def action_show_attention(self) -> None:
        self.query_one(AttentionView).show()

    def action_pause(self) -> None:
        self.train_panel.toggle_pause()

    def action_stop(self) -> None:
        self.train_panel.stop()

    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        order = [tab.id for tab in self.query(DashboardTab)]
        tabs.active = order[(order.index(tabs.active) + 1) % len(order)] if tabs.active in order else order[0]
