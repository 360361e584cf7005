"""Every built-in lesson holds on any model the learner may have (issue 10.5).

Answers are computed, so they must stay right, and the checks (answers written in files,
placeholders, leaks, NaN) must pass, on the shipped checkpoint, on untrained weights, and on
models trained in the test on reverse and on the built-in text.  The short runs only need to
move the weights off the shipped ones; no lesson may be skipped on the shipped model.
"""
import pytest

from tutor.authoring.check import check_paths
from tutor.course.catalog import load_catalog
from tutor.live.hub import ModelHub, hub_for_checkpoint

STEPS = 30


def trained_hub(data: str) -> ModelHub:
    """The shipped model's shape, trained from fresh weights for a few steps on ``data``."""
    import torch

    from tutor.model import GPT
    from tutor.model.checkpoint import load_default_model
    from tutor.model.data import load_dataset
    from tutor.model.train import TrainConfig, Trainer

    shipped, tokenizer, _ = load_default_model()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        model = GPT(shipped.config)
    dataset = load_dataset(data, block_size=shipped.config.block_size, tokenizer=tokenizer)
    trainer = Trainer(model, dataset, TrainConfig(steps=STEPS, batch_size=16, warmup_steps=5, device="cpu",
                                                  eval_interval=STEPS, eval_batches=1, accuracy_examples=20))
    for _ in range(STEPS):
        trainer.step()
    hub = ModelHub()
    hub.replace(model.eval(), tokenizer, f"test model: {data}, {STEPS} steps", {"data": data, "steps": STEPS})
    return hub


@pytest.fixture(scope="module", params=["random", "reverse", "text"])
def other_model(request):
    return hub_for_checkpoint("random") if request.param == "random" else trained_hub(request.param)


def test_every_lesson_passes_the_check_on_other_models(other_model):
    report = check_paths(variants=0, hub=other_model)
    assert report.lessons
    assert report.ok, f"on {other_model.label}:\n" + report.text()
    assert all(why for _, why in report.skipped)


def test_no_lesson_is_skipped_on_the_shipped_model():
    from tutor.live.requirements import facts_of, unmet_requirement

    facts = facts_of(ModelHub().current())
    skipped = {item.lesson.id: unmet_requirement(item.lesson.model, facts) for item in load_catalog().ordered()}
    assert not {k: v for k, v in skipped.items() if v}
