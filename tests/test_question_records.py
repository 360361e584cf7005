"""One question, one honest record (issue 19): every route that shows a question again continues
its record, so a question got wrong first is never recorded "right first time" (Pilot, as a learner)."""
from datetime import datetime, timedelta, timezone

from journey_helpers import graded, text_of, type_answer, wait_for_live, wait_until, write_lesson
from textual.widgets import Input

from tutor.common.i18n import set_language
from tutor.grading.attempts import Outcome
from tutor.progress.records import Mode
from tutor.progress.store import ProgressStore
from tutor.ui.app import TutorApp
from tutor.ui.screens.review import ReviewScreen

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
RIGHT, WRONG = "(B, H, L, L)", "(B, L)"
QUESTIONS = ["sym", "pick"]


def make_app(tmp_path, start=T0, edit=lambda text: text, **kw):
    lessons = write_lesson(tmp_path / "lessons")
    path = lessons / "zz-journey.yaml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    kw.setdefault("watch_interval", None)
    app = TutorApp(home=tmp_path / "home", lesson_dirs=[lessons], preload_model=False, **kw)
    ticks = iter(range(100_000))
    app.clock = lambda: start + timedelta(seconds=next(ticks))   # moves one second per reading
    return app


async def open_question(pilot, app, index=0):
    app.open_lesson("zz-journey", index)
    await pilot.pause()
    await wait_for_live(pilot, app.screen)
    return app.screen


async def press(pilot, *keys):
    await pilot.press(*keys)
    await pilot.pause()


async def answer(pilot, screen, text):
    screen.query_one(Input).value = ""
    await type_answer(pilot, text)


async def new_sizes(pilot, screen):
    await press(pilot, "ctrl+r")
    await wait_for_live(pilot, screen)


def stored(tmp_path, question="sym"):
    with ProgressStore(tmp_path / "home") as store:
        return store.question_record("zz-journey", question), store.outcomes(), store.answers()


def assert_counts_within_the_lesson(app):
    counts = app.progress.lesson_counts("zz-journey", QUESTIONS)
    assert len(counts.finished) <= len(QUESTIONS) and len(counts.seen) <= len(QUESTIONS)
    assert len(counts.first_try) + len(counts.after_retry) + len(counts.missed) == len(counts.finished)


async def test_ctrl_r_after_a_wrong_try_keeps_the_try(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await answer(pilot, screen, WRONG)
        await new_sizes(pilot, screen)
        assert "2 tries left" in text_of(screen, "#feedback")   # said again under the new sizes
        await answer(pilot, screen, RIGHT)
        assert "✓ Right" in text_of(screen, "#feedback")
        assert_counts_within_the_lesson(app)
    record, outcomes, answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 2)
    assert [(a.attempt, a.mode) for a in answers] == [(1, Mode.SCORED), (2, Mode.SCORED)]
    assert [o.outcome for o in outcomes] == [Outcome.AFTER_RETRY]


async def test_ctrl_r_inside_review_keeps_the_review_try(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await pilot.press("ctrl+g")   # not got: a card due in 10 minutes
        await pilot.pause()
    app = make_app(tmp_path, start=T0 + timedelta(days=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_open_review()
        await pilot.pause()
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.session.mode is Mode.REVIEW
        await wait_for_live(pilot, review)
        await answer(pilot, review, WRONG)
        await new_sizes(pilot, review)
        await answer(pilot, review, RIGHT)
        assert "✓ Right" in text_of(review, "#feedback")
        await new_sizes(pilot, review)   # after the reveal: practice, rated nowhere
        assert review.session.mode is Mode.PRACTICE and "Practice" in text_of(review, "#question")
        await answer(pilot, review, RIGHT)
        assert text_of(review, "#feedback").startswith("Practice · ✓")
    record, outcomes, answers = stored(tmp_path)
    assert record.outcome is Outcome.MISSED   # review never rewrites the score
    assert [(o.outcome, o.role.value) for o in outcomes] == [(Outcome.MISSED, "score"),
                                                             (Outcome.AFTER_RETRY, "review")]   # Hard, not Good
    assert [a.mode for a in answers] == [Mode.REVIEW, Mode.REVIEW, Mode.PRACTICE]


async def test_a_hint_then_ctrl_r_keeps_the_hint(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await press(pilot, "ctrl+t")
        await new_sizes(pilot, screen)
        assert "One table per head" in text_of(screen, "#hints")   # still shown: it was seen
        await answer(pilot, screen, RIGHT)
    record, outcomes, _answers = stored(tmp_path)
    assert (record.outcome, record.hints, outcomes[0].hints_used) == (Outcome.AFTER_RETRY, 1, 1)


async def test_quit_and_restart_mid_question_keeps_the_tries_used(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await answer(pilot, screen, WRONG)
        await answer(pilot, screen, "(B, H, L)")
        assert "1 try left" in text_of(screen, "#feedback")
        await pilot.press("ctrl+q")
    app = make_app(tmp_path, start=T0 + timedelta(minutes=5))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen   # reopened where the learner left
        await wait_for_live(pilot, screen)
        assert screen.question.id == "sym" and "1 try left" in text_of(screen, "#feedback")
        await answer(pilot, screen, RIGHT)
        assert_counts_within_the_lesson(app)
        await press(pilot, "escape")
        label = next(str(n.label) for t in app.screen.query_one("Tree").root.children for n in t.children
                     if n.data == "zz-journey")
        assert "0% first time" in label and "100%" not in label
    record, _outcomes, answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 3)
    assert [a.attempt for a in answers] == [1, 2, 3]


async def test_skip_and_come_back_keeps_the_try(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await answer(pilot, screen, WRONG)
        await press(pilot, "ctrl+n")
        await press(pilot, "ctrl+b")
        assert "2 tries left" in text_of(screen, "#feedback")
        await answer(pilot, screen, RIGHT)
    record, _outcomes, _answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 2)


async def test_give_up_reopen_and_type_the_revealed_answer_is_practice(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await press(pilot, "ctrl+g")
        with ProgressStore(tmp_path / "home") as store:
            due = store.card("zz-journey", "sym").due
        await press(pilot, "enter")
        await graded(pilot)
        await press(pilot, "escape")
        screen = await open_question(pilot, app)
        assert screen.session.mode is Mode.PRACTICE and "Practice" in text_of(screen, "#question")
        await answer(pilot, screen, RIGHT)
        assert text_of(screen, "#feedback").startswith("Practice · ✓ Right")   # graded, and said to be practice
        assert_counts_within_the_lesson(app)
    record, outcomes, answers = stored(tmp_path)
    assert record.outcome is Outcome.MISSED and [o.outcome for o in outcomes] == [Outcome.MISSED]
    assert [a.mode for a in answers] == [Mode.PRACTICE]
    with ProgressStore(tmp_path / "home") as store:
        assert store.card("zz-journey", "sym").due == due   # "in 10 min" stays; practice moves no schedule


async def test_give_up_then_ctrl_r_is_practice(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await press(pilot, "ctrl+g")
        await new_sizes(pilot, screen)
        await answer(pilot, screen, RIGHT)
        assert text_of(screen, "#feedback").startswith("Practice")
    record, outcomes, _answers = stored(tmp_path)
    assert record.outcome is Outcome.MISSED and len(outcomes) == 1


async def test_reopening_a_finished_lesson_never_adds_to_its_counts(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for visit in range(2):
            screen = await open_question(pilot, app)
            await answer(pilot, screen, WRONG if visit == 0 else RIGHT)
            await press(pilot, "ctrl+g")
            await press(pilot, "enter")
            await graded(pilot)
            await type_answer(pilot, "a")
            await pilot.press("enter")   # the summary
            await graded(pilot)
            await pilot.pause()
            summary = " ".join(text_of(app.screen, "#summary-text", width=200).split())
            assert "Right first time: 1 of 2 questions" in summary and "not finished" not in summary
            assert_counts_within_the_lesson(app)
            await press(pilot, "escape")
        snapshot = app.progress_snapshot()
        stats = snapshot.lessons["zz-journey"]
        assert (len(stats.finished), len(stats.first_try), stats.accuracy) == (2, 1, 0.5)
    record, outcomes, _answers = stored(tmp_path)
    assert record.outcome is Outcome.MISSED and len(outcomes) == 2   # one per question


async def test_switching_language_keeps_the_try(tmp_path):
    app = make_app(tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, app)
            await answer(pilot, screen, WRONG)
            session = screen.session
            app.action_toggle_language()   # F4 in a lesson keeps the lesson: the same try goes on
            await pilot.pause()
            assert app.screen is screen and screen.session is session and session.encounter.attempts_left == 2
            await answer(pilot, screen, RIGHT)
            await press(pilot, "escape")
            screen = await open_question(pilot, app)   # reopened in the new language: practice now
            assert screen.session.mode is Mode.PRACTICE
    finally:
        set_language("en")
    record, _outcomes, _answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 2)


async def test_a_hot_reload_of_the_lesson_keeps_the_try(tmp_path):
    app = make_app(tmp_path, watch_interval=0.05)
    path = tmp_path / "lessons" / "zz-journey.yaml"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        await answer(pilot, screen, WRONG)
        path.write_text(path.read_text(encoding="utf-8").replace("Journey test lesson", "Journey, edited"),
                        encoding="utf-8")
        await wait_until(pilot, lambda: screen.lesson.title == "Journey, edited" and screen.live is not None,
                         "the reload and its tensors")
        assert "2 tries left" in text_of(screen, "#feedback")
        await answer(pilot, screen, RIGHT)
    record, _outcomes, _answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 2)


async def test_new_weights_recompute_the_question_and_keep_the_try(tmp_path):
    app = make_app(tmp_path, edit=lambda text: text.replace("weights: random", "weights: trained")
                   .replace("  d_model: 8\n", "").replace("  n_head: 2\n", ""))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_question(pilot, app)
        assert screen.lesson.model.weights == "trained"
        await answer(pilot, screen, WRONG)
        version = screen.live.hub_version
        app.hub.replace(app.hub.model, app.hub.tokenizer, "your model: retrained")   # the dashboard's new weights
        app.model_replaced()
        screen.query_one(Input).value = ""   # (text in the box also holds the old weights: it is being typed)
        await press(pilot, "ctrl+n")
        await press(pilot, "ctrl+b")   # back on the question: recomputed with the new weights
        await wait_until(pilot, lambda: screen.live is not None and screen.live.hub_version != version,
                         "the recomputed tensors")
        assert "2 tries left" in text_of(screen, "#feedback")
        await answer(pilot, screen, RIGHT)
    record, _outcomes, _answers = stored(tmp_path)
    assert (record.outcome, record.tries) == (Outcome.AFTER_RETRY, 2)
