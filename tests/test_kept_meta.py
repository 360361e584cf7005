"""The weights kept at quit come back with their meta, so lessons with ``requires:`` know their task."""
from __future__ import annotations

from tutor.course.schema import ModelSetup
from tutor.live.hub import ModelHub
from tutor.live.requirements import facts_of, unmet_requirement
from tutor.training.runs import kept_path, load_kept, remember_kept, save_model


def test_kept_checkpoint_brings_its_task_to_the_hub(tmp_path):
    from tutor.model.checkpoint import load_default_model

    model, tokenizer, _ = load_default_model()
    path = save_model(kept_path(tmp_path), model, {"data": "reverse", "steps": 300})
    remember_kept(tmp_path, path)

    loaded, loaded_tokenizer, label, meta = load_kept(tmp_path)
    assert meta["data"] == "reverse" and meta["steps"] == 300
    hub = ModelHub()
    hub.replace(loaded, loaded_tokenizer, label, meta)
    facts = facts_of(hub.current())
    assert facts.task == "reverse" and facts.trained is True
    sort_only = ModelSetup(requires={"task": "sort"})
    assert "trained on the sort task" in unmet_requirement(sort_only, facts)
    assert unmet_requirement(ModelSetup(requires={"task": ["sort", "reverse"]}), facts) is None


def test_nothing_kept_is_none(tmp_path):
    assert load_kept(tmp_path) is None
