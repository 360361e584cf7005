"""A lesson whose text the learner's own model does not bear out says so, and where, but not the answers."""
from journey_helpers import graded, open_live_lesson, text_of, wait_until
from tutor.live.lesson_claims import BrokenClaims, broken_claims
from tutor.course.catalog import load_catalog
from tutor.live.compute import compute_live
from tutor.live.hub import ModelHub, hub_for_checkpoint


def barely_trained():
    """Untrained weights that claim to be a sort model after 40 steps: the lessons' requirement
    ('trained on sort') is met, their claims about what a trained model does are not."""
    random_hub = hub_for_checkpoint("random")
    return random_hub.model, random_hub.tokenizer, "your model: sort, 40 steps", {"data": "sort", "steps": 40}


def test_the_shipped_model_bears_out_every_trained_lesson_and_a_barely_trained_one_does_not():
    catalog = load_catalog()
    shipped, weak = ModelHub(), ModelHub()
    weak.replace(*barely_trained())
    lesson = catalog.get("it-information-entropy").lesson
    assert not broken_claims(lesson, compute_live(lesson, shipped))
    claims = broken_claims(lesson, compute_live(lesson, weak))
    assert 2 in claims.questions   # "p('3') is practically 1": written for a model that has learned to sort


async def test_the_lesson_says_where_its_text_may_not_hold_and_ctrl_o_shows_the_shipped_model(tmp_path):
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    app.hub.replace(*barely_trained())
    version = app.hub.version
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_live_lesson(pilot, "it-information-entropy")
        status = text_of(screen, "#live-status", width=400)
        where = status.split("may not hold at ")[1].split(" (")[0]
        assert where.startswith("question") and "2" in where, status
        truth = screen.live.tensors["info.surprisal"][0, 6, 20]
        assert f"{truth:.2f}" not in status and f"{truth:.3g}" not in status   # where, never what
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen.live is not None and "shipped" in screen.live.weights_label,
                         "the live tensors on the shipped model")
        assert screen.claims == BrokenClaims()
        assert "may not hold" not in text_of(screen, "#live-status", width=400)
        assert app.hub.version == version   # the learner's model stays the app's


async def test_on_the_shipped_model_nothing_is_said(tmp_path):
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_live_lesson(pilot, "it-information-entropy")
        assert not screen.claims and "may not hold" not in text_of(screen, "#live-status", width=400)


def test_the_notice_names_questions_and_the_formula_in_either_language():
    from tutor.common.i18n import set_language
    from tutor.ui.screens.lesson_live import claims_text

    assert "may not hold at question 3 (" in claims_text(BrokenClaims((3,)))
    assert "may not hold at questions 2, 4 and the formula (" in claims_text(BrokenClaims((2, 4), formula=True))
    set_language("zh")
    try:
        assert "以下内容可能不成立：第 2、4 题和公式（" in claims_text(BrokenClaims((2, 4), formula=True))
    finally:
        set_language("en")


async def test_a_question_given_away_on_the_learner_s_model_is_not_scored_there(tmp_path):
    """On barely trained weights de-beam's text shows question 1's answer (best-first): a try there
    would be a point for reading.  It is refused, free (no attempt, no reveal); Ctrl+O gives the shipped
    model, where the same question is scored as usual."""
    from tutor.ui.app import TutorApp

    app = TutorApp(home=tmp_path / "home", preload_model=False, watch_interval=None)
    app.hub.replace(*barely_trained())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_live_lesson(pilot, "de-beam", 0)
        assert 1 in screen.claims.given_away
        screen.query_one("#answer").value = "1"
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert "cannot be scored" in text_of(screen, "#feedback", width=300)
        assert screen.session.encounter.attempts_left == screen.session.encounter.allowed and not screen.session.encounter.revealed
        assert app.store.answer_count() == 0   # nothing recorded: no first attempt was spent
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen.live is not None and "shipped" in screen.live.weights_label,
                         "the shipped model")
        assert not screen.session.given_away
        screen.query_one("#answer").value = "1"
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        assert app.store.answer_count() == 1 and screen.session.mode.value == "scored"   # the one first attempt
