"""Learners' progress exports (hand-ins), read for the class report through the progress store's own
import checks, so a file the tutor would refuse to import is never merged into a report either.

Why the report reads each export's question *records* and not its answer rows: a record is the one
place a question's score lives (right first time, after a retry, not got; a give-up is not got), and
answers after it are practice or review, which never change the score.  Version 1 and 2 exports
have no records: the import check derives them by the rules that migrate an old database, so every
version is scored alike.  The answers are still read, in attempt order, for the wrong answers the
class gave on its scored tries, and the outcomes for the time spent on each question.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tutor.classroom.handin import MAX_NAME_CHARS
from tutor.common.i18n import M_, message_of
from tutor.common.safe_files import UnsafeFileError, read_json_file
from tutor.common.safe_text import find_unsafe, one_line
from tutor.progress.import_check import MAX_IMPORT_BYTES, MAX_INFLATED_BYTES, ExportFileError, check_export
from tutor.progress.records import Mode, QuestionRecord
from tutor.progress.review import parse_iso
from tutor.progress.store import EXPORT_FORMAT, EXPORT_VERSION

HANDIN_SUFFIXES = (".json", ".json.gz")


@dataclass(frozen=True)
class Answer:
    """One scored try at one question, as the export holds it (already validated)."""

    timestamp: str     # canonical UTC ISO 8601: sorts in time order as text
    lesson_id: str
    question_id: str
    text: str
    correct: bool
    hints_used: int
    attempt: int
    variant: str | None


@dataclass(frozen=True)
class LearnerExport:
    name: str
    source: str                                   # the file, terminal-safe
    records: tuple[QuestionRecord, ...]
    scored: tuple[Answer, ...]                    # scored tries only, by question then attempt number
    seconds: dict[tuple[str, str], float]         # (lesson, question) -> seconds on screen, every encounter
    last_seen: datetime | None
    account: str | None = None                    # who owns the file (a hand-in), where the system says


def _learner_name(doc: dict, path: Path) -> str:
    """The name the export gives its learner (a plain "learner" string), else the file's name."""
    given = doc.get("learner") if isinstance(doc, dict) else None
    if isinstance(given, str) and given.strip() and len(given) <= MAX_NAME_CHARS and not find_unsafe(given, keep=""):
        return given.strip()
    name = path.name
    for suffix in (".gz", ".json"):
        name = name.removesuffix(suffix)
    return one_line(name) or one_line(path.name)


def _owner(path: Path) -> str | None:
    try:
        import pwd

        return one_line(pwd.getpwuid(os.stat(path).st_uid).pw_name)
    except (ImportError, KeyError, OSError):
        return None


def read_learner(path: str | Path) -> LearnerExport:
    """One learner's export (plain or gzip), or ExportFileError (a terminal-safe message)."""
    path = Path(path)
    try:
        doc = read_json_file(path, MAX_IMPORT_BYTES, what=M_("progress export"), inflated_max=MAX_INFLATED_BYTES)
    except UnsafeFileError as error:
        raise ExportFileError(message_of(error)) from None
    content = check_export(doc, str(path), EXPORT_FORMAT, EXPORT_VERSION)
    rows = sorted((row for row in content.answers if row[8] == Mode.SCORED.value), key=lambda r: (r[1], r[2], r[7]))
    scored = tuple(Answer(timestamp=row[0], lesson_id=row[1], question_id=row[2], text=row[3], correct=bool(row[4]),
                          hints_used=row[5], attempt=row[7], variant=row[6]) for row in rows)
    seconds: dict[tuple[str, str], float] = {}
    for row in content.outcomes:
        if row[8] is not None:
            seconds[(row[1], row[2])] = seconds.get((row[1], row[2]), 0.0) + row[8] / 1000
    moments = [record.updated for record in content.records] + [parse_iso(row[0]) for row in content.answers]
    return LearnerExport(_learner_name(doc, path), one_line(str(path)), tuple(content.records), scored, seconds,
                         max(moments, default=None), _owner(path))


def hand_ins(folder: str | Path) -> list[Path]:
    """The hand-ins in an exchange folder (``NAME.json.gz`` or ``NAME.json``), by name; a partly
    written one (``.NAME.….tmp``) is not one yet."""
    folder = Path(folder)
    return sorted(path for path in folder.iterdir()
                  if not path.name.startswith(".") and path.name.endswith(HANDIN_SUFFIXES))


def read_class(paths: list[str | Path]) -> tuple[list[LearnerExport], list[str]]:
    """Every readable export, and one message per file that was skipped (never merged)."""
    learners, problems = [], []
    for path in paths:
        try:
            learners.append(read_learner(path))
        except ExportFileError as error:
            problems.append(message_of(error))   # terminal-safe where it is shown, in the language of then
    taken: dict[str, int] = {}
    named = []
    for learner in learners:   # two files naming the same learner stay two rows, told apart by file
        taken[learner.name] = taken.get(learner.name, 0) + 1
        if taken[learner.name] > 1:
            learner = LearnerExport(f"{learner.name} ({Path(learner.source).name})", learner.source, learner.records,
                                    learner.scored, learner.seconds, learner.last_seen, learner.account)
        named.append(learner)
    return named, problems
