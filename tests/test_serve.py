"""``tutor serve``: the page is served on loopback, and a public address needs --public."""
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tutor.cli.main import main
from tutor.cli.serve import app_command, is_loopback


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> tuple[int, str] | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def test_serve_answers_with_the_textual_serve_page(tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tutor", "--home", str(tmp_path), "serve", "--port",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, page = time.monotonic() + 30, None
        while page is None and time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read()
            page = fetch(f"http://127.0.0.1:{port}/")
            time.sleep(0.1)
        assert page is not None, "the server never answered"
        status, body = page
        assert status == 200
        assert "textual.js" in body and "Transformer math tutor" in body
        assert f"ws://127.0.0.1:{port}/ws" in body
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_a_non_loopback_host_is_refused_without_public(capsys):
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 2
    err = capsys.readouterr().err
    assert "0.0.0.0" in err and "--public" in err


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                            ("127.0.0.2", True), ("0.0.0.0", False), ("192.168.1.5", False),
                                            ("example.com", False)])
def test_loopback_detection(host, loopback):
    assert is_loopback(host) is loopback


def test_the_served_command_is_this_tutor_with_the_same_home_and_lessons(tmp_path):
    command = shlex.split(app_command(tmp_path / "home dir", [tmp_path / "mine"]))
    assert command[:3] == [sys.executable, "-m", "tutor"]
    assert command[3:] == ["--home", str((tmp_path / "home dir").resolve()), "--lessons", str(tmp_path / "mine")]
    assert shlex.split(app_command(None, [])) == [sys.executable, "-m", "tutor"]
