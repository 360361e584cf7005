"""The interface language in the running app: the F4 / palette toggle, and translated key labels.

Textual builds a class's key bindings once, when the class is defined, so their labels are
written in English (marked ``N_``) and translated per instance by ``localize_bindings``;
that way a language switch needs no re-import.  Switching rebuilds the roadmap from a
catalog loaded in the new language (lessons come with their overlays), so every screen
afterwards is in it.  An open lesson is kept (its question, typed answer, tries and reveal) and
rewords itself, as do help, stats, a lesson's summary and the dashboard (``reword_screens``);
the roadmap under them rebuilds in the new language when it is shown again.
"""
from __future__ import annotations

from tutor.common.i18n import N_, SETTING, _, current_language, language_name, other_language, set_language
from tutor.common.settings import save_setting
from tutor.course.catalog import load_catalog
from tutor.ui.localize import localize_bindings

TITLE = N_("Transformer math tutor")


class LanguageMixin:
    def reword_screens(self, dashboard) -> bool:
        """Every open screen says itself again in the new language, the learner's place kept: a lesson
        (or review) with its question and typed answer, help, stats, a lesson's summary, the dashboard;
        the roadmap catches up when it is next shown.  False when the screen on top cannot (a dialog,
        or a lesson the new catalog lacks): then the learner goes to the roadmap, as before."""
        from tutor.ui.screens.roadmap import RoadmapScreen

        kept = True
        for screen in self.screen_stack:
            if hasattr(screen, "change_language"):
                item = self.catalog.get(screen.lesson.id)
                if item is None:
                    kept = False
                else:
                    screen.change_language(item)
            elif hasattr(screen, "reword"):
                screen.reword()
            elif screen is not dashboard and not isinstance(screen, RoadmapScreen):
                kept = kept and screen is not self.screen
        return kept

    def localize_app(self) -> None:
        self.title = _(TITLE)
        localize_bindings(self)

    def action_toggle_language(self) -> None:
        code = set_language(other_language(current_language()))
        try:
            save_setting(self.settings_home, SETTING, code)
        except OSError:
            pass   # a read-only home only costs the preference, not the session
        extra = [folder for folder, builtin in self.catalog.sources if not builtin]
        self.catalog = load_catalog(extra, language=code)
        self.localize_app()
        dashboard = self.dashboard_screen(create=False)
        if dashboard is not None:
            dashboard.relabel()   # kept, not rebuilt: a training run lives in it
        if not self.reword_screens(dashboard):
            self.show_roadmap()
        if hasattr(self.screen, "follow_catalog"):   # the roadmap on top rebuilds from the new catalog now
            self.screen.follow_catalog()
        self.notify(_("Language: {name}. Lessons without a translation are shown in English, marked [EN].")
                    .format(name=language_name(code)), markup=False)
