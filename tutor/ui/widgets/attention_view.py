"""The dashboard's Attention tab: one head's pattern for a text, tokens on both axes.

Rows are the query (the position doing the looking), columns the key (the position looked
at); each cell is the percentage of that row's attention, on a background as strong as the
value.  Cells above the diagonal are the future, masked to exactly 0, and drawn as a dim dot.
"""
from __future__ import annotations

import numpy as np
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, ScrollableContainer
from textual.widgets import Button, Input, Label, Select, Static

from tutor.common.i18n import N_, _
from tutor.common.safe_text import neutralise
from tutor.live.weights_label import localized_label
from tutor.ui.messages import AttentionFailed, AttentionReady
from tutor.ui.relabel import WordedSelect, worded, worded_select
from tutor.ui.widgets.dashboard_tab import DashboardTab, field
from tutor.ui.widgets.heat_colors import HeatPalette
from tutor.ui.widgets.sample_panel import MODEL_OPTIONS, SamplePanel

CORNER = "q↓ k→"   # rows are queries, columns keys


def heatmap(pattern: np.ndarray, labels: list[str], palette: HeatPalette | None = None) -> Text:
    """Percent of each query's attention per key, on a background from the theme (None: plain)."""
    label_width = max(len(CORNER), *(len(label) + 1 for label in labels))
    out = Text(no_wrap=True, overflow="crop")
    out.append(f"{CORNER:>{label_width}}", style="dim")
    for label in labels:
        out.append(f"{label:>4}", style="bold")
    for i, label in enumerate(labels):
        out.append("\n")
        out.append(f"{label:>{label_width}}", style="bold")
        for j in range(len(labels)):
            value = float(pattern[i, j])
            if j > i:
                out.append("   ·", style="dim")
                continue
            style = palette.heat(value, bold=value >= 0.5) if palette else ("bold" if value >= 0.5 else "")
            out.append(f"{round(100 * value):>4}", style=style)
    return out


PLACEHOLDER = N_("Choose a layer and a head; the pattern appears here.")


class AttentionView(DashboardTab):
    TITLE, TAB_ID = N_("Attention"), "tab-attention"
    DEFAULT_CSS = """
    #attn-text { width: 1fr; }
    #attn-message { height: auto; max-height: 3; }
    #attn-layer, #attn-head { width: 7; }
    #attn-model { width: 18; }
    #attn-box { height: 1fr; margin-top: 1; }
    #attn-map { width: auto; }
    """
    def __init__(self) -> None:
        super().__init__()
        self.edited = False          # typed by the learner: the Sample tab no longer fills it in
        self.filled = "3142>1234"    # what the box was last given (the default, or the Sample tab's text)
        self.shown: tuple | None = None
        self.drawn: AttentionReady | None = None   # redrawn in the new colours when the theme changes

    def compose(self) -> ComposeResult:
        with Horizontal(classes="dash-row"):
            yield worded(Label(), N_("Text"), "{} ")
            yield field(self.filled, id="attn-text")
            yield worded(Label(), N_("Layer"), " {} ")
            yield WordedSelect([(str(i), i) for i in range(2)], value=0, allow_blank=False, compact=True, id="attn-layer")
            yield worded(Label(), N_("Head"), " {} ")
            yield WordedSelect([(str(i), i) for i in range(4)], value=0, allow_blank=False, compact=True, id="attn-head")
            yield Label(" ")
            yield worded_select(MODEL_OPTIONS, value="current", allow_blank=False, compact=True, id="attn-model")
            yield Label(" ")
            yield worded(Button("", id="attn-go", compact=True, variant="success"), N_("Show"))
        with ScrollableContainer(id="attn-box"):
            yield Static(Text(_(PLACEHOLDER), style="dim"), id="attn-map")
        yield Static(id="attn-message")

    def relabel(self) -> None:
        """After a language switch: the placeholder, or the line under a drawn pattern."""
        if self.drawn is None:
            self.query_one("#attn-map", Static).update(Text(_(PLACEHOLDER), style="dim"))
        else:
            self.explain(self.drawn)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.draw())

    def focus_within(self) -> None:
        self.query_one("#attn-text").focus()   # Enter shows the pattern

    def activated(self) -> None:
        """Show the pattern of the Sample tab's last text, unless the learner typed their own."""
        super().activated()
        sample = self.screen.query_one(SamplePanel)
        self.fill_from_sample(sample.prompt_used + sample.output, sample.model_used)
        self.show()

    def draw(self) -> None:
        if self.drawn is not None:
            message = self.drawn
            self.query_one("#attn-map", Static).update(
                heatmap(message.pattern, message.labels, HeatPalette.from_app(self.app)))

    def fill_from_sample(self, text: str, model: str = "current") -> None:
        """Show the Sample tab's prompt and output, drawn by the model that wrote it, unless the
        learner typed their own text (the sort model's attention over English prose told nothing)."""
        if text and not self.edited:
            self.filled = text.rstrip("\n")
            self.query_one("#attn-text", Input).value = self.filled
            with self.prevent(Select.Changed):   # show() below draws once
                self.query_one("#attn-model", Select).value = model

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "attn-text" and event.value != self.filled:
            self.edited = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "attn-text":
            event.stop()
            self.show()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id in ("attn-layer", "attn-head", "attn-model"):
            event.stop()
            if self.shown is not None:   # not before the tab was first opened: nothing to redraw
                self.show()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "attn-go":
            event.stop()
            self.show()

    def show(self) -> None:
        text = self.query_one("#attn-text", Input).value
        layer = self.query_one("#attn-layer", Select).value
        head = self.query_one("#attn-head", Select).value
        self.compute(text, layer, head, self.query_one("#attn-model", Select).value)

    def model_changed(self) -> None:
        """Offer the new model's layers and heads and redraw for its weights."""
        if self.app.hub.model is None:
            return
        config = self.app.hub.model.config
        for name, count in (("#attn-layer", config.n_layer), ("#attn-head", config.n_head)):
            select = self.query_one(name, Select)
            value = select.value if isinstance(select.value, int) and select.value < count else 0
            with self.prevent(Select.Changed):   # one redraw below, not one per Select
                select.set_options([(str(i), i) for i in range(count)])
                select.value = value
        if self.shown is not None:
            self.show()

    @work(thread=True, group="attention", exclusive=True, exit_on_error=False)
    def compute(self, text: str, layer: int, head: int, model: str = "current") -> None:
        from tutor.training.sampling import attention_pattern

        hub = self.app.hub
        try:
            chosen = hub.named("text") if model == "text" else hub.current()
            pattern, labels = attention_pattern(chosen.model, chosen.tokenizer, text, layer, head, lock=hub.lock)
            label = chosen.label
        except Exception as error:
            self.post_message(AttentionFailed(f"{error}"))
            return
        self.post_message(AttentionReady(pattern, labels, layer, head, label))

    def on_attention_ready(self, message: AttentionReady) -> None:
        message.stop()
        self.shown = (message.layer, message.head)
        self.drawn = message
        self.draw()
        self.explain(message)

    def explain(self, message: AttentionReady) -> None:
        """The probe, how to read it, and which weights drew it: the text may come from the Sample
        tab's text model while the pattern is always the app's model."""
        self.say(f"blocks.{message.layer}.attn.pattern[0, {message.head}]: " +
                 _("row = query, column = key, % of the row's attention; · is the masked future.") + "\n" +
                 _("Drawn by: {label}").format(label=localized_label(message.model_label)), "dim")

    def on_attention_failed(self, message: AttentionFailed) -> None:
        message.stop()
        self.say(message.error, "bold red")

    def say(self, message: str, style: str = "") -> None:
        # messages quote file names, checkpoint meta and exceptions' text: never raw to the terminal
        self.query_one("#attn-message", Static).update(Text(neutralise(message), style=style))
