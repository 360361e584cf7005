"""How long the app's next write waits while ``tutor progress --import`` of a large export runs.

Writes a 60,000-answer version-1 export, imports it in a child process, and meanwhile makes the
app's own kind of write (one short transaction through ``ProgressStore``) every 20 ms, printing
how many writes ran, how many failed ("database is locked") and the median and longest wait.
Pass other checkouts' roots to print them side by side (e.g. a ``git archive`` of main):

    python bench/import_lock.py [ROOT ...]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

ANSWERS = 60_000
PROBE = r"""
import subprocess, sys, time
root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
from tutor.progress.store import ProgressStore
ProgressStore(work + "/home").close()
child = subprocess.Popen([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                          "from tutor.progress.store import ProgressStore; from tutor.progress.io import import_json;"
                          "import_json(ProgressStore(sys.argv[2] + '/home'), sys.argv[2] + '/big.json')", root, work])
store, waits, failed, began = ProgressStore(work + "/home"), [], 0, time.perf_counter()
while child.poll() is None:
    start = time.perf_counter()
    try:
        store.set_last_position("probe", len(waits) % 2)
    except Exception:
        failed += 1
    waits.append(time.perf_counter() - start)
    time.sleep(0.02)
waits.sort()
print(f"{root}: import {time.perf_counter() - began:.1f} s, writes {len(waits)}, failed {failed}, "
      f"median wait {waits[len(waits) // 2] * 1000:.0f} ms, longest {waits[-1]:.3f} s")
"""


def main(roots: list[str]) -> None:
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    answers = [{"timestamp": (t0 + timedelta(seconds=i)).isoformat(), "lesson_id": f"l{i % 50}",
                "question_id": f"q{i % 7}", "answer": str(i), "correct": i % 3 == 0, "hints_used": 0}
               for i in range(ANSWERS)]
    for root in roots:
        with tempfile.TemporaryDirectory() as work:
            Path(work, "big.json").write_text(json.dumps({"format": "tutor-progress", "version": 1,
                                                          "answers": answers}), encoding="utf-8")
            subprocess.run([sys.executable, "-c", PROBE, root, work], check=True, env=dict(os.environ))


if __name__ == "__main__":
    main(sys.argv[1:] or [str(Path(__file__).resolve().parents[1])])
