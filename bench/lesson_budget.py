"""Print the live computation's cost for the worst lessons the budget allows, and for one it refuses.

    python bench/lesson_budget.py            # worst allowed lessons: estimate, measured time and peak memory
    python bench/lesson_budget.py --experiments   # each experiment's cost in forward passes at D = 128

Each lesson runs in a fresh subprocess (one torch thread) so its peak memory is its own.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

HEAVY = ["adam", "landscape", "gradient_descent", "finite_diff", "momentum", "shuffle", "generate", "autograd"]


def setup(D, H, N, B, L, experiments):
    rows = ["".join(str((i * 7 + j) % 10) for j in range(L)) for i in range(B)]
    return {"weights": "random", "d_model": D, "n_head": H, "n_layer": N, "text": rows, "experiments": experiments}


def worst_allowed():
    """For a few experiment sets, the largest sizes the budget allows (by estimated work)."""
    from tutor.course.budget import lesson_cost

    found = []
    for experiments in ([], HEAVY[:1], HEAVY[:4], HEAVY):
        best = None
        for D, H, N in ((512, 16, 8), (512, 16, 4), (256, 8, 8), (256, 8, 4), (128, 8, 4), (64, 4, 2)):
            for B in (16, 8, 4, 2, 1):
                for L in (64, 32, 16, 8):
                    cost = lesson_cost(B, L, D, H, N, experiments)
                    if cost.over() is None and (best is None or cost.work > best[1].work):
                        best = ((D, H, N, B, L), cost)
        if best:
            found.append((setup(*best[0], experiments), best[1]))
    return found


MEASURE = """
import json, resource, sys, time, torch
torch.set_num_threads(1)
from tutor.course.schema import Lesson
from tutor.live.compute import compute_live
from tutor.live.hub import ModelHub
model = json.loads(sys.argv[1])
lesson = Lesson.model_validate(dict(format_version=1, id="b", title="b", track="la", position=1,
    concepts=["la.tensors"], explanation="x", formula={"expr": "x", "translation": "x"}, probes=["embed"],
    questions=[{"id": "q", "kind": "shape", "prompt": "p", "probe": "embed"}], model=model))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
compute_live(lesson, ModelHub())
print(json.dumps({"seconds": time.perf_counter() - started,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "before_mb": before / 1024}))
"""


def measure(model: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(model)], capture_output=True, text=True, timeout=600)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", action="store_true")
    args = parser.parse_args()
    if args.experiments:
        base = setup(128, 4, 4, 4, 32, [])
        forward = measure(base)["seconds"]
        from tutor.experiments import EXPERIMENTS
        for name in sorted(EXPERIMENTS):
            extra = measure(base | {"experiments": [name]})["seconds"] - forward
            print(f"{name:18s} {extra:6.3f} s  = {extra / forward:5.1f} forward passes")
        return
    from tutor.course.budget import lesson_cost

    refused = setup(512, 16, 8, 16, 64, HEAVY)
    cost = lesson_cost(16, 64, 512, 16, 8, HEAVY)
    print(f"refused: D 512, H 16, 8 layers, 16x64, 8 experiments: estimate {cost.seconds():.0f} s, {cost.memory / 1e6:.0f} MB")
    for model, cost in worst_allowed():
        got = measure(model)
        sizes = f"D {model['d_model']}, H {model['n_head']}, {model['n_layer']} layers, {len(model['text'])}x{len(model['text'][0])}"
        print(f"allowed: {sizes}, experiments {model['experiments'] or '-'}: estimate {cost.seconds():.1f} s, "
              f"{cost.memory / 1e6:.0f} MB; measured {got.get('seconds', float('nan')):.1f} s, "
              f"peak {got.get('peak_mb', float('nan')):.0f} MB (python + torch alone {got.get('before_mb', float('nan')):.0f} MB)"
              + (f" ERROR {got['error']}" if "error" in got else ""))


if __name__ == "__main__":
    main()
