"""An export carries what a home knows beyond its answers (issue 29): why a question is not got
(the look-ahead rule's note, ``answers_seen``) and the learner id that seeds the order of choices.

Before: an export held neither, so after export → import into a fresh home (or ``--reset`` and
import) a question resolved as "not got — answer seen" lost its note ("seen in question 4") and
every choice question came back in another order.  The merge rules stay "never upgrade": a note
never replaces a resolution of this home's own, and a home with answers keeps its own order.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from session_helpers import TENSORS_LESSON, service, session, tensors_live
from test_session_choices import CHOICES

from tutor.grading.attempts import Outcome
from tutor.progress.io import export_json, import_json, reset
from tutor.progress.records import Mode
from tutor.progress.store import ProgressError
from tutor.session.look_ahead import look_ahead

LIVE = tensors_live()
T_GIVE_UP = datetime(2025, 3, 1, 8, 0, tzinfo=timezone.utc)
AHEAD = look_ahead(TENSORS_LESSON, LIVE)


@pytest.fixture(autouse=True)
def _ids_per_home(monkeypatch):
    """Each new home makes its own learner id (the suite's fixed one would hide a lost id)."""
    made = iter(f"learner{n}" for n in range(100))
    monkeypatch.setattr("tutor.progress.store.new_learner_id", lambda: next(made))


def route_1(progress):
    """Skip to question 4 of the fixture lesson (la-tensors frozen), give up: its reveal shows question 1's answer (F1)."""
    q4 = session(progress, 3)
    q4.look_ahead = AHEAD
    assert q4.give_up(LIVE).seen == (0,)


def choice_order(progress) -> list[str]:
    return [pick.text for pick in session(progress, 0, lesson=CHOICES).options()]


def exported(progress, path):
    export_json(progress.store, path)
    return path


def test_a_round_trip_into_a_fresh_home_keeps_the_answer_seen_note_and_the_order(tmp_path):
    home = service(tmp_path / "a")
    route_1(home)
    order = choice_order(home)
    doc = json.loads(exported(home, tmp_path / "x.json").read_text(encoding="utf-8"))
    assert doc["learner_id"] == "learner0"
    assert doc["answers_seen"] == [{"lesson_id": "fixture-tensors", "question_id": "embed-shape", "seen_in": "symbolic",
                                    "where": "reveal", "timestamp": doc["answers_seen"][0]["timestamp"]}]
    fresh = service(tmp_path / "b")
    done = import_json(fresh.store, tmp_path / "x.json")
    assert done.seen == 1 and done.learner_id
    back = session(fresh, 0)
    assert back.seen_in == ("symbolic", "reveal")            # "You saw this question's answer … question 4"
    assert fresh.store.question_record("fixture-tensors", "embed-shape").outcome is Outcome.MISSED
    assert choice_order(fresh) == order
    again = json.loads(exported(fresh, tmp_path / "y.json").read_text(encoding="utf-8"))
    assert (again["answers_seen"], again["learner_id"]) == (doc["answers_seen"], doc["learner_id"])


def test_reset_then_import_gives_the_note_and_the_order_back(tmp_path):
    home = service(tmp_path / "a")
    route_1(home)
    order = choice_order(home)
    exported(home, tmp_path / "x.json")
    reset(home.store, tmp_path / "backups")
    assert home.store.known_learner_id() is None and home.store.answers_seen() == []
    import_json(home.store, tmp_path / "x.json")
    assert session(service(tmp_path / "a"), 0).seen_in == ("symbolic", "reveal")
    assert choice_order(service(tmp_path / "a")) == order


@pytest.mark.parametrize("answered", [True, False])
def test_a_home_with_answers_keeps_its_order_and_one_that_only_looked_takes_the_files(tmp_path, answered):
    theirs = service(tmp_path / "a")
    their_order = choice_order(theirs)
    exported(theirs, tmp_path / "x.json")
    mine = service(tmp_path / "b")
    my_order = choice_order(mine)                            # an id made here too
    assert my_order != their_order                           # (two learners, two orders: the test can tell)
    if answered:
        session(mine, 0).submit("(2, 4, 8)", LIVE)           # this home has a history
    assert import_json(mine.store, tmp_path / "x.json").learner_id is not answered
    assert mine.store.known_learner_id() == ("learner1" if answered else "learner0")
    assert choice_order(service(tmp_path / "b")) == (my_order if answered else their_order)


def test_an_answer_seen_elsewhere_lowers_a_right_first_time_here_and_brings_its_note(tmp_path):
    """The learner saw the answer on one machine, then typed it on another: not got, with the note."""
    seen_there = service(tmp_path / "a")
    route_1(seen_there)
    exported(seen_there, tmp_path / "x.json")
    answered_here = service(tmp_path / "b")
    session(answered_here, 0).submit("(2, 4, 8)", LIVE)      # right first time here, before the import
    assert import_json(answered_here.store, tmp_path / "x.json").seen == 1
    assert answered_here.store.question_record("fixture-tensors", "embed-shape").outcome is Outcome.MISSED
    assert session(answered_here, 0).seen_in is not None


def test_a_note_never_replaces_a_resolution_of_this_homes_own(tmp_path):
    seen_there = service(tmp_path / "a")
    route_1(seen_there)
    exported(seen_there, tmp_path / "x.json")
    missed_here = service(tmp_path / "b")
    missed_here.store.record_give_up("fixture-tensors", "embed-shape", Mode.SCORED, 3, None, T_GIVE_UP)
    assert import_json(missed_here.store, tmp_path / "x.json").seen == 0
    assert missed_here.store.question_record("fixture-tensors", "embed-shape").outcome is Outcome.MISSED
    assert missed_here.store.answers_seen() == [] and session(missed_here, 0).seen_in is None


@pytest.mark.parametrize("field, value", [("learner_id", "x\x1b[2J"), ("learner_id", 7),
                                          ("answers_seen", [{"lesson_id": "a"}]), ("answers_seen", "all")])
def test_a_bad_learner_id_or_note_is_refused_and_changes_nothing(tmp_path, field, value):
    home = service(tmp_path / "a")
    route_1(home)
    path = exported(home, tmp_path / "x.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc[field] = value
    path.write_text(json.dumps(doc), encoding="utf-8")
    fresh = service(tmp_path / "b")
    with pytest.raises(ProgressError, match="learner id or answers seen") as error:
        import_json(fresh.store, path)
    assert "\x1b" not in str(error.value)
    assert fresh.store.answer_count() == 0 and fresh.store.known_learner_id() is None
