"""Answers with no question record (issue 29's live hole, the adversary review's F3c).

Before: an export with 30 made-up practice answers, one a day and no record behind them, imported
(``Imported(answers=30, …)``) and ``streak_days`` then said 30: the import let practice rows without
a record through, and the streak counted every answer row.  Now both ends hold: the import refuses
an answer (practice or not) whose question has no record in the file or the store, naming it, and
the streak counts only answers that belong to a record.  The app itself never writes an answer
without its record (a Review try at a question whose card a reset in another window removed now
saves the question's open record), and a home written before that still exports a file it imports.
"""
import json
from datetime import date, datetime, timedelta, timezone

import pytest

from tutor.progress.io import export_json, import_json
from tutor.progress.records import Answer, Mode
from tutor.progress.store import ProgressError, ProgressStore

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
UTC = timezone.utc
TODAY = (T0 + timedelta(days=29)).date()


def made_up_export(days: int = 30, with_record: bool = False) -> dict:
    answers = [{"timestamp": (T0 + timedelta(days=day)).isoformat(), "lesson_id": "la-tensors",
                "question_id": f"q{day}", "answer": "1", "correct": True, "hints_used": 0,
                "variant": None, "attempt": 1, "mode": "practice"} for day in range(days)]
    records = [{"lesson_id": "la-tensors", "question_id": "q0", "tries": 0, "hints_used": 0,
                "hints_before_first": 0, "variant": None, "outcome": None,
                "updated": T0.isoformat()}] if with_record else []
    return {"format": "tutor-progress", "version": 3, "exported_at": T0.isoformat(), "answers": answers,
            "outcomes": [], "records": records}


def written(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_thirty_made_up_practice_answers_are_refused_naming_the_question(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        with pytest.raises(ProgressError, match="answers for la-tensors/q0 have no record of that question"):
            import_json(store, written(tmp_path / "made-up.json", made_up_export()))
        assert store.answers() == [] and store.streak_days(today=TODAY, tz=UTC) == 0


def test_one_question_without_a_record_refuses_the_whole_file(tmp_path):
    doc = made_up_export(days=2, with_record=True)   # q0 has its record, q1 none
    with ProgressStore(tmp_path / "h") as store:
        with pytest.raises(ProgressError, match="la-tensors/q1 have no record"):
            import_json(store, written(tmp_path / "half.json", doc))
        assert store.answers() == [] and store.question_records() == []


def test_the_streak_counts_only_answers_that_belong_to_a_record(tmp_path):
    """The store end: rows put there by any means other than the app's own write count for nothing."""
    with ProgressStore(tmp_path / "h") as store:
        with store.transaction() as con:
            for day in range(30):
                con.execute("INSERT INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant,"
                            " attempt, mode) VALUES (?, 'la-tensors', ?, '1', 1, 0, NULL, 1, 'practice')",
                            ((T0 + timedelta(days=day)).isoformat(), f"q{day}"))
        assert store.streak_days(today=TODAY, tz=UTC) == 0
        store.record(Answer("la-tensors", "real", "1", True, 0, T0 + timedelta(days=29)))
        assert store.streak_days(today=TODAY, tz=UTC) == 1
        assert store.answers_per_day(UTC) == {TODAY: 1}


def test_practice_after_a_resolution_still_counts_and_imports(tmp_path):
    """The ordinary practice answer: its question was resolved, so it has a record in the file."""
    with ProgressStore(tmp_path / "a") as home, ProgressStore(tmp_path / "b") as fresh:
        home.record(Answer("la-tensors", "q", "1", True, 0, T0))
        practice, _ = home.record(Answer("la-tensors", "q", "1", True, 0, T0 + timedelta(days=1)))
        assert practice.mode is Mode.PRACTICE
        export_json(home, tmp_path / "a.json", now=T0 + timedelta(days=2))
        assert import_json(fresh, tmp_path / "a.json").answers == 2
        assert fresh.streak_days(today=(T0 + timedelta(days=1)).date(), tz=UTC) == 2


def test_practice_rows_whose_record_is_in_the_store_import(tmp_path):
    """A file of practice only, for a question this home has the record of, adds its answers."""
    with ProgressStore(tmp_path / "h") as store:
        store.record(Answer("la-tensors", "q0", "1", True, 0, T0 - timedelta(days=1)))
        doc = made_up_export(days=1)
        assert import_json(store, written(tmp_path / "p.json", doc)).answers == 1


def test_a_review_try_at_a_question_with_no_record_saves_its_record_and_its_export_imports(tmp_path):
    """The one route by which the app wrote a practice answer without a record: Review asks for a
    review try, the card is gone (a reset in another window), so the try is practice.  Its question
    was seen, so it now gets an open record, and the home's export imports into a fresh home."""
    with ProgressStore(tmp_path / "a") as home, ProgressStore(tmp_path / "b") as fresh:
        stored, record = home.record(Answer("la-tensors", "q", "1", True, 0, T0, mode=Mode.REVIEW))
        assert stored.mode is Mode.PRACTICE
        kept = home.question_record("la-tensors", "q")
        assert kept is not None and kept.tries == 0 and kept.outcome is None
        export_json(home, tmp_path / "a.json", now=T0 + timedelta(days=1))
        assert import_json(fresh, tmp_path / "a.json").answers == 1
        assert fresh.question_record("la-tensors", "q").tries == 0


def test_an_older_home_with_a_practice_answer_and_no_record_still_exports_a_file_it_imports(tmp_path):
    """A home written before the fix above may hold such a row: its export names an open record for
    it, so moving the home to another machine still works."""
    with ProgressStore(tmp_path / "a") as home, ProgressStore(tmp_path / "b") as fresh:
        with home.transaction() as con:
            con.execute("INSERT INTO answers (ts, lesson_id, question_id, answer, correct, hints_used, variant,"
                        " attempt, mode) VALUES (?, 'la-tensors', 'q', '1', 1, 0, NULL, 1, 'practice')",
                        (T0.isoformat(),))
        export_json(home, tmp_path / "a.json", now=T0 + timedelta(days=1))
        doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
        assert [(r["question_id"], r["tries"], r["outcome"]) for r in doc["records"]] == [("q", 0, None)]
        assert import_json(fresh, tmp_path / "a.json").answers == 1


def test_old_exports_without_records_still_import(tmp_path):
    """Version-1 and -2 files carry no records: each question's record is derived from its answers."""
    doc = made_up_export(days=3)
    doc["version"] = 2
    with ProgressStore(tmp_path / "h") as store:
        imported = import_json(store, written(tmp_path / "v2.json", doc))
        assert imported.answers == 3 and len(store.question_records()) == 3
