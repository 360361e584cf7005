"""The look-ahead rule for the dashboard's Sample tab (issue 29, 2026-12-adversary.md F4): from inside
de-top-k-top-p, F3 → Sample, top-p, prompt 3142 showed the kept tokens and their renormalised
probabilities (questions 2 and 3's answers) before any try, and both were then right first time.
Now a Sample run that shows the distribution after the open lesson's own text resolves its untried
next-token questions as not got (answer seen); other texts and tried questions cost nothing.
Milliseconds: the rule needs the lesson and the store, not the model."""
from __future__ import annotations

from session_helpers import service, session

from tutor.course.catalog import builtin_lessons_dir, load_lesson
from tutor.grading.attempts import Outcome
from tutor.progress.records import Answer, Mode
from tutor.session.sample_sight import contexts, questions_shown, sample_seen

TOP_P = load_lesson(builtin_lessons_dir() / "de-top-k-top-p.yaml")   # text "3142"; Q1-Q3 read decode.*
ATTENTION = load_lesson(builtin_lessons_dir() / "la-tensors.yaml")


def test_sampling_the_lessons_own_text_makes_its_untried_next_token_questions_not_got():
    progress = service()
    progress.record(Answer(TOP_P.id, "topk-ratio", "a", False, 0, progress.clock()))   # tried: keeps its record
    assert sample_seen(progress, TOP_P, contexts("3142", ["1", "1", "1"])) == (1, 2)
    records = {r.question_id: r for r in progress.store.question_records(TOP_P.id)}
    assert records["topp-count"].outcome is Outcome.MISSED and records["topp-values"].outcome is Outcome.MISSED
    assert records["topk-ratio"].outcome is None and records["topk-ratio"].tries == 1
    assert "adaptive" not in records                                  # a fixed-answer choice: nothing shown
    back = session(progress, 1, lesson=TOP_P)
    assert back.mode is Mode.PRACTICE and back.seen_in == ("sample", "sample")
    assert progress.store.card(TOP_P.id, "topp-count") is not None   # and it comes back in Review


def test_a_run_that_reaches_the_lessons_text_token_by_token_counts_too():
    assert questions_shown(TOP_P, contexts("31", ["4", "2", "9"])) == [0, 1, 2]   # step 3 shows after "3142"
    assert questions_shown(TOP_P, contexts("31", ["4", "2"])) == []              # its last token is not shown after


def test_another_text_or_a_lesson_on_random_weights_costs_nothing():
    progress = service()
    assert sample_seen(progress, TOP_P, contexts("5024>", ["1", "2"])) == ()
    assert sample_seen(progress, ATTENTION, contexts(ATTENTION.model.rows[0], ["1"])) == ()
    assert progress.store.question_records() == []


async def test_the_app_applies_it_to_the_open_lesson_and_says_so(tmp_path):
    """Pilot smoke: the Sample tab's end of run (SamplePanel.on_sample_ended → app.sample_shown)."""
    from journey_helpers import record_notifications, text_of

    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=(120, 36)) as pilot:
        app.open_lesson(TOP_P.id)
        await pilot.pause()
        lesson = app.screen
        told = record_notifications(app)
        await pilot.press("ctrl+n")                                   # question 2, untried
        app.sample_shown("3142", ["1", "1"], "text")                  # the separate text model: nothing
        assert app.progress.store.question_records() == []
        app.sample_shown("3142", ["1", "1"], "current")
        await pilot.pause()
        assert any("questions 1, 2, 3, which you have not tried" in message for message, _options in told)
        assert "in the dashboard's Sample tab" in text_of(lesson, "#question", width=200)
        assert app.progress.store.question_record(TOP_P.id, "topp-count").outcome is Outcome.MISSED
