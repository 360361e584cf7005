"""``tutor progress`` as a user meets it: output, exit codes, no tracebacks."""
import argparse
import io
import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from progress_helpers import answer_once
from tutor.progress.store import SCHEMA_VERSION, ProgressStore
from tutor.cli.progress import RESET_PROMPT, add_parser


def cli(argv, *, global_home=None):
    parser = argparse.ArgumentParser(prog="tutor")
    parser.add_argument("--home")  # the main CLI may also offer --home globally
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args((["--home", str(global_home)] if global_home else []) + ["progress", *argv])
    return args


NOW = datetime(2025, 3, 1, 0, 30, tzinfo=timezone.utc)   # 00:30: the hour a clock-bound test once failed in


def run(argv, capsys, monkeypatch, stdin="", now=NOW):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    args = cli(argv)
    code = args.func(args, now=now, tz=timezone.utc)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "unused"))  # never the real data dir
    home = tmp_path / "home"
    now = NOW
    with ProgressStore(home) as store:
        answer_once(store, "la-tensors", "last-tokens", "wrong", False, now=now - timedelta(minutes=25))
        answer_once(store, "la-tensors", "last-tokens", "right", True, now=now - timedelta(minutes=20))  # practice
        answer_once(store, "pr-softmax", "guess-share", "x", True, now=now)
        answer_once(store, "pr-softmax", "smallest", "y", False, now=now)
    return home


def count(home):
    with ProgressStore(home) as store:
        return store.answer_count()


def test_summary(home, capsys, monkeypatch):
    code, out, err = run(["--home", str(home)], capsys, monkeypatch)
    assert code == 0 and err == ""
    # counted in questions: 3 finished, 1 of them right first time; the practice answer counts nowhere
    assert "Questions finished: 3" in out and "Right first time: 33%" in out and "Answers: 4" in out
    assert "Streak: 1 day" in out and "Tensors:" in out and "Softmax:" in out   # lessons by their titles
    assert "Reviews due now: 1" in out   # last-tokens, not got 25 minutes ago; smallest comes back in 10 min


def test_summary_due_reviews_agree_with_the_roadmap(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "unused"))
    with ProgressStore(tmp_path / "h") as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", False, now=NOW - timedelta(hours=2))
        answer_once(store, "la-ffn-shapes", "mlp-share-all-params", "b", True, hints_used=1, now=NOW)
        answer_once(store, "gone-lesson", "q", "x", False, now=NOW - timedelta(hours=2))
    code, out, _ = run(["--home", str(tmp_path / "h")], capsys, monkeypatch)
    assert code == 0 and "Reviews due now: 1; 1 more for questions no longer in the course" in out

    from tutor.course.catalog import load_catalog
    from tutor.ui.progress_labels import take_snapshot
    with ProgressStore(tmp_path / "h") as store:
        snapshot = take_snapshot(store, load_catalog(), NOW)
    assert [d.lesson_id for d in snapshot.due] == ["la-ffn-shapes"] and snapshot.orphans == 1


def test_summary_of_empty_home(tmp_path, capsys, monkeypatch):
    code, out, _ = run(["--home", str(tmp_path / "new")], capsys, monkeypatch)
    assert code == 0 and "No answers recorded yet" in out


def test_global_home_is_not_overwritten_by_subcommand(home):
    assert cli([], global_home=home).home == str(home)
    assert cli(["--home", "sub"], global_home=home).home == "sub"


def test_home_from_environment(home, capsys, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(home))
    code, out, _ = run([], capsys, monkeypatch)
    assert code == 0 and "Answers: 4" in out


def test_export_and_import(home, tmp_path, capsys, monkeypatch):
    file = tmp_path / "out.json"
    code, out, _ = run(["--home", str(home), "--export", str(file)], capsys, monkeypatch)
    assert code == 0 and "Exported 4 attempts and 3 question records" in out
    assert len(json.loads(file.read_text(encoding="utf-8"))["answers"]) == 4
    other = tmp_path / "other"
    for expected in ("Imported 4 new answers, 3 new outcomes and 3 new question records",
                     "Imported 0 new answers, 0 new outcomes and 0 new question records"):
        code, out, _ = run(["--home", str(other), "--import", str(file)], capsys, monkeypatch)
        assert code == 0 and expected in out
    assert count(other) == 4


def test_reset_answered_no_keeps_data(home, capsys, monkeypatch):
    code, out, _ = run(["--home", str(home), "--reset"], capsys, monkeypatch, stdin="n\n")
    assert code == 0 and RESET_PROMPT.strip() in out and "Nothing was changed" in out
    assert count(home) == 4
    code, out, _ = run(["--home", str(home), "--reset"], capsys, monkeypatch, stdin="")  # EOF means no
    assert count(home) == 4


def test_reset_answered_yes_and_with_yes_flag(home, capsys, monkeypatch):
    code, out, _ = run(["--home", str(home), "--reset"], capsys, monkeypatch, stdin="y\n")
    assert code == 0 and "Backup kept at" in out
    assert count(home) == 0
    backups = list((home / "backups").glob("*.db"))
    assert len(backups) == 1 and str(backups[0]) in out
    code, out, _ = run(["--home", str(home), "--reset", "--yes"], capsys, monkeypatch)
    assert code == 0 and RESET_PROMPT.strip() not in out


def test_import_of_missing_file_fails_cleanly(home, tmp_path, capsys, monkeypatch):
    missing = tmp_path / "missing.json"
    code, out, err = run(["--home", str(home), "--import", str(missing)], capsys, monkeypatch)
    assert code == 1 and str(missing) in err and err.startswith("tutor progress: error:")
    assert count(home) == 4


def test_export_to_missing_directory_fails_cleanly(home, tmp_path, capsys, monkeypatch):
    code, _, err = run(["--home", str(home), "--export", str(tmp_path / "no" / "such" / "x.json")],
                       capsys, monkeypatch)
    assert code == 1 and "cannot write" in err


def test_newer_database_fails_cleanly(home, capsys, monkeypatch):
    con = sqlite3.connect(home / "progress.db")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    code, _, err = run(["--home", str(home)], capsys, monkeypatch)
    assert code == 1 and "newer version" in err


def test_recovery_from_corruption_is_reported(tmp_path, capsys, monkeypatch):
    (tmp_path / "progress.db").write_bytes(b"\x00garbage" * 200)
    code, out, err = run(["--home", str(tmp_path)], capsys, monkeypatch)
    assert code == 0 and "warning" in err and "progress.db.corrupt-" in err


def test_summary_of_history_outside_the_course_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "unused"))
    with ProgressStore(tmp_path / "h") as store:
        answer_once(store, "gone-lesson", "q", "x", False, now=NOW)
    code, out, _ = run(["--home", str(tmp_path / "h")], capsys, monkeypatch)
    assert code == 0 and "1 answer recorded, none to a question the course asks today." in out


@pytest.mark.parametrize("language, lesson_id, question_id, title", [
    ("en", "pr-softmax", "guess-share", "Softmax: from logits to a distribution"),
    ("en", "ca-vanishing-exploding", "gelu-max", "Vanishing and exploding gradients"),
    ("zh", "ca-dynamic-graphs", "tied-block", "静态图与动态图：图在什么时候建成"),
    ("zh", "nu-layernorm", "row-var-nine-tenths", "层归一化：每个词元在自己的特征上归一化"),
])
def test_at_80_columns_a_title_of_up_to_38_cells_stays_on_one_line(tmp_path, capsys, monkeypatch, language, lesson_id,
                                                                   question_id, title):
    from rich.cells import cell_len

    from tutor.common.i18n import set_language

    monkeypatch.setenv("COLUMNS", "80")   # Rich's console takes its width from here when stdout is not a terminal
    with ProgressStore(tmp_path / "home") as store:
        answer_once(store, lesson_id, question_id, "x", True, now=NOW)
        answer_once(store, "la-tensors", "last-tokens", "x", True, now=NOW)
    set_language(language)
    try:
        code, out, _err = run(["--home", str(tmp_path / "home")], capsys, monkeypatch)
    finally:
        set_language("en")
    assert code == 0
    # before: the Lesson column was 28 cells and the table 97 wide, so this title wrapped
    assert any(line.startswith(title) for line in out.splitlines()), out
    assert max(cell_len(line.rstrip()) for line in out.splitlines()[1:]) <= 80, out   # [0] is the long tmp path
