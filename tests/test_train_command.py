"""`tutor train` and `tutor sample`: flags, outputs, exit codes, Ctrl+C."""
import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutor.model.checkpoint import load_checkpoint
from tutor.cli import sample as sample_command
from tutor.cli import train as train_command

ROOT = Path(__file__).resolve().parents[1]




def parse(*argv):
    parser = argparse.ArgumentParser(prog="tutor")
    subparsers = parser.add_subparsers(dest="command", required=True)
    train_command.add_parser(subparsers)
    sample_command.add_parser(subparsers)
    return parser.parse_args(list(argv))


def call(*argv):
    args = parse(*argv)
    return args.func(args)


@pytest.mark.parametrize("argv", [
    ("sample", "x", "--temperature", "-1"), ("sample", "x", "--top-k", "0"), ("sample", "x", "--top-p", "0"),
    ("sample", "x", "--top-p", "1.5"), ("sample", "x", "--beam", "0"), ("sample", "x", "--max-tokens", "0"),
    ("sample", "x", "--temperature", "hot"), ("sample", "x", "--wat"), ("train", "--steps", "0"),
    ("train", "--lr", "-1"), ("train", "--warmup", "-1"), ("train", "--size", "huge"), ("train", "--device", "tpu"), ("train", "--threads", "0"),
])
def test_bad_flags_exit_2_with_a_message(argv, capsys):
    with pytest.raises(SystemExit) as info:
        parse(*argv)
    assert info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_commands_register_their_defaults():
    assert parse("train").func is train_command.run
    assert parse("sample", "hi").func is sample_command.run


def test_train_a_task_prints_accuracy_and_saves_meta(tmp_path, capsys):
    out = tmp_path / "m.pt"
    rc = call("train", "--data", "reverse", "--steps", "6", "--batch-size", "8", "--eval-interval", "3",
              "--max-len", "4", "--out", str(out), "--seed", "5", "--device", "cpu")
    captured = capsys.readouterr()
    assert rc == 0 and "exact-match accuracy:" in captured.out and "saved" in captured.out
    model, tok, meta = load_checkpoint(out)
    assert meta["data"] == "reverse" and meta["steps"] == 6 and meta["seed"] == 5 and meta["stop"] == "\n"
    assert meta["status"] == "finished" and 0 <= meta["accuracy"] <= 1 and meta["val_loss"] > 0
    assert meta["command"].startswith("tutor train --data reverse --steps 6 --seed 5")

    rc = call("train", "--data", "reverse", "--steps", "2", "--batch-size", "8", "--max-len", "4",
              "--checkpoint", str(out), "--out", str(tmp_path / "more.pt"))
    assert rc == 0
    assert load_checkpoint(tmp_path / "more.pt")[2]["steps"] == 8


def test_train_on_a_text_file(tmp_path, capsys):
    corpus = tmp_path / "poem.txt"
    corpus.write_text("the cat sat on the mat and the dog sat on the log\n" * 40, encoding="utf-8")
    rc = call("train", "--data", str(corpus), "--steps", "3", "--batch-size", "4", "--out", str(tmp_path / "t.pt"))
    assert rc == 0 and "exact-match" not in capsys.readouterr().out
    assert load_checkpoint(tmp_path / "t.pt")[2]["stop"] is None


def test_train_reports_bad_data_and_bad_checkpoints(tmp_path, capsys):
    assert call("train", "--data", str(tmp_path / "nothing.txt"), "--out", str(tmp_path / "x.pt")) == 2
    assert "neither sort" in capsys.readouterr().err
    (tmp_path / "bad.pt").write_bytes(b"junk")
    assert call("train", "--checkpoint", str(tmp_path / "bad.pt")) == 1
    assert "corrupt" in capsys.readouterr().err


def test_sample_prints_only_the_generated_text(capsys):
    assert call("sample", "3141>", "--temperature", "0") == 0
    captured = capsys.readouterr()
    assert captured.out == "1134\n" and captured.err == ""
    for flags in (["--top-k", "2", "--seed", "1"], ["--top-p", "0.9", "--seed", "1"], ["--beam", "3"], ["--no-cache"]):
        assert call("sample", "90210>", *flags) == 0
        assert capsys.readouterr().out == "00129\n", flags


def test_sample_notes_go_to_stderr(tmp_path, capsys):
    assert call("sample", "1" * 100 + "3141>", "--max-tokens", "3", "--stop", "") == 0
    captured = capsys.readouterr()
    assert "block_size" in captured.err and len(captured.out) == 4
    assert call("sample", "", "--max-tokens", "3") == 2
    assert "empty" in capsys.readouterr().err
    (tmp_path / "bad.pt").write_bytes(b"\x00" * 10)
    assert call("sample", "hi", "--checkpoint", str(tmp_path / "bad.pt")) == 1
    err = capsys.readouterr().err
    assert str(tmp_path / "bad.pt") in err and "Traceback" not in err


def test_sample_in_a_subprocess_keeps_stdout_clean():
    proc = subprocess.run([sys.executable, "-m", "tutor", "sample", "3141>", "--seed", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "1134\n", proc.stderr


def test_ctrl_c_saves_and_exits_cleanly(tmp_path):
    out = tmp_path / "stopped.pt"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tutor", "train", "--steps", "100000", "--batch-size", "8",
                             "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    line = proc.stderr.readline()          # "training ... Ctrl+C stops and saves": the handler is in place
    assert "Ctrl+C" in line
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "saved" in stdout
    meta = load_checkpoint(out)[2]
    assert meta["status"] == "stopped" and 0 < meta["steps"] < 100000


def test_a_diverging_run_says_so_and_saves_the_last_good_weights(tmp_path, capsys):
    out = tmp_path / "d.pt"
    rc = call("train", "--steps", "5", "--lr", "1e30", "--warmup", "0", "--batch-size", "4", "--out", str(out))
    captured = capsys.readouterr()
    assert rc == 1 and "diverged" in captured.err and "last good weights" in captured.out
    assert load_checkpoint(out)[2]["status"] == "diverged"     # loading also proves the weights are finite


def test_a_seed_out_of_range_is_refused_with_the_range(capsys):
    with pytest.raises(SystemExit):
        parse("train", "--seed", str(10**30))
    assert "between 0 and" in capsys.readouterr().err


def test_a_training_file_over_the_cap_is_refused(tmp_path, monkeypatch):
    import tutor.model.data as data

    monkeypatch.setattr(data, "MAX_TEXT_BYTES", 100)
    big = tmp_path / "big.txt"
    big.write_text("x" * 101, encoding="utf-8")
    with pytest.raises(ValueError, match="larger than"):
        data.load_dataset(str(big))
