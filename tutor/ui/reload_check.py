"""After a hot reload, the live check runs in a worker thread and its problems reach the author.

Reloading only parses the file; running the lesson on the model (an unknown probe, a slice out
of range) takes a moment, so it never runs in the timer's handler.  Its problems are shown the
way a broken file's are: a notification with file:line and the open lesson's status line.
"""
from __future__ import annotations

from functools import partial

from tutor.common.i18n import _
from tutor.course.watcher import Reload


def start_live_checks(app, reloads: list[Reload]) -> None:
    """One thread worker per lesson that reloaded cleanly (broken and removed files have said so)."""
    for reload in reloads:
        if reload.broken or reload.removed or reload.new_id is None:
            continue
        item = app.catalog.get(reload.new_id)
        if item is None:
            continue
        app.run_worker(partial(_check, app, reload, item), thread=True, group="lesson-live-check",
                       name=f"live check of {reload.new_id}", exit_on_error=False)


def _check(app, reload: Reload, item) -> None:
    from tutor.authoring.reload_check import live_problems

    problems = live_problems(item.path, item.lesson, app.hub)
    if not problems:
        return
    try:
        app.call_from_thread(_report, app, reload.with_live_problems(problems), item)
    except RuntimeError:   # the app closed while the check ran
        pass


def _report(app, checked: Reload, item) -> None:
    """On the UI thread; a result for a version of the file saved over since is dropped."""
    if app.catalog.get(checked.new_id) is not item:
        return
    app.lessons_signal.publish([checked])
    app.notify(checked.summary(), title=_("Lesson file has a problem"), severity="error", timeout=10, markup=False)


def problems_text(problems) -> str:
    """The lesson screen's status lines for problems the live check found."""
    more = "\n" + _("(and {count} more; run tutor lessons check on the file)").format(count=len(problems) - 1) \
        if len(problems) > 1 else ""
    return _("The live check found a problem in this lesson file; a learner would meet it:") + f"\n{problems[0]}{more}"
