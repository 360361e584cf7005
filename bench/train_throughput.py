"""Training throughput: the tutor's Trainer against a bare PyTorch loop, same model and batch.

Run:  python bench/train_throughput.py [--size tiny|small] [--data sort|text] [--rounds 30] [--steps 5] [--threads N]

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
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.model import GPT, GPTConfig, CharTokenizer  # noqa: E402
from tutor.model.data import IGNORE, load_dataset  # noqa: E402
from tutor.model.train import TrainConfig, Trainer  # noqa: E402

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
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
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
