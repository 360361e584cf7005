"""The dashboard's part of ``TutorApp``, as a mixin: opening it, swapping the app's model, quitting.

Kept out of app.py so the app stays wiring.  Every change of the app's model goes through
``publish_model``, which tells each open screen (lessons recompute their tensors, the
dashboard relabels), so no screen has to poll the hub.
"""
from __future__ import annotations

from textual.screen import ModalScreen

from tutor.common.i18n import _, ngettext
from tutor.common.safe_text import one_line
from tutor.live.weights_label import localized_label
from tutor.ui.messages import KeptModelLoaded

DASHBOARD = "dashboard"


class DashboardMixin:
    def dashboard_screen(self, create: bool = True):
        """The one dashboard (installed on first use, then kept), or None if never opened."""
        if not self.is_screen_installed(DASHBOARD):
            if not create:
                return None
            from tutor.ui.screens.dashboard import DashboardScreen

            self.install_screen(DashboardScreen(), DASHBOARD)
        return self.get_screen(DASHBOARD)

    def action_dashboard(self) -> None:
        """F3 / ctrl+d: open the dashboard, or go back from it."""
        if isinstance(self.screen, ModalScreen):
            return
        screen = self.dashboard_screen()
        if self.screen is screen:
            self.pop_screen()
        elif screen in self.screen_stack:
            while self.screen is not screen:
                self.pop_screen()
        else:
            self.push_screen(screen)

    def sample_shown(self, prompt: str, tokens: list[str], model: str) -> None:
        """The Sample tab showed the next-token distributions after ``prompt`` and each token, on the
        weights whose digest is ``model`` (tutor.live.model_identity).  Kept in the store, so a lesson
        opened later on those weights applies the rule when its question opens; an open lesson whose
        tensors come from the same weights applies it now (tutor.session.sample_sight): its untried
        questions the run answered count as not got (answer seen), and the learner is told here, and
        again on the question."""
        if not model:
            return
        from tutor.session.sample_sight import contexts, sample_seen

        self.progress.sample_shown(model, prompt, tokens)
        for screen in list(self.screen_stack):
            lesson = getattr(screen, "lesson", None)
            if lesson is None or getattr(getattr(screen, "live", None), "model_identity", "") != model:
                continue   # another model's tensors, or not computed yet: its questions check when they open
            seen = sample_seen(self.progress, lesson, contexts(prompt, tokens))
            if not seen:
                continue
            listed = ", ".join(str(index + 1) for index in seen)
            self.notify(ngettext("The Sample tab showed the model's next tokens after the text of “{lesson}”: question "
                                 "{numbers}, which you have not tried, now counts as not got (answer seen) and "
                                 "comes back in Review.",
                                 "The Sample tab showed the model's next tokens after the text of “{lesson}”: "
                                 "questions {numbers}, which you have not tried, now count as not got (answer seen) "
                                 "and come back in Review.", len(seen)).format(lesson=one_line(lesson.title),
                                                                                numbers=listed),
                        severity="warning", timeout=12, markup=False)
            if getattr(screen, "question_index", None) in seen:
                screen.show_question()   # its prompt says why, and a try there is practice

    def publish_model(self, model, tokenizer, label: str, meta: dict | None = None) -> None:
        """Make ``model`` the app's model (on the UI thread) and tell the screens that show it;
        ``meta`` (data, steps) lets lessons check their model.requires."""
        self.hub.replace(model, tokenizer, label, meta)
        self.model_replaced()

    def model_replaced(self) -> None:
        self.model_signal.publish(self.hub.label)

    # -- the weights kept at the last quit ------------------------------------------------

    def load_kept_model(self) -> None:
        """On the model thread at start: load the checkpoint the learner kept, if any."""
        from tutor.training.runs import load_kept

        try:
            kept = load_kept(self.settings_home)
        except Exception as error:   # gone or broken: the shipped model it is, and the learner is told
            self.post_message(KeptModelLoaded("", f"{error}"))
            return
        if kept is not None:
            model, tokenizer, label, meta = kept
            self.hub.replace(model, tokenizer, label, meta)
            self.post_message(KeptModelLoaded(self.hub.label))

    def on_kept_model_loaded(self, message: KeptModelLoaded) -> None:
        if message.error:
            self.notify(_("{error}\nUsing the shipped model instead.").format(error=message.error),
                        title=_("Your kept model could not be loaded"),
                        severity="warning", timeout=12, markup=False)
            return
        self.model_replaced()
        self.notify(_("Lessons read {label}. The dashboard (F3) has Shipped to go back to the built-in model.").format(
            label=localized_label(message.label)), title=_("Your model is back"), timeout=8, markup=False)

    # -- quitting ---------------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Ask to keep trained weights that are not saved; a second ctrl+q quits without asking."""
        from tutor.ui.screens.keep_weights import KeepWeightsScreen

        dashboard = self.dashboard_screen(create=False)
        panel = dashboard.train_panel if dashboard is not None else None
        if panel is None or isinstance(self.screen, KeepWeightsScreen) or not (panel.training_active or panel.unsaved):
            self.exit()
            return
        from tutor.training.runs import kept_path

        where = str(kept_path(self.settings_home))
        self.push_screen(KeepWeightsScreen(panel.training_active, where), self._quit_answered)

    async def _quit_answered(self, choice: str | None) -> None:
        if choice not in ("keep", "discard"):
            return
        panel = self.dashboard_screen().train_panel
        if panel.training_active:
            self.notify(_("Stopping the training…"), timeout=3)
        try:
            path = await panel.finish(keep=choice == "keep")
        except (OSError, ValueError) as error:
            self.notify(_("{error}\nSave them from the dashboard to another place, or quit again to leave them.").format(
                error=error), title=_("Could not keep the weights"), severity="error", timeout=20, markup=False)
            return
        self.exit(message=one_line(_("Kept your weights in {path}; the next start loads them.").format(path=path))
                  if path else None)
