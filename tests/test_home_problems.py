"""A progress database that cannot be opened: the path and the reason, and a choice in the app.

``TUTOR_HOME`` whose progress.db was a dangling symlink (or a read-only home) killed the app
with sqlite3.OperationalError, and the CLI said "unable to open database file" with no path.
"""
import os
import sqlite3
from pathlib import Path

import pytest

from tutor.progress.records import Answer
from tutor.cli.main import main
from tutor.progress import open_failure
from tutor.progress.store import ProgressError, ProgressStore
from tutor.ui.app import TutorApp
from tutor.ui.screens.no_saving import NoSavingScreen
from tutor.ui.screens.roadmap import RoadmapScreen


def dangling_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "progress.db").symlink_to(tmp_path / "gone" / "progress.db")
    return home


def test_the_store_names_the_path_and_the_dangling_link(tmp_path):
    home = dangling_home(tmp_path)
    with pytest.raises(ProgressError) as error:
        ProgressStore(home)
    message = str(error.value)
    assert str(home / "progress.db") in message
    assert "symbolic link" in message and "does not exist" in message and "--home" in message


def test_a_folder_in_place_of_the_database_is_explained(tmp_path):
    (tmp_path / "progress.db").mkdir()
    with pytest.raises(ProgressError, match="it is a folder, not a database file"):
        ProgressStore(tmp_path)


def test_a_read_only_home_is_explained(tmp_path, monkeypatch):
    # root ignores permissions, so the folder's verdict is taken from os.access, as SQLite's would be
    monkeypatch.setattr(open_failure.os, "access", lambda path, mode: Path(path) != tmp_path)
    message = open_failure.explain(tmp_path / "progress.db", sqlite3.OperationalError("unable to open database file"))
    assert f"the folder {tmp_path} is read-only" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_really_read_only_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    try:
        with pytest.raises(ProgressError, match="read-only"):
            ProgressStore(home)
    finally:
        home.chmod(0o755)


def test_the_cli_says_which_path_and_why(tmp_path, capsys):
    home = dangling_home(tmp_path)
    assert main(["progress", "--home", str(home)]) == 1
    err = capsys.readouterr().err
    assert str(home / "progress.db") in err and "symbolic link" in err and "Traceback" not in err


async def test_the_app_asks_and_goes_on_without_saving(tmp_path):
    home = dangling_home(tmp_path)
    app = TutorApp(home=home, preload_model=False, watch_interval=None)   # raised OperationalError before
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NoSavingScreen)
        assert "symbolic link" in str(app.screen.query_one("#no-saving-text").render())
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, RoadmapScreen)
        assert app.store is None
        app.progress.record(Answer("la-shapes", "q1", "x", False, 0, app.clock()))   # kept in memory, nothing written
    assert app.progress.session_answers and not (tmp_path / "gone").exists()


async def test_the_app_quits_when_the_learner_would_rather_fix_it(tmp_path):
    app = TutorApp(home=dangling_home(tmp_path), preload_model=False, watch_interval=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1
