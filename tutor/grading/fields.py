"""Field types and the strict base that every part of the lesson format shares.

They live here, below the course package, because each question kind declares its own part of
the lesson format beside its grading (tutor.grading.kinds): the course schema then only collects
the kinds' question classes, and a new kind touches no file but its own.  ``extra="forbid"``
makes a typo an error that names the field; ``frozen`` lets a validated lesson be shared by the
screens, the checker and the cache without copies.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from tutor.common.i18n import message_of
from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref

ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
ShortText = Annotated[str, Field(min_length=1, max_length=300)]
LongText = Annotated[str, Field(min_length=1, max_length=6000)]
MAX_ATTEMPTS = 10
Reducer = Literal["value", "sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "norm", "count_zero",
                  "count_nonzero", "numel", "count_distinct", "sortedness", "max_rise"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_probe_ref(value: str) -> str:
    try:
        parse_probe_ref(value)
    except ProbeRefError as error:
        raise ValueError(message_of(error)) from None   # a Message stays one: translated where it is shown
    return value


def check_optional_probe_ref(value: str | None) -> str | None:
    return None if value is None else check_probe_ref(value)


ProbeRefText = Annotated[str, AfterValidator(check_probe_ref)]
OptionalProbeRef = Annotated[str | None, AfterValidator(check_optional_probe_ref)]


class QuestionBase(Strict):
    """The fields every kind of question has; each kind adds ``kind: Literal[name]`` and its own."""

    id: Annotated[str, Field(pattern=ID_PATTERN)]
    prompt: LongText
    hints: list[ShortText] = Field(default_factory=list, max_length=10)
    reveal: Annotated[str, Field(max_length=3000)] = ""
    show: OptionalProbeRef = None   # the probe slice revealed after answering
    attempts: int | None = Field(None, ge=1, le=MAX_ATTEMPTS)   # tries before the reveal; else the lesson's
