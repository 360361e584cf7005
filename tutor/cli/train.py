"""``tutor train``: train the built-in GPT from the terminal, with a Rich progress bar.

torch is imported inside ``run`` so that ``tutor --help`` starts fast.  The first Ctrl+C asks
the trainer to stop after the current step; the weights are then saved as usual and the
command exits 130, the shell's code for an interrupt.  A second Ctrl+C during training leaves
at once; once training has ended, Ctrl+C is ignored while the weights are saved and the command
exits (it once broke into torch's exit hooks with a traceback, see cli/main.py).
"""
from __future__ import annotations

import argparse
import signal
import sys
import time
from datetime import datetime, timezone

from tutor.common.i18n import _, message_of, translated
from tutor.cli.args import non_negative_int, positive_int, real_number, whole_number
from tutor.common.safe_text import one_line
from tutor.model.formats import TASKS
from tutor.model.presets import SIZES, TASK_BATCH, TEXT_BATCH


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "train", help=_("train the built-in GPT on a task or a text"),
        description=_("Train the built-in GPT. sort/reverse are digit tasks checked by exact match "
                    "(prompt format '3141>' -> '1134\\n'); text is prose shipped with Python; "
                    "anything else is read as a path to a UTF-8 text file."))
    p.add_argument("--steps", type=positive_int, default=1500, help=_("optimisation steps (default 1500)"))
    p.add_argument("--data", default="sort", help=_("sort | reverse | text | PATH (default sort)"))
    p.add_argument("--out", default=None, help=_("checkpoint to write (default tutor-<data>.pt)"))
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=0,
                   help=_("seed for weights and batches, 0 to 2^63-1 (default 0)"))
    p.add_argument("--size", choices=sorted(SIZES), default="tiny",
                   help=_("tiny: d_model 64, 4 heads, 2 layers, 64 tokens; small: 128, 4, 4, 128"))
    p.add_argument("--positions", choices=("learned", "sinusoidal", "none"), default="learned")
    p.add_argument("--batch-size", type=positive_int, default=None,
                   help=_("sequences per step (default {tasks} for tasks, {text} for text)").format(
                       tasks=TASK_BATCH, text=TEXT_BATCH))
    p.add_argument("--lr", type=real_number(0, open_below=True), default=3e-3,
                   help=_("peak learning rate (default 3e-3)"))
    p.add_argument("--warmup", type=non_negative_int, default=100, help=_("warm-up steps (default 100)"))
    p.add_argument("--eval-interval", type=positive_int, default=250, help=_("steps between validations"))
    p.add_argument("--min-len", type=positive_int, default=1, help=_("shortest digit string (tasks)"))
    p.add_argument("--max-len", type=positive_int, default=8, help=_("longest digit string (tasks)"))
    p.add_argument("--checkpoint", default=None, help=_("continue training from this checkpoint"))
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help=_("where to compute: auto uses a CUDA GPU when there is one, else the CPU (default auto)"))
    p.add_argument("--threads", type=positive_int, default=None,
                   help=_("CPU threads (default 1, or OMP_NUM_THREADS: these small models gain little from "
                        "more, and slow down several-fold when the cores are busy with other work)"))
    p.set_defaults(func=run)


def _command_line(args: argparse.Namespace) -> str:
    parts = ["tutor train", f"--data {args.data}", f"--steps {args.steps}", f"--seed {args.seed}",
             f"--size {args.size}", f"--lr {args.lr:g}"]
    if args.batch_size:
        parts.append(f"--batch-size {args.batch_size}")
    if args.threads:
        parts.append(f"--threads {args.threads}")
    if args.positions != "learned":
        parts.append(f"--positions {args.positions}")
    if args.data in TASKS and (args.min_len, args.max_len) != (1, 8):
        parts.append(f"--min-len {args.min_len} --max-len {args.max_len}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    handler = signal.getsignal(signal.SIGINT)   # _run ignores Ctrl+C once training has ended
    try:
        return _run(args)
    except KeyboardInterrupt:   # before training started, or a second Ctrl+C during it
        print(_("interrupted: nothing saved"), file=sys.stderr)
        return 130
    finally:
        try:
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
        except ValueError:   # not the main thread: nothing was changed
            pass


def _run(args: argparse.Namespace) -> int:
    import torch
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from tutor.model import GPT, GPTConfig, CharTokenizer
    from tutor.model.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
    from tutor.model.data import load_dataset
    from tutor.model.train import TrainConfig, Trainer, resolve_device, use_training_threads

    # soft: never break a path in two; markup off and one_line: a path or a file's text may hold
    # "[/]" (Rich once raised MarkupError on it), "[bold]" (once eaten) or ESC (once printed raw)
    err = Console(stderr=True, highlight=False, soft_wrap=True, markup=False)
    out = Console(highlight=False, soft_wrap=True, markup=False)
    try:
        device = resolve_device(args.device)
    except ValueError as exc:
        err.print(one_line(_("error: {error}").format(error=translated(message_of(exc)))))
        return 2
    if device.type == "cpu":
        use_training_threads(args.threads)   # the policy the dashboard follows too
    is_task = args.data in TASKS
    previous: dict = {}
    torch.manual_seed(args.seed)
    if args.checkpoint:
        try:
            model, tokenizer, previous = load_checkpoint(args.checkpoint)
        except CheckpointError as exc:
            err.print(one_line(_("error: {error}").format(error=translated(message_of(exc)))))
            return 1
    else:
        tokenizer = CharTokenizer()
        model = GPT(GPTConfig(vocab_size=tokenizer.vocab_size, positions=args.positions, **SIZES[args.size]))
    try:
        dataset = load_dataset(args.data, model.config.block_size, tokenizer, args.min_len, args.max_len)
        config = TrainConfig(steps=args.steps, batch_size=args.batch_size or (TASK_BATCH if is_task else TEXT_BATCH),
                             lr=args.lr, warmup_steps=args.warmup, eval_interval=args.eval_interval,
                             seed=args.seed, device=str(device))
    except ValueError as exc:
        err.print(one_line(_("error: {error}").format(error=translated(message_of(exc)))))
        return 2
    note = getattr(dataset, "replaced_note", lambda: None)()
    if note:
        err.print(one_line(_("note: {note}").format(note=note)))
    out_path = args.out or f"tutor-{args.data if is_task or args.data == 'text' else 'text'}.pt"

    # the columns' words are Rich templates: translated, then their braces kept for Rich's own fields
    progress = Progress(TextColumn(_("train"), style="bold"), BarColumn(), MofNCompleteColumn(),
                        TextColumn(_("loss {loss}").format(loss="{task.fields[loss]}")),
                        TextColumn(_("{speed} tok/s").format(speed="{task.fields[speed]}")),
                        TextColumn("{task.fields[acc]}"), TimeRemainingColumn(), console=err)
    bar = progress.add_task("train", total=args.steps, loss="-", speed="-", acc="")

    def on_step(m) -> None:
        acc = _("acc {accuracy}").format(accuracy=f"{m.accuracy:.1%}") if m.accuracy is not None else ""
        progress.update(bar, completed=m.step, loss=f"{m.loss:.4f}", speed=f"{m.tokens_per_s:,.0f}", acc=acc)
        if m.evaluated:
            line = _("step {step}  loss {loss}  val {val}  lr {lr}").format(
                step=f"{m.step:>6}", loss=f"{m.loss:.4f}", val=f"{m.val_loss:.4f}", lr=f"{m.lr:.2e}")
            if m.accuracy is not None:
                line += "  " + _("exact-match {accuracy}").format(accuracy=f"{m.accuracy:.1%}")
            progress.console.print(line)

    trainer = Trainer(model, dataset, config, callbacks=[on_step])
    interrupted = False

    def on_sigint(signum, frame) -> None:
        nonlocal interrupted
        interrupted = True
        trainer.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl+C leaves now

    old_handler = None
    try:
        old_handler = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: no Ctrl+C handling to do
        pass
    err.print(one_line(_("training {count} parameters on {data} ({device}); Ctrl+C stops and saves").format(
        count=f"{model.num_parameters():,}", data=dataset.describe()["data"], device=device)))
    started = time.time()
    try:
        with progress:
            result = trainer.run()
    finally:
        if old_handler is not None:   # ended: the weights are saved next, whatever else is pressed (run restores)
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    m = result.metrics
    meta = {
        "data": dataset.describe()["data"], "dataset": dataset.describe(), "stop": dataset.stop,
        "steps": int(previous.get("steps", 0) or 0) + trainer.step_count,
        "train_loss": m.loss if m else None, "val_loss": m.val_loss if m else None,
        "accuracy": m.accuracy if m else None, "seed": args.seed, "status": result.status,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "training_seconds": round(float(previous.get("training_seconds", 0) or 0) + (time.time() - started), 1),
        "size": args.size if not args.checkpoint else previous.get("size"),
        "train_config": vars(config), "command": _command_line(args), "continued_from": args.checkpoint,
        "device": str(device), "threads": torch.get_num_threads(), "torch": torch.__version__,
    }
    if result.status == "diverged":
        err.print(one_line(translated(result.message)), style="red")
    if trainer.step_count == 0:
        err.print(_("no steps were taken: nothing saved"))
        return 130 if interrupted else 1
    try:
        save_checkpoint(out_path, trainer.model, tokenizer, meta)
    except OSError as exc:
        err.print(one_line(_("error: cannot write {path}: {error}").format(path=out_path, error=exc.strerror or exc)))
        return 1
    if m is not None and m.accuracy is not None:
        n = len(trainer.held_out or [])
        out.print(one_line(_("exact-match accuracy: {accuracy} on {count} held-out {data} examples").format(
            accuracy=f"{m.accuracy:.1%}", count=n, data=args.data)))
    if m is not None:
        line = _("steps {steps}  train loss {loss}").format(steps=trainer.step_count, loss=f"{m.loss:.4f}")
        if m.val_loss is not None:
            line += "  " + _("val loss {loss}").format(loss=f"{m.val_loss:.4f}")
        out.print(line + f"  {meta['training_seconds']:.0f} s")
    saved = _("saved {path} (last good weights)") if result.status == "diverged" else _("saved {path}")
    out.print(one_line(saved.format(path=out_path)))
    if result.status == "diverged":
        return 1
    return 130 if interrupted else 0

