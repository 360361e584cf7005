"""The dashboard's Train tab: choose data and size, start/pause/stop, watch the loss fall.

The trainer runs in a process of its own (``tutor.training.process``): in a thread of the app
each key's screen update held the GIL and slowed training to 0.82-0.88x a bare loop.  A thread
worker here starts it, relays its metrics (about four a second) as Textual messages, and after
each evaluation a copy of its weights, which the panel hands to the app's ``ModelHub``: that
copy is what the lessons, the Sample tab and the Attention tab read.
The panel lives on an installed screen, so training goes on while the learner is elsewhere.
"""
from __future__ import annotations

import threading
import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Button, Input, Label, Select, Static
from textual.worker import Worker, WorkerState, get_current_worker

from tutor.common.file_scope import typed_path
from tutor.common.i18n import N_, P_, _, current_language, error_text, message_of, translated
from tutor.common.safe_text import neutralise
from tutor.training import runs as dt
from tutor.training.process import TrainingProcess
from tutor.training.wire import Ended, Progress, RunSpec
from tutor.ui.messages import TrainingEnded, TrainingProgress
from tutor.ui.relabel import worded, worded_select
from tutor.ui.widgets.dashboard_tab import DashboardTab, field
from tutor.ui.widgets.live_text import LiveText
from tutor.ui.widgets.loss_chart import LossChart
from tutor.ui.widgets.train_checkpoints import CheckpointActions

DATA_OPTIONS = [(N_("sort digits"), "sort"), (N_("reverse digits"), "reverse"), (N_("Python docs text"), "text"),
                (N_("a text file"), "file")]


def preset_words(preset: dt.Preset):
    """The Size box's words for ``preset`` in the language of the moment ("standard · 800 steps")."""
    return lambda: _("{name} · {steps} steps").format(name=_(preset.title), steps=preset.steps)


START_OPTIONS = [(N_("new weights"), "new"), (N_("current model"), "current")]
STATES = {"starting": N_("◌ starting"), "training": N_("● training"), "paused": N_("‖ paused"),
          "stopping": N_("◌ stopping")}
# how a run ended, as the status line names it (a run's status word itself is data, never shown)
ENDINGS = {"finished": N_("■ finished"), "stopped": N_("■ stopped"), "diverged": N_("■ diverged"),
           "failed": N_("■ failed")}
CHART_INTERVAL = 0.5    # seconds between chart redraws: the status line moves four times a second


def _duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class TrainPanel(CheckpointActions, DashboardTab):
    TITLE, TAB_ID = N_("Train"), "tab-train"
    DEFAULT_CSS = """
    #train-data { width: 19; }  #train-preset { width: 23; }  #train-start { width: 17; }  #train-lr { width: 9; }
    #train-file, #train-path { width: 1fr; }  #train-chart { height: 1fr; }
    #train-status { height: 2; margin-top: 1; }  #train-message { height: auto; max-height: 3; }
    """
    # idle | starting | training | paused | stopping: the buttons and the status line follow it
    state: reactive[str] = reactive("idle", init=False)
    last_ending = ""   # how the last run ended ("stopped", …), until the next one starts
    in_process = False  # train on a thread, not a process: for tests that patch the trainer here

    def __init__(self) -> None:
        super().__init__()
        self.run: TrainingProcess | None = None
        self.worker: Worker | None = None
        self.stop_event = threading.Event()   # a Stop pressed before the run is built still counts
        self.train_points: list[tuple[int, float]] = []
        self.val_points: list[tuple[int, float]] = []
        self.metrics = None
        self.total_steps = 1
        self.eta = dt.Eta(1)
        self.hub_meta: dict = {}               # what Save writes with the app's current model
        self.unsaved = False                   # the app's model was trained here and not saved yet
        self.chart_drawn = 0.0
        self.published_step = 0                # the last step of this run the lessons were given

    def on_mount(self) -> None:
        self.refresh_buttons()

    def focus_within(self) -> None:
        """Enter starts with the choices on screen; while a run goes on (Start greyed) it pauses it.
        A greyed Start cannot take the focus, which then stayed on the tab left behind."""
        for button in self.query("#train-go, #train-pause, #train-stop").results(Button):
            if not button.disabled:
                button.focus()
                return
        super().focus_within()

    def model_changed(self) -> None:
        self.refresh_buttons()   # Shipped is greyed while the shipped model is on

    def relabel(self) -> None:
        self.query_one(LossChart).refresh()   # the chart's axis words
        self.show_status()                     # "■ stopped · step 115/800" in the new language

    def compose(self) -> ComposeResult:
        with Horizontal(classes="dash-row"):
            yield worded(Label(), N_("Data"), "{} ")
            yield worded_select(DATA_OPTIONS, value="sort", allow_blank=False, compact=True, id="train-data")
            yield worded(Label(), N_("Size"), " {} ")
            yield worded_select([(preset_words(preset), name) for name, preset in dt.PRESETS.items()],
                                value="standard", allow_blank=False, compact=True, id="train-preset")
            yield worded(Label(), N_("LR"), " {} ")
            yield field("3e-3", id="train-lr")
        with Horizontal(classes="dash-row"):
            yield worded(Label(), N_("File"), "{} ")
            yield worded(field(id="train-file"), N_("path of a UTF-8 text file (Data: a text file)"))
            yield worded(Label(), N_("From"), " {} ")
            yield worded_select(START_OPTIONS, value="new", allow_blank=False, compact=True, id="train-start")
        with Horizontal(classes="dash-row"):
            yield Button(_("Start"), id="train-go", compact=True, variant="success")
            yield worded(Button("", id="train-pause", compact=True, disabled=True), N_("Pause"))
            yield worded(Button("", id="train-stop", compact=True, variant="error", disabled=True), N_("Stop"))
            yield worded(Button("", id="train-reset", compact=True, tooltip=_("reset to the shipped model")),
                         N_("Shipped"))
            yield worded(Button("", id="train-save", compact=True), N_("Save"))
            yield worded(Button("", id="train-load", compact=True), N_("Load"))
            yield worded(field(id="train-path"), N_("checkpoint path (Save: a new file)"))
        yield LiveText(Text(_("Choose the data and a size, then Start (F5)."), style="dim"), id="train-status")
        yield LossChart(id="train-chart")
        yield Static(id="train-message")

    # --- what the buttons and keys do -------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {"train-go": self.start_or_resume, "train-pause": self.toggle_pause, "train-stop": self.stop,
                   "train-reset": self.reset_to_shipped, "train-save": self.save, "train-load": self.load}
        action = actions.get(event.button.id or "")
        if action is not None:
            event.stop()
            if action != self.save:
                self.save_armed = None   # a Save confirms only the Save just before it
            action()

    @property
    def training_active(self) -> bool:
        """Not once the run's end is drawn: the worker then still waits for the child process to
        exit (up to a few seconds), and Load or Shipped said "Stop the training first" meanwhile."""
        return (self.worker is not None and self.worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
                and self.state in STATES)

    def request(self) -> dt.TrainRequest:
        """The choices on screen; ValueError names the one that is wrong."""
        data, path = self.query_one("#train-data", Select).value, self.query_one("#train-file", Input).value
        if data == "file" and path.strip():   # confined to the home when served to others (OutsideHomeError)
            path = str(typed_path(path.strip(), self.app.settings_home, self.app.files_in_home))
        return dt.TrainRequest(data=data, path=path,
                               preset=self.query_one("#train-preset", Select).value,
                               lr=dt.parse_lr(self.query_one("#train-lr", Input).value.strip()),
                               start=self.query_one("#train-start", Select).value)

    def start_or_resume(self) -> None:
        if self.state == "paused":
            self.toggle_pause()
            return
        if self.training_active:
            self.say(_("Training is already running: Pause (F6) or Stop (F7) it first."), "yellow")
            return
        try:
            request = self.request()
        except ValueError as error:
            self.say(translated(message_of(error)), "bold red")
            return
        if request.start == "new":
            self.unless_unsaved(_("A run from new weights replaces it at its first evaluation."),
                                lambda: self.begin(request))
        else:   # builds on the current weights, which stay in the run
            self.begin(request)

    def begin(self, request: dt.TrainRequest) -> None:
        if self.training_active:   # a second F5 while the question was open
            return
        self.stop_event.clear()
        self.train_points, self.val_points, self.metrics = [], [], None
        self.published_step = 0
        self.total_steps = dt.PRESETS[request.preset].steps
        self.eta = dt.Eta(self.total_steps)
        self.query_one(LossChart).set_data([], [], self.total_steps)
        self.set_state("starting")
        self.say("")
        self.worker = self.train(request)

    def toggle_pause(self) -> None:
        if self.run is None or self.state not in ("training", "paused"):
            return
        if self.state == "paused":
            self.run.resume()
            self.set_state("training")
        else:
            self.run.pause()
            self.set_state("paused")

    def stop(self) -> None:
        if not self.training_active:
            return
        self.stop_event.set()
        if self.run is not None:
            self.run.stop()
        self.set_state("stopping")

    def set_state(self, state: str) -> None:
        self.state = state

    def watch_state(self) -> None:
        self.refresh_buttons()
        self.screen.refresh_bindings()   # F5 says Resume while paused

    def refresh_buttons(self) -> None:
        """Grey every button that could do nothing now (Stop when nothing runs, Load without a path, …)."""
        state = self.state
        busy = state in ("starting", "training", "paused", "stopping")
        go = self.query_one("#train-go", Button)
        label = _("Resume") if state == "paused" else _("Start")
        if str(go.label) != label:
            go.label = label
            go.refresh(layout=True)   # Resume is wider than Start, and a language switch changes both
        go.disabled = busy and state != "paused"
        self.query_one("#train-pause", Button).disabled = state not in ("training",)
        self.query_one("#train-stop", Button).disabled = state not in ("starting", "training", "paused")
        # buttons that could do nothing now are greyed: Load without a path, Shipped on the shipped model
        on_shipped = self.app.hub.label.startswith("shipped default checkpoint") and not self.unsaved
        self.query_one("#train-reset", Button).disabled = busy or on_shipped
        self.query_one("#train-load", Button).disabled = busy or not self.query_one("#train-path", Input).value.strip()
        self.show_status()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "train-path":
            self.refresh_buttons()

    def say(self, message: str, style: str = "") -> None:
        # messages quote file names, checkpoint meta and exceptions' text: never raw to the terminal
        self.query_one("#train-message", Static).update(Text(neutralise(message), style=style))

    # --- the training thread ----------------------------------------------------------------

    @work(thread=True, group="training", exit_on_error=False)
    def train(self, request: dt.TrainRequest) -> TrainingEnded:
        """Start the run's process and relay what it says; returns the end message too, so
        quitting can await it.  This thread mostly waits on the pipe, holding no lock."""
        from tutor.training.process import TrainingProcess
        from tutor.training.wire import model_from_bytes

        worker = get_current_worker()
        try:
            run = TrainingProcess(self.spec(request), in_process=self.in_process)
        except Exception as error:   # the app's model unreadable, no way to start a process
            ended = TrainingEnded("failed", _("Could not start: {error}").format(error=error_text(error)))
            self.post_message(ended)
            return ended
        self.run = run
        stopping = False
        try:
            while True:
                if not stopping and (worker.is_cancelled or self.stop_event.is_set()):
                    stopping = True   # a Stop pressed before self.run was set counts too
                    run.stop()
                message = run.receive(timeout=0.2)
                if isinstance(message, Progress):
                    snapshot = model_from_bytes(message.snapshot) if message.snapshot is not None else None
                    self.post_message(TrainingProgress(message.metrics, message.losses, snapshot, message.label,
                                                       message.meta))
                elif isinstance(message, Ended):
                    snapshot = model_from_bytes(message.snapshot) if message.snapshot is not None else None
                    ended = TrainingEnded(message.status, message.message, snapshot, message.label, message.meta,
                                          message.metrics if message.metrics is not None else self.metrics)
                    self.post_message(ended)
                    return ended
        finally:
            run.close()

    def spec(self, request: dt.TrainRequest) -> RunSpec:
        """The run as a process can rebuild it: presets and settings of this interpreter, by value."""
        from tutor.training.wire import weights_to_bytes

        current, label = None, ""
        if request.start == "current":
            hub = self.app.hub
            hub.ensure_loaded()
            if hub.model is not None:
                current, label = weights_to_bytes(hub.model), hub.label
        return RunSpec(request, dt.PRESETS.get(request.preset), dt.ACCURACY_EXAMPLES, current_language(),
                       current, label)

    def on_training_progress(self, message: TrainingProgress) -> None:
        message.stop()
        if self.state == "starting":
            self.set_state("training")
        m = self.metrics = message.metrics
        self.eta.observe(m.step, m.elapsed_s)
        self.train_points = self.train_points + message.losses      # a new list: the chart keeps the old one
        if m.evaluated and m.val_loss is not None:
            self.val_points = self.val_points + [(m.step, m.val_loss)]
        now = time.monotonic()
        if m.evaluated or now - self.chart_drawn >= CHART_INTERVAL:   # each redraw holds the GIL ~2 ms
            self.chart_drawn = now
            self.query_one(LossChart).set_data(self.train_points, self.val_points, m.total_steps)
        if message.snapshot is not None:
            self.published_step = m.step
            self.publish(message.snapshot, message.label, message.meta)
        self.show_status()

    def on_training_ended(self, message: TrainingEnded) -> None:
        message.stop()
        self.run = None
        self.set_state("idle")
        style = {"finished": "bold green", "stopped": "yellow"}.get(message.status, "bold red")
        text = translated(message.message)
        if message.snapshot is not None:
            self.publish(message.snapshot, message.label, message.meta or {})
            # one template, so each language ends the first sentence its own way (。, not ". ")
            text = _("{ended}. The lessons now use these weights; Save keeps them in a file.").format(ended=text)
        elif message.status == "diverged":
            kept = (_("The lessons keep this run's weights from step {step}.").format(step=self.published_step)
                    if self.published_step else _("The lessons keep the model they had."))
            text = P_("two sentences in a row", "{first} {second}").format(first=text, second=kept)   # no space after 。
        self.say(text, style)
        if message.metrics is not None:
            self.metrics = message.metrics
        if self.metrics is not None:
            self.query_one(LossChart).set_data(self.train_points, self.val_points, self.metrics.total_steps)
        self.show_status(message.status)

    def publish(self, model, label: str, meta: dict) -> None:
        from tutor.model import CharTokenizer

        self.hub_meta = meta
        self.unsaved = True
        self.app.publish_model(model, CharTokenizer(), label, meta)

    def show_status(self, ended: str = "") -> None:
        """``ended``: how the run just ended; kept (until the next run) so a redraw in another
        language still names it."""
        m = self.metrics
        line = Text()
        self.last_ending = "" if self.state in STATES else (ended or self.last_ending)
        if self.state in STATES:
            mark = _(STATES[self.state])
        else:
            mark = _(ENDINGS.get(self.last_ending, ENDINGS["failed"])) if self.last_ending else _("○ idle")
        line.append(mark, style="bold")
        if m is None:
            if self.state == "starting":
                line.append(" · " + _("importing torch, building the data…"), style="dim")
            self.query_one("#train-status", LiveText).update(line)
            return
        line.append(" · " + _("step {step}/{total}").format(step=m.step, total=m.total_steps) + " · " +
                    _("{speed}k tok/s · lr {lr} · grad {grad}").format(   # 80 columns, in Chinese too
                        speed=f"{m.tokens_per_s / 1000:.1f}", lr=f"{m.lr:.1e}", grad=f"{m.grad_norm:.2f}"))
        if self.state in ("training", "paused"):
            left = self.eta.seconds_left()
            line.append(" · " + _("ETA {time}").format(time=_duration(left) if left is not None else "…"))
        line.append("\n" + _("loss {loss}").format(loss=f"{m.loss:.4f}"))
        if m.val_loss is not None:
            line.append(" · " + _("validation {loss}").format(loss=f"{m.val_loss:.4f}"))
        if m.accuracy is not None:
            line.append(" · " + _("accuracy") + " ")
            line.append(f"{m.accuracy:.1%}", style="bold green" if m.accuracy >= 0.9 else "bold")
            note = _("(exact match, held-out)")
            line.append(("" if note.startswith("（") else " ") + note, style="dim")   # no space before a full-width （
        self.query_one("#train-status", LiveText).update(line)
