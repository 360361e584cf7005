"""Handing in, as nbgrader's exchange does: ``tutor class submit`` and "Hand in my progress" in the
app write an export named by the student into a folder students write into and cannot read; a second
hand-in replaces the first, and the teacher's report reads the folder.  Before, a student had to run
``tutor progress --export``, find the file and send it, and exports carried no name."""
import gzip
import json
import os
import stat
from datetime import datetime, timedelta, timezone

import pytest

from journey_helpers import record_notifications, wait_until, write_lesson
from tutor.classroom.exports import hand_ins, read_class
from tutor.classroom.handin import file_name, login_name
from tutor.cli.main import main
from tutor.progress.records import Answer
from tutor.progress.store import ProgressStore
from tutor.progress.stats import LessonStats

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)


def play(home, text, correct=True):
    with ProgressStore(home) as store:
        store.record(Answer("la-tensors", "embed-shape", text, correct, 0, T0, "B=2, L=4, D=8, H=2"))


@pytest.fixture
def exchange(tmp_path):
    folder = tmp_path / "exchange"
    folder.mkdir()
    os.chmod(folder, 0o1733)   # as docs/class.md makes it: write, no listing, sticky
    return folder


def hand_in_doc(path):
    return json.loads(gzip.decompress(path.read_bytes()))


def test_three_students_hand_in_and_the_report_reads_the_exchange(tmp_path, exchange, capsys):
    for name, text in (("ana", "(2, 4, 8)"), ("ben", "(4, 8)"), ("张伟", "（4，8）")):
        play(tmp_path / name, text, correct=name == "ana")
        assert main(["class", "submit", "--home", str(tmp_path / name), "--exchange", str(exchange),
                     "--name", name]) == 0
    out = capsys.readouterr().out
    assert "Handed in 1 attempt as 张伟" in out   # one attempt, singular (it read "1 attempts")
    files = hand_ins(exchange)
    assert [path.name for path in files] == ["ana.json.gz", "ben.json.gz", "张伟.json.gz"]
    assert all(stat.S_IMODE(os.stat(path).st_mode) == 0o600 for path in files)
    assert hand_in_doc(files[2])["learner"] == "张伟"
    learners, problems = read_class(files)
    assert [learner.name for learner in learners] == ["ana", "ben", "张伟"] and problems == []
    assert main(["class", "report", "--exchange", str(exchange), "--lesson", "la-tensors"]) == 0
    assert "(4, 8) ×2" in capsys.readouterr().out   # ben's and 张伟's full-width one: one belief


def test_a_second_hand_in_replaces_the_first_and_leaves_no_temporary_file(tmp_path, exchange, monkeypatch):
    monkeypatch.setenv("TUTOR_CLASS_EXCHANGE", str(exchange))
    play(tmp_path / "ana", "(4, 8)", correct=False)
    assert main(["class", "submit", "--home", str(tmp_path / "ana"), "--name", "ana"]) == 0
    with ProgressStore(tmp_path / "ana") as store:
        store.record(Answer("la-tensors", "count", "64", True, 0, T0 + timedelta(minutes=1), "B=2, L=4, D=8, H=2"))
    assert main(["class", "submit", "--home", str(tmp_path / "ana"), "--name", "ana"]) == 0
    assert sorted(path.name for path in exchange.iterdir()) == ["ana.json.gz"]
    assert len(hand_in_doc(exchange / "ana.json.gz")["answers"]) == 2


def test_a_group_exchange_gives_the_teachers_group_read_access(tmp_path):
    folder = tmp_path / "group-exchange"
    folder.mkdir()
    os.chmod(folder, 0o3773)   # setgid: each hand-in takes the folder's (teachers') group
    play(tmp_path / "ana", "(2, 4, 8)")
    assert main(["class", "submit", "--home", str(tmp_path / "ana"), "--exchange", str(folder)]) == 0
    (handed,) = hand_ins(folder)
    assert stat.S_IMODE(os.stat(handed).st_mode) == 0o640


def test_without_an_exchange_or_with_a_bad_name_nothing_is_written(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TUTOR_CLASS_EXCHANGE", raising=False)
    assert main(["class", "submit", "--home", str(tmp_path / "ana")]) == 1
    assert "no exchange folder" in capsys.readouterr().err
    assert main(["class", "submit", "--home", str(tmp_path / "ana"), "--exchange", str(tmp_path / "nowhere")]) == 1
    assert "cannot use the exchange folder" in capsys.readouterr().err
    assert main(["class", "submit", "--home", str(tmp_path / "ana"), "--exchange", str(tmp_path),
                 "--name", "ana\x1b[2J"]) == 1
    err = capsys.readouterr().err
    assert "plain text" in err and "\x1b" not in err
    assert file_name("../../etc/passwd") == "_.._etc_passwd.json.gz" and file_name("张 伟") == "张_伟.json.gz"


def class_app(tmp_path, exchange, monkeypatch):
    """The app of a student who answered one question, in a class with an exchange folder."""
    from tutor.ui.app import TutorApp

    monkeypatch.setenv("TUTOR_CLASS_EXCHANGE", str(exchange))
    play(tmp_path / "home", "(2, 4, 8)")
    return TutorApp(home=tmp_path / "home", lesson_dirs=[write_lesson(tmp_path / "lessons")], preload_model=False,
                    watch_interval=None)


async def open_hand_in(app, pilot) -> None:
    """"Hand in my progress" from the command palette: the name field opens."""
    from tutor.ui.palette import LessonCommands

    commands = {entry[0]: entry[1] for entry in LessonCommands(app.screen)._commands()}
    commands["Hand in my progress"]()
    await pilot.pause()


async def test_hand_in_from_the_palette_and_the_lesson_summary(tmp_path, exchange, monkeypatch):
    from tutor.ui.screens.lesson_summary import LessonSummaryScreen, summarize

    app = class_app(tmp_path, exchange, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = record_notifications(app)
        await open_hand_in(app, pilot)
        assert app.screen.query_one("#name-input").value == login_name()   # the account, not $USER
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Handed in" in text for text, _options in seen), "the palette's hand-in")
        (handed,) = hand_ins(exchange)
        assert hand_in_doc(handed)["learner"] == login_name()
        os.remove(handed)
        item = app.catalog.get("zz-journey").lesson
        ids = [question.id for question in item.questions]
        summary = summarize(item.id, item.title, ids, LessonStats(), timedelta(minutes=1), {}, app.catalog)
        await app.push_screen(LessonSummaryScreen(summary, T0))
        await pilot.pause()
        assert app.screen.check_action("hand_in", ()) is True
        await pilot.press("h")
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(hand_ins(exchange)) == 1, "the summary's hand-in")
        assert len(hand_in_doc(hand_ins(exchange)[0])["answers"]) == 1
        monkeypatch.delenv("TUTOR_CLASS_EXCHANGE")
        assert app.screen.check_action("hand_in", ()) is False   # no class: no entry in the footer


async def test_the_app_asks_for_the_name_once_and_submit_and_export_use_it(tmp_path, exchange, monkeypatch, capsys):
    """A hub login (jupyter-u4711) is not a name a teacher knows.  Before, the app handed in under the
    login only and ``tutor progress --export`` carried no name at all."""
    home = tmp_path / "home"
    app = class_app(tmp_path, exchange, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = record_notifications(app)
        await open_hand_in(app, pilot)
        field = app.screen.query_one("#name-input")
        field.value = "bad\x07name"
        await pilot.press("enter")
        await pilot.pause()
        assert "plain text" in str(app.screen.query_one("#name-problem").render()) and hand_ins(exchange) == []
        field.value = "Ana Lima"
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("as Ana Lima" in text for text, _options in seen), "the named hand-in")
        await open_hand_in(app, pilot)
        assert app.screen.query_one("#name-input").value == "Ana Lima"   # remembered: asked once
        await pilot.press("escape")
    (handed,) = hand_ins(exchange)
    assert handed.name == "Ana_Lima.json.gz" and hand_in_doc(handed)["learner"] == "Ana Lima"
    os.remove(handed)
    assert main(["class", "submit", "--home", str(home), "--exchange", str(exchange)]) == 0
    assert [path.name for path in hand_ins(exchange)] == ["Ana_Lima.json.gz"]
    assert main(["progress", "--home", str(home), "--export", str(tmp_path / "mine.json")]) == 0
    assert json.loads((tmp_path / "mine.json").read_text(encoding="utf-8"))["learner"] == "Ana Lima"
    assert main(["progress", "--home", str(home), "--export", str(tmp_path / "b.json"), "--name", "Bea"]) == 0
    assert json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["learner"] == "Bea"
    learners, _problems = read_class([tmp_path / "mine.json", tmp_path / "b.json"])
    assert sorted(learner.name for learner in learners) == ["Ana Lima", "Bea"]
    capsys.readouterr()
    assert main(["progress", "--home", str(home), "--export", str(tmp_path / "c.json"), "--name", "x\x1b[2J"]) == 1
    assert "plain text" in capsys.readouterr().err and not (tmp_path / "c.json").exists()


async def test_ctrl_u_a_name_and_enter_in_one_burst_hand_in_that_name(tmp_path, exchange, monkeypatch):
    """A served tab gets what the browser sent in one WebSocket message as one burst of keys, all queued
    before the first is handled.  Before, Ctrl+U (bound by the Input, so acted on only once it had bubbled
    up to the App) cleared the name typed after it, and Enter handed in an empty one."""
    from textual import events

    app = class_app(tmp_path, exchange, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = record_notifications(app)
        await open_hand_in(app, pilot)
        burst = [events.Key("ctrl+u", "\x15"), *(events.Key(letter, letter) for letter in "ana"),
                 events.Key("enter", "\r")]
        for key in burst:   # as the driver posts what one read of its input parsed to: no wait between
            app.post_message(key)
        await wait_until(pilot, lambda: any("as ana" in text for text, _options in seen), "the hand-in as ana")
    (handed,) = hand_ins(exchange)
    assert handed.name == "ana.json.gz" and hand_in_doc(handed)["learner"] == "ana"


def test_an_export_without_a_set_name_carries_the_login(tmp_path):
    play(tmp_path / "home", "(4, 8)")
    assert main(["progress", "--home", str(tmp_path / "home"), "--export", str(tmp_path / "out.json")]) == 0
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["learner"] == login_name()
