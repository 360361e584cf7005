"""settings.json is untrusted: every command and the app start whatever the file holds."""
import json
import os
import subprocess
import sys

from journey_helpers import record_notifications, write_lesson

from tutor.common.settings import SETTINGS_NAME, load_settings, read_settings, save_setting, settings_notice
from tutor.ui.app import TutorApp


def write_settings(home, text: str):
    home.mkdir(parents=True, exist_ok=True)
    (home / SETTINGS_NAME).write_text(text, encoding="utf-8")


def test_a_deeply_nested_file_means_defaults_and_one_notice(tmp_path):
    write_settings(tmp_path, "[" * 30_000 + "]" * 30_000)   # under the size cap: the parser's depth is the problem
    assert load_settings(tmp_path) == {}
    notice = settings_notice(tmp_path)
    assert "nested" in notice and "defaults" in notice
    assert settings_notice(tmp_path) is None   # once per process


def test_a_fifo_and_dev_zero_are_refused_without_reading(tmp_path):
    os.mkfifo(tmp_path / SETTINGS_NAME)   # a plain open would wait for a writer forever
    assert "FIFO" in read_settings(tmp_path).unreadable
    other = tmp_path / "zero"
    other.mkdir()
    (other / SETTINGS_NAME).symlink_to("/dev/zero")   # never ends: MemoryError once
    assert "character device" in read_settings(other).unreadable


def test_values_of_the_wrong_type_are_dropped_and_named(tmp_path):
    write_settings(tmp_path, json.dumps({"theme": {}, "language": ["zh"], "model": None, "future": [1]}))
    read = read_settings(tmp_path)
    assert read.values == {"model": None, "future": [1]}
    assert read.ignored == ("theme", "language")
    assert "theme, language" in settings_notice(tmp_path)


def test_saving_over_an_unreadable_file_keeps_it_aside(tmp_path):
    write_settings(tmp_path, "[" * 30_000)
    save_setting(tmp_path, "theme", "textual-light")
    assert load_settings(tmp_path) == {"theme": "textual-light"}
    assert (tmp_path / (SETTINGS_NAME + ".bad")).read_text() == "[" * 30_000


def test_every_command_runs_with_a_hostile_file(tmp_path):
    os.mkfifo(tmp_path / SETTINGS_NAME)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    for args in (["--version"], ["progress"]):
        done = subprocess.run([sys.executable, "-m", "tutor", "--home", str(tmp_path), *args], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    assert "FIFO" in done.stderr and "defaults" in done.stderr   # the command that reads settings says why


async def test_the_app_starts_on_a_theme_that_is_not_text(tmp_path):
    home = tmp_path / "home"
    write_settings(home, json.dumps({"theme": {}}))
    app = TutorApp(home=home, lesson_dirs=[write_lesson(tmp_path / "lessons")], preload_model=False,
                   watch_interval=None)
    told = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme != {}
    assert [m for m, o in told if "theme" in m and o.get("markup") is False]
