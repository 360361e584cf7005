"""A progress export read as untrusted input: bounded, parsed safely, every field checked.

Why each bound: an import file comes from anywhere.  ``[`` repeated 100,000 times overflowed
the parser's recursion; ``hints_used: 10**30`` and timestamps in year 1 or 9999 overflowed
SQLite integers and the review schedule's date arithmetic; a lone surrogate (``"\\ud800"``)
cannot be stored as UTF-8; a FIFO or ``/dev/zero`` never finished reading; and a 100 MB answer
was stored although the app caps a typed answer at 2000 characters.  Here the file is read by the
shared safe reader (tutor.common.safe_files: a regular file under ``MAX_IMPORT_BYTES``, nested
no deeper than an export can be), and each answer must be something
the app itself could have written, or the whole import is refused with the answer's number,
the field and the rule, and nothing is changed.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from tutor.common.i18n import M_, Message, message_of
from tutor.common.pydantic_words import rule_of
from tutor.common.safe_files import UnsafeFileError, read_json_file
from tutor.common.safe_text import find_unsafe, neutralise
from tutor.grading.answers import MAX_ANSWER_CHARS
from tutor.grading.attempts import Outcome
from tutor.progress.import_histories import check_histories as _check_histories
from tutor.progress.migrate import by_question, derive_question, v1_outcome
from tutor.progress.records import Mode, QuestionRecord, Role, fold_answer
from tutor.progress.review import iso, parse_iso

MAX_IMPORT_BYTES = 64 * 1024 * 1024      # ~200,000 answers as JSON; a year of daily study is a few thousand
MAX_INFLATED_BYTES = 512 * 1024 * 1024   # a gzip export unpacked: MAX_ANSWERS' worth (~320 MB), not a zip bomb
MAX_ANSWERS = 1_000_000
MAX_HINTS = 100                          # a question has a handful of hints
MAX_ATTEMPTS = 100                       # a question allows a few attempts (3 by default)
MAX_ID_CHARS = 200
MAX_VARIANT_CHARS = 1000
MAX_DURATION_MS = 7 * 24 * 3600 * 1000   # a question left on screen for a week is still one review
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
# Late enough for any real answer; early enough that review intervals grown from it stay
# far inside datetime's range (year 9999).
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)


class ExportFileError(ValueError):
    """An export file that cannot be imported; the message is shown as is."""


def _plain_text(value: str) -> str:
    """Storable (valid UTF-8: no lone surrogates) and harmless to print (no controls)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(M_("holds a lone surrogate (\\ud800-\\udfff), which is not text")) from None
    unsafe = find_unsafe(value, keep="")
    if unsafe:
        raise ValueError(M_("holds the control character {character}", character=unsafe[0].description))
    return value


def _timestamp(value: str) -> str:
    """The canonical UTC form of a timestamp between 1970 and 2200."""
    try:
        moment = parse_iso(value)
    except (ValueError, OverflowError):
        raise ValueError(M_("is not an ISO 8601 time such as 2024-05-01T12:00:00+00:00")) from None
    if not EARLIEST <= moment < LATEST:
        raise ValueError(M_("must be between {first} and {last}", first=EARLIEST.year, last=LATEST.year))
    return iso(moment)


PlainText = AfterValidator(_plain_text)
Id = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS), PlainText]


class ExportedAnswer(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    timestamp: Annotated[str, Field(max_length=64), AfterValidator(_timestamp)]
    lesson_id: Id
    question_id: Id
    # control whitespace folded first, as the app stores it (exports before that held a pasted tab)
    answer: Annotated[str, Field(max_length=MAX_ANSWER_CHARS), AfterValidator(fold_answer), PlainText]
    correct: StrictBool
    hints_used: Annotated[StrictInt, Field(ge=0, le=MAX_HINTS)]
    variant: Optional[Annotated[str, Field(max_length=MAX_VARIANT_CHARS), PlainText]] = None
    attempt: Annotated[StrictInt, Field(ge=1, le=MAX_ATTEMPTS)] = 1
    mode: Annotated[str, AfterValidator(lambda value: Mode(value).value)] = Mode.SCORED.value

    def row(self) -> tuple:
        return (self.timestamp, self.lesson_id, self.question_id, self.answer, int(self.correct),
                self.hints_used, self.variant, self.attempt, self.mode)


class ExportedOutcome(BaseModel):
    """A question's first-attempt outcome (version 2 exports)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    timestamp: Annotated[str, Field(max_length=64), AfterValidator(_timestamp)]
    lesson_id: Id
    question_id: Id
    outcome: Annotated[str, AfterValidator(lambda value: Outcome(value).value)]
    attempts: Annotated[StrictInt, Field(ge=0, le=MAX_ATTEMPTS)]
    hints_used: Annotated[StrictInt, Field(ge=0, le=MAX_HINTS)]
    variant: Optional[Annotated[str, Field(max_length=MAX_VARIANT_CHARS), PlainText]] = None
    role: Annotated[str, AfterValidator(lambda value: Role(value).value)] = Role.SCORE.value
    duration_ms: Optional[Annotated[StrictInt, Field(ge=0, le=MAX_DURATION_MS)]] = None

    def row(self) -> tuple:
        return (self.timestamp, self.lesson_id, self.question_id, self.outcome, self.attempts, self.hints_used,
                self.variant, self.role, self.duration_ms)


class ExportedRecord(BaseModel):
    """A question's record (version 3 exports)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    lesson_id: Id
    question_id: Id
    tries: Annotated[StrictInt, Field(ge=0, le=MAX_ATTEMPTS)]
    hints_used: Annotated[StrictInt, Field(ge=0, le=MAX_HINTS)]
    hints_before_first: Annotated[StrictInt, Field(ge=0, le=MAX_HINTS)]
    variant: Optional[Annotated[str, Field(max_length=MAX_VARIANT_CHARS), PlainText]] = None
    outcome: Optional[Annotated[str, AfterValidator(lambda value: Outcome(value).value)]] = None
    updated: Annotated[str, Field(max_length=64), AfterValidator(_timestamp)]

    def record(self) -> QuestionRecord:
        return QuestionRecord(self.lesson_id, self.question_id, self.tries, self.hints_used, self.hints_before_first,
                              self.variant, Outcome(self.outcome) if self.outcome else None, parse_iso(self.updated))


class ExportedSighting(BaseModel):
    """Where the look-ahead rule saw a question's answer before its first try (the answers_seen table)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    lesson_id: Id
    question_id: Id
    seen_in: Id
    where: Annotated[str, Field(min_length=1, max_length=20), PlainText]
    timestamp: Annotated[str, Field(max_length=64), AfterValidator(_timestamp)]

    def row(self) -> tuple:
        return (self.lesson_id, self.question_id, self.seen_in, self.where, self.timestamp)


class Extras(BaseModel):
    """What a version-3 export carries beside the history: the learner id that seeds the order of
    choices, and the answers seen before their question was tried."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    learner_id: Optional[Annotated[str, Field(pattern=r"^[0-9A-Za-z_-]{1,64}$")]] = None
    answers_seen: Annotated[list[ExportedSighting], Field(max_length=MAX_ANSWERS)] = []


@dataclass(frozen=True)
class ExportContent:
    """A whole export file, validated into rows ready to insert."""

    answers: list[tuple]    # (ts, lesson, question, answer, correct, hints, variant, attempt, mode)
    outcomes: list[tuple]   # (ts, lesson, question, outcome, attempts, hints, variant, role, duration_ms)
    position: list | None
    records: list[QuestionRecord]
    seen: tuple[tuple, ...] = ()       # (lesson, question, seen_in, where, ts)
    learner_id: str | None = None
    unrecorded: tuple[tuple[str, str], ...] = ()   # practised only, no record in the file: the store must have it


class LastPosition(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True)

    lesson_id: Id
    index: Annotated[StrictInt, Field(ge=0, le=10_000)]


def _describe(error: ValidationError) -> str:
    """The first problem as 'field: rule', never echoing the offending value.  The field path may
    name a key from the file, and pydantic's own words may quote it: both are made terminal-safe."""
    item = error.errors()[0]
    field = neutralise(".".join(str(part) for part in item["loc"]), keep="") or "(answer)"
    rule = rule_of(item)
    return M_("{field}: {rule}", field=field, rule=rule if isinstance(rule, Message) else neutralise(rule, keep=""))


def refusal(source: str, reason) -> ExportFileError:
    """The file refused, by name: a Message, translated where it is shown; each value from outside is
    made terminal-safe here."""
    return ExportFileError(M_("{source}: {reason}", source=neutralise(source, keep=""),
                              reason=reason if isinstance(reason, Message) else neutralise(reason, keep="")))


def check_export(doc, source: str, export_format: str, max_version: int) -> ExportContent:
    """Rows ready to insert and the last position (or None), or ExportFileError naming the problem.

    ``doc`` is the file as the shared safe reader parsed it (bounded size and depth).  A
    version-1 file has answers only: each was one try followed by the reveal, so each becomes
    attempt 1 with its own outcome, exactly as a version-1 database is migrated.
    """
    def fail(reason: str) -> ExportFileError:
        return refusal(source, reason)

    if not isinstance(doc, dict) or doc.get("format") != export_format or not isinstance(doc.get("answers"), list):
        raise fail(M_("is not a tutor progress export"))
    version = doc.get("version")
    if type(version) is not int or not 1 <= version <= max_version:
        shown = repr(version) if type(version) in (int, str) and len(str(version)) < 20 else "unknown"
        raise fail(M_("has export version {version}; this tutor reads up to {newest}",
                      version=neutralise(shown, keep=""), newest=max_version))
    if version >= 2 and not isinstance(doc.get("outcomes"), list):
        raise fail(M_("is a version-{version} export without its 'outcomes' list", version=version))
    if version >= 3 and not isinstance(doc.get("records"), list):
        raise fail(M_("is a version-{version} export without its 'records' list", version=version))
    records = {"answer": doc["answers"], "outcome": doc.get("outcomes", []) if version >= 2 else [],
               "record": doc.get("records", []) if version >= 3 else []}
    for what, items in records.items():
        if len(items) > MAX_ANSWERS:
            raise fail(M_("holds {count:,} {kinds}, more than the {most:,} an import may have",
                          count=len(items), kinds=_KINDS[what], most=MAX_ANSWERS))
    answers, outcomes = [], []
    for number, record in enumerate(records["answer"], 1):
        answer = _validated(ExportedAnswer, record, M_("answer #{number}", number=number), fail)
        if version == 1:
            answer = answer.model_copy(update={"attempt": 1})
            outcome = v1_outcome(answer.correct, answer.hints_used)
            outcomes.append((answer.timestamp, answer.lesson_id, answer.question_id, outcome.value, 1,
                             answer.hints_used, answer.variant, Role.SCORE.value, None))
        answers.append(answer.row())
    for number, record in enumerate(records["outcome"], 1):
        outcomes.append(_validated(ExportedOutcome, record, M_("outcome #{number}", number=number), fail).row())
    if version >= 3:
        question_records = [_validated(ExportedRecord, record, M_("record #{number}", number=number), fail).record()
                            for number, record in enumerate(records["record"], 1)]
        unrecorded = _check_histories(answers, question_records, fail)
        extras = _validated(Extras, {key: doc[key] for key in ("learner_id", "answers_seen") if key in doc},
                            M_("the learner id or answers seen"), fail)
        return ExportContent(answers, outcomes, _position(doc.get("last_position")), question_records,
                             tuple(seen.row() for seen in extras.answers_seen), extras.learner_id, unrecorded)
    answers, outcomes, question_records = derive_old(answers, outcomes)
    return ExportContent(answers, outcomes, _position(doc.get("last_position")), question_records)


def derive_old(answers: list[tuple], outcomes: list[tuple]) -> tuple[list[tuple], list[tuple], list[QuestionRecord]]:
    """A version-1 or -2 file's modes, roles and records, by the rules that migrate a schema-2 database."""
    by_answers, by_outcomes = by_question(answers), by_question(outcomes)
    new_answers, new_outcomes, question_records = [], [], []
    for key in sorted(by_answers.keys() | by_outcomes.keys()):
        mine, theirs = by_answers.get(key, []), by_outcomes.get(key, [])
        record, modes, roles = derive_question(mine, theirs)
        # the scored tries come first, numbered 1, 2, … (before records, a new sizes draw restarted at 1)
        new_answers += [row[:7] + (number if mode is Mode.SCORED else row[7], mode.value)
                        for number, (row, mode) in enumerate(zip(mine, modes), 1)]
        new_outcomes += [row[:3] + (outcome,) + row[4:7] + (role.value,) + row[8:]
                         for row, (role, outcome) in zip(theirs, roles)]
        question_records.append(record)
    return new_answers, new_outcomes, question_records


# the plural each list's name takes in "holds 20,001 answers"
_KINDS = {"answer": M_("answers"), "outcome": M_("outcomes"), "record": M_("records")}


def _validated(model, record, what: str, fail):
    if not isinstance(record, dict):
        raise fail(M_("{what} is invalid: not an object", what=what))
    try:
        return model.model_validate(record)
    except ValidationError as error:
        raise fail(M_("{what} is invalid: {problem}", what=what, problem=_describe(error))) from None


def _position(value) -> list | None:
    """The lesson to reopen, if the file names a valid one; a bad one is ignored, as before."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    try:
        position = LastPosition(lesson_id=value[0], index=value[1])
    except ValidationError:
        return None
    return [position.lesson_id, position.index]


def read_export_file(path: str | Path, export_format: str, max_version: int) -> ExportContent:
    """Read and check an export file with the shared safe reader: regular files only, at most
    MAX_IMPORT_BYTES (gzip too, unpacked to at most MAX_INFLATED_BYTES), nested no deeper than an export may be, then every field checked."""
    try:
        doc = read_json_file(path, MAX_IMPORT_BYTES, what=M_("progress export"), inflated_max=MAX_INFLATED_BYTES)
    except UnsafeFileError as error:   # its message shows the path terminal-safe already
        raise ExportFileError(message_of(error)) from None
    return check_export(doc, str(path), export_format, max_version)
