"""The lesson format (format_version 1), as a pydantic schema.

Everything a lesson file may say is declared here with ``extra="forbid"``, so a typo is an
error that names the field instead of a silently ignored key.  The schema checks only what
one file can know; cross-file rules (prerequisites, duplicate ids) and checks against the
live model live in the checker.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import AfterValidator, Field, field_validator, model_validator

from tutor.course.fields import ID_PATTERN, LongText, ShortText, Strict, check_probe_ref
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

    @field_validator("reproduces")
    @classmethod
    def _reproduces_is_a_probe(cls, value):
        return None if value is None else check_probe_ref(value)


MAX_ATTEMPTS = 10
Reducer = Literal["value", "sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "norm", "count_zero",
                  "count_nonzero", "numel", "count_distinct", "sortedness", "max_rise"]


class QuestionBase(Strict):
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    prompt: LongText
    hints: list[ShortText] = Field(default_factory=list, max_length=10)
    reveal: Annotated[str, Field(max_length=3000)] = ""
    show: str | None = None   # the probe slice revealed after answering
    attempts: int | None = Field(None, ge=1, le=MAX_ATTEMPTS)   # tries before the reveal; else the lesson's

    @field_validator("show")
    @classmethod
    def _show_is_a_probe(cls, value):
        return None if value is None else check_probe_ref(value)


class ShapeQuestion(QuestionBase):
    kind: Literal["shape"]
    probe: str
    answer: list[Annotated[int, Field(ge=0)]] | None = None
    _probe = field_validator("probe")(classmethod(lambda cls, v: check_probe_ref(v)))


class ValuesQuestion(QuestionBase):
    kind: Literal["values"]
    probe: str
    tolerance: float = Field(0.05, ge=0, le=100, allow_inf_nan=False)
    answer: list[Union[float, str]] | None = None
    nonfinite: bool = False   # the truth may hold nan or ±inf on purpose (e.g. masked scores)
    _probe = field_validator("probe")(classmethod(lambda cls, v: check_probe_ref(v)))


class NumberQuestion(QuestionBase):
    kind: Literal["number"]
    probe: str | None = None
    reduce: Reducer = "value"
    tolerance: float = Field(0.05, ge=0, le=1e6, allow_inf_nan=False)
    relative: bool = False
    answer: Union[float, str, None] = None
    nonfinite: bool = False   # the truth may be nan or ±inf on purpose
    _probe = field_validator("probe")(classmethod(lambda cls, v: v if v is None else check_probe_ref(v)))

    @model_validator(mode="after")
    def _needs_a_source(self):
        if self.probe is None and self.answer is None:
            raise ValueError("a number question needs a probe (preferred) or an answer")
        return self


ChoiceIndex = Annotated[int, Field(ge=0, le=7)]
ProbeRefText = Annotated[str, AfterValidator(check_probe_ref)]


class ArgmaxRule(Strict):
    """The choice whose value in the slice is largest (the slice holds one value per choice)."""
    argmax: ProbeRefText


class ArgminRule(Strict):
    argmin: ProbeRefText


class SignRule(Strict):
    """`positive` when the (reduced) value is above 0, `negative` below, `zero` (else `negative`) at 0."""
    sign: ProbeRefText
    reduce: Reducer = "value"
    positive: ChoiceIndex
    negative: ChoiceIndex
    zero: ChoiceIndex | None = None


class RuleCase(Strict):
    probe: ProbeRefText
    reduce: Reducer = "value"
    below: float | None = None
    above: float | None = None
    at_most: float | None = None
    at_least: float | None = None
    equals: float | None = None
    choice: ChoiceIndex

    @model_validator(mode="after")
    def _one_comparison(self):
        given = [n for n in ("below", "above", "at_most", "at_least", "equals") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError("a case compares once: give exactly one of below, above, at_most, at_least, equals")
        return self


class CasesRule(Strict):
    """The first case that holds picks its choice; `otherwise` when none does."""
    cases: list[RuleCase] = Field(min_length=1, max_length=8)
    otherwise: ChoiceIndex


AnswerRule = Union[ArgmaxRule, ArgminRule, SignRule, CasesRule]


def _rule_choices(rule) -> list[int]:
    if isinstance(rule, SignRule):
        return [i for i in (rule.positive, rule.negative, rule.zero) if i is not None]
    if isinstance(rule, CasesRule):
        return [case.choice for case in rule.cases] + [rule.otherwise]
    return []


class ChoiceQuestion(QuestionBase):
    kind: Literal["choice"]
    choices: list[ShortText] = Field(min_length=2, max_length=8)
    # a fixed index (counting from 0) only where the answer cannot depend on the weights
    answer: Union[Annotated[int, Field(ge=0)], AnswerRule]

    @model_validator(mode="after")
    def _answer_in_range(self):
        indices = [self.answer] if isinstance(self.answer, int) else _rule_choices(self.answer)
        for index in indices:
            if index >= len(self.choices):
                raise ValueError(f"answer {index} is not one of the {len(self.choices)} choices (count from 0)")
        return self


class SymbolicShapeQuestion(QuestionBase):
    kind: Literal["symbolic_shape"]
    answer: Annotated[str, Field(min_length=2, max_length=100)]
    probe: str | None = None   # checked by substituting the lesson's sizes
    _probe = field_validator("probe")(classmethod(lambda cls, v: v if v is None else check_probe_ref(v)))


QUESTION_CLASSES = (ShapeQuestion, ValuesQuestion, NumberQuestion, ChoiceQuestion, SymbolicShapeQuestion)
# kind name -> question class, for messages and field suggestions (the union below is the schema)
QUESTION_KINDS = {cls.model_fields["kind"].annotation.__args__[0]: cls for cls in QUESTION_CLASSES}
Question = Annotated[Union[QUESTION_CLASSES], Field(discriminator="kind")]


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
    probes: list[Annotated[str, AfterValidator(check_probe_ref)]] = Field(min_length=1, max_length=10)
    questions: list[Question] = Field(min_length=1, max_length=20)
    attempts: int = Field(3, ge=1, le=MAX_ATTEMPTS)   # tries before the reveal, unless a question says

    @model_validator(mode="after")
    def _question_ids_unique(self):
        seen: set[str] = set()
        for question in self.questions:
            if question.id in seen:
                raise ValueError(f"two questions have the id {question.id!r}")
            seen.add(question.id)
        if self.id in self.prerequisites:
            raise ValueError("a lesson cannot be its own prerequisite")
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
