"""After a messy session every figure agrees (issue 29, "Done when"): skips, a give-up whose reveal
answers a skipped question, a wrong try in one app instance and the right one in a second instance on
the same home, a stale screen's practice answer, an import from another machine (one that never
upgrades and one that adds a lesson), practice on a resolved question, a review, and a question left
open after one wrong first try.  Then ``tutor progress``, the roadmap, Stats, the lesson summary and
``tutor class report`` must say the same: questions tried, answered, right first time, not got.  The
first try is the score, so the open question counts as tried and not right first time at once
(1 of 3 on la-embedding-lookup, not 1 of 2).

Session-level (no model, no Textual) except the two figures that are drawn text (the roadmap
label, the CLI table), which are read as the learner reads them.
"""
from __future__ import annotations

from datetime import timedelta

from session_helpers import FIXTURE_LESSONS, TENSORS, TENSORS_LESSON, Clock, service, session, tensors_live

from tutor.classroom.exports import read_class
from tutor.classroom.outline import course_outline
from tutor.classroom.report import build_report
from tutor.cli.main import main
from tutor.course.catalog import load_catalog
from tutor.grading.attempts import Outcome
from tutor.progress.io import export_json, import_json
from tutor.progress.records import Answer, Mode
from tutor.session.look_ahead import look_ahead
from tutor.session.question import Happened
from tutor.ui.progress_labels import course_questions, lesson_label, take_snapshot
from tutor.ui.screens.lesson_summary import summarize

LIVE = tensors_live()
AHEAD = look_ahead(TENSORS_LESSON, LIVE)
LOOKUP = "la-embedding-lookup"   # TENSORS: the frozen la-tensors (fixture-tensors)


def shown(progress, index, wanted=Mode.SCORED):
    question = session(progress, index, wanted=wanted)
    question.look_ahead = AHEAD
    question.prompt_shown()
    return question


def messy_home(tmp_path):
    """The session, as a learner (and their second terminal, and their other machine) would play it."""
    clock = Clock()
    a, b = service(tmp_path / "home", clock), service(tmp_path / "home", clock)   # two app instances
    for index in range(3):                                   # Ctrl+N ×3: skipping records nothing
        shown(a, index)
    assert shown(a, 3).give_up(LIVE).seen == (0,)           # Q4's reveal answers Q1: not got (answer seen)
    stale = shown(a, 1)
    assert stale.submit("(4,)", LIVE).happened is Happened.WRONG
    assert shown(b, 1).submit("(8,)", LIVE).mode is Mode.SCORED      # right in the other instance: after retry
    assert stale.submit("(8,)", LIVE).mode is Mode.PRACTICE          # the stale screen's try is practice
    assert shown(a, 2).submit("64", LIVE).happened is Happened.RIGHT # right first time
    assert shown(a, 0).submit("(2,4,8)", LIVE).mode is Mode.PRACTICE # practice on a resolved question

    other = service(tmp_path / "other", Clock(clock.now + timedelta(hours=1)))   # another machine
    other.record(Answer(TENSORS, "count", "64", True, 0, other.clock()))         # already right here: no upgrade
    other.record(Answer(TENSORS, "symbolic", "(B, L, D)", True, 0, other.clock()))   # given up here: stays not got
    other.record(Answer(LOOKUP, "hot-index", "3", True, 0, other.clock()))       # a new lesson: right first time
    other.give_up(LOOKUP, "grad-rows", Mode.SCORED, 3, None)                      # and a give-up
    export_json(other.store, tmp_path / "other.json")
    import_json(a.store, tmp_path / "other.json")
    a.record(Answer(LOOKUP, "repeated-row", "d_1", False, 0, clock()))          # one wrong first try, then stop

    clock.now += timedelta(days=30)                          # Q4's card is due: a review, then practice
    review = shown(a, 3, wanted=Mode.REVIEW)
    assert review.mode is Mode.REVIEW and review.submit("(B, L, D)", LIVE).mode is Mode.REVIEW
    assert shown(a, 3, wanted=Mode.REVIEW).submit("(B, L, D)", LIVE).mode is Mode.PRACTICE
    return a


# (questions tried, answered, right first time, not got) per lesson, as the store's records say
EXPECTED = {TENSORS: (4, 4, 1, 2), LOOKUP: (3, 2, 1, 1)}


def right_from_percent(percent: str, tried: int) -> int:
    """What a reader works out from "33%" of the questions tried."""
    return round(float(percent.rstrip("%")) / 100 * tried)


def test_every_figure_agrees_after_a_messy_session(tmp_path, capsys):
    progress = messy_home(tmp_path)
    store = progress.store
    records = {(r.lesson_id, r.question_id): r.outcome for r in store.question_records()}
    assert records[(TENSORS, "embed-shape")] is Outcome.MISSED and records[(TENSORS, "symbolic")] is Outcome.MISSED
    assert records[(TENSORS, "one-token")] is Outcome.AFTER_RETRY and records[(TENSORS, "count")] is Outcome.FIRST_TRY
    assert records[(LOOKUP, "repeated-row")] is None

    catalog = load_catalog([FIXTURE_LESSONS])
    course = {lesson_id: ids for track in course_questions(catalog).values() for lesson_id, ids in track}
    snapshot = take_snapshot(store, catalog, progress.clock())
    figures = {"store": {}, "roadmap": {}, "summary": {}, "class report": {}, "tutor progress": {}}
    for lesson_id in EXPECTED:
        counts = snapshot.lessons[lesson_id]
        tried = len(counts.tried)
        figures["store"][lesson_id] = (tried, len(counts.finished), len(counts.first_try), len(counts.missed))
        label = lesson_label(catalog.get(lesson_id), counts)  # "◐ 4/4 Tensors… · 25% first time"
        done = int(label.split()[1].split("/")[0])
        right = right_from_percent(label.rsplit("·", 1)[1].split()[0], tried)
        figures["roadmap"][lesson_id] = (tried, done, right, done - right - len(counts.after_retry))
        summary = summarize(lesson_id, "", course[lesson_id], progress.lesson_counts(lesson_id, course[lesson_id]),
                            timedelta(0), {}, catalog)
        figures["summary"][lesson_id] = (summary.tried, summary.finished, summary.first_time,
                                         summary.finished - summary.first_time - len(counts.after_retry))

    la = snapshot.tracks["la"]                                # Stats' track line: the sum of its lessons
    assert (la.tried_questions, la.finished_questions, la.first_try) == tuple(
        sum(f[i] for f in EXPECTED.values()) for i in range(3))
    assert la.accuracy == 2 / 7

    export_json(store, tmp_path / "hand-in.json", course=course, learner="Ada")
    learners, problems = read_class([tmp_path / "hand-in.json"])
    assert problems == []
    report = build_report(learners, course_outline(catalog), list(EXPECTED))
    for row in report.lessons:
        missed = sum(q.missed for q in report.questions if q.lesson_id == row.lesson_id)
        figures["class report"][row.lesson_id] = (row.tried, row.answered, row.right_first, missed)
        percents = [q.percent for q in report.questions if q.lesson_id == row.lesson_id and q.tried]
        assert len(percents) == EXPECTED[row.lesson_id][0]   # every tried question has its percentage

    capsys.readouterr()
    assert main(["--home", str(tmp_path / "home"), "--lessons", str(FIXTURE_LESSONS), "--lang", "en", "progress"]) == 0
    table = capsys.readouterr().out
    for lesson_id in EXPECTED:                                # the row: title, done/total, %, retried, not got
        title = catalog.get(lesson_id).lesson.title
        row = next(line for line in table.splitlines() if title[:20] in line)
        cells = [cell for cell in row.replace("│", " ").split() if "/" in cell or cell.endswith("%") or cell.isdigit()]
        done, percent, _retried, missed = int(cells[0].split("/")[0]), cells[1], cells[2], int(cells[3])
        tried = len(snapshot.lessons[lesson_id].tried)
        figures["tutor progress"][lesson_id] = (tried, done, right_from_percent(percent, tried), missed)

    for source, found in figures.items():
        assert found == EXPECTED, f"{source} says {found}, the store's records {EXPECTED}"
