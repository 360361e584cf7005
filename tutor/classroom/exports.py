"""Learners' progress exports, read for the class report through the progress store's own import
checks, so a file the tutor would refuse to import is never merged into a report either.

Why the report reads only each export's ``answers`` list: every export version has it (version 1
holds nothing else; version 2 adds outcomes; a later version may add more records), and from
answers alone the report gets what a teacher asks: the earliest answer to a question is the
learner's first attempt, and the texts of wrong answers are what the class believes.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tutor.common.i18n import M_, message_of
from tutor.common.safe_files import UnsafeFileError, read_json_file
from tutor.common.safe_text import find_unsafe, one_line
from tutor.progress.import_check import MAX_IMPORT_BYTES
from tutor.progress.io import read_export
from tutor.progress.store import ProgressError

MAX_NAME_CHARS = 80


@dataclass(frozen=True)
class Answer:
    """One attempt at one question, as the export holds it (already validated)."""

    timestamp: str     # canonical UTC ISO 8601: sorts in time order as text
    lesson_id: str
    question_id: str
    text: str
    correct: bool
    hints_used: int
    attempt: int


@dataclass(frozen=True)
class LearnerExport:
    name: str
    source: str        # the file, terminal-safe
    answers: tuple[Answer, ...]


def _learner_name(path: Path) -> str:
    """A name the export gives its learner (a plain "learner" string), else the file's name.

    Read after the import checks passed, and read the same guarded way (the file may have been
    swapped since: a FIFO must not hang the report).
    """
    try:
        given = read_json_file(path, MAX_IMPORT_BYTES, what=M_("progress export")).get("learner")
    except (UnsafeFileError, AttributeError):
        given = None
    if isinstance(given, str) and given.strip() and len(given) <= MAX_NAME_CHARS and not find_unsafe(given, keep=""):
        return given.strip()
    return one_line(path.stem) or one_line(path.name)


def read_learner(path: str | Path) -> LearnerExport:
    """One learner's export, or ProgressError (a terminal-safe message) for a bad or foreign file."""
    path = Path(path)
    content = read_export(path)
    answers = tuple(Answer(timestamp=row[0], lesson_id=row[1], question_id=row[2], text=row[3], correct=bool(row[4]),
                           hints_used=row[5], attempt=row[7]) for row in content.answers)
    return LearnerExport(_learner_name(path), one_line(str(path)), answers)


def read_class(paths: list[str | Path]) -> tuple[list[LearnerExport], list[str]]:
    """Every readable export, and one message per file that was skipped (never merged)."""
    learners, problems = [], []
    for path in paths:
        try:
            learners.append(read_learner(path))
        except ProgressError as error:
            problems.append(message_of(error))   # terminal-safe where it is shown, in the language of then
    taken: dict[str, int] = {}
    named = []
    for learner in learners:   # two files naming the same learner stay two rows, told apart
        taken[learner.name] = taken.get(learner.name, 0) + 1
        if taken[learner.name] > 1:
            learner = LearnerExport(f"{learner.name} ({Path(learner.source).name})", learner.source, learner.answers)
        named.append(learner)
    return named, problems
