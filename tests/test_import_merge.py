"""Import merges without upgrading (issue 29; the adversary review's F3 routes, each replayed here).

Before: merge_records let any resolved record beat an open one and an earlier ``updated`` beat the
store's own resolution, so wrong tries on one machine and a right one on another made first_try
(F3a, in either direction, and export → reset → answer → import); an edited export replaced a
"not got" while the CLI said "Imported 0 new … records" (F3b); records without answers, answers
without records and duplicate attempt numbers were stored (F3c). Each test here failed then.
"""
import json
from datetime import datetime, timedelta, timezone

import pytest

from tutor.grading.attempts import Outcome
from tutor.progress.io import export_json, import_json, reset
from tutor.progress.records import Answer, Mode, QuestionRecord, merge_records
from tutor.progress.store import ProgressError, ProgressStore

T0 = datetime(2025, 3, 1, 8, 32, tzinfo=timezone.utc)
Q = ("la-onehot", "onehot-row")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def try_once(store, text, correct, minutes, question=Q):
    return store.record(Answer(*question, text, correct, 0, at(minutes)))[1]


def exported(store, path):
    export_json(store, path, now=at(100))
    return json.loads(path.read_text(encoding="utf-8"))


def written(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def scored_attempts(store, question=Q):
    return [(a.attempt, a.correct) for a in store.answers() if (a.lesson_id, a.question_id) == question
            and a.mode.value == "scored"]


@pytest.mark.parametrize("direction", ["b_into_a", "a_into_b"])
def test_wrong_on_one_machine_then_right_on_another_is_not_first_try_either_way(tmp_path, direction):
    with ProgressStore(tmp_path / "a") as a, ProgressStore(tmp_path / "b") as b:
        try_once(a, "1,1,1", False, 0)            # home A: wrong, "2 tries left", quit
        try_once(b, "0,0,1", True, 1)             # home B, a minute later: right
        source, target = (b, a) if direction == "b_into_a" else (a, b)
        import_json(target, written(tmp_path / "x.json", exported(source, tmp_path / "x.json")))
        record = target.question_record(*Q)
        assert record.outcome is Outcome.AFTER_RETRY and record.tries == 2
        assert scored_attempts(target) == [(1, False), (2, True)]   # numbered again in time order, no two 1s


def test_export_reset_answer_right_import_is_not_first_try(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        try_once(store, "1", False, 0)
        try_once(store, "2", False, 1)
        export_json(store, tmp_path / "before.json", now=at(2))
        reset(store, tmp_path / "backups", now=at(3))
        assert try_once(store, "0,0,1", True, 4).outcome is Outcome.FIRST_TRY
        added = import_json(store, tmp_path / "before.json")
        record = store.question_record(*Q)
        assert record.outcome is Outcome.AFTER_RETRY and record.tries == 3
        assert added.changed == 1                 # the summary says something changed
        [score] = [o for o in store.outcomes() if o.role.value == "score"]
        assert score.outcome is Outcome.AFTER_RETRY   # the outcome row agrees with the record


def test_export_give_up_reset_answer_right_import_is_not_got(tmp_path):
    """A give-up has no wrong try to order, so before the fix the store's later first_try stayed."""
    with ProgressStore(tmp_path / "h") as store:
        store.record_give_up(*Q, Mode.SCORED, 3, None, at(1))
        export_json(store, tmp_path / "before.json", now=at(2))
        reset(store, tmp_path / "backups", now=at(3))
        assert try_once(store, "0,0,1", True, 4).outcome is Outcome.FIRST_TRY
        added = import_json(store, tmp_path / "before.json")
        assert store.question_record(*Q).outcome is Outcome.MISSED
        assert added.changed == 1
        [score] = [o for o in store.outcomes() if o.role.value == "score"]
        assert score.outcome is Outcome.MISSED


def test_an_import_lowers_a_resolution_and_never_raises_one():
    first = QuestionRecord(*Q, tries=1, outcome=Outcome.FIRST_TRY, updated=at(10))
    retry = QuestionRecord(*Q, tries=2, outcome=Outcome.AFTER_RETRY, updated=at(0))
    missed = QuestionRecord(*Q, tries=0, outcome=Outcome.MISSED, updated=at(0))
    assert merge_records(first, missed) is missed
    assert merge_records(first, retry) is retry
    assert merge_records(retry, first) is retry
    assert merge_records(missed, first) is missed


def test_a_resolved_record_in_the_store_is_never_replaced_by_an_imported_one(tmp_path):
    """Home B right first time (earlier); home A gave up later: importing B keeps A's "not got"."""
    with ProgressStore(tmp_path / "a") as a, ProgressStore(tmp_path / "b") as b:
        try_once(b, "0,0,1", True, 0)
        a.record_give_up(*Q, Mode.SCORED, 3, None, at(5))
        added = import_json(a, written(tmp_path / "b.json", exported(b, tmp_path / "b.json")))
        assert a.question_record(*Q).outcome is Outcome.MISSED
        assert (added.records, added.changed) == (0, 0)
        [score] = [o for o in a.outcomes() if o.role.value == "score"]
        assert score.outcome is Outcome.MISSED


def test_merge_rules_never_better_than_either_history():
    mine_missed = QuestionRecord(*Q, tries=3, outcome=Outcome.MISSED, updated=at(10))
    theirs_first = QuestionRecord(*Q, tries=1, outcome=Outcome.FIRST_TRY, updated=at(0))
    assert merge_records(mine_missed, theirs_first, [True, False, False, False]) is mine_missed
    mine_open = QuestionRecord(*Q, tries=2, updated=at(1))
    merged = merge_records(mine_open, theirs_first, [False, False, True])
    assert (merged.outcome, merged.tries) == (Outcome.AFTER_RETRY, 3)
    # right first on the other machine before any wrong try here: an honest first try
    assert merge_records(mine_open, theirs_first, [True, False, False]).outcome is Outcome.FIRST_TRY


def test_an_edited_export_that_claims_first_try_is_refused_naming_the_question(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        for minute in range(3):
            try_once(store, str(minute), False, minute)   # three wrong tries: not got
        doc = exported(store, tmp_path / "h.json")
        [record] = doc["records"]
        record.update(outcome="first_try", tries=1, updated="2020-01-01T00:00:00.000000+00:00")
        with pytest.raises(ProgressError, match="la-onehot/onehot-row"):
            import_json(store, written(tmp_path / "edit.json", doc))
        assert store.question_record(*Q).outcome is Outcome.MISSED


def test_a_record_without_its_answers_is_refused(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        try_once(store, "1", True, 0)
        doc = exported(store, tmp_path / "h.json")
        doc["answers"] = []
        doc["records"][0].update(tries=100, outcome=None)
        with pytest.raises(ProgressError, match=r"record of la-onehot/onehot-row counts 100 tries .* 0 scored"):
            import_json(store, written(tmp_path / "made-up.json", doc))


def test_a_right_record_whose_answers_are_all_wrong_is_refused(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        try_once(store, "1", False, 0)
        try_once(store, "2", False, 1)
        doc = exported(store, tmp_path / "h.json")
        doc["records"][0].update(outcome="after_retry")
        with pytest.raises(ProgressError, match="answered right, but none"):
            import_json(store, written(tmp_path / "made-up.json", doc))


def test_answers_without_a_record_are_refused(tmp_path):
    with ProgressStore(tmp_path / "h") as store, ProgressStore(tmp_path / "fresh") as fresh:
        try_once(store, "1", True, 0)
        doc = exported(store, tmp_path / "h.json")
        doc["records"] = []
        with pytest.raises(ProgressError, match="answers for la-onehot/onehot-row have no record"):
            import_json(fresh, written(tmp_path / "no-record.json", doc))
        assert fresh.answers() == []


def test_duplicate_attempt_numbers_are_refused(tmp_path):
    with ProgressStore(tmp_path / "h") as store:
        try_once(store, "1", False, 0)
        try_once(store, "2", True, 1)
        doc = exported(store, tmp_path / "h.json")
        for answer in doc["answers"]:
            answer["attempt"] = 1
        with pytest.raises(ProgressError, match="two scored answers numbered attempt 1"):
            import_json(store, written(tmp_path / "dup.json", doc))


def test_the_summary_line_counts_what_changed(tmp_path, capsys):
    from tutor.cli.main import main

    with ProgressStore(tmp_path / "h") as store:
        try_once(store, "1", False, 0)
        try_once(store, "2", False, 1)
        export_json(store, tmp_path / "before.json", now=at(2))
        reset(store, tmp_path / "backups", now=at(3))
        try_once(store, "0,0,1", True, 4)
    assert main(["progress", "--home", str(tmp_path / "h"), "--import", str(tmp_path / "before.json")]) == 0
    assert "and changed 1 question records" in capsys.readouterr().out


def test_an_answer_stamped_before_the_lock_is_never_older_than_the_try_before_it(tmp_path):
    """Two instances: the second read its clock first but got the lock last; its try is attempt 2."""
    with ProgressStore(tmp_path / "h") as store:
        first, _ = store.record(Answer(*Q, "1", False, 0, at(1)))
        second, _ = store.record(Answer(*Q, "2", False, 0, at(0)))
        assert (first.attempt, second.attempt) == (1, 2)
        assert second.timestamp > first.timestamp
        stored = sorted(store.answers(), key=lambda a: a.timestamp)
        assert [a.attempt for a in stored] == [1, 2]


def test_a_home_that_already_holds_two_attempt_1s_still_exports_a_file_that_imports(tmp_path):
    """Homes migrated to question records before tries were numbered again kept a restart at 1 after a
    new sizes draw; refusing duplicates must not refuse their own exports."""
    with ProgressStore(tmp_path / "old") as old, ProgressStore(tmp_path / "new") as new:
        try_once(old, "32", False, 0)
        try_once(old, "96", True, 1)
        with old.transaction() as con:
            con.execute("UPDATE answers SET attempt = 1")
        doc = exported(old, tmp_path / "old.json")
        assert [a["attempt"] for a in doc["answers"]] == [1, 2]
        import_json(new, tmp_path / "old.json")
        assert scored_attempts(new) == [(1, False), (2, True)]
        assert new.question_record(*Q).outcome is Outcome.AFTER_RETRY
