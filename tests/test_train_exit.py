"""Ctrl+C pressed again while `tutor train` saves and exits: exit 130, no traceback.

It once broke into torch's and threading's exit hooks ("Exception ignored in atexit callback",
a KeyboardInterrupt traceback) or killed the process by the signal instead of exiting 130.
"""
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ctrl_c_again_while_exiting_changes_nothing(tmp_path):
    out = tmp_path / "stopped.pt"
    proc = subprocess.Popen([sys.executable, "-m", "tutor", "train", "--steps", "100000", "--batch-size", "8",
                             "--eval-interval", "1", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT),
                                 "PYTHONUNBUFFERED": "1"})   # "saved" arrives as it is printed
    assert "Ctrl+C" in proc.stderr.readline()   # the handler is in place
    while not (line := proc.stderr.readline()).lstrip().startswith("step"):
        assert line, "the command ended before its first step"
    proc.send_signal(signal.SIGINT)             # a step is done: stop and save
    while "saved" not in (line := proc.stdout.readline()):
        assert line, "the command ended without saving"
    while proc.poll() is None:                  # and again, and again, until it has exited
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=0.005)
        except subprocess.TimeoutExpired:
            pass
    stderr = proc.stderr.read()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert out.exists()
