"""The Train tab's model buttons: Shipped (reset), Save, Load, and keeping the weights at quit.

A mixin of ``TrainPanel``, kept apart because it is about the app's current model, not about
training: each reads or writes a checkpoint on a worker thread and hands the result back as
a message, so a slow disk never stalls the UI.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.widgets import Input

from tutor.common.file_scope import OutsideHomeError, typed_path
from tutor.common.i18n import P_, _, message_of, translated
from tutor.live.weights_label import localized_label
from tutor.training import runs as dt
from tutor.ui.messages import CheckpointFailed, CheckpointLoaded, CheckpointSaved, TrainingEnded


class CheckpointActions:
    # --- the app's model: reset, save, load ---------------------------------------------------

    def reset_to_shipped(self) -> None:
        if self.training_active:
            self.say(_("Stop the training first."), "yellow")
            return
        self.unless_unsaved(_("Shipped puts the built-in model in its place."), self.shipped_now)

    def shipped_now(self) -> None:
        self.say(_("Loading the shipped model…"))
        self.reload_shipped()

    def unless_unsaved(self, replacing: str, then: Callable[[], None]) -> None:
        """Do ``then`` now, or, when it would replace weights trained here and not saved, once the
        learner has answered the quit question's Keep (saved to a new file first) or Don't keep;
        Cancel does nothing.  One stray Enter on Shipped (or F5 on the wrong tab) lost a
        trained model that quitting would have asked about."""
        if not self.unsaved:
            then()
            return
        from tutor.ui.screens.keep_weights import KeepWeightsScreen

        path = dt.default_save_path(self.app.settings_home, str(self.hub_meta.get("data") or "model"))

        async def answered(choice: str | None) -> None:
            if choice == "keep":
                try:
                    await asyncio.to_thread(dt.save_model, path, self.app.hub.model, self.hub_meta)
                except (OSError, ValueError) as error:
                    self.say(_("Could not save: {error}").format(error=error), "bold red")
                    return
                self.unsaved = False
                self.app.notify(_("Kept your weights in {path}.").format(path=path), timeout=8)
            elif choice != "discard":
                self.say(_("Nothing changed: the lessons still read your trained weights."), "yellow")
                return
            then()

        self.app.push_screen(KeepWeightsScreen(False, str(path), replacing), answered)

    @work(thread=True, group="checkpoint", exclusive=True, exit_on_error=False)
    def reload_shipped(self) -> None:
        from tutor.model.checkpoint import load_default_model

        from tutor.model.checkpoint import describe_checkpoint
        try:
            model, tokenizer, meta = load_default_model()
            dt.remember_kept(self.app.settings_home, None)   # and no kept model at the next start
        except Exception as error:
            self.post_message(CheckpointFailed(_("Could not reload the shipped model: {error}").format(
                error=translated(message_of(error)))))
            return
        label = describe_checkpoint("shipped default checkpoint", meta)
        self.post_message(CheckpointLoaded(model.eval(), tokenizer, label, meta, _("Back to the shipped model.")))

    def on_checkpoint_loaded(self, message: CheckpointLoaded) -> None:
        message.stop()
        self.hub_meta, self.unsaved = message.meta, False
        self.app.publish_model(message.model, message.tokenizer, message.label, message.meta)
        now_read = _("Lessons now read: {label}").format(label=localized_label(self.app.hub.label))   # neutralised by the hub
        self.say(P_("two sentences in a row", "{first} {second}").format(first=message.note, second=now_read),   # no space after 。
                 "green")

    def on_checkpoint_failed(self, message: CheckpointFailed) -> None:
        message.stop()
        self.say(message.error, "bold red")

    save_armed: str | None = None   # the path a first Save of unchanged weights asked to confirm

    def typed_file(self, text: str) -> str | None:
        """The path typed in a box, or None (said in the panel) when it leaves a confined home."""
        try:
            return str(typed_path(text, self.app.settings_home, self.app.files_in_home))
        except OutsideHomeError as error:
            self.say(str(error), "bold red")
            return None

    def save(self) -> None:
        """Save trained, unsaved weights at once; anything else (the shipped model, weights just
        loaded or saved) only after a second Save to the same path, since one stray Tab + Enter
        wrote the shipped weights out as if they were the learner's. Either way an existing file
        is asked about before it is overwritten."""
        typed = self.query_one("#train-path", Input).value.strip()
        data = str(self.hub_meta.get("data") or "model")
        path = self.typed_file(typed) if typed else str(dt.default_save_path(self.app.settings_home, data))
        if path is None:
            return
        if not self.unsaved and self.save_armed != path:
            self.save_armed = path
            self.say(_("Nothing new to save: these are {label}. Press Save again to write a copy to {path}.").format(
                label=localized_label(self.app.hub.label), path=path), "yellow")
            return
        if Path(path).exists():   # a stat on the UI thread; the write itself is on a worker
            from tutor.ui.screens.overwrite import OverwriteScreen

            self.app.push_screen(OverwriteScreen(path), lambda overwrite: self.write(path) if overwrite else
                                 self.say(_("Not saved: {path} is left as it was.").format(path=path), "yellow"))
            return
        self.write(path)

    def write(self, path: str) -> None:
        """A confirmed Save; until then the first Save's confirmation stands, so a learner who
        keeps a file at the overwrite question is asked only that question next time."""
        self.save_armed = None
        self.save_to(path)

    @work(thread=True, group="checkpoint", exclusive=True, exit_on_error=False)
    def save_to(self, path: str) -> None:
        hub = self.app.hub
        try:
            hub.ensure_loaded()
            saved = dt.save_model(path, hub.model, self.hub_meta)
        except Exception as error:   # OSError: read-only place, a folder in the way, a full disk
            self.post_message(CheckpointFailed(_("Could not save: {error}").format(error=error)))
            return
        self.post_message(CheckpointSaved(str(saved)))

    def on_checkpoint_saved(self, message: CheckpointSaved) -> None:
        message.stop()
        self.unsaved = False
        self.query_one("#train-path", Input).value = message.path
        self.say(_("Saved {path}").format(path=message.path), "green")

    def load(self) -> None:
        if self.training_active:
            self.say(_("Stop the training first."), "yellow")
            return
        path = self.query_one("#train-path", Input).value.strip()
        if not path:
            self.say(_("Type the checkpoint's path in the box beside Load."), "yellow")
            return
        path = self.typed_file(path)
        if path is not None:
            self.unless_unsaved(_("Loading {path} puts that model in its place.").format(path=path),
                                lambda: self.load_from(path))

    @work(thread=True, group="checkpoint", exclusive=True, exit_on_error=False)
    def load_from(self, path: str) -> None:
        try:
            model, tokenizer, label, meta = dt.load_model(path)
        except Exception as error:   # CheckpointError names the file and what is wrong with it
            self.post_message(CheckpointFailed(_("Could not load: {error}").format(error=translated(message_of(error)))))
            return
        self.post_message(CheckpointLoaded(model, tokenizer, label, meta, _("Loaded.")))

    # --- quitting -----------------------------------------------------------------------

    async def finish(self, keep: bool) -> str:
        """Stop a run (waiting for its last weights) and, if ``keep``, save them to load next start."""
        # the hub's model only if the dashboard trained it: a run stopped before its first
        # evaluation must not keep the shipped model as "yours"
        model, meta = (self.app.hub.model, self.hub_meta) if self.unsaved else (None, {})
        if self.training_active:
            self.stop()
            try:
                ended = await self.worker.wait()
            except Exception:   # cancelled or failed: what the hub holds is the newest there is
                ended = None
            if isinstance(ended, TrainingEnded) and ended.snapshot is not None:
                model, meta = ended.snapshot, ended.meta or {}
        if not keep or model is None:
            return ""
        home = self.app.settings_home
        path = dt.kept_path(home)
        await asyncio.to_thread(dt.save_model, path, model, meta)
        dt.remember_kept(home, path)
        self.unsaved = False
        return str(path)
