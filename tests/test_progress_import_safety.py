"""``tutor progress --import/--export`` with hostile or careless files: a clear line, nothing changed.

Each case below once ended in a traceback, a hang, a replaced FIFO/link/device or a 100 MB
answer in the database.
"""
import json
import os
import threading
from pathlib import Path

import pytest

from tutor.cli.main import main
from tutor.common.safe_files import UnsafeFileError, check_write_target, read_regular_bytes, write_atomically
from tutor.progress.import_check import MAX_IMPORT_BYTES
from tutor.progress.io import export_json, import_json
from tutor.progress.store import ProgressError, ProgressStore

GOOD = {"timestamp": "2024-05-01T12:00:00+00:00", "lesson_id": "la-shapes", "question_id": "q1",
        "answer": "(2, 3)", "correct": True, "hints_used": 0, "variant": None}


def export_doc(**changes) -> dict:
    return {"format": "tutor-progress", "version": 1, "exported_at": "2024-05-02T00:00:00+00:00",
            "last_position": None, "answers": [{**GOOD, **changes}]}


def run_import(home: Path, path: Path, capsys) -> tuple[int, str]:
    code = main(["progress", "--home", str(home), "--import", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.err


def answers_in(home: Path) -> int:
    with ProgressStore(home) as store:
        return store.answer_count()


@pytest.mark.parametrize("changes, words", [
    (dict(hints_used=10**30), "hints_used"),                                 # OverflowError before
    (dict(hints_used=-1), "hints_used"),
    (dict(hints_used=True), "hints_used"),
    (dict(timestamp="9999-12-31T23:59:59+00:00"), "between 1970 and 2200"),  # OverflowError in review before
    (dict(timestamp="0001-01-01T00:00:00+00:00"), "between 1970 and 2200"),
    (dict(timestamp="yesterday"), "ISO 8601"),
    (dict(answer="a" * 2001), "at most 2000 characters"),                    # stored before
    (dict(lesson_id="\x1b]0;pwned\x07"), "U+001B (ESCAPE)"),
    (dict(question_id=""), "question_id"),
    (dict(correct=1), "correct"),
    (dict(variant=["B", 2]), "variant"),
])
def test_each_field_is_bounded_and_a_bad_file_changes_nothing(tmp_path, capsys, changes, words):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(export_doc(**changes)), encoding="utf-8")
    code, err = run_import(tmp_path / "home", path, capsys)
    assert code == 1 and "answer #1 is invalid" in err and words in err
    assert "\x1b" not in err
    assert answers_in(tmp_path / "home") == 0


def test_a_lone_surrogate_is_refused(tmp_path, capsys):
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(export_doc(answer="x")).replace('"answer": "x"', '"answer": "\\ud800"'),
                    encoding="utf-8")
    code, err = run_import(tmp_path / "home", path, capsys)    # UnicodeEncodeError before
    assert code == 1 and "answer #1 is invalid: answer" in err


def test_deep_nesting_is_refused(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")            # RecursionError before
    code, err = run_import(tmp_path / "home", path, capsys)
    assert code == 1 and "nested far more deeply" in err


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = {}
    worker = threading.Thread(target=lambda: result.update(out=run_import(tmp_path / "home", fifo, capsys)),
                              daemon=True)
    worker.start()
    worker.join(timeout=60)   # blocked forever before; this only bounds a regression
    assert not worker.is_alive(), "import blocked on a FIFO"
    code, err = result["out"]
    assert code == 1 and "FIFO" in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_refused(tmp_path, capsys):
    code, err = run_import(tmp_path / "home", Path("/dev/zero"), capsys)
    assert code == 1 and "character device" in err


def test_read_regular_bytes_caps_the_size(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_IMPORT_BYTES + 1)   # sparse: no disk used
    with pytest.raises(UnsafeFileError, match="more than"):
        read_regular_bytes(big, MAX_IMPORT_BYTES)
    assert read_regular_bytes(big, MAX_IMPORT_BYTES + 1) [:1] == b"\0"
    with pytest.raises(UnsafeFileError, match="folder"):
        read_regular_bytes(tmp_path, 10)


def test_a_good_file_still_imports_and_round_trips(tmp_path):
    path = tmp_path / "good.json"
    path.write_text(json.dumps(export_doc()), encoding="utf-8")
    with ProgressStore(tmp_path / "home") as store:
        assert import_json(store, path).answers == 1
        assert export_json(store, tmp_path / "again.json") == 1
        assert import_json(store, tmp_path / "again.json")[:4] == (0, 0, 0, 0)
    assert json.loads((tmp_path / "again.json").read_text())["answers"][0]["answer"] == "(2, 3)"


@pytest.mark.parametrize("kind", ["fifo", "symlink", "dangling symlink", "folder"])
def test_export_refuses_a_target_that_is_not_a_regular_file_and_leaves_it(tmp_path, kind):
    target = tmp_path / "out.json"
    real = tmp_path / "real.json"
    real.write_text("keep me", encoding="utf-8")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(real)
    elif kind == "dangling symlink":
        target.symlink_to(tmp_path / "nowhere.json")
    else:
        target.mkdir()
    before = os.lstat(target)
    with ProgressStore(tmp_path / "home") as store, pytest.raises(ProgressError, match="cannot write"):
        export_json(store, target)
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert real.read_text(encoding="utf-8") == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_a_device_is_refused_as_a_target_before_anything_is_written():
    # only the check: a regression must not replace the test machine's /dev/null (as root it could)
    with pytest.raises(UnsafeFileError, match="character device"):
        check_write_target("/dev/null")


def test_export_replaces_a_regular_file_atomically_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o640
    write_atomically(tmp_path / "fresh.json", b"x")
    assert (tmp_path / "fresh.json").stat().st_mode & 0o077 == 0   # answers are private by default
