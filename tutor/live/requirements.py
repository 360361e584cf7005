"""Does the learner's current model fit a lesson's ``model.requires``?

A plain function the lesson screen and ``tutor lessons check`` both call: the screen says which
model a lesson needs and offers the shipped one instead (the learner's weights stay as they
are); the checker skips the lesson with the same reason.  No torch and no Textual: it reads
the sizes and the checkpoint's meta that the hub keeps beside the model.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.common.i18n import M_, ListText
from tutor.course.schema import ModelSetup
from tutor.live.weights_label import LabelText

TASK_WORDS = {"sort": M_("the sort task"), "reverse": M_("the reverse task"), "text": M_("the built-in text"),
              "file": M_("a text file")}


@dataclass(frozen=True)
class ModelFacts:
    """What is known about a model: its task (None when unknown), whether it was trained, its sizes."""

    task: str | None
    trained: bool | None
    d_model: int
    n_head: int
    n_layer: int
    label: str


def task_of(meta: dict) -> str | None:
    data = meta.get("data")
    if not isinstance(data, str) or not data:
        return None
    return data if data in ("sort", "reverse", "text") else "file"


def facts_of(snapshot) -> ModelFacts:
    """Facts about a hub snapshot (model, label, meta)."""
    config = snapshot.model.config
    steps = snapshot.meta.get("steps")
    trained = None if steps is None else bool(isinstance(steps, (int, float)) and steps > 0)
    return ModelFacts(task_of(snapshot.meta), trained, int(config.d_model), int(config.n_head),
                      int(config.n_layer), snapshot.label)


def unmet_requirement(setup: ModelSetup, facts: ModelFacts) -> str | None:
    """None when the model fits the lesson; otherwise what the lesson needs, in plain words."""
    need = setup.requires
    if setup.weights != "trained" or need is None:
        return None
    wants = []
    if need.task and facts.task not in need.task:
        wants.append(M_("trained on {tasks}", tasks=ListText((TASK_WORDS[t] for t in need.task), " or ")))
    elif need.trained is not None and facts.trained is not need.trained:   # a task already says "trained"
        wants.append(M_("trained") if need.trained else M_("untrained (fresh weights)"))
    if need.shape is not None:
        for name in ("d_model", "n_head", "n_layer"):
            wanted = getattr(need.shape, name)
            if wanted is not None and wanted != getattr(facts, name):
                wants.append(M_("{name} = {wanted}", name=name, wanted=wanted))
    if not wants:
        return None
    return M_("this lesson needs a model {wants}; the current model is {label}",
              wants=ListText(dict.fromkeys(wants)), label=LabelText(facts.label))
