"""The dashboard's Sample tab: a prompt, a decoding strategy and its knobs, the output streaming
in token by token, and beside it the distribution each token was drawn from.

Tokens are paced (``pace`` seconds apart) because the tiny model makes one in a millisecond,
too fast to watch; the tests set the pace to 0.  ◀ ▶ step through the tokens afterwards.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Label, Select, Static
from textual.worker import get_current_worker

from tutor.common.i18n import N_, _, error_text, message_of, translated
from tutor.model.formats import TASKS
from tutor.common.safe_text import neutralise
from tutor.live.weights_label import localized_label
from tutor.common.prompt_chars import fold_full_width
from tutor.training.sampling import STRATEGIES, SampleRequest, SampleStep
from tutor.ui.messages import SampleEnded, SampleStepped
from tutor.ui.relabel import worded, worded_select
from tutor.ui.widgets.dashboard_tab import DashboardTab, field

KNOBS = {   # which inputs each strategy reads; the others are greyed out
    "greedy": (), "temperature": ("temperature",), "top-k": ("temperature", "top-k"),
    "top-p": ("temperature", "top-p"), "beam": ("beam",),
}
# the strategies and knobs as the glossary (docs/glossary-zh.md) names them; top-k and top-p stay as they are
STRATEGY_WORDS = {"greedy": N_("greedy"), "temperature": N_("temperature"), "top-k": "top-k", "top-p": "top-p",
                  "beam": N_("beam search")}
KNOB_DEFAULTS = {"temperature": "1.0", "top-k": "5", "top-p": "0.9", "beam": "4", "max": "40", "seed": "0"}
# TRANSLATORS: the knobs' labels are short on purpose: the row of six must fit 80 columns
KNOB_WORDS = {"temperature": "T", "top-k": "top-k", "top-p": "top-p", "beam": N_("beam"), "max": N_("max"),
              "seed": N_("seed")}
BAR = 10
MODEL_OPTIONS = [(N_("lessons' model"), "current"), (N_("text model"), "text")]
TEXT_PROMPT = "The function "     # the sort prompt means nothing to the text model
TASK_HINT = N_("This model was trained to sort digits: it is so sure of every token that greedy, "
               "temperature, top-k and top-p all write the same. Choose the text model to see them differ.")


def is_task_model(label: str) -> bool:
    """The hub's label names the data its weights were trained on ("trained on sort", "your model: sort, …")."""
    return any(f"on {task}" in label or f"model: {task}," in label for task in TASKS)


def pad_cells(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal cells (a Chinese character takes two)."""
    from rich.cells import cell_len

    return " " * max(0, width - cell_len(text)) + text


def distribution_text(step: SampleStep | None, index: int, count: int, strategy: str) -> Text:
    text = Text()
    if step is None:
        text.append(_("The next-token distribution appears here, before and after the strategy's filters."),
                    style="dim")
        return text
    text.append(_("token {number}/{count}: ").format(number=index + 1, count=count), style="bold")
    text.append(repr(step.text), style="bold cyan")
    before, after = _("before"), _("after")   # outside the f-string, where the catalog tools see them
    text.append(f"\n{'':>3} {pad_cells(before, 7)} {pad_cells(after, 7)}\n", style="dim")
    for c in step.candidates:
        text.append("→" if c.chosen else " ", style="bold cyan")
        text.append(f"{c.text:>2} {c.before:>7.1%} ", style="bold cyan" if c.chosen else "")
        text.append(f"{c.after:>7.1%} ", style="bold" if c.after > 0 else "dim")
        filled = round(c.after * BAR)
        text.append("█" * filled, style="green")
        text.append("░" * round(max(0.0, c.before - c.after) * BAR) if c.after < c.before else "", style="dim")
        text.append("\n")
    if strategy == "beam":
        text.append(_("beam: the model's own probabilities at each step"), style="dim")
    return text


class SamplePanel(DashboardTab):
    TITLE, TAB_ID = N_("Sample"), "tab-sample"
    DEFAULT_CSS = """
    #sample-prompt { width: 1fr; }
    #sample-message { height: auto; max-height: 3; }
    #sample-strategy { width: 15; }
    #sample-model { width: 18; }
    .knob { width: 5; }
    #sample-stop { margin-left: 1; }
    #sample-body { height: 1fr; margin-top: 1; }
    #sample-output-box { width: 1fr; border-right: vkey $primary; padding-right: 1; }
    #sample-dist-box { width: 32; padding-left: 1; }
    #sample-dist { height: auto; }
    """
    pace = 0.05        # seconds between shown tokens
    # ◀ ▶ by key from anywhere on the tab: the focus is in the Prompt box, which keeps ← → for itself
    BINDINGS = [
        Binding("up", "step(-1)", N_("Sample tab: the previous token's distribution (◀)"), show=False),
        Binding("down", "step(1)", N_("Sample tab: the next token's distribution (▶)"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.run_id = 0
        self.steps: list[SampleStep] = []
        self.shown = 0                 # which step's distribution is on screen
        self.prompt_used = ""
        self.request_used: SampleRequest | None = None
        self.model_used = "current"
        self.running = False
        self.text_model = None         # (model, tokenizer, label) of the hub's text model, once used

    def compose(self) -> ComposeResult:
        with Horizontal(classes="dash-row"):
            yield worded(Label(), N_("Prompt"), "{} ")
            yield field("3142>", id="sample-prompt")
            yield Label(" ")
            yield worded_select([(STRATEGY_WORDS[s], s) for s in STRATEGIES], value="greedy", allow_blank=False,
                                compact=True, id="sample-strategy")
            yield Label(" ")
            yield worded_select(MODEL_OPTIONS, value="current", allow_blank=False, compact=True, id="sample-model")
            yield Label(" ")
            yield worded(Button("", id="sample-go", compact=True, variant="success"), N_("Sample"))
        with Horizontal(classes="dash-row"):
            for index, (name, value) in enumerate(KNOB_DEFAULTS.items()):
                yield worded(Label(), KNOB_WORDS[name], "{} " if index == 0 else " {} ")
                yield field(value, id=f"sample-{name}", classes="knob")
            yield worded(Checkbox("", True, compact=True, id="sample-stop"), N_("stop at ⏎"))
        with Horizontal(id="sample-body"):
            with VerticalScroll(id="sample-output-box"):
                yield Static(id="sample-output")
            with Vertical(id="sample-dist-box"):
                yield Static(distribution_text(None, 0, 0, ""), id="sample-dist")
                with Horizontal(classes="dash-row"):
                    yield Button("◀", id="sample-prev", compact=True, disabled=True)
                    yield Button("▶", id="sample-next", compact=True, disabled=True)
        yield Static(id="sample-message")

    def on_mount(self) -> None:
        self.grey_knobs()
        self.model_changed()

    def focus_within(self) -> None:
        self.query_one("#sample-prompt").focus()   # Enter samples

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "sample-strategy":
            self.grey_knobs()
        elif event.select.id == "sample-model":
            prompt = self.query_one("#sample-prompt", Input)
            if event.value == "text" and prompt.value == "3142>":
                prompt.value = TEXT_PROMPT
            elif event.value == "current" and prompt.value == TEXT_PROMPT:
                prompt.value = "3142>"
            self.model_changed()

    def model_changed(self) -> None:
        """Say when the chosen model makes every strategy look alike (the app's model changed,
        or the learner chose another)."""
        if self.running:
            return
        chosen = self.query_one("#sample-model", Select).value
        if chosen == "current" and is_task_model(self.app.hub.label):
            self.say(_(TASK_HINT), "italic")
        elif not self.steps:
            self.say("")

    def relabel(self) -> None:
        """After a language switch: the distribution pane's words (the output itself is the model's)."""
        if not self.steps:
            self.query_one("#sample-dist", Static).update(distribution_text(None, 0, 0, ""))
        elif not self.running:
            self.show_step(self.shown)
        self.model_changed()

    def grey_knobs(self) -> None:
        used = KNOBS[self.query_one("#sample-strategy", Select).value]
        for name in ("temperature", "top-k", "top-p", "beam"):
            self.query_one(f"#sample-{name}", Input).disabled = name not in used

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id and event.input.id.startswith("sample-"):
            event.stop()
            self.sample()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sample-go":
            self.sample()
        elif event.button.id in ("sample-prev", "sample-next"):
            self.show_step(self.shown + (1 if event.button.id == "sample-next" else -1))
        else:
            return
        event.stop()

    def action_step(self, by: int) -> None:
        if self.steps and not self.running:
            self.show_step(self.shown + by)

    def request(self) -> SampleRequest:
        def number(name: str, kind, what: str):
            text = self.query_one(f"#sample-{name}", Input).value.strip()
            try:
                return kind(text)
            except ValueError:
                message = _("{what} must be a whole number, not {text}") if kind is int else \
                    _("{what} must be a number, not {text}")
                raise ValueError(message.format(what=what, text=repr(text))) from None

        # folded here so the output shows the prompt the model read (3142>, not ３１４２＞)
        return SampleRequest(prompt=fold_full_width(self.query_one("#sample-prompt", Input).value),
                             strategy=self.query_one("#sample-strategy", Select).value,
                             temperature=number("temperature", float, _("the temperature T")),
                             top_k=number("top-k", int, "top-k"), top_p=number("top-p", float, "top-p"),
                             beam=number("beam", int, _("the beam width")), max_new=number("max", int, _("max tokens")),
                             seed=number("seed", int, _("the seed")),
                             stop_at_newline=self.query_one("#sample-stop", Checkbox).value)

    def sample(self) -> None:
        from tutor.training.sampling import validate

        try:
            request = self.request()
            validate(request)
        except ValueError as error:
            self.say(translated(message_of(error)), "bold red")
            return
        self.run_id += 1
        self.steps, self.shown, self.running = [], 0, True
        self.prompt_used, self.request_used = request.prompt, request
        self.show_output()
        self.show_step(0)   # ◀ ▶ wait for the end
        self.say(_("sampling…"), "dim")
        self.model_used = self.query_one("#sample-model", Select).value
        self.generate(request, self.run_id, self.model_used)

    @work(thread=True, group="sample", exclusive=True, exit_on_error=False)
    def generate(self, request: SampleRequest, run_id: int, request_model: str = "current") -> None:
        from tutor.training.sampling import sample_steps

        worker = get_current_worker()
        hub = self.app.hub
        try:
            if request_model == "text":   # one copy, shared with the Attention tab and the lessons
                text = hub.named("text")
                self.text_model = (text.model, text.tokenizer, text.label)
                model, tokenizer = text.model, text.tokenizer
            else:
                hub.ensure_loaded()
                with hub.lock:
                    model, tokenizer = hub.model, hub.tokenizer
            from tutor.live.model_identity import model_identity

            identity = model_identity(model)   # the weights this run shows (the Sample tab's look-ahead rule)
            for step in sample_steps(model, tokenizer, request, lock=hub.lock):
                if worker.is_cancelled:
                    return
                self.post_message(SampleStepped(run_id, step))
                if self.pace:
                    time.sleep(self.pace)
        except ValueError as error:   # a character the model cannot read, named by prompt_ids
            self.post_message(SampleEnded(run_id, translated(message_of(error))))
            return
        except Exception as error:   # a bad knob the checks missed, a model that failed to load
            self.post_message(SampleEnded(run_id, error_text(error)))
            return
        self.post_message(SampleEnded(run_id, model=identity))

    def on_sample_stepped(self, message: SampleStepped) -> None:
        message.stop()
        if message.run != self.run_id:
            return
        self.steps.append(message.step)
        self.shown = len(self.steps) - 1
        self.show_output()

    def on_sample_ended(self, message: SampleEnded) -> None:
        message.stop()
        if message.run != self.run_id:
            return
        self.running = False
        if message.error:
            self.say(message.error, "bold red")
            return
        self.app.sample_shown(self.prompt_used, [step.text for step in self.steps], message.model)
        source = self.text_model[2] if self.model_used == "text" and self.text_model else self.app.hub.label
        self.say(_("{count} tokens from {source}. ◀ ▶ show each token's distribution.").format(
            count=len(self.steps), source=localized_label(source)), "dim")
        self.show_step(0)

    @property
    def output(self) -> str:
        return "".join(step.text for step in self.steps)

    def show_output(self) -> None:
        text = Text(self.prompt_used, style="dim")
        for i, step in enumerate(self.steps):
            shown = step.text.replace("\n", "⏎\n")
            text.append(shown, style="bold reverse" if i == self.shown and not self.running else "bold")
        self.query_one("#sample-output", Static).update(text)
        step = self.steps[self.shown] if self.steps else None
        strategy = self.request_used.strategy if self.request_used else ""
        self.query_one("#sample-dist", Static).update(distribution_text(step, self.shown, len(self.steps), strategy))

    def show_step(self, index: int) -> None:
        if self.steps:
            self.shown = max(0, min(index, len(self.steps) - 1))
            self.show_output()
        ended = bool(self.steps) and not self.running
        self.query_one("#sample-prev", Button).disabled = not ended or self.shown == 0
        self.query_one("#sample-next", Button).disabled = not ended or self.shown >= len(self.steps) - 1

    def say(self, message: str, style: str = "") -> None:
        # messages quote file names, checkpoint meta and exceptions' text: never raw to the terminal
        self.query_one("#sample-message", Static).update(Text(neutralise(message), style=style))
