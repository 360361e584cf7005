"""The lesson format (format_version 1), as a pydantic schema.

Everything a lesson file may say is declared here with ``extra="forbid"``, so a typo is an
error that names the field instead of a silently ignored key.  The schema checks only what
one file can know; cross-file rules (prerequisites, duplicate ids) and checks against the
live model live in the checker.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from tutor.grading.probe_ref import ProbeRefError, parse_probe_ref

FORMAT_VERSION = 1
SIZE_NAMES = ("B", "L", "D", "H")
ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
ShortText = Annotated[str, Field(min_length=1, max_length=300)]
LongText = Annotated[str, Field(min_length=1, max_length=6000)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_probe_ref(value: str) -> str:
    try:
        parse_probe_ref(value)
    except ProbeRefError as error:
        raise ValueError(str(error)) from None
    return value


TASKS = ("sort", "reverse", "text", "file")


class ModelShape(Strict):
    """The sizes a lesson's trained model must have (the shipped model: 64, 4, 2)."""

    d_model: int | None = Field(None, ge=1, le=512)
    n_head: int | None = Field(None, ge=1, le=16)
    n_layer: int | None = Field(None, ge=1, le=8)


class ModelRequirement(Strict):
    """What a lesson about a trained model's behaviour needs from the learner's current model.

    A lesson whose prose or questions only hold for, say, a model trained on the sort task says
    so here; on another model it names what it needs and offers the shipped model instead.
    """

    task: list[Literal["sort", "reverse", "text", "file"]] | None = Field(None, min_length=1, max_length=4)
    trained: bool | None = None
    shape: ModelShape | None = None

    @field_validator("task", mode="before")
    @classmethod
    def _one_task_or_a_list(cls, value):
        return [value] if isinstance(value, str) else value


class ModelSetup(Strict):
    """Which weights and which input produce the lesson's live tensors."""

    # trained: the learner's current model; random: fresh weights of the lesson's sizes;
    # text: the shipped model trained on prose (same shape as the sort model), whatever the learner trained
    weights: Literal["trained", "random", "text"] = "trained"
    text: Union[ShortText, list[ShortText]] = "1234"
    # token ids instead of text, one list per batch row; overrides `text` when given
    tokens: list[Annotated[list[Annotated[int, Field(ge=0, le=100_000)]], Field(min_length=1, max_length=256)]] | None = \
        Field(None, min_length=1, max_length=16)
    seed: int = Field(0, ge=0, le=2**31 - 1)
    d_model: int | None = Field(None, ge=1, le=512)
    n_head: int | None = Field(None, ge=1, le=16)
    n_layer: int | None = Field(None, ge=1, le=8)
    positions: Literal["learned", "sinusoidal", "none"] | None = None
    vary: dict[Literal["B", "L", "D", "H"], tuple[int, int]] = Field(default_factory=dict)
    experiments: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=8)
    requires: ModelRequirement | None = None   # trained weights only: the kind of model the lesson needs

    @field_validator("experiments")
    @classmethod
    def _known_experiments(cls, value):
        from tutor.experiments import EXPERIMENTS
        unknown = [name for name in value if name not in EXPERIMENTS]
        if unknown:
            import difflib
            close = difflib.get_close_matches(unknown[0], list(EXPERIMENTS), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"unknown experiment {unknown[0]!r}; {hint}available: {', '.join(sorted(EXPERIMENTS))}")
        return value

    @field_validator("text")
    @classmethod
    def _rows_have_one_length(cls, value):
        if isinstance(value, list):
            if not value or len(value) > 16:
                raise ValueError("give between 1 and 16 input rows")
            if len({len(row) for row in value}) != 1:
                raise ValueError("every input row must have the same length (L)")
        return value

    @field_validator("tokens")
    @classmethod
    def _token_rows_have_one_length(cls, value):
        if value is not None and len({len(row) for row in value}) != 1:
            raise ValueError("every token row must have the same length (L)")
        return value

    @field_validator("vary")
    @classmethod
    def _ranges_are_ordered(cls, value):
        for name, (low, high) in value.items():
            if not 1 <= low <= high <= 64:
                raise ValueError(f"vary.{name}: give [low, high] with 1 <= low <= high <= 64")
        return value

    @model_validator(mode="after")
    def _sizes_need_random_weights(self):
        sized = [n for n in ("d_model", "n_head", "n_layer", "positions") if getattr(self, n) is not None]
        if self.weights != "random" and (sized or {"D", "H"} & set(self.vary)):
            what = ", ".join(sized + sorted({"D", "H"} & set(self.vary)))
            raise ValueError(f"{what} can only be chosen with weights: random ({self.weights} weights have fixed sizes)")
        over = self.cost().over()
        if over:
            raise ValueError(over)
        if self.weights == "random" and self.requires is not None:
            raise ValueError("requires: describes the learner's trained model; a lesson with weights: random "
                             "builds its own model and needs nothing (remove requires:)")
        if self.weights == "text" and self.requires is not None:
            raise ValueError("requires: describes the learner's trained model; a lesson with weights: text "
                             "always runs the shipped text model and needs nothing (remove requires:)")
        return self

    def cost(self):
        """The live computation's estimated cost at the largest sizes this setup can draw."""
        from tutor.experiments.registry import lesson_cost

        trained = self.weights != "random"   # trained and text: the shipped shape
        largest = {name: high for name, (_, high) in self.vary.items()}
        B = max(len(self.rows), largest.get("B", 0))
        L = max(len(self.rows[0]), largest.get("L", 0))
        D = 64 if trained else max(self.d_model or 8, largest.get("D", 0))
        H = 4 if trained else max(self.n_head or 2, largest.get("H", 0))
        N = 2 if trained else self.n_layer or 1
        return lesson_cost(B, L, D, H, N, list(self.experiments))

    @property
    def rows(self) -> list[str] | list[list[int]]:
        """The input rows: token-id lists when `tokens` is given, else text rows."""
        if self.tokens is not None:
            return [list(row) for row in self.tokens]
        return list(self.text) if isinstance(self.text, list) else [self.text]


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
        return None if value is None else _check_probe_ref(value)


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
        return None if value is None else _check_probe_ref(value)


class ShapeQuestion(QuestionBase):
    kind: Literal["shape"]
    probe: str
    answer: list[Annotated[int, Field(ge=0)]] | None = None
    _probe = field_validator("probe")(classmethod(lambda cls, v: _check_probe_ref(v)))


class ValuesQuestion(QuestionBase):
    kind: Literal["values"]
    probe: str
    tolerance: float = Field(0.05, ge=0, le=100, allow_inf_nan=False)
    answer: list[Union[float, str]] | None = None
    nonfinite: bool = False   # the truth may hold nan or ±inf on purpose (e.g. masked scores)
    _probe = field_validator("probe")(classmethod(lambda cls, v: _check_probe_ref(v)))


class NumberQuestion(QuestionBase):
    kind: Literal["number"]
    probe: str | None = None
    reduce: Reducer = "value"
    tolerance: float = Field(0.05, ge=0, le=1e6, allow_inf_nan=False)
    relative: bool = False
    answer: Union[float, str, None] = None
    nonfinite: bool = False   # the truth may be nan or ±inf on purpose
    _probe = field_validator("probe")(classmethod(lambda cls, v: v if v is None else _check_probe_ref(v)))

    @model_validator(mode="after")
    def _needs_a_source(self):
        if self.probe is None and self.answer is None:
            raise ValueError("a number question needs a probe (preferred) or an answer")
        return self


ChoiceIndex = Annotated[int, Field(ge=0, le=7)]
ProbeRefText = Annotated[str, AfterValidator(_check_probe_ref)]


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
    _probe = field_validator("probe")(classmethod(lambda cls, v: v if v is None else _check_probe_ref(v)))


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
    probes: list[Annotated[str, AfterValidator(_check_probe_ref)]] = Field(min_length=1, max_length=10)
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
