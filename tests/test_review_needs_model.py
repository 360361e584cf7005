"""Issue 33: a Review card whose lesson needs another model says so where the learner answers,
with the way out (Ctrl+O, or Ctrl+N to the next card); before, every Enter said "The model is
still loading", which was not true."""
from contextlib import asynccontextmanager

from journey_helpers import graded, text_of, type_answer, wait_until
from tutor.live.hub import hub_for_checkpoint
from tutor.ui.app import TutorApp
from tutor.ui.screens.review import ReviewScreen


@asynccontextmanager
async def review_on_random_weights(tmp_path):
    """Review of a card that needs a sort model (pr-confident-wrong), then la-tensors, while the
    learner's model is not a sort model; yields once the screen knows the first cannot be computed."""
    app = TutorApp(home=tmp_path, preload_model=False, watch_interval=None)
    random_hub = hub_for_checkpoint("random")
    app.hub.replace(random_hub.model, random_hub.tokenizer, random_hub.label, random_hub.meta)
    async with app.run_test(size=(80, 24)) as pilot:
        app.complete_catalog()
        app.push_screen(ReviewScreen([(app.catalog.get("pr-confident-wrong"), 0), (app.catalog.get("la-tensors"), 0)]))
        await pilot.pause()
        await wait_until(pilot, lambda: app.screen.live_problem is not None, "the requirement")
        yield pilot, app.screen


async def test_a_card_for_another_model_offers_ctrl_o_and_ctrl_n_at_the_answer(tmp_path):
    async with review_on_random_weights(tmp_path) as (pilot, screen):
        await type_answer(pilot, "a")
        said = text_of(screen, "#feedback", width=300)
        assert "still loading" not in said and "needs a model" in said, said
        assert "Ctrl+O" in said and "Ctrl+N" in said
        assert screen.query_one("#answer").value == "a"   # kept
        await pilot.press("ctrl+o")                       # the fix in place: the shipped model
        await wait_until(pilot, lambda: screen.live is not None, "the card on the shipped model")
        await pilot.press("enter")                        # the kept answer is graded now
        await graded(pilot)
        await wait_until(pilot, lambda: "cannot be graded" not in text_of(screen, "#feedback", width=300)
                         and text_of(screen, "#feedback", width=300).strip(), "the answer graded")
        assert "✓" in text_of(screen, "#feedback", width=300) or "✗" in text_of(screen, "#feedback", width=300)


async def test_ctrl_n_skips_the_card_that_cannot_be_graded(tmp_path):
    async with review_on_random_weights(tmp_path) as (pilot, screen):
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.lesson.id == "la-tensors" and screen.live is not None, "the next card")
        assert screen.live_problem is None
