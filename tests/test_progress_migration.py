"""Progress written by tutor before attempts and FSRS (tests/fixtures, made with that version) comes
across without loss: a schema-1 database migrates in place, a version-1 export imports."""
import json
import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tutor.grading.attempts import Outcome
from tutor.progress.io import export_json, import_json
from tutor.progress.records import Mode
from tutor.progress.store import SCHEMA_VERSION, ProgressStore

FIXTURES = Path(__file__).parent / "fixtures"
V1_ANSWERS = [  # (lesson, question, answer, correct, hints) as written by the version-1 app
    ("la-ffn-shapes", "win-shape", "(2, 3)", False, 0), ("la-ffn-shapes", "win-shape", "(64, 256)", True, 0),
    ("la-ffn-shapes", "out-shape", "(1, 4, 64)", True, 0), ("pr-softmax", "total", "1", True, 1),
    ("pr-softmax", "top-prob", "0.5", False, 2), ("gone-lesson", "q1", "7", False, 0),
    ("pr-softmax", "total", "1", True, 0),
]
V1_OUTCOMES = [Outcome.MISSED, Outcome.FIRST_TRY, Outcome.FIRST_TRY, Outcome.AFTER_RETRY, Outcome.MISSED,
               Outcome.MISSED, Outcome.FIRST_TRY]


def check_v1_history(store: ProgressStore) -> None:
    answers = store.answers()
    assert [(a.lesson_id, a.question_id, a.answer, a.correct, a.hints_used) for a in answers] == V1_ANSWERS
    assert {a.attempt for a in answers} == {1} and answers[1].variant == "L=4"
    outcomes = store.outcomes()
    assert [o.outcome for o in outcomes] == V1_OUTCOMES
    assert [o.timestamp for o in outcomes] == [a.timestamp for a in answers]
    assert store.last_position() == ("pr-softmax", 1)
    # cards rebuilt by FSRS for every question not right first time on its first encounter
    cards = store.due_reviews(datetime(2030, 1, 1, tzinfo=timezone.utc)).due
    assert sorted((c.lesson_id, c.question_id) for c in cards) == [
        ("gone-lesson", "q1"), ("la-ffn-shapes", "win-shape"), ("pr-softmax", "top-prob"), ("pr-softmax", "total")]


def test_v1_database_migrates_in_place(tmp_path):
    shutil.copy(FIXTURES / "progress-v1.db", tmp_path / "progress.db")
    with ProgressStore(tmp_path) as store:
        check_v1_history(store)
    con = sqlite3.connect(tmp_path / "progress.db")
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("SELECT name FROM sqlite_master WHERE name = 'cards'").fetchone() is None
    con.close()
    with ProgressStore(tmp_path) as store:   # opening again migrates nothing twice
        assert len(store.outcomes()) == len(V1_OUTCOMES)


def test_v1_export_imports_and_re_exports_as_version_3(tmp_path):
    with ProgressStore(tmp_path / "home") as store:
        assert import_json(store, FIXTURES / "progress-v1-export.json").answers == 7
        assert import_json(store, FIXTURES / "progress-v1-export.json")[:4] == (0, 0, 0, 0)
        check_v1_history(store)
        export_json(store, tmp_path / "v3.json")
    doc = json.loads((tmp_path / "v3.json").read_text(encoding="utf-8"))
    assert doc["version"] == 3 and len(doc["answers"]) == 7
    assert [o["outcome"] for o in doc["outcomes"]] == [o.value for o in V1_OUTCOMES]
    with ProgressStore(tmp_path / "again") as store:
        assert import_json(store, tmp_path / "v3.json").answers == 7
        check_v1_history(store)


def test_migrated_database_and_imported_export_agree(tmp_path):
    shutil.copy(FIXTURES / "progress-v1.db", tmp_path / "progress.db")
    with ProgressStore(tmp_path) as migrated, ProgressStore(tmp_path / "imported") as imported:
        import_json(imported, FIXTURES / "progress-v1-export.json")
        assert migrated.answers() == imported.answers() and migrated.outcomes() == imported.outcomes()
        assert migrated.card("pr-softmax", "total") == imported.card("pr-softmax", "total")


# Schema 2 (main 70d489e, before question records): tests/fixtures/make_progress_v2.py wrote both files.
V2_RECORDS = {   # question -> (outcome, tries, hints); the first outcome is the score, honestly read
    ("la-tensors", "embed-shape"): (Outcome.AFTER_RETRY, 2, 0),
    ("la-tensors", "one-token"): (Outcome.FIRST_TRY, 1, 0),
    ("la-tensors", "count"): (Outcome.AFTER_RETRY, 2, 0),     # "32" wrong, Ctrl+R, "96": was first_try
    ("la-tensors", "symbolic"): (Outcome.MISSED, 0, 0),       # gave up; typed right on a later visit
    ("pr-softmax", "winner"): (Outcome.AFTER_RETRY, 1, 1),
    ("pr-softmax", "total"): (Outcome.MISSED, 3, 0),
    ("la-embedding-lookup", "we-shape"): (None, 2, 0),        # two wrong tries, then the app quit: open
    ("gone-lesson", "q1"): (Outcome.MISSED, 1, 0),
}


def check_v2_history(store: ProgressStore) -> None:
    assert store.answer_count() == 14 and store.outcome_count() == 9   # every attempt and outcome kept
    records = {(r.lesson_id, r.question_id): (r.outcome, r.tries, r.hints) for r in store.question_records()}
    assert records == V2_RECORDS
    practice = [(a.question_id, a.answer) for a in store.answers() if a.mode.value == "practice"]
    assert practice == [("symbolic", "(B, L, D)"), ("count", "96")]
    assert [o.role.value for o in store.outcomes()].count("legacy") == 2
    assert store.last_position() == ("la-embedding-lookup", 3)
    counts = store.all_lesson_stats()["la-tensors"]
    assert (len(counts.finished), len(counts.first_try)) == (4, 1)   # was 6 outcomes, "3 first time"


def test_v2_database_migrates_in_place_keeping_every_attempt(tmp_path):
    shutil.copy(FIXTURES / "progress-v2.db", tmp_path / "progress.db")
    with ProgressStore(tmp_path) as store:
        check_v2_history(store)
        # the open question continues where it stopped: one try left
        mode, encounter, _record = store.encounter_for("la-embedding-lookup", "we-shape", Mode.SCORED, 3,
                                                       datetime(2026, 11, 21, tzinfo=timezone.utc))
        assert mode is Mode.SCORED and encounter.attempts_left == 1
    with ProgressStore(tmp_path) as store:   # opening again migrates nothing twice
        check_v2_history(store)


def test_v2_database_and_its_v2_export_give_the_same_history(tmp_path):
    shutil.copy(FIXTURES / "progress-v2.db", tmp_path / "progress.db")
    with ProgressStore(tmp_path) as migrated, ProgressStore(tmp_path / "imported") as imported:
        added = import_json(imported, FIXTURES / "progress-v2-export.json")
        assert added[:4] == (14, 9, 8, 0)
        check_v2_history(imported)
        assert migrated.answers() == imported.answers() and migrated.outcomes() == imported.outcomes()
        assert migrated.question_records() == imported.question_records()
        later = datetime(2030, 1, 1, tzinfo=timezone.utc)
        assert migrated.due_reviews(later) == imported.due_reviews(later)
        # and the migrated home's own export imports into a third home identically
        export_json(migrated, tmp_path / "v3.json")
        with ProgressStore(tmp_path / "third") as third:
            assert import_json(third, tmp_path / "v3.json")[:4] == (14, 9, 8, 0)
            assert third.question_records() == migrated.question_records()
            assert third.due_reviews(later) == migrated.due_reviews(later)
        assert import_json(migrated, FIXTURES / "progress-v2-export.json")[:4] == (0, 0, 0, 0)   # nothing twice
        check_v2_history(migrated)
