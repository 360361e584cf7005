"""The progress store: what is recorded, and that it survives concurrency,
crashes, corruption, newer versions, export/import and reset."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import platformdirs
import pytest

from progress_helpers import answer_once
from tutor.progress.io import export_json, import_json, reset
from tutor.progress.records import Answer as Try
from tutor.progress.store import (
    SCHEMA_VERSION,
    LessonStats,
    ProgressError,
    ProgressStore,
    resolve_home,
    track_stats,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)

# Runs in a child process: waits for the go-file, then records answers and
# reports each commit on stdout (n == 0 means "until killed").
WRITER = r"""
import os, sys, time
from datetime import datetime, timezone
from tutor.progress.records import Answer
from tutor.progress.store import ProgressStore
home, tag, n, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.005)
store = ProgressStore(home)
i = 0
while n == 0 or i < n:
    store.record(Answer("lesson", f"q{i % 7}", f"{tag}-{i}", i % 3 != 0, i % 2, datetime.now(timezone.utc),
                        f"B={i}"))
    i += 1
    print(i, flush=True)
"""


def start_writer(home, tag, n, go):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(home), tag, str(n), str(go)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def integrity(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def test_resolve_home_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTOR_HOME", raising=False)
    assert resolve_home() == Path(platformdirs.user_data_dir("tutor", appauthor=False))
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "env"))
    assert resolve_home() == tmp_path / "env"
    assert resolve_home(tmp_path / "explicit") == tmp_path / "explicit"
    assert resolve_home(str(tmp_path / "explicit")) == tmp_path / "explicit"


def test_records_every_field_and_sets_up_wal(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        assert store.path == tmp_path / "home" / "progress.db"
        local = T0.astimezone(timezone(timedelta(hours=5)))
        answer_once(store, "attn", "q1", "softmax(QKᵀ/√d)", True, hints_used=2, variant="B=3,L=5", now=local)
        answer_once(store, "attn", "q2", "no", False, now=T0 + timedelta(seconds=1))
    with ProgressStore(tmp_path / "home") as store:
        first, second = store.answers()
        assert (first.lesson_id, first.question_id, first.answer, first.correct, first.hints_used, first.variant) == (
            "attn", "q1", "softmax(QKᵀ/√d)", True, 2, "B=3,L=5")
        assert first.timestamp == T0 and first.timestamp.tzinfo == timezone.utc
        assert second.correct is False and second.variant is None
        # the same answer twice in the same instant is two answers, not a duplicate
        answer_once(store, "attn", "q3", "same", True, now=T0)
        answer_once(store, "attn", "q3", "same", True, now=T0)
        assert len(store.answers("attn")) == 4
    con = sqlite3.connect(tmp_path / "home" / "progress.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    con.close()


def test_last_position_persists(tmp_path):
    with ProgressStore(tmp_path) as store:
        assert store.last_position() is None
        store.set_last_position("attn", 2)
        store.set_last_position("mlp", 4)
    with ProgressStore(tmp_path) as store:
        assert store.last_position() == ("mlp", 4)


def test_lesson_and_track_stats(tmp_path):
    with ProgressStore(tmp_path) as store:
        for i, (lesson, q, ok) in enumerate([("a", "q1", False), ("a", "q1", True), ("a", "q2", False),
                                             ("b", "q1", True)]):
            answer_once(store, lesson, q, "x", ok, now=T0 + timedelta(minutes=i))
        a = store.lesson_stats("a")   # q1's second answer is practice: it was already not got
        assert a.seen == a.finished == {"q1", "q2"} and a.first_try == a.after_retry == set()
        assert a.missed == {"q1", "q2"} and a.last_seen == T0 + timedelta(minutes=2) and a.accuracy == 0
        assert [x.mode.value for x in store.answers("a")] == ["scored", "practice", "scored"]
        assert store.lesson_stats("never") == LessonStats()
        assert set(store.all_lesson_stats()) == {"a", "b"}
        tracks = {"basics": [("a", ["q1", "q2", "q3"]), ("b", ["q1"])], "later": [("c", ["q1"])]}
        result = store.track_stats(tracks)
        assert result == track_stats(tracks, store.all_lesson_stats())
        assert (result["basics"].finished_questions, result["basics"].total_questions) == (3, 4)
        assert result["basics"].completion == 0.75 and result["basics"].accuracy == pytest.approx(1 / 3)
        assert result["later"].completion == 0.0 and result["later"].accuracy is None


def test_a_wrong_first_try_left_open_counts_as_not_right_first_time(tmp_path):
    """The first try is the score: one wrong try and no more reads 0 of 1 tried, not "no score yet"."""
    with ProgressStore(tmp_path) as store:
        store.record(Try("a", "q1", "x", False, 0, T0, tries_allowed=3))   # two tries left, and the learner stops
        a = store.lesson_stats("a")
        assert (a.seen, a.tried, a.finished, a.first_try) == ({"q1"}, {"q1"}, set(), set())
        assert a.accuracy == 0
        track = store.track_stats({"t": [("a", ["q1", "q2"])]})["t"]
        assert (track.tried_questions, track.finished_questions, track.accuracy) == (1, 0, 0)


def test_streak_and_answers_per_day(tmp_path):
    with ProgressStore(tmp_path) as store:
        assert store.streak_days(today=date(2025, 3, 5), tz=timezone.utc) == 0
        for day in (1, 3, 4, 4, 5):
            answer_once(store, "a", f"q{day}", str(day), True, now=T0.replace(day=day, hour=23))
        per_day = store.answers_per_day(tz=timezone.utc)
        assert per_day == {date(2025, 3, d): n for d, n in [(1, 1), (3, 1), (4, 2), (5, 1)]}
        assert store.streak_days(today=date(2025, 3, 5), tz=timezone.utc) == 3
        assert store.streak_days(today=date(2025, 3, 6), tz=timezone.utc) == 3  # not broken until a day is missed
        assert store.streak_days(today=date(2025, 3, 7), tz=timezone.utc) == 0
        # 23:00 UTC is the next morning two hours east: days follow the learner's clock
        east = timezone(timedelta(hours=2))
        assert date(2025, 3, 6) in store.answers_per_day(tz=east)


def test_two_writers_at_once_lose_nothing(tmp_path):
    go = tmp_path / "go"
    writers = [start_writer(tmp_path, tag, 200, go) for tag in ("one", "two")]
    go.touch()
    for proc in writers:
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0
        assert out.split()[-1] == "200"
    assert integrity(tmp_path / "progress.db") == "ok"
    with ProgressStore(tmp_path) as store:
        answers = {a.answer for a in store.answers()}
    assert answers == {f"{tag}-{i}" for tag in ("one", "two") for i in range(200)}


def test_many_first_openers_at_once_never_take_a_new_file_for_corrupt(tmp_path):
    """Six processes open a home that has no database yet, all at the same moment."""
    for attempt in range(3):
        home = tmp_path / f"fresh-{attempt}"
        go = tmp_path / f"go-{attempt}"
        writers = [start_writer(home, f"w{i}", 1, go) for i in range(6)]
        go.touch()
        for proc in writers:
            out, _ = proc.communicate(timeout=60)
            assert proc.returncode == 0
        assert not list(home.glob("progress.db.corrupt-*"))
        with ProgressStore(home) as store:
            assert store.answer_count() == 6


def test_killed_writer_loses_at_most_the_answer_in_flight(tmp_path):
    go = tmp_path / "go"
    proc = start_writer(tmp_path, "k", 0, go)
    go.touch()
    while int(proc.stdout.readline()) < 30:
        pass
    os.kill(proc.pid, signal.SIGKILL)
    reported = max([30] + [int(line) for line in proc.stdout.read().split()])
    proc.wait(timeout=10)
    assert integrity(tmp_path / "progress.db") == "ok"
    with ProgressStore(tmp_path) as store:
        assert reported <= store.answer_count() <= reported + 1


def test_garbage_file_is_moved_aside_and_a_fresh_store_starts(tmp_path):
    garbage = os.urandom(3000)
    (tmp_path / "progress.db").write_bytes(b"definitely not sqlite" + garbage)
    (tmp_path / "progress.db-wal").write_bytes(b"wal junk")
    with ProgressStore(tmp_path) as store:
        moved = store.recovered_from
        assert moved is not None and moved.parent == tmp_path
        assert moved.name.startswith("progress.db.corrupt-")
        assert moved.read_bytes() == b"definitely not sqlite" + garbage
        assert Path(str(moved) + "-wal").read_bytes() == b"wal junk"
        assert str(moved) in store.message
        answer_once(store, "a", "q", "x", True)
        assert store.answer_count() == 1
    with ProgressStore(tmp_path) as again:  # the fresh file is healthy: no second recovery
        assert again.recovered_from is None and again.message is None


def test_malformed_pages_are_detected(tmp_path):
    with ProgressStore(tmp_path) as store:
        for i in range(40):
            answer_once(store, "a", f"q{i}", "x" * 2000, True, now=T0 + timedelta(seconds=i))
    db = tmp_path / "progress.db"
    data = bytearray(db.read_bytes())
    data[4096 * 2:4096 * 6] = b"\xff" * (4096 * 4)  # keep the header, wreck some pages
    db.write_bytes(bytes(data))
    with ProgressStore(tmp_path) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.read_bytes() == bytes(data)
        assert store.answer_count() == 0


def test_newer_schema_is_refused_untouched(tmp_path):
    ProgressStore(tmp_path).close()
    con = sqlite3.connect(tmp_path / "progress.db")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    before = (tmp_path / "progress.db").read_bytes()
    with pytest.raises(ProgressError, match="newer version") as info:
        ProgressStore(tmp_path)
    assert str(tmp_path / "progress.db") in str(info.value)
    assert (tmp_path / "progress.db").read_bytes() == before
    assert not list(tmp_path.glob("*corrupt*"))


def fill(store):
    answer_once(store, "attn", "q1", "wrong", False, variant="B=2", now=T0)
    answer_once(store, "attn", "q1", "right", True, hints_used=1, now=T0 + timedelta(days=1))
    answer_once(store, "mlp", "q9", "4·d", True, now=T0 + timedelta(days=2))
    store.set_last_position("mlp", 3)


def test_export_then_import_twice_adds_nothing_new(tmp_path):
    src = ProgressStore(tmp_path / "a")
    fill(src)
    exported = tmp_path / "progress.json"
    assert export_json(src, exported) == 3
    doc = json.loads(exported.read_text(encoding="utf-8"))
    # attn/q1 was not got; its right answer a day later is practice: one outcome per question
    assert doc["version"] == 3 and len(doc["outcomes"]) == 2 and {a["attempt"] for a in doc["answers"]} == {1}
    assert [a["mode"] for a in doc["answers"]] == ["scored", "practice", "scored"]
    assert [(r["question_id"], r["outcome"]) for r in doc["records"]] == [("q1", "missed"), ("q9", "first_try")]
    assert doc["lessons"]["attn"] == {"seen": 1, "tried": 1, "finished": 1, "first_try": 0, "after_retry": 0,
                                     "missed": 1}
    with ProgressStore(tmp_path / "b") as dst:
        answer_once(dst, "other", "q", "x", True, now=T0)
        assert import_json(dst, exported)[:4] == (3, 2, 2, 0)
        assert import_json(dst, exported)[:4] == (0, 0, 0, 0)
        assert dst.question_records("attn") == src.question_records("attn")
        assert dst.answer_count() == 4
        assert [a for a in dst.answers() if a.lesson_id != "other"] == src.answers()
        assert dst.card("attn", "q1") == src.card("attn", "q1")  # review rebuilt from history
        assert dst.last_position() == ("mlp", 3)
    src.close()


@pytest.mark.parametrize("content", [
    "{not json",
    "[]",
    json.dumps({"format": "something-else", "version": 1, "answers": []}),
    json.dumps({"format": "tutor-progress", "version": 99, "answers": []}),
    json.dumps({"format": "tutor-progress", "version": 1, "answers": [
        {"timestamp": "2025-03-01T09:00:00+00:00", "lesson_id": "x", "question_id": "y", "answer": "z",
         "correct": True, "hints_used": 0, "variant": None},
        {"timestamp": "2025-03-01T09:00:00+00:00", "lesson_id": "x", "question_id": "y", "answer": "w",
         "correct": "yes", "hints_used": 0}]}),
    json.dumps({"format": "tutor-progress", "version": 1, "answers": [
        {"timestamp": "yesterday", "lesson_id": "x", "question_id": "y", "answer": "z", "correct": True,
         "hints_used": 0}]}),
])
def test_malformed_import_changes_nothing(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with ProgressStore(tmp_path / "home") as store:
        fill(store)
        before = (store.answers(), store.card("attn", "q1"), store.last_position())
        with pytest.raises(ProgressError, match="bad.json"):
            import_json(store, bad)
        assert (store.answers(), store.card("attn", "q1"), store.last_position()) == before


def test_import_of_missing_file_is_a_clear_error(tmp_path):
    with ProgressStore(tmp_path) as store, pytest.raises(ProgressError, match="cannot read"):
        import_json(store, tmp_path / "nope.json")


def test_reset_keeps_a_backup_with_the_old_answers(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        fill(store)
        backup = reset(store, tmp_path / "backups")
        assert backup.parent == tmp_path / "backups"
        assert store.answer_count() == 0 and store.last_position() is None
        assert store.due_reviews(T0 + timedelta(days=365)).due == [] and store.outcomes() == []
        answer_once(store, "a", "q", "after", True)
        assert reset(store, tmp_path / "backups") != backup  # a second reset never overwrites the first
    con = sqlite3.connect(backup)
    assert sorted(r[0] for r in con.execute("SELECT answer FROM answers")) == ["4·d", "right", "wrong"]
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
