"""UI latency while the dashboard trains, and the dashboard's training speed against a bare loop.

Run:  python bench/ui_latency.py [--rounds 8] [--window 4] [--busy 1] [--threads N]

The app runs headless at 80x24 (``App.run_test``), opens the dashboard and starts a run on
the Train tab, which stays on screen, so the chart, the status line and the metrics messages
keep the UI busy.  The run has the shipped model's shape, the sort task, batch 128, and no
evaluation (so that both loops do the same work); everything else is the dashboard as shipped.

The script then alternates, ``--rounds`` times (A B, B A, ... so a shared machine's slow
spells hit both alike), two windows of ``--window`` seconds:

* app: the dashboard trains (in its training process) while the script types into the checkpoint-path box at random
  intervals (80-200 ms), timing each key from the moment it is posted to the app (as the
  terminal driver posts it) to the first screen update that shows the new character.  In
  headless mode Textual builds every update but does not write it; the script renders each
  one to the terminal's escape sequences, so the cost of drawing is counted.
* bare: the dashboard's run is paused (the UI sits idle) and a bare PyTorch loop (forward,
  cross-entropy, backward, AdamW; nothing else) trains its own model of the same shape on
  the same batches, alone, on a worker thread of this process.
* app-busy (with ``--busy N``): as app, while N other processes keep N cores spinning
  (``bench/busy.py``), as when the learner's machine runs something else too.

Both loops use the tutor's thread policy (``tutor.model.train.training_threads``) unless
``--threads`` says otherwise.  With ``--busy``, ``dashboard_busy_vs_quiet X`` = app-busy
tokens/s / app tokens/s (goal: at least 0.5, i.e. within 2x of its quiet speed).

Last two lines: ``dashboard_vs_bare X`` = app tokens/s / bare tokens/s over all windows
(goal >= 0.95), then ``ui_p95_ms X`` = 95th percentile keypress-to-screen latency (goal <= 100).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench/busy.py

from busy import busy_cores  # noqa: E402

BATCH = 128


class BareLoop:
    """Forward, cross-entropy, backward, AdamW: the least a training loop can do."""

    def __init__(self) -> None:
        import torch

        from tutor.model import GPT, CharTokenizer
        from tutor.model.data import load_dataset
        from tutor.training.runs import shipped_config

        torch.manual_seed(0)
        self.model = GPT(shipped_config()).train()
        self.dataset = load_dataset("sort", 64, CharTokenizer())
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=3e-3)
        self.generator = torch.Generator().manual_seed(0)
        self.run(0.0)   # warm up

    def step(self) -> int:
        import torch.nn.functional as F

        from tutor.model.data import IGNORE

        x, y = self.dataset.get_batch("train", BATCH, self.generator)            # (B, L) each
        logits = self.model(x)                                                  # (B, L, V)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return x.numel()

    def run(self, seconds: float) -> tuple[int, float]:
        import torch

        from tutor.model.train import use_training_threads

        use_training_threads()   # per thread, as the dashboard's training thread does
        tokens, started = self.step(), time.perf_counter()
        while time.perf_counter() - started < seconds:
            tokens += self.step()
        return tokens, time.perf_counter() - started


async def measure(rounds: int, window: float, busy: int) -> tuple[dict[str, list[float]], dict[str, float], list[float]]:
    """-> (keypress latencies in ms, tokens/s), each by window kind: app, bare and app-busy (when busy),
    and each round's app/bare ratio."""
    from textual import events
    from textual.widgets import Input, Select

    from tutor.training import runs as dt
    from tutor.ui.app import TutorApp

    dt.PRESETS["bench"] = dt.Preset("bench: no evaluation", 10**9, BATCH, 10**9)
    home = tempfile.TemporaryDirectory(prefix="tutor-bench-")   # progress and settings, thrown away after
    app = TutorApp(preload_model=False, home=Path(home.name), watch_interval=None)
    waiter: dict = {}
    original = app._display

    def display(screen, renderable) -> None:
        original(screen, renderable)
        if renderable is None or not hasattr(renderable, "render_segments"):
            return
        text = renderable.render_segments(app.console)      # what a terminal would be sent
        if "event" in waiter and waiter["text"] in text:
            waiter["at"] = time.perf_counter()
            waiter.pop("event").set()

    app._display = display
    latencies: dict[str, list[float]] = {"app": [], "app-busy": []}
    totals = {"app": [0, 0.0], "bare": [0, 0.0], "app-busy": [0, 0.0]}
    bare = await asyncio.to_thread(BareLoop)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#train-preset", Select).value = "bench"
        await pilot.pause()
        panel = screen.train_panel
        panel.start_or_resume()
        while panel.metrics is None or panel.metrics.step < 20:   # torch imported, steps flowing
            await asyncio.sleep(0.05)
        panel.toggle_pause()
        box = screen.query_one("#train-path", Input)
        box.focus()
        run = panel.run                                            # the training process's handle
        tokens_per_step = run.tokens_per_step
        alphabet = "abcdefghijklmnopqrstuvwxyz"
        presses = 0
        kinds = ["app", "bare"] + (["app-busy"] if busy else [])
        per_round: list[dict[str, float]] = [{} for _ in range(rounds)]   # tokens/s by window kind
        for r in range(rounds):
            for what in (kinds if r % 2 == 0 else kinds[::-1]):
                if what == "bare":
                    tokens, seconds = await asyncio.to_thread(bare.run, window)
                    totals["bare"][0] += tokens
                    totals["bare"][1] += seconds
                    per_round[r]["bare"] = tokens / seconds
                    continue
                with busy_cores(busy if what == "app-busy" else 0):
                    panel.toggle_pause()                           # resume
                    steps0, t0 = run.step_count, time.perf_counter()
                    while time.perf_counter() - t0 < window:
                        if len(box.value) >= 20:
                            box.value = ""
                            await asyncio.sleep(0.1)
                        char = alphabet[presses % len(alphabet)]
                        presses += 1
                        event = asyncio.Event()
                        waiter.update(text=(box.value + char)[-4:], event=event)
                        sent = time.perf_counter()
                        app.post_message(events.Key(char, char))
                        try:
                            await asyncio.wait_for(event.wait(), 5)
                            latencies[what].append(1000 * (waiter["at"] - sent))
                        except asyncio.TimeoutError:
                            latencies[what].append(5000.0)
                        waiter.clear()
                        await asyncio.sleep(random.uniform(0.08, 0.2))
                    tokens, seconds = (run.step_count - steps0) * tokens_per_step, time.perf_counter() - t0
                    totals[what][0] += tokens
                    totals[what][1] += seconds
                    per_round[r][what] = tokens / seconds
                    panel.toggle_pause()
                    await asyncio.sleep(0.3)                       # the step in flight ends
        panel.stop()
        while panel.training_active:
            await asyncio.sleep(0.05)
    home.cleanup()
    rate = {name: tokens / seconds for name, (tokens, seconds) in totals.items() if seconds}
    return latencies, rate, [w["app"] / w["bare"] for w in per_round if w.get("bare")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="app and bare windows each (default 8)")
    parser.add_argument("--window", type=float, default=4.0, help="seconds per window (default 4)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads of both loops (default: the tutor's policy, "
                             "tutor.model.train.training_threads)")
    parser.add_argument("--busy", type=int, default=0,
                        help="cores to keep busy with a spinning process meanwhile (see bench/busy.py)")
    args = parser.parse_args()
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)   # what the policy reads

    from tutor.model.train import training_threads, use_training_threads

    use_training_threads()   # the bare loop's thread, created from this one

    random.seed(0)
    print(f"torch threads {training_threads()} (both loops); model d_model 64, 4 heads, 2 layers; sort, batch {BATCH}; "
          f"{args.rounds} rounds of {args.window:g} s app + {args.window:g} s bare; {args.busy} busy core(s); "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    latencies, rate, ratios = asyncio.run(measure(args.rounds, args.window, args.busy))
    print(f"dashboard (training in the app, typing): {rate['app']:,.0f} tokens/s")
    print(f"bare loop alone:                         {rate['bare']:,.0f} tokens/s")
    for kind in ("app-busy", "app"):
        if not latencies[kind]:
            continue
        q = statistics.quantiles(latencies[kind], n=100)
        print(f"{kind}: keypress to screen over {len(latencies[kind])} presses: p50 "
              f"{statistics.median(latencies[kind]):.1f} ms, p95 {q[94]:.1f} ms, max {max(latencies[kind]):.1f} ms")
    if args.busy:
        print(f"dashboard with {args.busy} busy core(s): {rate['app-busy']:,.0f} tokens/s")
        print(f"dashboard_busy_vs_quiet {rate['app-busy'] / rate['app']:.3f}")
    print(f"app/bare by round (a slow spell of other work shows in one round): median {statistics.median(ratios):.3f}, "
          f"range {min(ratios):.3f}..{max(ratios):.3f} over {len(ratios)} rounds")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"dashboard_vs_bare {rate['app'] / rate['bare']:.3f}")
    print(f"ui_p95_ms {q[94]:.1f}")


if __name__ == "__main__":
    main()
