"""Paths named on the command line are printed as plain, terminal-safe text by every command.

A path may hold "[/]" (Rich markup: once a MarkupError traceback), "[bold]" (once eaten, so
"saved zq.pt" named a file that does not exist) or ESC (once printed raw to the terminal).
"""
import argparse

from journey_helpers import write_lesson

from tutor.cli import lessons as lessons_command
from tutor.cli import sample as sample_command
from tutor.cli import train as train_command
from tutor.ui.app import TutorApp

ESC = "\x1b"


def call(*argv):
    parser = argparse.ArgumentParser(prog="tutor")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in (train_command, sample_command, lessons_command):
        command.add_parser(subparsers)
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_a_missing_training_file_with_markup_in_its_name_is_named_as_is(tmp_path, capsys):
    assert call("train", "--data", str(tmp_path / "x[/]y.txt"), "--steps", "1") == 2
    err = capsys.readouterr().err
    assert "x[/]y.txt" in err and "Traceback" not in err


def test_saved_names_the_file_that_was_written(tmp_path, capsys):
    corpus = tmp_path / "x[b]y.txt"
    corpus.write_text("the cat sat on the mat\n" * 40, encoding="utf-8")
    out = tmp_path / "z[bold]q.pt"
    assert call("train", "--data", str(corpus), "--steps", "1", "--batch-size", "2", "--out", str(out)) == 0
    captured = capsys.readouterr()
    assert out.exists() and f"saved {out}" in captured.out
    assert "x[b]y.txt" in captured.err   # "training ... on <path>"


def test_an_escape_in_an_output_path_is_shown_inert(tmp_path, capsys):
    out = tmp_path / f"o{ESC}[2J.pt"
    assert call("train", "--steps", "1", "--batch-size", "2", "--max-len", "2", "--out", str(out)) == 0
    captured = capsys.readouterr()
    assert out.exists() and "o\u241b[2J.pt" in captured.out
    assert ESC not in captured.out + captured.err


def test_an_unwritable_output_path_is_an_error_not_a_traceback(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert call("train", "--steps", "1", "--batch-size", "2", "--out", str(tmp_path / "file" / "m.pt")) == 1
    assert "cannot write" in capsys.readouterr().err


def test_sample_and_lessons_check_name_a_hostile_checkpoint_path_inertly(tmp_path, capsys):
    (tmp_path / f"b{ESC}]0;x{ESC}\\[").mkdir()
    bad = tmp_path / f"b{ESC}]0;x{ESC}\\[" / "].pt"   # the path reads ".../b␛]0;x␛\\[/].pt"
    bad.write_bytes(b"junk")
    assert call("sample", "hi", "--checkpoint", str(bad)) == 1
    assert call("lessons", "check", "--checkpoint", str(bad), str(tmp_path)) == 1
    captured = capsys.readouterr()
    assert ESC not in captured.err and captured.err.count("[/].pt") == 3   # sample once, lessons check twice


async def test_app_notifications_are_plain_terminal_safe_text(tmp_path):
    app = TutorApp(home=tmp_path / "home", lesson_dirs=[write_lesson(tmp_path / "lessons")], preload_model=False,
                   watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify(f"saved z[bold]q.pt{ESC}[2J", title=f"t{ESC}[1m")   # markup on by default in Textual
        await pilot.pause()
        shown = [(n.message, n.title, n.markup) for n in app._notifications]
    assert ("saved z[bold]q.pt\u241b[2J", "t\u241b[1m", False) in shown
