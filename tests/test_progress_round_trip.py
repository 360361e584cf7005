"""Export -> import of any stored history succeeds and gives the same history back; a pasted tab is
stored folded; an import holds the write lock one batch at a time, and the app's answer waits and is
never lost (issue 23)."""
import json
import sqlite3
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.progress import io
from tutor.progress.io import export_json, import_json
from tutor.progress.records import Answer, Mode
from tutor.progress.service import ProgressService
from tutor.progress.store import ProgressStore

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)

EVENT = st.tuples(
    st.sampled_from(["try", "try", "try", "hint", "give_up"]),
    st.sampled_from([("a", "q1"), ("a", "q2"), ("b", "q1")]),
    st.text(max_size=12),                                   # anything a learner may paste, controls included
    st.booleans(), st.integers(0, 2), st.sampled_from([Mode.SCORED, Mode.REVIEW]),
    st.integers(0, 3 * 24 * 60),                            # minutes later
    st.one_of(st.none(), st.sampled_from(["L=3", "L=5"])),
)


def play(store, events):
    now = T0
    for kind, (lesson, question), text, correct, hints, mode, minutes, variant in events:
        now += timedelta(minutes=minutes, microseconds=1)
        if kind == "try":
            store.record(Answer(lesson, question, text, correct, hints, now, variant, mode=mode))
        elif kind == "hint":
            store.record_hint(lesson, question, hints + 1, mode, 3, now)
        else:
            store.record_give_up(lesson, question, mode, 3, variant, now)


def history(store):
    later = T0 + timedelta(days=400)
    records = [r.__class__(**{**r.__dict__, "review_key": None, "review_tries": 0, "review_hints": 0,
                              "review_hints_before_first": 0}) for r in store.question_records()]
    return store.answers(), store.outcomes(), records, store.due_reviews(later), store.last_position()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EVENT, max_size=25))
def test_export_then_import_of_any_stored_history_round_trips(events):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        with ProgressStore(folder / "a") as source:
            play(source, events)
            export_json(source, folder / "out.json", now=T0)
            with ProgressStore(folder / "b") as target:
                import_json(target, folder / "out.json")   # never refused
                # (an unfinished review encounter is this machine's, not part of the history)
                assert history(target) == history(source)
                assert import_json(target, folder / "out.json")[:4] == (0, 0, 0, 0)


def test_a_pasted_tab_is_stored_folded_and_its_export_imports(tmp_path):
    with ProgressStore(tmp_path / "a") as store:
        stored, _record = store.record(Answer("a", "q", "2\t4\t8", True, 0, T0))
        assert stored.answer == "2 4 8" and store.answers()[0].answer == "2 4 8"
        export_json(store, tmp_path / "out.json")
    doc = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    doc["answers"][0]["answer"] = "2\t4\t8"   # as an export of the version before held it
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    with ProgressStore(tmp_path / "b") as store:
        assert import_json(store, tmp_path / "old.json").answers == 1   # was refused as a whole
        assert store.answers()[0].answer == "2 4 8"


def test_an_import_reports_the_outcomes_and_records_it_really_added(tmp_path):
    with ProgressStore(tmp_path / "a") as store:
        store.record(Answer("a", "q", "x", True, 0, T0))
        export_json(store, tmp_path / "one.json")
        store.record_give_up("a", "q2", Mode.SCORED, 3, None, T0 + timedelta(minutes=1))   # an outcome, no answer
        export_json(store, tmp_path / "two.json")
    with ProgressStore(tmp_path / "b") as store:
        assert import_json(store, tmp_path / "one.json")[:4] == (1, 1, 1, 0)
        assert import_json(store, tmp_path / "two.json")[:4] == (0, 1, 1, 0)   # was "Imported 0 new answers"


def test_an_import_writes_in_bounded_transactions(tmp_path, monkeypatch):
    monkeypatch.setattr(io, "BATCH_ROWS", 50)
    with ProgressStore(tmp_path / "a") as store:
        for i in range(120):
            store.record(Answer("a", f"q{i % 40}", str(i), i % 2 == 0, 0, T0 + timedelta(seconds=i)))
        export_json(store, tmp_path / "out.json")
    with ProgressStore(tmp_path / "b") as store:
        sizes, real = [], store.transaction

        def counting():
            context = real()
            sizes.append(store._con.total_changes)
            return context
        monkeypatch.setattr(store, "transaction", counting)
        added = import_json(store, tmp_path / "out.json")
        assert added.answers == 120
        # 120 answers, their outcomes and 40 records: 3 + 1 + 1 batches at least, never one big one
        assert len(sizes) >= 5


class LockedFor:
    """A store whose first ``n`` writes find the database locked (another process importing)."""

    def __init__(self, store, n):
        self.store, self.left = store, n

    def record(self, answer):
        if self.left:
            self.left -= 1
            raise sqlite3.OperationalError("database is locked")
        return self.store.record(answer)

    def __getattr__(self, name):
        return getattr(self.store, name)


def test_an_answer_during_a_locked_database_waits_and_is_never_lost(tmp_path):
    told = []
    with ProgressStore(tmp_path) as store:
        service = ProgressService(store, lambda: T0, told.append)
        service.store = LockedFor(store, 2)     # still locked on a first retry: retried and written
        assert service.record(Answer("a", "q", "wrong", False, 0, T0)) is not None and not told
        service.store = LockedFor(store, 10)    # locked longer than the retries: queued, and said once
        assert service.record(Answer("a", "q", "right", True, 0, T0 + timedelta(seconds=1))) is None
        assert service.pending and len(told) == 1
        service.store = store                   # the import finished: the next write flushes the queue first
        service.hint("a", "q2", 1, Mode.SCORED, 3)
        service.flush()
        assert not service.pending
        assert [(a.answer, a.attempt) for a in store.answers()] == [("wrong", 1), ("right", 2)]
        assert store.question_record("a", "q").outcome.value == "after_retry"
