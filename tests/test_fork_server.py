"""Tabs forked from one preloaded process (tutor.web.fork_server): a tab started through the launcher
behaves as ``python -m tutor`` would, with its own arguments, output and exit status, and the
launcher runs the tutor itself when the fork server is not (or not yet) there."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutor.web.fork_server import ForkServer, launcher_command


@pytest.fixture(scope="module")
def forks():
    os.environ["JUPYTERHUB_API_TOKEN"] = "the hub service's token"   # as tutor serve --hub-service has it
    try:
        server = ForkServer.start()
    finally:
        del os.environ["JUPYTERHUB_API_TOKEN"]
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


def test_the_fork_server_does_not_hold_the_hub_token(forks):
    """Every tab is a fork of it: a hub service's token in its environment would be in every student's tab."""
    environment = Path(f"/proc/{forks.process.pid}/environ").read_bytes().split(b"\0")
    assert not [entry for entry in environment if entry.startswith(b"JUPYTERHUB_")]


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


def test_the_fork_server_preloads_one_torch_thread_and_no_compiler():
    """Every tab forked from the server inherits its thread counts and its imports: one torch
    thread (OMP_NUM_THREADS when the server's environment sets it), and not torch._dynamo (~70 MB
    and ~2 s of CPU that no tab needs)."""
    probe = ("import sys, torch; from tutor.web import fork_server as f; f.preload(); "
             "print(torch.get_num_threads(), torch.get_num_interop_threads(), 'torch._dynamo' in sys.modules, "
             "all(name in sys.modules for name in f.PRELOAD))")
    environment = {key: value for key, value in os.environ.items() if key != "OMP_NUM_THREADS"}
    plain = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=environment)
    assert plain.stdout.split() == ["1", "1", "False", "True"], plain.stderr[-2000:]
    three = subprocess.run([sys.executable, "-c", "import torch; from tutor.web import fork_server as f; "
                            "f.limit_threads(); print(torch.get_num_threads())"],
                           capture_output=True, text=True, timeout=300, env={**environment, "OMP_NUM_THREADS": "3"})
    assert three.stdout.split() == ["3"], three.stderr[-2000:]


def test_the_fork_server_reads_the_lessons_ahead_for_every_language(tmp_path, monkeypatch):
    """Without a lesson cache (a new machine or account), each of ten tabs joining at once read and
    validated every lesson file itself; the fork server writes the cache before it takes a tab."""
    from tutor.common.i18n import LANGUAGES
    from tutor.course.cache import cache_file, catalog_sources

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    mine = tmp_path / "mine"
    mine.mkdir()
    server = ForkServer.start([mine])
    try:
        assert server.wait_ready(300)   # a deadline for a hung preload, not a speed check
        for language in LANGUAGES:
            assert cache_file(catalog_sources([mine]), cache / "tutor", language).exists(), language
    finally:
        server.stop()


def children(pid: int) -> set[int]:
    """The live (not yet ended) child processes of ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def test_a_tab_whose_launcher_is_gone_is_ended(forks, tmp_path):
    """The served tab of a browser that went away is stopped by stopping its launcher's process
    group; the tab itself is the fork server's child, blocked writing a frame nobody reads."""
    before = children(forks.process.pid)
    environment = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "COLUMNS": "200",
                   "ROWS": "60"}
    launcher = subprocess.Popen(forks.command(["--home", str(tmp_path)]), shell=True, env=environment,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        assert launcher.stdout.readline() == b"__GANGLION__\n"   # the tab draws, and nobody reads on
        tabs = children(forks.process.pid) - before
        assert len(tabs) == 1
        os.killpg(launcher.pid, 15)
        launcher.wait(60)
        deadline = time.monotonic() + 60   # a deadline for a tab that never ends, not a speed check
        while tabs & children(forks.process.pid):
            assert time.monotonic() < deadline, "the tab outlived its launcher"
            time.sleep(0.1)
    finally:
        launcher.stdin.close()
        launcher.stdout.close()
