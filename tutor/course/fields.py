"""Field types and the strict base that every part of the lesson format shares.

``extra="forbid"`` makes a typo an error that names the field; ``frozen`` lets a validated lesson
be shared by the screens, the checker and the cache without copies.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref

ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
ShortText = Annotated[str, Field(min_length=1, max_length=300)]
LongText = Annotated[str, Field(min_length=1, max_length=6000)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_probe_ref(value: str) -> str:
    try:
        parse_probe_ref(value)
    except ProbeRefError as error:
        raise ValueError(str(error)) from None
    return value
