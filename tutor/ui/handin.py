""""Hand in my progress" in the app (the command palette, the lesson summary): the same hand-in as
``tutor class submit``, so a student on a hub never needs a terminal to give the teacher their work.

The export runs in a thread worker (it reads every answer and writes a file, which on a network
home takes a moment), and the learner is told where it went, or what to ask their teacher.
"""
from __future__ import annotations

import os

from tutor.classroom.handin import EXCHANGE_VARIABLE, HandInError, exchange_folder, learner_name
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
        name = learner_name(None)
    except HandInError as error:
        app.notify(translated(message_of(error)), title=_("Hand in my progress"), severity="error", timeout=15)
        return
    from tutor.classroom.handin import hand_in   # the export's modules, only when handing in
    from tutor.classroom.outline import course_question_ids

    app.progress.flush()   # answers queued behind a busy database go in first
    course = course_question_ids(app.catalog)
    store, now = app.store, app.clock()

    def work() -> None:
        try:
            path, attempts = hand_in(store, folder, name, now, course)
        except (HandInError, ProgressError) as error:
            app.call_from_thread(app.notify, translated(message_of(error)), title=_("Hand in my progress"),
                                 severity="error", timeout=15)
            return
        app.call_from_thread(app.notify, _("Handed in {attempts} attempts as {name}: {path}").format(
            attempts=attempts, name=name, path=path), title=_("Hand in my progress"), timeout=10)

    app.run_worker(work, thread=True, group="hand-in", exclusive=True, name="hand-in")
