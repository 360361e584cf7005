"""Served to others (``tutor serve --public`` gives each tab --files-in-home), the dashboard's Save,
Load and Train-file boxes stay inside the home; Save always asks before overwriting a file.

Before: anyone with the address could Save a checkpoint over any file the teacher's account could
write (a text file became a 477 KB zip, without a question), and the File box read any path.
"""
import pytest
from textual.widgets import Input, Select

from journey_helpers import wait_until
from test_dashboard import click, message, open_dashboard
from tutor.common.file_scope import OutsideHomeError, typed_path
from tutor.ui.app import TutorApp
from tutor.ui.screens.dashboard import DashboardScreen
from tutor.ui.screens.overwrite import OverwriteScreen


def test_a_confined_path_must_resolve_inside_the_home(tmp_path):
    home = tmp_path / "home"
    (home / "checkpoints").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (home / "escape").symlink_to(tmp_path / "outside")
    assert typed_path("checkpoints/a.pt", home, True) == home.resolve() / "checkpoints" / "a.pt"
    assert typed_path(str(home / "b.pt"), home, True) == home.resolve() / "b.pt"
    for text in (str(tmp_path / "notes.txt"), "../notes.txt", "escape/a.pt", "/etc/passwd"):
        with pytest.raises(OutsideHomeError):
            typed_path(text, home, True)
    assert typed_path(str(tmp_path / "notes.txt"), home, False) == tmp_path / "notes.txt"   # the terminal app


async def test_save_load_and_the_train_file_outside_the_home_are_refused_when_confined(tmp_path):
    home, notes = tmp_path / "home", tmp_path / "notes.txt"
    home.mkdir()
    notes.write_text("a teacher's file\n")
    app = TutorApp(preload_model=False, home=home, watch_interval=None, files_in_home=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        path = screen.query_one("#train-path", Input)
        for button in ("#train-save", "#train-load"):
            path.value = str(notes)
            await click(pilot, button)
            assert "only files inside" in message(screen), button
        await pilot.pause()
        assert notes.read_text() == "a teacher's file\n"   # not replaced by a checkpoint
        screen.query_one("#train-data", Select).value = "file"
        screen.query_one("#train-file", Input).value = str(notes)
        await pilot.press("f5")
        await wait_until(pilot, lambda: "only files inside" in message(screen), "the refusal")
        assert not screen.train_panel.training_active

        path.value = "mine.pt"   # relative to the home
        await click(pilot, "#train-save")
        await wait_until(pilot, lambda: "Press Save again" in message(screen), "the shipped weights' note")
        await click(pilot, "#train-save")
        await wait_until(pilot, lambda: "Saved" in message(screen), "the save")
        assert (home / "mine.pt").is_file()


async def test_save_asks_before_overwriting_and_cancel_keeps_the_file(tmp_path):
    existing = tmp_path / "kept.txt"
    existing.write_text("do not lose me\n")
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_dashboard(pilot, app)
        screen.query_one("#train-path", Input).value = str(existing)
        await click(pilot, "#train-save")   # the shipped weights: the first Save says what it would write
        assert isinstance(app.screen, DashboardScreen) and "Press Save again" in message(screen)
        await click(pilot, "#train-save")
        assert isinstance(app.screen, OverwriteScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and "Not saved" in message(screen)
        assert existing.read_text() == "do not lose me\n"
        await click(pilot, "#train-save")
        await pilot.press("o")
        await wait_until(pilot, lambda: "Saved" in message(screen), "the overwrite")
        assert existing.read_bytes()[:2] == b"PK"   # now a checkpoint, as the learner chose
