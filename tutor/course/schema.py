"""The lesson format (format_version 1), as a pydantic schema.

Everything a lesson file may say is declared here with ``extra="forbid"``, so a typo is an
error that names the field instead of a silently ignored key.  The schema checks only what
one file can know; cross-file rules (prerequisites, duplicate ids) and checks against the
live model live in the checker.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, field_validator, model_validator

from tutor.common.i18n import M_
from tutor.grading.fields import ID_PATTERN, MAX_ATTEMPTS, LongText, ProbeRefText, ShortText, Strict, check_probe_ref
from tutor.grading.kinds import KINDS
# ModelSetup and ID_PATTERN are imported from here by callers; they live in their own modules.
from tutor.course.model_setup import ModelSetup

FORMAT_VERSION = 1
SIZE_NAMES = ("B", "L", "D", "H")


class FormulaSpec(Strict):
    """The formula, its translation, and how its symbols bind to live tensors."""

    expr: Annotated[str, Field(min_length=1, max_length=500)]
    translation: ShortText
    matrices: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=20)
    bind: dict[Annotated[str, Field(max_length=40)], Union[str, float]] = Field(default_factory=dict, max_length=20)
    reproduces: str | None = None
    tolerance: float = Field(1e-4, gt=0, le=1, allow_inf_nan=False)
    # an approximation (a finite difference) is off by a fraction of the value, not by a fixed amount,
    # and that value can be 0.03 on one model and 1000 on another the learner trained
    relative: bool = False
    # the formula is the lesson's given: shown from the start even where it states a question's answer
    # (the lesson screen otherwise folds it until that question is finished; ``lessons check`` warns)
    given: bool = False

    @field_validator("reproduces")
    @classmethod
    def _reproduces_is_a_probe(cls, value):
        return None if value is None else check_probe_ref(value)


# Each kind declares its own question class beside its grading (tutor.grading.kinds); the
# lesson format takes them all from the registry, so adding a kind never edits this file.
QUESTION_KINDS = {name: kind.question for name, kind in KINDS.items()}
Question = Annotated[Union[tuple(QUESTION_KINDS.values())], Field(discriminator="kind")]


class Lesson(Strict):
    format_version: Literal[1]
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    title: ShortText
    track: Annotated[str, Field(pattern=ID_PATTERN)]
    position: int = Field(ge=0, le=10_000)
    prerequisites: list[Annotated[str, Field(pattern=ID_PATTERN)]] = Field(default_factory=list, max_length=20)
    concepts: list[Annotated[str, Field(max_length=64)]] = Field(min_length=1, max_length=20)
    explanation: LongText
    formula: FormulaSpec
    model: ModelSetup = Field(default_factory=ModelSetup)
    probes: list[ProbeRefText] = Field(min_length=1, max_length=10)
    questions: list[Question] = Field(min_length=1, max_length=20)
    attempts: int = Field(3, ge=1, le=MAX_ATTEMPTS)   # tries before the reveal, unless a question says

    @model_validator(mode="after")
    def _question_ids_unique(self):
        seen: set[str] = set()
        for question in self.questions:
            if question.id in seen:
                raise ValueError(M_("two questions have the id {id!r}", id=question.id))
            seen.add(question.id)
        if self.id in self.prerequisites:
            raise ValueError(M_("a lesson cannot be its own prerequisite"))
        return self


class Track(Strict):
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    title: ShortText
    description: Annotated[str, Field(max_length=600)] = ""


class LessonIndex(Strict):
    """lessons/index.yaml: the ordered tracks and the concept ids the curriculum requires."""

    format_version: Literal[1]
    tracks: list[Track] = Field(min_length=1)
    concepts: dict[str, ShortText] = Field(default_factory=dict)


# `tutor lessons new` writes the schema beside the lesson under this name and points the YAML
# language server at it with a relative path, so the link survives moving the folder or
# reinstalling tutor (an absolute path into site-packages would not).
SCHEMA_FILE_NAME = "lesson.schema.json"


def lesson_json_schema() -> dict:
    """The lesson format as JSON Schema, built from the models above at run time, so it always
    matches the tutor that wrote it, question kinds added later included."""
    schema = Lesson.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"tutor lesson (format_version {FORMAT_VERSION})",
            "description": "A lesson file for tutor; `tutor lessons docs` explains every field.",
            **{key: value for key, value in schema.items() if key != "title"}}
