"""Decoding speed: the preallocated KV cache against the old torch.cat cache and no cache.

Run:  python bench/sample_speed.py [--checkpoint PATH] [--rounds 7] [--threads 1]

Everything is measured in ONE run, in alternating rounds (median of ``--rounds``), because
the machine is noisy; only ratios between figures from the same run mean anything.

1. The shipped model (block_size 64), greedy from a one-token prompt until the context is
   full (63 tokens), and beam search of width 4 for the same budget (no stop token):
   * ``greedy``         ``model.sample.generate(temperature=0)``: ``GPT.decode`` + ``KVCache``;
   * ``greedy old``     BASELINE, a faithful minimal copy (``_old_greedy`` below) of the decode
                        loop before the fast path: ``GPT.forward(past_kv=...)`` through the
                        modules, the cache grown with ``torch.cat``, the sequence re-concatenated
                        each step.  ``GPT.forward`` itself is unchanged, so this is the old code;
   * ``greedy no-cache`` every step re-runs the whole sequence through ``forward``;
   * ``beam 4``         ``model.sample.beam_search(beam_width=4)``, new tokens per second.
   ``speedup_vs_old``  = greedy tokens/s / greedy-old tokens/s (target >= 2).
2. A 256-position model (block_size 256, otherwise the shipped sizes, random weights),
   256 new greedy tokens from a one-token prompt:
   ``kv_cache_speedup_256`` = greedy tokens/s with the cache / without it (target >= 3).

Every variant must produce the same tokens (checked).  Threads default to 1, as
``tutor sample`` uses on the CPU.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.model import GPT, GPTConfig  # noqa: E402
from tutor.model.checkpoint import default_checkpoint_path, load_checkpoint  # noqa: E402
from tutor.model.sample import beam_search, generate  # noqa: E402

BASELINE = "   (BASELINE: old torch.cat decode loop)"


@torch.no_grad()
def _old_greedy(model: GPT, prompt: list[int], n: int) -> list[int]:
    """BASELINE: the greedy KV-cache loop as it was (cache grown by torch.cat inside forward)."""
    seqs = torch.tensor([prompt])                                            # (1, T)
    cache, out = None, []
    for _ in range(n):
        if cache is None:
            logits, cache = model(seqs, use_cache=True)                      # (1, T, V)
        else:
            logits, cache = model(seqs[:, -1:], past_kv=cache, use_cache=True)  # (1, 1, V)
        token = int(logits[:, -1][0].float().argmax())
        seqs = torch.cat([seqs, torch.tensor([[token]])], dim=1)             # (1, T+1)
        out.append(token)
    return out


def _race(variants: dict, rounds: int, n: int) -> dict[str, float]:
    """Median tokens/s of each variant, run in alternating order; all must agree."""
    rates: dict[str, list[float]] = {name: [] for name in variants}
    outputs: dict[str, list[int]] = {}
    names = list(variants)
    for r in range(rounds + 1):
        for name in (names if r % 2 == 0 else names[::-1]):
            start = time.perf_counter()
            outputs[name] = variants[name]()
            if r > 0:   # round 0 warms up
                rates[name].append(n / (time.perf_counter() - start))
    first = outputs[names[0]]
    for name in names[1:]:
        if not name.startswith("beam"):
            assert outputs[name] == first, f"{name} produced different tokens"
    return {name: statistics.median(r) for name, r in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = args.checkpoint or default_checkpoint_path()
    model, _, _ = load_checkpoint(path)
    prompt = [1]
    n = model.config.block_size - len(prompt)
    print(f"model {path}: {model.num_parameters():,} parameters, block_size {model.config.block_size}; "
          f"{n} new tokens per run; torch {torch.__version__}, threads {torch.get_num_threads()}")
    greedy = dict(temperature=0)
    rates = _race({
        "greedy": lambda: generate(model, prompt, n, **greedy),
        "greedy old": lambda: _old_greedy(model, prompt, n),
        "greedy no-cache": lambda: generate(model, prompt, n, use_cache=False, **greedy),
        "beam 4": lambda: beam_search(model, prompt, n, beam_width=4),
        "beam 4 no-cache": lambda: beam_search(model, prompt, n, beam_width=4, use_cache=False),
    }, args.rounds, n)
    for name, rate in rates.items():
        print(f"  {name:<16} {rate:>8,.0f} tokens/s{BASELINE if 'old' in name else ''}")
    print(f"speedup_vs_old {rates['greedy'] / rates['greedy old']:.2f}")

    torch.manual_seed(0)
    c = model.config
    big = GPT(GPTConfig(**{**c.to_dict(), "block_size": 256})).eval()
    with torch.no_grad():   # sharper than the 0.02 init, so the tokens vary
        big.W_U.weight.mul_(40)
    n = 256
    print(f"\n256-position config (random weights): {n} new greedy tokens from a one-token prompt")
    rates = _race({
        "cache": lambda: generate(big, prompt, n, **greedy),
        "no cache": lambda: generate(big, prompt, n, use_cache=False, **greedy),
        "old cache": lambda: _old_greedy(big, prompt, n),
    }, max(3, args.rounds // 2), n)
    for name, rate in rates.items():
        print(f"  {name:<16} {rate:>8,.0f} tokens/s{BASELINE if 'old' in name else ''}")
    print(f"kv_cache_speedup_256 {rates['cache'] / rates['no cache']:.2f}")


if __name__ == "__main__":
    main()
