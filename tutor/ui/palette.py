"""Command palette (ctrl+p): find any lesson by name, jump to review, stats and help, or run a
dashboard action (train, pause, stop, sample, attention, the shipped model).

Lessons are read from ``app.catalog`` on every search, so a lesson added by hot reload is
findable at once.
"""
from __future__ import annotations

from functools import partial

from rich.align import Align
from rich.text import Text
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.system_commands import SystemCommandsProvider
from textual.widgets.option_list import Option

from tutor.common.i18n import N_, _, language_names
from tutor.ui.handin import hand_in_help, start_hand_in

DASHBOARD_ACTIONS = (   # (name, tab, what to do there, help)
    (N_("train the model"), "tab-train", "start", N_("start (or resume) training with the Train tab's choices · F5")),
    (N_("pause or resume training"), "tab-train", "pause", "F6"),
    (N_("stop training"), "tab-train", "stop", N_("keeps the weights of the last evaluation · F7")),
    (N_("sample text from the model"), "tab-sample", "sample", N_("greedy, temperature, top-k, top-p, beam")),
    (N_("attention heatmap"), "tab-attention", "attention", N_("one layer and head's pattern for a text")),
    (N_("back to the shipped model"), "tab-train", "shipped", N_("the built-in sort model the lessons are written for")),
)
# Textual's own palette entries (App.get_system_commands) and the search box's placeholder:
# Textual writes them in English, so TutorApp passes them through the catalog with these.
SYSTEM_WORDS = {
    "Theme": N_("Theme"), "Change the current theme": N_("Change the current theme"),
    "Quit": N_("Quit"), "Quit the application as soon as possible": N_("Quit the application as soon as possible"),
    "Keys": N_("Keys"), "Hide the keys and widget help panel": N_("Hide the keys and widget help panel"),
    "Show help for the focused widget and a summary of available keys":
        N_("Show help for the focused widget and a summary of available keys"),
    "Minimize": N_("Minimize"), "Minimize the widget and restore to normal size":
        N_("Minimize the widget and restore to normal size"),
    "Maximize": N_("Maximize"), "Maximize the focused widget": N_("Maximize the focused widget"),
    "Screenshot": N_("Screenshot"), "Save an SVG 'screenshot' of the current screen":
        N_("Save an SVG 'screenshot' of the current screen"),
}
PLACEHOLDER = N_("Search for commands…")
NO_MATCHES = N_("No matches found")


def system_commands(commands):
    """Textual's system commands with their title and help in the interface language; a command
    a later Textual adds, with words not listed above, stays as Textual wrote it."""
    from textual.app import SystemCommand

    for command in commands:
        yield SystemCommand(_(SYSTEM_WORDS.get(command.title, command.title)),
                            _(SYSTEM_WORDS.get(command.help, command.help)), command.callback, command.discover)


# what a keyboard types for the signs lesson titles print: "−log p" is found by "-log p", "one-hot × W_E" by "x"
TYPED_AS = str.maketrans({"−": "-", "–": "-", "‐": "-", "×": "x", "·": "."})


def typed_form(text: str) -> str:
    """``text`` with each mathematical sign as a keyboard types it, one character for one, so a
    match found in this form is highlighted at the same places in the title as printed."""
    return text.translate(TYPED_AS)


def bilingual_hit(matcher: Matcher, shown: str, english: str) -> tuple[float, Content]:
    """A command found by the words on screen or by its English name: a learner reading Chinese
    finds 语言 by typing 语言, and one who only knows the English words ("language", "quit")
    finds it too.  The score is the better of the two; what is highlighted is what is shown.
    ``matcher`` is built from the query's typed_form, and the names are compared in theirs."""
    typed = typed_form(shown)
    on_screen, in_english = matcher.match(typed), (matcher.match(typed_form(english)) if english != shown else 0)
    if on_screen >= in_english and on_screen > 0 and "[" not in shown:   # highlight() parses markup: a "[" is shown plain
        return on_screen, Content(shown, spans=matcher.highlight(typed).spans)
    return max(on_screen, in_english), Content(shown)


class BilingualSystemCommands(SystemCommandsProvider):
    """Textual's own commands (Quit, Keys, Theme…), findable by their English names as well as the
    translated ones the palette shows."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(typed_form(query))
        english_of = {_(words): english for english, words in SYSTEM_WORDS.items()}
        for name, help_text, callback, *_rest in self.app.get_system_commands(self.screen):
            score, shown = bilingual_hit(matcher, name, english_of.get(name, name))
            if score > 0:
                yield Hit(score, shown, callback, help=help_text)


def dashboard_action(app, tab: str, action: str) -> None:
    """Open the dashboard on ``tab`` and do ``action`` there, as its keys and buttons would."""
    from textual.widgets import TabbedContent

    screen = app.dashboard_screen()
    if app.screen is not screen:
        app.action_dashboard()

    def run() -> None:
        screen.query_one(TabbedContent).active = tab
        panel = screen.train_panel
        {"start": screen.action_start, "pause": screen.action_pause, "stop": screen.action_stop,
         "shipped": panel.reset_to_shipped, "sample": screen.query_one("#tab-sample").sample,
         "attention": screen.query_one("#tab-attention").show}[action]()

    app.call_after_refresh(run)


class LessonCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str, str]]:
        """(name, callback, help, English name) for every lesson in roadmap order, then the journey
        screens; a lesson's English name is its title as shown (the palette searches both)."""
        app = self.app
        titles = {track.id: track.title for track in app.catalog.index.tracks}
        found = []
        for item in app.catalog.ordered():
            name = _("Lesson: {title}").format(title=item.lesson.title)
            found.append((name, partial(app.open_lesson, item.lesson.id),
                          _("{track} · {count} questions").format(track=titles.get(item.lesson.track, item.lesson.track),
                                                                  count=len(item.lesson.questions)), name))
        journeys = [(N_("Review due questions"), {}, app.action_open_review, _("questions you missed, back before you forget")),
                    (N_("Stats: answers, accuracy, streak"), {}, app.action_open_stats, _("how you are doing")),
                    (N_("Help: keys on every screen"), {}, app.action_help, _("the same as ? or F1")),
                    (N_("Toggle light / dark theme"), {}, app.action_toggle_theme, _("remembered for next time")),
                    (N_("Language: {languages}"), {"languages": language_names()}, app.action_toggle_language,
                     _("F4; remembered for next time")),
                    (N_("Hand in my progress"), {}, partial(start_hand_in, app), hand_in_help())]
        found += [(_(words).format(**fields), callback, help_text, words.format(**fields))
                  for words, fields, callback, help_text in journeys]
        found += [(_("Dashboard: {action}").format(action=_(name)), partial(dashboard_action, app, tab, action),
                   _(help_text), "Dashboard: {action}".format(action=name))
                  for name, tab, action, help_text in DASHBOARD_ACTIONS]
        return found

    async def discover(self) -> Hits:
        for name, callback, help_text, _english in self._commands():
            yield DiscoveryHit(Content(name), callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(typed_form(query))
        for name, callback, help_text, english in self._commands():
            score, shown = bilingual_hit(matcher, name, english)
            if score > 0:
                yield Hit(score, shown, callback, text=name, help=help_text)


class TutorCommandPalette(CommandPalette):
    """Textual's palette with its "No matches found" line in the interface language.

    Textual writes that line as a literal inside ``_start_no_matches_countdown`` and offers no
    hook for it, so this is that method again (Textual 8) with the words passed through the
    catalog; ``tests/test_zh_screens.py`` notices if a later Textual changes what it relies on.
    """

    def _start_no_matches_countdown(self, search_value: str) -> None:
        self._stop_no_matches_countdown()

        def show_no_matches() -> None:
            if search_value:   # an empty search is discovery: nothing to report
                self.query_one(CommandList).add_option(
                    Option(Align.center(Text(_(NO_MATCHES), style="not bold")), disabled=True, id=self._NO_MATCHES))
                self._list_visible = True
            else:
                self._list_visible = False

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show_no_matches)
