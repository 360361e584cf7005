"""The ``model:`` section of a lesson: which weights and which input make its live tensors, what
sizes it may draw, which experiments it runs, and what kind of model it needs to be true.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, field_validator, model_validator

from tutor.common.i18n import M_
from tutor.course.budget import lesson_cost
from tutor.course.experiment_index import EXPERIMENT_COSTS
from tutor.grading.fields import ShortText, Strict


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
        unknown = [name for name in value if name not in EXPERIMENT_COSTS]
        if unknown:
            import difflib
            close = difflib.get_close_matches(unknown[0], list(EXPERIMENT_COSTS), n=1)
            hint = M_("did you mean {name!r}? ", name=close[0]) if close else ""
            raise ValueError(M_("unknown experiment {name!r}; {hint}available: {names}", name=unknown[0], hint=hint,
                                names=", ".join(sorted(EXPERIMENT_COSTS))))
        return value

    @field_validator("text")
    @classmethod
    def _rows_have_one_length(cls, value):
        if isinstance(value, list):
            if not value or len(value) > 16:
                raise ValueError(M_("give between 1 and 16 input rows"))
            if len({len(row) for row in value}) != 1:
                raise ValueError(M_("every input row must have the same length (L)"))
        return value

    @field_validator("tokens")
    @classmethod
    def _token_rows_have_one_length(cls, value):
        if value is not None and len({len(row) for row in value}) != 1:
            raise ValueError(M_("every token row must have the same length (L)"))
        return value

    @field_validator("vary")
    @classmethod
    def _ranges_are_ordered(cls, value):
        for name, (low, high) in value.items():
            if not 1 <= low <= high <= 64:
                raise ValueError(M_("vary.{name}: give [low, high] with 1 <= low <= high <= 64", name=name))
        return value

    @model_validator(mode="after")
    def _sizes_need_random_weights(self):
        sized = [n for n in ("d_model", "n_head", "n_layer", "positions") if getattr(self, n) is not None]
        if self.weights != "random" and (sized or {"D", "H"} & set(self.vary)):
            what = ", ".join(sized + sorted({"D", "H"} & set(self.vary)))
            raise ValueError(M_("{what} can only be chosen with weights: random ({weights} weights have fixed sizes)",
                                what=what, weights=self.weights))
        over = self.cost().over()
        if over:
            raise ValueError(over)
        if self.weights == "random" and self.requires is not None:
            raise ValueError(M_("requires: describes the learner's trained model; a lesson with weights: random "
                                "builds its own model and needs nothing (remove requires:)"))
        if self.weights == "text" and self.requires is not None:
            raise ValueError(M_("requires: describes the learner's trained model; a lesson with weights: text "
                                "always runs the shipped text model and needs nothing (remove requires:)"))
        return self

    def cost(self):
        """The live computation's estimated cost at the largest sizes this setup can draw."""
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
