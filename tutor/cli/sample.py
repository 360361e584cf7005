"""``tutor sample "PROMPT"``: continue a prompt with a checkpoint, printing only the text.

stdout carries the generated text alone (so it can be piped); notes and errors go to stderr.
Without ``--checkpoint`` the shipped default (a sort-task model) is used, and generation stops
at the stop string the checkpoint was trained with (a newline for sort/reverse), so
``tutor sample "3141>"`` prints ``1134``.  torch is imported inside ``run``.
"""
from __future__ import annotations

import argparse
import os
import sys

from tutor.common.i18n import _, message_of, translated
from tutor.common.safe_text import neutralise, one_line
from tutor.cli.args import positive_int, real_number, whole_number
from tutor.training.sampling import (MAX_BEAM, MAX_TEMPERATURE, MAX_TOKENS, MIN_TEMPERATURE, MIN_TOP_P,
                                     check_temperature)


def temperature(text: str) -> float:
    """0 (greedy) or a temperature float32 sampling can use; the bound is in the message."""
    value = real_number(0, MAX_TEMPERATURE)(text)
    problem = check_temperature(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def decode_stop(text: str) -> str:
    """``--stop`` with backslash escapes ('\\n', '\\t', '\\u2192'); other characters stay as typed."""
    try:
        # backslashreplace first: unicode_escape reads bytes as Latin-1, which would garble '→'
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError as error:
        raise argparse.ArgumentTypeError(
            f"'{text}' has a backslash that starts no escape ({error.reason}); use \\n, \\t, \\uXXXX, "
            f"or \\\\ for a backslash itself") from None


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "sample", help=_("continue a prompt with a trained checkpoint"),
        description=_("Generate text after PROMPT. Only the generated text goes to stdout."))
    p.add_argument("prompt", help=_("text to continue, e.g. '3141>' for the sort model"))
    p.add_argument("--checkpoint", default=None, help=_("checkpoint file (default: the shipped sort model)"))
    p.add_argument("--temperature", type=temperature, default=1.0,
                   help=_("0 means greedy; otherwise between {least} and {most} (default 1)").format(
                       least=f"{MIN_TEMPERATURE:g}", most=f"{MAX_TEMPERATURE:g}"))
    p.add_argument("--top-k", type=positive_int, default=None, help=_("sample only from the k likeliest tokens"))
    p.add_argument("--top-p", type=real_number(MIN_TOP_P, 1), default=None,
                   help=_("nucleus: smallest set with mass >= p, between {least} and 1").format(least=f"{MIN_TOP_P:g}"))
    p.add_argument("--beam", type=whole_number(1, MAX_BEAM), default=None,
                   help=_("beam search of this width, at most {most} (ignores sampling flags; "
                          "progress goes to stderr)").format(most=MAX_BEAM))
    p.add_argument("--max-tokens", type=whole_number(1, MAX_TOKENS), default=100,
                   help=_("most tokens to generate, at most {most} (default 100)").format(most=MAX_TOKENS))
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=None, help=_("same seed, same text"))
    p.add_argument("--stop", type=decode_stop, default=None,
                   help=_("stop after this text, escapes allowed ('\\n'); '' never stops, so --max-tokens "
                        "ends the text (default: the checkpoint's, a newline for sort/reverse)"))
    p.add_argument("--no-cache", action="store_true", help=_("recompute every step instead of using the KV cache"))
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help=_("where to compute: auto uses a CUDA GPU when there is one, else the CPU (default auto)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:
        sys.stdout.write("\n")
        return 130
    except BrokenPipeError:   # e.g. piped into `head`: the reader has gone, which is fine
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


class BeamProgress:
    """Beam search knows its text only at the end; until then stderr says how far it is.

    On a terminal one line is rewritten at each step; in a log, a line every tenth of the way.
    """

    def __init__(self, total: int, stream=None) -> None:
        self.total, self.stream = total, stream or sys.stderr
        self.live = self.stream.isatty()
        self.every = max(1, total // 10)

    def __call__(self, step: int) -> None:
        if self.live:
            self.stream.write("\r" + _("beam search: step {step}/{total}").format(step=step, total=self.total))
            if step == self.total:
                self.stream.write("\n")
        elif step % self.every == 0 or step == self.total:
            self.stream.write(_("beam search: step {step}/{total}").format(step=step, total=self.total) + "\n")
        self.stream.flush()


def _run(args: argparse.Namespace) -> int:
    from tutor.model.checkpoint import CheckpointError, default_checkpoint_path, load_checkpoint
    from tutor.model.sample import beam_search, stream
    from tutor.model.train import resolve_device
    from tutor.common.prompt_chars import prompt_ids

    def note(text: str) -> None:
        print(one_line(text), file=sys.stderr)   # errors name paths, which may hold ESC

    if not args.prompt:
        note(_("error: the prompt is empty; give some text to continue"))
        return 2
    try:
        device = resolve_device(args.device)
    except ValueError as exc:
        note(_("error: {error}").format(error=translated(message_of(exc))))
        return 2
    if device.type == "cpu":
        import torch
        torch.set_num_threads(1)  # one token at a time is too little work to share; threads only wait
    path = args.checkpoint or default_checkpoint_path()
    try:
        model, tokenizer, meta = load_checkpoint(path, device)
    except CheckpointError as exc:
        note(_("error: {error}").format(error=translated(message_of(exc))))
        return 1
    stop = meta.get("stop") if args.stop is None else args.stop
    stop = stop if isinstance(stop, str) and stop else None

    try:
        ids = prompt_ids(tokenizer, args.prompt)   # ３１４２＞ reads as 3142>
    except ValueError as exc:
        note(_("error: {error}").format(error=translated(message_of(exc))))
        return 2
    if len(ids) > model.config.block_size:
        note(_("note: the prompt has {count} characters; only the last {block} (the model's block_size) are used")
             .format(count=len(ids), block=model.config.block_size))
        ids = ids[-model.config.block_size:]
    # one character the vocabulary lacks would encode as '?' and stop there: leave it to the text match
    stop_ids = tokenizer.encode(stop) if stop and len(stop) == 1 and stop in tokenizer.chars else ()

    if args.beam is not None:
        if args.top_k is not None or args.top_p is not None or args.temperature != 1.0:
            note(_("note: --beam searches for the likeliest text; temperature/top-k/top-p are ignored"))
        tokens = beam_search(model, ids, args.max_tokens, args.beam, stop_ids=stop_ids,
                             use_cache=not args.no_cache, on_step=BeamProgress(args.max_tokens))
        text = neutralise(tokenizer.decode(tokens), keep="\n\t")
        if stop and stop in text:
            text = text[: text.index(stop) + len(stop)]
        sys.stdout.write(text)
    else:
        text = ""
        for token in stream(model, ids, args.max_tokens, args.temperature, args.top_k, args.top_p,
                            args.seed, not args.no_cache, stop_ids):
            piece = tokenizer.decode([token])
            text += piece
            sys.stdout.write(neutralise(piece, keep="\n\t"))   # a checkpoint's vocabulary may hold ESC
            sys.stdout.flush()
            if stop and text.endswith(stop):
                break
    if not text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    return 0

