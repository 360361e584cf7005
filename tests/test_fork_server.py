"""Tabs forked from one preloaded process (tutor.web.fork_server): a tab started through the launcher
behaves as ``python -m tutor`` would, with its own arguments, output and exit status, and the
launcher runs the tutor itself when the fork server is not (or not yet) there."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutor.web.fork_server import ForkServer, launcher_command


@pytest.fixture(scope="module")
def forks():
    server = ForkServer.start()
    try:
        deadline = time.monotonic() + 180   # a deadline for a hung preload, not a speed check
        while not server.socket_path.exists():
            assert server.process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        yield server
    finally:
        server.stop()
    assert not server.folder.exists() and server.process.poll() is not None


def run(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120)


def test_a_forked_tab_gets_its_arguments_output_and_exit_status(forks, tmp_path):
    version = run(forks.command(["--version"]))
    assert (version.returncode, version.stdout.strip()) == (0, "tutor 0.1.0")
    zh = run(forks.command(["--lang", "zh", "--home", str(tmp_path), "lessons", "check", str(tmp_path / "none")]))
    assert zh.returncode != 0 and zh.stdout + zh.stderr           # a failing tab's status reaches textual-serve
    help_zh = run(forks.command(["--lang", "zh", "--help"])).stdout
    assert "学习" in help_zh   # the tab's own --lang, not the fork server's language


def test_each_forked_tab_draws_its_own_random_numbers(forks):
    """Forks share their parent's generator state unless reseeded: every tab would sample alike."""
    text_model = str(Path(__file__).resolve().parents[1] / "model" / "checkpoints" / "text.pt")
    sample = ["sample", "The ", "--checkpoint", text_model, "--temperature", "1.5", "--max-tokens", "60", "--stop", ""]
    runs = [run(forks.command(sample)) for _ in range(3)]
    assert all(r.returncode == 0 and r.stdout for r in runs), [r.stderr[-500:] for r in runs]
    assert len({r.stdout for r in runs}) > 1


def test_without_a_fork_server_the_launcher_runs_the_tutor_itself(tmp_path):
    result = run(launcher_command(tmp_path / "absent.sock", ["--version"]))
    assert (result.returncode, result.stdout.strip()) == (0, "tutor 0.1.0")
    assert sys.executable in launcher_command(tmp_path / "absent.sock", [])
