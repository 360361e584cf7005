"""Lesson translations as overlays: ``lessons/<lang>/<lesson-id>.yaml`` holds only prose.

Probes, formulas, sizes, answers and tolerances stay in the English file, so a translation
can never change what is asked or how it is graded; an overlay only replaces the words.
An overlay is read exactly like a lesson (the same safe YAML reader, a pydantic schema with
unknown fields refused), and it records a short hash of the English prose it translates so
the checker can say when the English has moved on.

Applying an overlay gives an ordinary ``Lesson``; a field it does not translate keeps its
English, marked with ``UNTRANSLATED`` so the learner knows why it is not in their language.
Choices are the exception: they stay unmarked, because a learner may type a choice's text.

The index has one overlay per language (``lessons/<lang>/index.yaml``) for the tracks' titles
and descriptions and the concepts' descriptions, hashed the same way: a concept description
is a one-line fact, and a fact fixed in English must not stay wrong in Chinese unnoticed.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from tutor.common.wide_wrap import is_wide
from tutor.grading.fields import LongText, ShortText
from tutor.grading.formula_says import sentences, with_sentences
from tutor.course.loader import LessonFileError, load_model_file
from tutor.course.schema import ID_PATTERN, Lesson, Strict

UNTRANSLATED = "[EN] "
# files in a language folder that are not lesson overlays
NOT_OVERLAYS = {"index.yaml", "glossary.yaml"}
Hash = Annotated[str, Field(pattern=r"^[0-9a-f]{8}$")]


def _joined_lines(text: str) -> str:
    """A paragraph's hard-wrapped lines joined, with no space where two CJK characters meet.

    The lesson screen joins an author's lines with a space (right for English); a Chinese
    sentence broken across lines would get a stray space, so overlays are joined here first.
    """
    paragraphs = []
    for block in text.strip().split("\n\n"):
        joined = ""
        for line in (part.strip() for part in block.splitlines()):
            if joined and line and not (is_wide(joined[-1]) or is_wide(line[0])):
                joined += " "
            joined += line
        paragraphs.append(joined)
    return "\n\n".join(p for p in paragraphs if p)


# control characters and bidi overrides are refused by the shared YAML reader (course/text_safety.py)
Reveal = Annotated[str, Field(max_length=3000)]


class QuestionOverlay(Strict):
    prompt: LongText | None = None
    hints: list[ShortText] | None = Field(None, max_length=10)
    reveal: Reveal | None = None
    choices: list[ShortText] | None = Field(None, max_length=8)
    says: list[ShortText] | None = Field(None, max_length=30)   # a formula question's sentences for its mistakes


class FormulaOverlay(Strict):
    translation: ShortText | None = None


class LessonOverlay(Strict):
    format_version: Literal[1]
    lesson: Annotated[str, Field(pattern=ID_PATTERN)]      # the English lesson's id
    source: Hash                                           # source_hash() of the English it translates
    title: ShortText | None = None
    explanation: LongText | None = None
    formula: FormulaOverlay = Field(default_factory=FormulaOverlay)
    questions: dict[Annotated[str, Field(pattern=ID_PATTERN)], QuestionOverlay] = Field(default_factory=dict,
                                                                                         max_length=20)


class TrackOverlay(Strict):
    title: ShortText
    description: Annotated[str, Field(max_length=600)] = ""


class IndexOverlay(Strict):
    """``lessons/<lang>/index.yaml``: the track titles and descriptions, the concept descriptions."""

    format_version: Literal[1]
    source: Hash                                           # index_source_hash() of the English it translates
    tracks: dict[Annotated[str, Field(pattern=ID_PATTERN)], TrackOverlay] = Field(default_factory=dict)
    concepts: dict[Annotated[str, Field(max_length=64)], ShortText] = Field(default_factory=dict, max_length=500)


def english_prose(lesson: Lesson) -> dict:
    """Every translatable field of a lesson, as the overlay spells it (what the hash covers)."""
    questions = {}
    for question in lesson.questions:
        prose = {"prompt": question.prompt, "hints": list(question.hints), "reveal": question.reveal}
        if getattr(question, "choices", None) is not None:
            prose["choices"] = list(question.choices)
        if said := sentences(question):   # only where there are some: other lessons' hashes stay as they were
            prose["says"] = said
        questions[question.id] = prose
    return {"title": lesson.title, "explanation": lesson.explanation,
            "formula": {"translation": lesson.formula.translation}, "questions": questions}


def index_prose(index) -> dict:
    """Every translatable field of the index, as its overlay spells it (what its hash covers)."""
    return {"tracks": {track.id: {"title": track.title, "description": track.description} for track in index.tracks},
            "concepts": dict(index.concepts)}


def _prose_hash(prose: dict) -> str:
    """Eight hex digits of SHA-256 over English prose: changes when any of it changes."""
    canonical = json.dumps(prose, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:8]


def source_hash(lesson: Lesson) -> str:
    return _prose_hash(english_prose(lesson))


def index_source_hash(index) -> str:
    return _prose_hash(index_prose(index))


def overlay_path(lesson_path: Path, language: str) -> Path:
    return Path(lesson_path).parent / language / Path(lesson_path).name


def load_overlay(path: Path | str) -> LessonOverlay:
    """One overlay file, or LessonFileError with every problem in it (as for lessons)."""
    return load_model_file(LessonOverlay, path)


def load_index_overlay(folder: Path, language: str) -> IndexOverlay | None:
    path = Path(folder) / language / "index.yaml"
    if not path.is_file():
        return None
    try:
        return load_model_file(IndexOverlay, path)
    except LessonFileError:
        return None   # the checker reports it; the roadmap shows the English track titles


def overlay_files(folder: Path, language: str) -> list[Path]:
    found = (Path(folder) / language).glob("*.yaml")
    return sorted(p for p in found if p.name not in NOT_OVERLAYS)


def _translated(english: str, translation: str | None) -> str:
    if translation:
        return translation
    return english if not english else UNTRANSLATED + english


def _translated_list(english: list[str], translation: list[str] | None, mark: bool = True) -> list[str]:
    translation = translation or []
    return [translation[i] if i < len(translation) and translation[i] else
            (UNTRANSLATED + text if mark else text) for i, text in enumerate(english)]


def apply_overlay(lesson: Lesson, overlay: LessonOverlay | None) -> Lesson:
    """The lesson with its prose in the overlay's language; what it lacks stays English, marked.

    Only prose changes: the result has the same questions, probes and answers, so progress
    recorded in one language counts in the other.
    """
    overlay = overlay or LessonOverlay(format_version=1, lesson=lesson.id, source=source_hash(lesson))
    questions = []
    for question in lesson.questions:
        words = overlay.questions.get(question.id) or QuestionOverlay()
        update = {"prompt": _translated(question.prompt, words.prompt),
                  "hints": _translated_list(list(question.hints), words.hints),
                  "reveal": _translated(question.reveal, words.reveal)}
        if getattr(question, "choices", None) is not None:
            update["choices"] = _translated_list(list(question.choices), words.choices, mark=False)
        said = _translated_list(sentences(question), words.says)
        questions.append(with_sentences(question.model_copy(update=update), said))
    formula = lesson.formula.model_copy(
        update={"translation": _translated(lesson.formula.translation, overlay.formula.translation)})
    return lesson.model_copy(update={"title": _translated(lesson.title, overlay.title),
                                     "explanation": _translated(lesson.explanation, overlay.explanation and
                                                                _joined_lines(overlay.explanation)),
                                     "formula": formula, "questions": questions})


def translate_lesson(lesson: Lesson, lesson_path: Path, language: str) -> Lesson:
    """The lesson as a learner of ``language`` sees it (a broken overlay counts as none: the
    checker reports it, and the learner still gets the lesson, in marked English)."""
    path = overlay_path(lesson_path, language)
    overlay = None
    if path.is_file():
        try:
            overlay = load_overlay(path)
        except LessonFileError:
            overlay = None
    if overlay is not None and overlay.lesson != lesson.id:
        overlay = None
    return apply_overlay(lesson, overlay)


def translate_index(index, folder: Path, language: str):
    """The index with its tracks' and concepts' words in ``language`` where translated; what is not
    keeps its English, marked, as a lesson's field does."""
    overlay = load_index_overlay(folder, language)
    if overlay is None:
        return index
    tracks = []
    for track in index.tracks:
        words = overlay.tracks.get(track.id)
        title, description = (words.title, words.description) if words else (None, None)
        tracks.append(track.model_copy(update={"title": _translated(track.title, title),
                                               "description": _translated(track.description, description)}))
    concepts = {concept: _translated(english, overlay.concepts.get(concept))
                for concept, english in index.concepts.items()}
    return index.model_copy(update={"tracks": tracks, "concepts": concepts})
