"""``tutor lessons check`` for translations: the overlays in ``<lessons>/<lang>/``.

An overlay must say the same thing as its English lesson in other words, so the checks are
about what a translator can get wrong without noticing: a question id that does not exist,
a ``{{ placeholder }}`` or a number that changed on the way, more hints than the English.
Those are errors.  A field not translated yet, or an English lesson edited since its
translation (the overlay's ``source`` hash), are warnings: the learner still gets every
question, with the English shown and marked, and the English authors are not blocked.
Messages stay English: they are for authors.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from pathlib import Path

from tutor.authoring.pinned import Pinned
from tutor.common.i18n import DEFAULT, LANGUAGES, M_
from tutor.course.catalog import Catalog
from tutor.course.loader import LessonFileError, Problem, read_model_file
from tutor.course.overlay import (IndexOverlay, LessonOverlay, english_prose, index_source_hash, overlay_files,
                                  overlay_path, source_hash)
from tutor.course.placeholders import PlaceholderError, scan

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# English groups thousands with a space ("65 504", "10 000"); Chinese writes 65504 and says
# 1 亿 for "100 million": both are read as the one number they are before comparing
_GROUPED = re.compile(r"(?<![\d.])(\d{1,3})((?: \d{3})+)(?!\d)")
_SCALED = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(thousand|million|billion|万|亿)")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "万": 10**4, "亿": 10**8}
TRANSLATED = [code for code in LANGUAGES if code != DEFAULT]


def is_overlay_path(path: Path) -> bool:
    return path.parent.name in TRANSLATED


def split_targets(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(lesson paths, overlay files named directly): a file or folder inside a language folder
    is a translation, not a lesson."""
    lessons, overlays = [], []
    for path in paths:
        if path.is_dir() and path.name in TRANSLATED:
            overlays += overlay_files(path.parent, path.name)
            overlays += [path / "index.yaml"] if (path / "index.yaml").is_file() else []
        elif path.is_file() and is_overlay_path(path):
            overlays.append(path)
        else:
            lessons.append(path)
    return lessons, overlays


def overlays_beside(lesson_files: list[Path]) -> list[Path]:
    """The translations that belong with checked lessons: every overlay in the language folders
    of their folders (so an overlay whose lesson is gone is found too), and their index.yaml."""
    found = []
    for folder in dict.fromkeys(Path(f).parent for f in lesson_files):
        for language in TRANSLATED:
            found += overlay_files(folder, language)
            index = folder / language / "index.yaml"
            found += [index] if index.is_file() else []
    return found


def check_index_overlay(path: Path, catalog: Catalog) -> tuple[list[Problem], list[Problem]]:
    """A language's index.yaml, checked like a lesson's overlay against the English index: only
    track and concept ids it has, the same numbers and placeholders; and, as warnings, what is
    not translated yet and a ``source`` hash the English has moved on from."""
    overlay, root, problems = read_model_file(IndexOverlay, path)
    if overlay is None:
        return problems, []
    errors, warnings = Pinned(path, root), Pinned(path, root)
    index = catalog.index   # the English one: the checker's catalog is never translated
    current = index_source_hash(index)
    if overlay.source != current:
        warnings.add(("source",), M_("stale: the English of {id!r} changed since this translation (source {old}, "
                                     "now {new}); update the translation, then set source: {new}",
                                     id="lessons/index.yaml", old=overlay.source, new=current))
    known = [track.id for track in index.tracks]
    for track_id in overlay.tracks:
        if track_id not in known:
            errors.add(("tracks", track_id), M_("no track has the id {id!r}; the tracks are: {tracks}", id=track_id,
                                                tracks=", ".join(known)))
    for track in index.tracks:
        words = overlay.tracks.get(track.id)
        if words is None:
            warnings.add(("tracks",), M_("{field} not translated yet (shown in English, marked)", field=track.id))
            continue
        _compare(("tracks", track.id, "title"), track.title, words.title, errors, warnings)
        _compare(("tracks", track.id, "description"), track.description, words.description, errors, warnings)
    for concept in overlay.concepts:
        if concept not in index.concepts:
            errors.add(("concepts", concept), unknown_concept(concept, list(index.concepts)))
    for concept, english in index.concepts.items():
        _compare(("concepts", concept), english, overlay.concepts.get(concept), errors, warnings)
    return errors.problems, warnings.problems


def unknown_concept(concept: str, known: list[str]) -> str:
    """The one message for a concept id the index lacks, in a lesson or in a translation."""
    close = difflib.get_close_matches(concept, known, n=1)
    hint = M_("did you mean {name!r}? ", name=close[0]) if close else ""
    return M_("unknown concept id {id!r}; {hint}'tutor lessons concepts' lists them all", id=concept, hint=hint)


def check_overlays(paths: list[Path], catalog: Catalog) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) for each overlay file, pinned to path:line:col."""
    errors, warnings = [], []
    for path in dict.fromkeys(paths):
        found_errors, found_warnings = check_overlay(Path(path), catalog)
        errors += found_errors
        warnings += found_warnings
    return errors, warnings


def check_overlay(path: Path, catalog: Catalog) -> tuple[list[Problem], list[Problem]]:
    if path.name == "index.yaml":
        return check_index_overlay(path, catalog)
    overlay, root, problems = read_model_file(LessonOverlay, path)
    if overlay is None:
        return problems, []
    errors, warnings = Pinned(path, root), Pinned(path, root)
    if overlay.lesson != path.stem:
        errors.add(("lesson",), M_("the file is named {name}.yaml but translates {id!r}; name the file after the "
                                   "lesson id", name=path.stem, id=overlay.lesson))
    item = catalog.get(overlay.lesson) or _english_beside(path, overlay.lesson)
    if item is None:
        errors.add(("lesson",), M_("no lesson has the id {id!r}; an overlay translates an existing lesson",
                                   id=overlay.lesson))
        return errors.problems, []
    if overlay_path(item.path, path.parent.name).resolve() != path.resolve():
        warnings.add(("lesson",), M_("{id!r} is {path}; the app reads its translation from {overlay}, not from here",
                                     id=overlay.lesson, path=str(item.path),
                                     overlay=str(overlay_path(item.path, path.parent.name))))
    english = english_prose(item.lesson)
    current = source_hash(item.lesson)
    if overlay.source != current:
        warnings.add(("source",), M_("stale: the English of {id!r} changed since this translation (source {old}, "
                                     "now {new}); update the translation, then set source: {new}",
                                     id=overlay.lesson, old=overlay.source, new=current))
    _compare(("title",), english["title"], overlay.title, errors, warnings)
    _compare(("explanation",), english["explanation"], overlay.explanation, errors, warnings)
    _compare(("formula", "translation"), english["formula"]["translation"], overlay.formula.translation,
             errors, warnings)
    for question_id, words in overlay.questions.items():
        if question_id not in english["questions"]:
            known = ", ".join(english["questions"])
            errors.add(("questions", question_id), M_("{id!r} has no question {question!r}; its questions: {known}",
                                                      id=overlay.lesson, question=question_id, known=known))
    for question_id, prose in english["questions"].items():
        words = overlay.questions.get(question_id)
        if words is None:
            warnings.add(("questions",), M_("question {question!r} is not translated yet (shown in English, marked)",
                                            question=question_id))
            continue
        loc = ("questions", question_id)
        _compare(loc + ("prompt",), prose["prompt"], words.prompt, errors, warnings)
        _compare(loc + ("reveal",), prose["reveal"], words.reveal, errors, warnings)
        _compare_list(loc, "hints", prose["hints"], words.hints, errors, warnings)
        if "choices" in prose:
            _compare_list(loc, "choices", prose["choices"], words.choices, errors, warnings)
        elif words.choices is not None:
            errors.add(loc + ("choices",), M_("question {question!r} is not a choice question; remove choices",
                                              question=question_id))
        if "says" in prose:
            _compare_list(loc, "says", prose["says"], words.says, errors, warnings)
        elif words.says is not None:
            errors.add(loc + ("says",), M_("question {question!r} has no reject: entry with a says: sentence; remove "
                                           "says", question=question_id))
    return errors.problems, warnings.problems


def _english_beside(path: Path, lesson_id: str):
    """The English lesson in the folder above, for an overlay checked on its own."""
    from tutor.course.catalog import LoadedLesson, load_lesson

    english = path.parent.parent / f"{lesson_id}.yaml"
    if not english.is_file():
        return None
    try:
        return LoadedLesson(load_lesson(english), english, builtin=False)
    except LessonFileError:
        return None   # the English file's own problems are reported when it is checked


def _compare_list(loc: tuple, name: str, english: list[str], translated: list[str] | None,
                  errors: Pinned, warnings: Pinned) -> None:
    if not english and not translated:
        return
    if translated is None:
        warnings.add(loc, M_("{name} not translated yet ({count} in the English)", name=name, count=len(english)))
        return
    if len(translated) > len(english) or (name == "choices" and len(translated) != len(english)):
        errors.add(loc + (name,), M_("the English has {count} {name}; this has {given} (translate each one, in the "
                                     "same order)", count=len(english), name=name, given=len(translated)))
        return
    if len(translated) < len(english):
        warnings.add(loc + (name,), M_("{missing} of the {count} {name} not translated yet",
                                       missing=len(english) - len(translated), count=len(english), name=name))
    for i, (source, text) in enumerate(zip(english, translated)):
        _compare(loc + (name, i), source, text, errors, warnings)


def _compare(loc: tuple, english: str, translated: str | None, errors: Pinned, warnings: Pinned) -> None:
    """Same placeholders (reference and format) and the same numbers, in any order."""
    if not translated:
        if english:
            warnings.add(loc[:-1], M_("{field} not translated yet (shown in English, marked)", field=loc[-1]))
        return
    english_marks, english_bad = _placeholders(english)
    marks, bad = _placeholders(translated)
    for error in bad:
        errors.add(loc, str(error))
    if not bad and not english_bad and Counter(marks) != Counter(english_marks):
        missing = sorted((Counter(english_marks) - Counter(marks)).elements())
        extra = sorted((Counter(marks) - Counter(english_marks)).elements())
        errors.add(loc, M_("the placeholders differ from the English{difference}; keep every {{{{ placeholder }}}} "
                           "exactly as the English has it", difference=_difference(missing, extra)))
    english_numbers, numbers = _numbers(english), _numbers(translated)
    if english_numbers != numbers:
        missing = sorted((english_numbers - numbers).elements())
        extra = sorted((numbers - english_numbers).elements())
        errors.add(loc, M_("the numbers differ from the English{difference}; write every number with the same "
                           "digits as the English", difference=_difference(missing, extra)))


def _difference(missing: list[str], extra: list[str]) -> str:
    parts = ([M_("missing {items}", items=", ".join(missing))] if missing else []) + \
        ([M_("extra {items}", items=", ".join(extra))] if extra else [])
    return M_(" ({parts})", parts=M_("{first}; {second}", first=parts[0], second=parts[1]) if len(parts) == 2 else parts[0])


def _placeholders(text: str) -> tuple[list[str], list[PlaceholderError]]:
    found, bad = [], []
    for item in scan(text):
        if isinstance(item, PlaceholderError):
            bad.append(item)
        else:
            found.append(f"{{{{ {item.ref}{' | ' + item.fmt if item.fmt else ''} }}}}")
    return found, bad


def _numbers(text: str) -> Counter:
    """The numbers of the prose, placeholders left out (they hold probe indices, compared above)."""
    outside, position = [], 0
    for item in scan(text):
        start, end = (item.start, item.end)
        outside.append(text[position:start])
        position = end
    outside.append(text[position:])
    prose = _GROUPED.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), "".join(outside))
    prose = _SCALED.sub(lambda m: f"{float(m.group(1)) * _SCALES[m.group(2)]:.0f}", prose)
    return Counter(_NUMBER.findall(prose))
