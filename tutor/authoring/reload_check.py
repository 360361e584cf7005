"""The live check of one lesson the app has just reloaded.

Hot reload only parses a saved file; a lesson that asks for an unknown probe or a slice out of
range loads fine and fails when a learner answers.  This runs the same live checks as
``tutor lessons check`` on the reloaded lesson, so the author hears about it on save.  It needs
no catalog (cross-file rules are checked at reload already) and is meant for a worker thread.
"""
from __future__ import annotations

from pathlib import Path

from tutor.authoring.check import check_question_texts, check_formula_text, check_placeholder_syntax
from tutor.authoring.check_live import check_live
from tutor.authoring.pinned import Pinned
from tutor.course.loader import Problem, read_yaml
from tutor.course.schema import Lesson
from tutor.live.requirements import facts_of, unmet_requirement

RELOAD_VARIANTS = 1   # random size draws beyond the lesson's own and its ranges' corners: a save should be quick


def live_problems(path: Path, lesson: Lesson, hub) -> list[Problem]:
    """Problems the live check finds in ``lesson`` (loaded from ``path``) on the hub's current model.

    A lesson whose ``model.requires`` the current model does not meet is not run: the lesson
    screen says which model it needs, and that is not a problem of the file.
    """
    try:
        root = read_yaml(path)[1]
    except Exception:   # changed or gone since the reload: the next poll reports it
        return []
    pinned = Pinned(path, root)
    check_question_texts(lesson, pinned)
    check_placeholder_syntax(lesson, pinned)
    formula_ok = check_formula_text(lesson, pinned)
    if lesson.model.weights == "trained" and lesson.model.requires is not None:
        try:
            if unmet_requirement(lesson.model, facts_of(hub.current())):
                return pinned.problems
        except Exception:   # no checkpoint: check_live reports it on model.weights
            pass
    try:
        check_live(lesson, hub, pinned, RELOAD_VARIANTS, formula_ok)
    except Exception as error:   # a bug of ours is still worth telling the author, without a traceback
        pinned.add((), f"the live check stopped: {type(error).__name__}: {error}")
    return pinned.problems
