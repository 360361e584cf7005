"""Three promises about what the tutor writes and reads back (issue 34):

* a learner's home is private whatever the umask: the folder 0700, the database and its side files
  and exports 0600 (on a Debian hub with 0755 homes one student read another's answers);
* a JSON integer longer than Python's 4,300-digit limit is a clear refusal, never a traceback, in
  an export, settings.json and the class report (before: ValueError from json.loads);
* what one machine exports, it imports: an export over the import's byte limit is written gzip-
  compressed, and import knows gzip by its first bytes; a gzip bomb stops at the unpacked cap.
"""
import gzip
import json
import os
import stat
from datetime import datetime, timedelta, timezone

import pytest

from tutor.cli.main import main
from tutor.common.safe_files import UnsafeFileError, inflate, read_json_file
from tutor.common.settings import load_settings, save_setting, settings_notice
from tutor.progress import import_check, io as progress_io
from tutor.progress.io import export_json, import_json, reset
from tutor.progress.store import ProgressError, ProgressStore
from tests.progress_helpers import answer_once

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)
BIG = "1" * 5000


def mode_of(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask():
    old = os.umask(0o000)   # the most permissive: everything the tutor makes would be 0777/0666
    yield
    os.umask(old)


def test_a_new_home_its_database_exports_and_backups_are_private_under_a_permissive_umask(tmp_path, open_umask):
    home = tmp_path / "home"
    with ProgressStore(home) as store:
        answer_once(store, "la-shapes", "q1", "(2, 4)", True, now=T0)
        export_json(store, tmp_path / "out.json", now=T0)
        backup = reset(store, now=T0)
    save_setting(home, "language", "zh")
    assert mode_of(home) == 0o700
    for name in ("progress.db", "progress.db-wal", "progress.db-shm"):
        if (home / name).exists():
            assert mode_of(home / name) == 0o600, name
    assert mode_of(tmp_path / "out.json") == 0o600
    assert mode_of(backup) == 0o600


def test_an_old_open_home_and_database_are_closed_when_next_opened(tmp_path, open_umask):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    (home / "progress.db").touch(mode=0o644)
    os.chmod(home, 0o755)
    os.chmod(home / "progress.db", 0o644)
    with ProgressStore(home):
        pass
    assert mode_of(home) == 0o700 and mode_of(home / "progress.db") == 0o600


@pytest.mark.parametrize("where", ["export", "settings", "report"])
def test_an_integer_of_5000_digits_is_refused_with_a_message(tmp_path, capsys, where):
    doc = {"format": "tutor-progress", "version": 1, "last_position": None,
           "answers": [{"timestamp": "2026-03-01T10:00:00+00:00", "lesson_id": "la-shapes", "question_id": "q1",
                        "answer": "2", "correct": True, "hints_used": 0, "variant": None}]}
    raw = json.dumps(doc).replace('"hints_used": 0', f'"hints_used": {BIG}')
    if where == "settings":
        (tmp_path / "settings.json").write_text('{"language": %s}' % BIG, encoding="utf-8")
        assert load_settings(tmp_path) == {}
        assert "4,300 digits" in settings_notice(tmp_path)
        return
    bad = tmp_path / "bad.json"
    bad.write_text(raw, encoding="utf-8")
    if where == "export":
        with ProgressStore(tmp_path / "home") as store, pytest.raises(ProgressError, match="4,300 digits"):
            import_json(store, bad)
        return
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["class", "report", str(bad), str(good)]) == 1   # the good one still makes a report
    out, err = capsys.readouterr()
    assert "bad.json" in err and "4,300 digits" in err and "Traceback" not in err
    assert "good" in out


def fill(store, n):
    for i in range(n):
        answer_once(store, "la-shapes", f"q{i}", f"answer number {i} " + "x" * 40, i % 2 == 0,
                    now=T0 + timedelta(seconds=i))


def test_an_export_over_the_import_limit_is_compressed_and_imports_again(tmp_path, monkeypatch):
    """The limit logic at a small scale: 400 answers are ~200 KB of JSON, over a 64 KB limit
    (as 290,000 answers are 92 MB, over the real 64 MB one)."""
    monkeypatch.setattr(progress_io, "MAX_IMPORT_BYTES", 64 * 1024)
    monkeypatch.setattr(import_check, "MAX_IMPORT_BYTES", 64 * 1024)
    with ProgressStore(tmp_path / "a") as store:
        fill(store, 400)
        assert export_json(store, tmp_path / "big.json", now=T0) == 400
        assert export_json(store, tmp_path / "small.json", now=T0, compress=False) == 400
    raw = (tmp_path / "big.json").read_bytes()
    assert raw[:2] == b"\x1f\x8b" and len(raw) < 64 * 1024 < len(gzip.decompress(raw))
    with ProgressStore(tmp_path / "b") as store:
        assert import_json(store, tmp_path / "big.json").answers == 400
        assert len(store.answers()) == 400


def test_a_small_export_stays_plain_json_unless_compression_is_asked(tmp_path):
    with ProgressStore(tmp_path / "a") as store:
        fill(store, 3)
        export_json(store, tmp_path / "plain.json", now=T0)
        export_json(store, tmp_path / "packed.json.gz", now=T0, compress=True, learner="张伟")
    assert json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))["format"] == "tutor-progress"
    assert json.loads(gzip.decompress((tmp_path / "packed.json.gz").read_bytes()))["learner"] == "张伟"
    with ProgressStore(tmp_path / "b") as store:
        assert import_json(store, tmp_path / "packed.json.gz").answers == 3


def test_a_gzip_bomb_stops_at_the_unpacked_cap_and_a_cut_gzip_is_named(tmp_path):
    bomb = gzip.compress(b" " * (8 * 1024 * 1024))   # 8 MB of spaces in a few KB
    with pytest.raises(UnsafeFileError, match="unpacks to more than"):
        inflate(bomb, 1024 * 1024, tmp_path / "bomb.json")
    cut = tmp_path / "cut.json"
    cut.write_bytes(gzip.compress(b'{"a": 1}')[:-6])
    with pytest.raises(UnsafeFileError, match="not a whole gzip file"):
        read_json_file(cut, 1024, inflated_max=1024)
    whole = tmp_path / "whole.json"
    whole.write_bytes(gzip.compress(b'{"a": 1}'))
    assert read_json_file(whole, 1024, inflated_max=1024) == {"a": 1}
    with pytest.raises(UnsafeFileError, match="not UTF-8"):   # a reader that takes no gzip says so plainly
        read_json_file(whole, 1024)


def test_the_export_command_says_when_it_wrote_gzip(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress_io, "MAX_IMPORT_BYTES", 2 * 1024)
    with ProgressStore(tmp_path / "home") as store:
        fill(store, 20)
    assert main(["progress", "--home", str(tmp_path / "home"), "--export", str(tmp_path / "out.json")]) == 0
    assert "gzip-compressed" in capsys.readouterr().out
    assert (tmp_path / "out.json").read_bytes()[:2] == b"\x1f\x8b"


def test_every_file_and_folder_the_tutor_makes_in_its_home_is_private_under_a_permissive_umask(tmp_path, open_umask):
    """Not only the database: the opening lock, settings.json (and a bad one moved aside), the
    backups folder and its copies, an export written into the home.  Before: progress.lock 0666,
    settings.json 0666 and backups/ 0777 under umask 0."""
    home = tmp_path / "home"
    with ProgressStore(home) as store:
        answer_once(store, "la-shapes", "q1", "(2, 4)", True, now=T0)
        export_json(store, home / "mine.json", now=T0)
        reset(store, now=T0)
    save_setting(home, "language", "zh")
    (home / "settings.json").write_text("{not json", encoding="utf-8")
    save_setting(home, "theme", "textual-light")   # moves the unreadable file aside, writes a new one
    with ProgressStore(home):
        pass
    made = [home, *home.rglob("*")]
    assert {p.name for p in made} >= {"progress.lock", "settings.json", "settings.json.bad", "backups", "mine.json"}
    wrong = {str(p.relative_to(tmp_path)): oct(mode_of(p)) for p in made
             if mode_of(p) != (0o700 if p.is_dir() else 0o600)}
    assert wrong == {}
