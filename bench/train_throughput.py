"""Training throughput: the tutor's Trainer against a bare PyTorch loop, and thread counts quiet and busy.

Run:  python bench/train_throughput.py [--size tiny|small] [--data sort|text] [--rounds 30] [--steps 5]
                                       [--threads N] [--compare 1,2] [--busy 0,1]

Part 1, the thread policy.  For each load in ``--busy`` (0: the machine as it is; 1: one more
core kept spinning by another process, see ``bench/busy.py``) and each thread count in
``--compare`` (default: 1 and every core) the Trainer runs ``--steps`` steps per round, loads
and counts alternating within each round, so that other work which comes and goes on a
shared machine hits every setting alike.  It prints tokens/s for each, and for each
count how much slower it trains when the core is busy (``busy_slowdown``): the numbers from
which the policy in ``tutor.model.train.training_threads`` was chosen.

Part 2, the trainer's overhead, at the policy's thread count (or ``--threads``):

Both loops train their own copy of the same initial model on batches from the same dataset
code.  They run in many short alternating rounds (A B, B A, ...) so that a noisy, shared machine
slows both alike; the first round is a warm-up and is not counted.  The reported ratio is
the median over rounds of (trainer tokens/s / bare tokens/s), each pair measured back to
back, so a stall on a shared machine that hits one loop does not decide the result.  The trainer is timed
through ``Trainer.step()`` plus its callback list (what ``run()`` does between its
pause/stop checks); the bare loop is forward, cross-entropy, backward, ``AdamW.step`` and
nothing else: no schedule, no clipping, no NaN check, no ``.item()``.

FLOPs are counted as 6 * N + 12 * n_layer * d_model * T per trained token (forward + backward,
Kaplan et al./PaLM convention), where N is the parameters used in matrix multiplies (every
parameter except the token and position embedding tables, which are lookups) and T is the
sequence length of a batch row.

Last line: ``trainer_vs_bare X``, that median ratio (goal >= 0.9).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench/busy.py

from tutor.model import GPT, GPTConfig, CharTokenizer  # noqa: E402
from tutor.model.data import IGNORE, load_dataset  # noqa: E402
from tutor.model.train import TrainConfig, Trainer, training_threads  # noqa: E402

from busy import busy_cores  # noqa: E402

SIZES = {"tiny": dict(d_model=64, n_head=4, n_layer=2, block_size=64),
         "small": dict(d_model=128, n_head=4, n_layer=4, block_size=128)}


def flops_per_token(model: GPT, seq_len: int) -> float:
    c = model.config
    lookups = model.W_E.weight.numel() + (model.W_pos.weight.numel() if model.W_pos is not None else 0)
    n_matmul = model.num_parameters() - lookups
    return 6 * n_matmul + 12 * c.n_layer * c.d_model * seq_len


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--data", default="sort")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=5, help="steps per round per loop")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads of part 2 (default: the tutor's policy)")
    parser.add_argument("--compare", default=f"1,{len(os.sched_getaffinity(0))}",
                        help="thread counts to compare in part 1 (default: 1 and every core)")
    parser.add_argument("--busy", default="0,1", help="cores to keep busy in part 1, one run each (default 0,1)")
    parser.add_argument("--policy-rounds", type=int, default=10, help="rounds per load in part 1 (default 10)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    tok = CharTokenizer()
    torch.manual_seed(0)
    template = GPT(GPTConfig(vocab_size=tok.vocab_size, **SIZES[args.size]))
    dataset = load_dataset(args.data, template.config.block_size, tok)
    device = torch.device(args.device)

    trainer_model = GPT(template.config)
    trainer_model.load_state_dict(template.state_dict())
    config = TrainConfig(steps=10**9, batch_size=args.batch_size, warmup_steps=100, eval_interval=10**9,
                         device=args.device)
    trainer = Trainer(trainer_model, dataset, config, callbacks=[lambda m: None])

    bare = GPT(template.config).to(device)
    bare.load_state_dict(template.state_dict())
    bare.train()
    optimizer = torch.optim.AdamW(bare.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)

    def run_trainer(n: int) -> int:
        tokens = 0
        for _ in range(n):
            metrics = trainer.step()
            for callback in trainer.callbacks:
                callback(metrics)
            tokens += args.batch_size * dataset.seq_len
        return tokens

    def run_bare(n: int) -> int:
        tokens = 0
        for _ in range(n):
            x, y = dataset.get_batch("train", args.batch_size, generator, device)  # (B, L) each
            logits = bare(x)                                                    # (B, L, V)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            tokens += x.numel()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return tokens

    counts = [int(n) for n in args.compare.split(",")]
    loads = [int(n) for n in args.busy.split(",")]
    policy = training_threads()
    print(f"part 1: trainer tokens/s by torch threads and busy cores, {args.policy_rounds} rounds of {args.steps} "
          f"steps per setting; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    speed: dict[tuple[int, int], float] = {}
    done = {(busy, n): [0, 0.0] for busy in loads for n in counts}
    for r in range(args.policy_rounds + 1):
        for busy in (loads if r % 2 == 0 else loads[::-1]):
            with busy_cores(busy):
                for n in (counts if r % 2 == 0 else counts[::-1]):
                    torch.set_num_threads(n)
                    start = time.perf_counter()
                    tokens = run_trainer(args.steps)
                    if r > 0:   # round 0 warms up
                        done[busy, n][0] += tokens
                        done[busy, n][1] += time.perf_counter() - start
    for busy in loads:
        for n in counts:
            speed[busy, n] = done[busy, n][0] / done[busy, n][1]
        print(f"  {busy} busy core(s): " + ", ".join(f"{n} thread(s) {speed[busy, n]:,.0f} tok/s" for n in counts))
    print(f"  load average {os.getloadavg()[0]:.2f}")
    if 0 in loads:
        for busy in (b for b in loads if b):
            for n in counts:
                print(f"busy_slowdown threads={n} busy={busy}: {speed[0, n] / speed[busy, n]:.2f}x")
    print(f"policy: tutor.model.train.training_threads() = {policy} thread(s)")

    threads = args.threads or policy
    torch.set_num_threads(threads)
    print(f"part 2: trainer against a bare loop at {threads} thread(s)")
    loops = {"trainer": run_trainer, "bare": run_bare}
    seconds = {"trainer": [], "bare": []}
    tokens = {"trainer": [], "bare": []}
    print(f"model {args.size}: {template.num_parameters():,} parameters; data {args.data}; "
          f"batch {args.batch_size} x {dataset.seq_len} tokens; device {device}; "
          f"torch threads {torch.get_num_threads()}; {args.rounds} rounds of {args.steps} steps each")
    for r in range(args.rounds + 1):
        order = ("trainer", "bare") if r % 2 == 0 else ("bare", "trainer")
        for name in order:
            start = time.perf_counter()
            n = loops[name](args.steps)
            if r > 0:   # round 0 warms both up
                seconds[name].append(time.perf_counter() - start)
                tokens[name].append(n)
    fpt = flops_per_token(template, dataset.seq_len)
    rate = {name: sum(tokens[name]) / sum(seconds[name]) for name in loops}
    for name in ("trainer", "bare"):
        print(f"{name:8s} {rate[name]:,.0f} tokens/s = {rate[name] * fpt / 1e9:.2f} GFLOP/s "
              f"({fpt / 1e6:.3f} MFLOP per token)")
    ratios = [(tt / ts) / (bt / bs) for tt, ts, bt, bs in
              zip(tokens["trainer"], seconds["trainer"], tokens["bare"], seconds["bare"])]
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    print(f"ratio of totals {rate['trainer'] / rate['bare']:.3f} (sensitive to a stall that hits one loop)")
    print(f"per-round ratio quartiles {q[0]:.3f}..{q[2]:.3f}")
    print(f"trainer_vs_bare {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
