"""The dashboard: train the model, sample from it, look at its attention; F3 from anywhere.

Installed once and kept (never unmounted), so a run started here goes on while the learner
reads a lesson, and its metrics keep arriving; F3 or Escape only hides it.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

from tutor.common.i18n import N_, _
from tutor.live.weights_label import localized_label
from tutor.ui.localize import localize_bindings
from tutor.ui.relabel import relabel, worded_pane
from tutor.ui.widgets.attention_view import AttentionView
from tutor.ui.widgets.loss_chart import LossChart
from tutor.ui.widgets.sample_panel import SamplePanel
from tutor.ui.widgets.train_panel import TrainPanel


class DashboardScreen(Screen):
    # The compact widgets' own focus is a background one shade off the panel (235 on 234): after
    # a Tab nobody could tell what Enter would press.  Reverse a focused button and give a focused
    # box the accent, in both themes and without colour (NO_COLOR keeps reverse and bold).
    DEFAULT_CSS = """
    DashboardScreen Button.-textual-compact:focus { text-style: bold reverse; }
    DashboardScreen Input.-textual-compact:focus { background: $accent 45%; text-style: bold; }
    DashboardScreen Select.-textual-compact:focus > SelectCurrent { background: $accent 45%; text-style: bold; }
    DashboardScreen Checkbox.-textual-compact:focus { background: $accent 45%; text-style: bold; }
    """
    BINDINGS = [
        Binding("escape", "close", N_("Back")),
        Binding("f5", "start", N_("Start")),
        # off the footer, which 80 columns cannot hold whole; the Train tab has their buttons and ? lists them
        Binding("f6", "pause", N_("Pause"), show=False),
        Binding("f7", "stop", N_("Stop"), show=False),
        Binding("f8", "next_tab", N_("Next tab")),
    ]

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="dash-weights")
        with TabbedContent(id="dash-tabs"):
            with worded_pane(N_("Train"), id="tab-train"):
                yield TrainPanel(id="train-panel")
            with worded_pane(N_("Sample"), id="tab-sample"):
                yield SamplePanel(id="sample-panel")
            with worded_pane(N_("Attention"), id="tab-attention"):
                yield AttentionView(id="attention-view")
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
        """The app's model was replaced (trained, loaded, reset): say which, redraw attention."""
        hub = self.app.hub
        label = hub.label or (_("loading the model…") if hub.model is None else "")
        line = Text(_("Weights: "), style="bold")
        line.append(localized_label(label))
        self.query_one("#dash-weights", Static).update(line)
        if hub.model is not None:
            self.query_one(AttentionView).model_changed(hub.model.config)
        self.query_one(SamplePanel).model_changed()
        self.train_panel.refresh_buttons()   # Shipped is greyed while the shipped model is on

    def relabel(self) -> None:
        """After a language switch: the same dashboard (its run, chart, samples kept), in the new words."""
        localize_bindings(self)
        self.title = _("Dashboard")
        relabel(self)
        self.query_one(SamplePanel).relabel()
        self.query_one(AttentionView).relabel()
        self.query_one(LossChart).refresh()
        self.model_changed()   # the weights line, the Train tab's buttons and status
        self.refresh_bindings()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        first = {"tab-train": "#train-go", "tab-sample": "#sample-prompt", "tab-attention": "#attn-text"}
        self.query_one(first[event.pane.id]).focus()   # Enter then does the tab's main thing
        if event.pane.id == "tab-attention":
            view = self.query_one(AttentionView)
            sample = self.query_one(SamplePanel)
            view.fill_from_sample(sample.prompt_used + sample.output)
            view.show()

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_start(self) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active != "tab-train":   # even an unchanged value is re-applied later, undoing a quick F8
            tabs.active = "tab-train"
        self.train_panel.start_or_resume()

    def action_pause(self) -> None:
        self.train_panel.toggle_pause()

    def action_stop(self) -> None:
        self.train_panel.stop()

    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        order = ["tab-train", "tab-sample", "tab-attention"]
        tabs.active = order[(order.index(tabs.active) + 1) % len(order)] if tabs.active in order else order[0]
