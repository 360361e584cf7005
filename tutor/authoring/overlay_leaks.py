"""The leak check on translations: an overlay must not give away an answer the English keeps back.

A translator rewrites the prose a learner reads before predicting, so a translation can state an
answer the English carefully avoids ("the row sums to 1", a shape written out).  The English
lesson's live run already holds every question's truth; here each overlay's prose is put in its
place and searched with the same rules (tutor.live.leaks), and each leak is pinned to the
overlay file.
"""
from __future__ import annotations

from pathlib import Path

from tutor.live.leaks import find_leaks
from tutor.authoring.pinned import Pinned, placeholder_at
from tutor.common.i18n import DEFAULT, LANGUAGES, language_name
from tutor.course.loader import Problem, read_model_file
from tutor.course.overlay import LessonOverlay, apply_overlay, overlay_path
from tutor.course.schema import Lesson


def _translations(lesson: Lesson, lesson_path: Path):
    """(language, file, its YAML tree, the lesson in that language) for each overlay beside the lesson."""
    for language in LANGUAGES:
        path = overlay_path(lesson_path, language)
        if language == DEFAULT or not path.is_file():
            continue
        overlay, root, _problems = read_model_file(LessonOverlay, path)
        if overlay is None or overlay.lesson != lesson.id:
            continue   # a broken overlay is check_overlay's to report; the learner sees English
        yield language, path, root, apply_overlay(lesson, overlay)


def overlay_leaks(lesson: Lesson, lesson_path: Path, tensors, sizes, truths: dict[int, object]) -> list[Problem]:
    """Problems (in the overlay files beside ``lesson_path``) for answers their prose gives away."""
    problems: list[Problem] = []
    for language, path, root, translated in _translations(lesson, lesson_path):
        pinned = Pinned(path, root)
        for leak in find_leaks(translated, tensors, sizes, truths):
            loc = _overlay_field(lesson, leak.loc)
            # explanations are re-joined from the file's lines, so offsets are only exact elsewhere
            at = None if loc[0] == "explanation" else placeholder_at(pinned, loc, leak.offset)
            pinned.add(loc, f"({language_name(language)}) {leak.message(translated)}", at)
        problems += pinned.problems
    return problems


def overlay_says_leaks(lesson: Lesson, lesson_path: Path, truths: dict[int, object]) -> list[Problem]:
    """Warnings (in the overlay files) for a translated ``says:`` sentence that writes its answer, as
    the English one gets (tutor.authoring.says_leaks)."""
    from tutor.authoring.says_leaks import says_leaks

    warnings: list[Problem] = []
    for language, path, root, translated in _translations(lesson, lesson_path):
        pinned = Pinned(path, root)
        for leak in says_leaks(translated, truths):
            loc = ("questions", lesson.questions[leak.question].id, "says", leak.number)
            pinned.warn(loc, f"({language_name(language)}) {leak.message(translated)}",
                        placeholder_at(pinned, loc, leak.offset))
        warnings += pinned.warnings
    return warnings


def _overlay_field(lesson: Lesson, loc: tuple) -> tuple:
    """A lesson field's place in an overlay, where questions are keyed by id, not index."""
    if loc and loc[0] == "questions":
        return ("questions", lesson.questions[loc[1]].id, *loc[2:])
    return loc
