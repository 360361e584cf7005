"""The compute budget: what one lesson's live computation may cost, estimated when the file loads.

Measured on this project's 2-core CI machine with one torch thread (bench/lesson_budget.py):
a forward pass with every probe does about 1e10 multiply-adds a second and holds about 10
bytes per probe value; at the schema's largest sizes (D 512, H 16, 8 layers, 16 x 64 input)
it alone takes 2.3 s and 0.9 GB, and experiments multiply that.  The budget keeps every
lesson under about 10 s and 1 GB here; a lesson over it is refused when it loads.  What each
experiment costs is declared in its ``@experiment`` decorator and read here from the index.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.course.experiment_index import EXPERIMENT_COSTS

WORK_BUDGET = 4e10          # multiply-adds (forward passes x experiment multiples)
MEMORY_BUDGET = 6e8         # bytes
BYTES_PER_PROBE_VALUE = 10  # float32 in torch, float32 in numpy, and the tensors built between
VOCAB = 96
COSTLIEST_NAMED = 4         # how many of the dearest experiments the refusal names


def costliest(count: int = COSTLIEST_NAMED) -> list[str]:
    """The experiments that cost the most forward passes, dearest first, with their passes."""
    ranked = sorted(EXPERIMENT_COSTS.items(), key=lambda item: (-item[1][0], item[0]))
    return [f"{name} {passes:g}" for name, (passes, _copies) in ranked[:count]]


@dataclass(frozen=True)
class Cost:
    work: float      # multiply-adds
    memory: float    # bytes

    def seconds(self) -> float:
        return self.work / 1e10

    def over(self) -> str | None:
        """Why the cost is over budget, in words an author can act on; None within it."""
        if self.work <= WORK_BUDGET and self.memory <= MEMORY_BUDGET:
            return None
        return (f"this lesson's live model would need about {self.seconds():.0f} s and {self.memory / 1e6:.0f} MB "
                f"(the budget is about {WORK_BUDGET / 1e10:.0f} s and {MEMORY_BUDGET / 1e6:.0f} MB of one CPU core); "
                "use smaller d_model, n_layer, rows or text length (the largest in model.vary count), "
                f"or fewer experiments (forward passes each: {', '.join(costliest())})")


def lesson_cost(B: int, L: int, D: int, H: int, N: int, experiments: list[str]) -> Cost:
    """Multiply-adds and bytes of one forward pass with probes, times what the experiments add."""
    forward = B * L * N * (12 * D * D + 2 * L * D) + B * L * D * VOCAB
    probes = N * (16 * B * L * D + 3 * B * H * L * L) + B * L * VOCAB
    params = N * 12 * D * D + (VOCAB + 64) * D
    passes = 1 + sum(EXPERIMENT_COSTS[name][0] for name in experiments)
    copies = 1 + sum(EXPERIMENT_COSTS[name][1] for name in experiments)
    return Cost(forward * passes, probes * BYTES_PER_PROBE_VALUE * (1 + len(experiments) / 4) + 4 * params * copies)
