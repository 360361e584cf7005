"""The interface language in the running app: the F4 / palette toggle, and translated key labels.

Textual builds a class's key bindings once, when the class is defined, so their labels are
written in English (marked ``N_``) and translated per instance by ``localize_bindings``;
that way a language switch needs no re-import.  Switching rebuilds the roadmap from a
catalog loaded in the new language (lessons come with their overlays), so every screen
afterwards is in it.  An open lesson is kept (its question, typed answer, tries and reveal) and
rewords itself; the roadmap under it rebuilds in the new language when it is shown again.
"""
from __future__ import annotations

from tutor.common.i18n import N_, SETTING, _, current_language, language_name, other_language, set_language
from tutor.common.settings import save_setting
from tutor.course.catalog import load_catalog
from tutor.ui.localize import localize_bindings

TITLE = N_("Transformer math tutor")


class LanguageMixin:
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
        lesson = self.screen if hasattr(self.screen, "change_language") else None
        item = self.catalog.get(lesson.lesson.id) if lesson is not None else None
        if item is not None:   # the learner stays in the lesson; the roadmap under it catches up when shown
            lesson.change_language(item)
        else:   # the roadmap, uncovered, rebuilds itself from the new catalog (RoadmapScreen.on_screen_resume)
            self.show_roadmap()
            self.screen.follow_catalog()
        self.notify(_("Language: {name}. Lessons without a translation are shown in English, marked [EN].")
                    .format(name=language_name(code)), markup=False)
