"""Decoding speed with and without the KV cache.

Run:  python bench/sample_speed.py [--checkpoint PATH | --size small] [--rounds 10]

Greedy decoding from a one-character prompt until the context is full (block_size - 1 new
tokens), so the cache never has to be rebuilt.  With the cache each step feeds one token;
without it each step re-runs the whole sequence so far.  The two are run in alternating
rounds on the same model; the tokens must be identical (checked).  By default the model is
the shipped checkpoint (block_size 64); ``--size small`` uses random weights of the
``small`` preset (block_size 128), where the cache saves more.

Last line: ``kv_cache_speedup X`` = cached tokens/s / uncached tokens/s.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.model import GPT, GPTConfig, CharTokenizer  # noqa: E402
from tutor.model.checkpoint import default_checkpoint_path, load_checkpoint  # noqa: E402
from tutor.model.sample import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--size", choices=("default", "small"), default="default")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.size == "small":
        torch.manual_seed(0)
        model = GPT(GPTConfig(vocab_size=CharTokenizer().vocab_size, d_model=128, n_head=4, n_layer=4,
                              block_size=128)).eval()
        name = "random small preset"
    else:
        path = args.checkpoint or default_checkpoint_path()
        model, _, _ = load_checkpoint(path)
        name = str(path)
    prompt = [1]
    n = model.config.block_size - len(prompt)
    rates: dict[bool, list[float]] = {True: [], False: []}
    outputs: dict[bool, list[int]] = {}
    print(f"model {name}: {model.num_parameters():,} parameters, block_size {model.config.block_size}; "
          f"{n} greedy tokens per run; torch threads {torch.get_num_threads()}")
    for r in range(args.rounds + 1):
        for use_cache in ((True, False) if r % 2 == 0 else (False, True)):
            start = time.perf_counter()
            outputs[use_cache] = generate(model, prompt, n, temperature=0, use_cache=use_cache)
            if r > 0:   # round 0 warms up
                rates[use_cache].append(n / (time.perf_counter() - start))
    assert outputs[True] == outputs[False], "the cache changed the tokens"
    with_cache, without = statistics.median(rates[True]), statistics.median(rates[False])
    print(f"with KV cache    {with_cache:,.0f} tokens/s (median of {args.rounds})")
    print(f"without KV cache {without:,.0f} tokens/s")
    print("same tokens with and without the cache: yes")
    print(f"kv_cache_speedup {with_cache / without:.2f}")


if __name__ == "__main__":
    main()
