"""A served tab starts with the app focused, so no learner's first key restyles the whole screen.

Textual's web driver posts an AppBlur as the tab starts; the first key then focused the app again,
and each change of app focus restyles every widget and rebuilds the footer (50-140 ms of CPU).  Ten
learners typing at once queued that on two cores: their first keys took 150-180 ms
(bench/serve_load.py).  A blur the browser reports after a focus is still honoured."""
from textual import events

from journey_helpers import write_lesson
from tutor.ui.app import TutorApp


def app_for(tmp_path) -> TutorApp:
    return TutorApp(home=tmp_path / "home", lesson_dirs=[write_lesson(tmp_path / "lessons")], preload_model=False,
                    watch_interval=None)


async def test_the_start_up_blur_is_ignored_and_the_first_key_restyles_nothing(tmp_path, monkeypatch):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        app.post_message(events.AppBlur())   # as textual's WebDriver.start_application_mode does
        await pilot.pause()
        assert app.app_focus is True
        restyled = []
        monkeypatch.setattr(type(app.screen), "update_node_styles",
                            lambda screen, *args, **kwargs: restyled.append(screen))
        await pilot.press("down")
        await pilot.pause()
        assert restyled == [] and app.app_focus is True


async def test_a_blur_after_a_focus_is_honoured(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        app.post_message(events.AppFocus())
        await pilot.pause()
        app.post_message(events.AppBlur())   # the learner clicked into another window
        await pilot.pause()
        assert app.app_focus is False
        await pilot.press("down")   # Textual focuses the app again on a key
        await pilot.pause()
        assert app.app_focus is True
