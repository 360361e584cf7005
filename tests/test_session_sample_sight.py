"""The look-ahead rule for the dashboard's Sample tab (issue 29, 2026-12-adversary.md F4): from inside
de-top-k-top-p, F3 → Sample, top-p, prompt 3142 showed the kept tokens and their renormalised
probabilities (questions 2 and 3's answers) before any try, and both were then right first time.
Now a Sample run that shows the distribution after the open lesson's own text resolves its untried
next-token questions as not got (answer seen); other texts and tried questions cost nothing.
Milliseconds: the rule needs the lesson and the store, not the model."""
from __future__ import annotations

from session_helpers import TENSORS_LESSON, service, session

from tutor.course.catalog import builtin_lessons_dir, load_lesson
from tutor.grading.attempts import Outcome
from tutor.progress.records import Answer, Mode
from tutor.session.sample_sight import contexts, questions_shown, sample_seen, shows_after, sighted_on_opening

TOP_P = load_lesson(builtin_lessons_dir() / "de-top-k-top-p.yaml")   # text "3142"; Q1-Q4 read decode.*
ATTENTION = TENSORS_LESSON
GREEDY = load_lesson(builtin_lessons_dir() / "de-greedy.yaml")     # text "3142>12"; Q1 newline-count reads generate.*
MINE, OTHER = "a" * 32, "b" * 32                                   # two weights' digests (tutor.live.model_identity)


def test_sampling_the_lessons_own_text_makes_its_untried_next_token_questions_not_got():
    progress = service()
    progress.record(Answer(TOP_P.id, "topk-kept-renorm", "a", False, 0, progress.clock()))   # tried: keeps its record
    assert sample_seen(progress, TOP_P, contexts("3142", ["1", "1", "1"])) == (1, 2, 3)
    records = {r.question_id: r for r in progress.store.question_records(TOP_P.id)}
    assert records["topp-wide-keeps"].outcome is Outcome.MISSED and records["topp-or-topk-share"].outcome is Outcome.MISSED
    assert records["topp-three-from"].outcome is Outcome.MISSED                # decode.cumsum[1]: live, so it counts
    assert records["topk-kept-renorm"].outcome is None and records["topk-kept-renorm"].tries == 1
    back = session(progress, 1, lesson=TOP_P)
    assert back.mode is Mode.PRACTICE and back.seen_in == ("sample", "sample")
    assert progress.store.card(TOP_P.id, "topp-or-topk-share") is not None   # and it comes back in Review


def test_a_run_that_reaches_the_lessons_text_token_by_token_counts_too():
    assert questions_shown(TOP_P, contexts("31", ["4", "2", "9"])) == [0, 1, 2, 3]   # step 3 shows after "3142"
    assert questions_shown(TOP_P, contexts("31", ["4", "2"])) == []              # its last token is not shown after


def test_another_text_or_a_lesson_on_random_weights_costs_nothing():
    progress = service()
    assert sample_seen(progress, TOP_P, contexts("5024>", ["1", "2"])) == ()
    assert sample_seen(progress, ATTENTION, contexts(ATTENTION.model.rows[0], ["1"])) == ()
    assert progress.store.question_records() == []


async def test_the_app_applies_it_to_the_open_lesson_and_says_so(tmp_path):
    """Pilot smoke: the Sample tab's end of run (SamplePanel.on_sample_ended → app.sample_shown) with
    the open lesson's tensors from the same weights."""
    from journey_helpers import record_notifications, text_of, wait_for_live

    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=(120, 36)) as pilot:
        app.open_lesson(TOP_P.id)
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        told = record_notifications(app)
        await pilot.press("ctrl+n")                                   # question 2, untried
        app.sample_shown("3142", ["1", "1"], OTHER)                   # other weights (the text model): nothing
        assert app.progress.store.question_records() == []
        app.sample_shown("3142", ["1", "1"], lesson.live.model_identity)
        await pilot.pause()
        assert any("questions 1, 2, 3, 4, which you have not tried" in message for message, _options in told)
        assert "in the dashboard's Sample tab" in text_of(lesson, "#question", width=200)
        assert app.progress.store.question_record(TOP_P.id, "topp-or-topk-share").outcome is Outcome.MISSED


def test_de_greedy_newline_count_is_seen_in_a_run_that_passes_its_text():
    """de-greedy's newline-count reads the greedy run from '3142>12' and runner-up-run a generate output of
    the same lesson: a run from '3142>' that appends '1', '2' and more shows the distribution after exactly
    '3142>12' (the rule counts every generate output and the text's logits as seen there, the cautious side)."""
    assert questions_shown(GREEDY, contexts("3142>", ["1", "2", "3"])) == [0, 2]   # newline-count, runner-up-run
    assert questions_shown(GREEDY, contexts("3142>", ["1", "2"])) == []           # the last token's is not shown
    # the run-from-prompt question reads greedy after only '3142': a run from there shows it, one from '3142>' does not
    assert questions_shown(GREEDY, contexts("3142", [">", "1", "2", "3"])) == [0, 1, 2]
    progress = service()
    assert sample_seen(progress, GREEDY, contexts("3142>12", ["3"])) == (0, 2)
    assert progress.store.question_record(GREEDY.id, "newline-count").outcome is Outcome.MISSED
    assert progress.store.question_record(GREEDY.id, "run-from-prompt") is None
    back = session(progress, 0, lesson=GREEDY)
    assert back.mode is Mode.PRACTICE and back.seen_in == ("sample", "sample")


# -- sampling BEFORE opening the lesson (F4's remaining route) ----------------------------------

def test_a_run_before_the_lesson_opens_resolves_the_question_when_it_opens():
    """Before: F3 → Sample → '3142' on the app's model, then open de-top-k-top-p: nothing was caught,
    and both answers read off the tab were right first time."""
    progress = service()
    progress.sample_shown(MINE, "3142", ["1", "1", "1"])   # the lesson is not open: nothing resolved yet
    assert progress.store.question_records() == []
    assert sighted_on_opening(progress, TOP_P, 1, MINE) is True
    record = progress.store.question_record(TOP_P.id, "topp-or-topk-share")
    assert record.outcome is Outcome.MISSED and record.tries == 0
    opened = session(progress, 1, lesson=TOP_P)
    assert opened.mode is Mode.PRACTICE and opened.seen_in == ("sample", "sample")
    assert progress.store.question_record(TOP_P.id, "topp-three-from") is None   # each question when it opens
    assert progress.store.card(TOP_P.id, "topp-or-topk-share") is not None


def test_it_holds_after_a_restart(tmp_path):
    first = service(tmp_path / "home")
    first.sample_shown(MINE, "31", ["4", "2", "9"])
    first.close()
    again = service(tmp_path / "home")
    assert sighted_on_opening(again, TOP_P, 3, MINE) is True
    assert again.store.question_record(TOP_P.id, "topp-wide-keeps").outcome is Outcome.MISSED


def test_other_weights_other_text_or_a_tried_question_cost_nothing():
    progress = service()
    progress.sample_shown(MINE, "3142", ["1", "1"])
    progress.sample_shown(OTHER, "3142>12", ["3", "3"])
    progress.sample_shown(MINE, "5024>", ["1", "2"])
    assert sighted_on_opening(progress, TOP_P, 1, OTHER) is False           # same text, other weights
    assert sighted_on_opening(progress, GREEDY, 0, MINE) is False           # these weights, other text
    assert sighted_on_opening(progress, TOP_P, 1, "") is False              # random weights: no digest
    assert sighted_on_opening(progress, ATTENTION, 0, MINE) is False
    assert progress.store.question_records() == []
    progress.record(Answer(TOP_P.id, "topp-or-topk-share", "3", False, 0, progress.clock()))   # tried before the run
    assert sighted_on_opening(progress, TOP_P, 1, MINE) is False
    assert progress.store.question_record(TOP_P.id, "topp-or-topk-share").tries == 1


def test_shows_after_is_exactly_the_texts_the_tab_showed_a_distribution_after():
    for prompt in ("", "3", "31"):
        for tokens in ([], ["4"], ["4", "2"], ["4", "2", "9"], ["42", "9"]):
            shown = set(contexts(prompt, tokens))
            for text in ("", "3", "31", "314", "3142", "31429", "9"):
                assert shows_after(text, prompt, tokens) == (text in shown), (text, prompt, tokens)


async def test_the_lesson_screen_applies_a_run_made_before_it_opened(tmp_path):
    """Pilot smoke of the wiring (QuizMixin.open_session → sighted_on_opening): a run on the app's
    model before the lesson opens; then each next-token question opens as not got, with the Sample
    tab's note, when it opens."""
    from journey_helpers import text_of, wait_for_live

    from tutor.live.model_identity import model_identity
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=(120, 36)) as pilot:
        app.hub.ensure_loaded()
        app.sample_shown("3142", ["1", "1"], model_identity(app.hub.model))   # no lesson open: only kept
        assert app.progress.store.question_records() == []
        app.open_lesson(TOP_P.id)
        await pilot.pause()
        lesson = app.screen
        await wait_for_live(pilot, lesson)
        assert "in the dashboard's Sample tab" in text_of(lesson, "#question", width=200)   # question 1 opened
        assert app.progress.store.question_record(TOP_P.id, "topk-kept-renorm").outcome is Outcome.MISSED
        assert app.progress.store.question_record(TOP_P.id, "topp-or-topk-share") is None   # not opened yet
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert "in the dashboard's Sample tab" in text_of(lesson, "#question", width=200)
        assert app.progress.store.question_record(TOP_P.id, "topp-or-topk-share").outcome is Outcome.MISSED
