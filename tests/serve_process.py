"""A real ``tutor serve`` started for a test (tests/test_serve.py, tests/test_browser.py)."""
import contextlib
import re
import socket
import subprocess
import sys
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_serve(home, *options: str):
    """A running ``tutor serve`` on a free port: (base URL, token, port); stopped on leaving."""
    port = free_port()
    log = home / "stdout.txt"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "tutor", "--home", str(home), "serve", "--port", str(port),
                                   *options], stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        found = None
        deadline = time.monotonic() + 240   # a deadline for a hung start, not a speed check
        while found is None and time.monotonic() < deadline:
            assert server.poll() is None, log.read_text()
            found = re.search(r"(https?://127\.0\.0\.1:\d+)/\?token=([\w-]+)", log.read_text())
            time.sleep(0.1)
        assert found, f"no address printed: {log.read_text()}"
        base, token = found.groups()
        assert base.endswith(f"://127.0.0.1:{port}") and len(token) >= 40
        yield base, token, port
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
