""""Hand in my progress" in the app (the command palette, the lesson summary): the same hand-in as
``tutor class submit``, so a student on a hub never needs a terminal to give the teacher their work.

The learner says once under what name (HandInNameScreen: filled in with the last one, else the
login); in a hub service's tab the name is the hub login, never typed (tutor.web.hub_service).  The export runs in a thread worker (it reads every answer and writes a file, which on a network
home takes a moment), and the learner is told where it went, or what to ask their teacher.
"""
from __future__ import annotations

import os

from tutor.classroom.handin import EXCHANGE_VARIABLE, HandInError, chosen_name, exchange_folder
from tutor.common.file_scope import HUB_USER_VARIABLE, login_folder_name
from tutor.common.safe_text import neutralise
from tutor.common.settings import save_setting
from tutor.common.i18n import _, message_of, translated
from tutor.progress.store import ProgressError



def class_exchange() -> str:
    """The exchange folder the teacher set for this account, or "" when none is."""
    return os.environ.get(EXCHANGE_VARIABLE, "").strip()


def hand_in_help() -> str:
    if class_exchange():
        return _("a copy of your answers for your teacher, in {folder}").format(folder=class_exchange())
    return _("needs the exchange folder your teacher sets ({variable})").format(variable=EXCHANGE_VARIABLE)


def start_hand_in(app) -> None:
    """Hand in now, from whatever screen asked (the palette or the summary)."""
    if app.store is None:
        app.notify(_("Your progress is not being saved, so there is nothing to hand in."),
                   title=_("Hand in my progress"), severity="error", timeout=10)
        return
    try:
        folder = exchange_folder()
    except HandInError as error:
        app.notify(translated(message_of(error)), title=_("Hand in my progress"), severity="error", timeout=15)
        return
    login = os.environ.get(HUB_USER_VARIABLE, "")
    if login:   # a hub service's tab: every student's tab runs as one account, so a typed name could be another's
        _hand_in_as(app, folder, neutralise(login, keep=""), stem=login_folder_name(login))
        return
    from tutor.ui.screens.hand_in_name import HandInNameScreen

    def named(name: str | None) -> None:
        if name is not None:
            _remember(app, name)
            _hand_in_as(app, folder, name)

    app.push_screen(HandInNameScreen(chosen_name(app.settings_home), str(folder)), named)


def _remember(app, name: str) -> None:
    """Kept for the next hand-in and for ``tutor class submit`` / ``progress --export``; a home that
    cannot be written costs only the remembering."""
    try:
        save_setting(app.settings_home, "name", name)
    except OSError:
        pass


def _hand_in_as(app, folder, name: str, stem: str | None = None) -> None:
    from tutor.classroom.handin import hand_in, handed_in_message   # the export's modules, only when handing in
    from tutor.classroom.outline import course_question_ids

    app.progress.flush()   # answers queued behind a busy database go in first
    course = course_question_ids(app.catalog)
    store, now = app.store, app.clock()

    def work() -> None:
        try:
            path, attempts = hand_in(store, folder, name, now, course, stem)
        except (HandInError, ProgressError) as error:
            app.call_from_thread(app.notify, translated(message_of(error)), title=_("Hand in my progress"),
                                 severity="error", timeout=15)
            return
        app.call_from_thread(app.notify, handed_in_message(attempts, name, path), title=_("Hand in my progress"),
                             timeout=10)

    app.run_worker(work, thread=True, group="hand-in", exclusive=True, name="hand-in")
