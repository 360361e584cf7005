"""``tutor serve``: loopback by default, --public for other addresses, and nothing without the run's token,
from another Host (DNS rebinding) or from another site's page (Origin)."""
import shlex
import socket
import subprocess
import sys
import re
import time

import aiohttp
import pytest

from tutor.cli.main import main
from tutor.cli.serve import AccessPolicy, app_command, display_host, is_loopback


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A running ``tutor serve`` on a free port: (base URL, token); stopped after the module."""
    home = tmp_path_factory.mktemp("serve-home")
    port = free_port()
    log = home / "stdout.txt"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "tutor", "--home", str(home), "serve", "--port", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        found = None
        deadline = time.monotonic() + 60   # a deadline for a hung start, not a speed check
        while found is None and time.monotonic() < deadline:
            assert server.poll() is None, log.read_text()
            found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=([\w-]+)", log.read_text())
            time.sleep(0.1)
        assert found, f"no address printed: {log.read_text()}"
        base, token = found.groups()
        assert base == f"http://127.0.0.1:{port}" and len(token) >= 40
        yield base, token, port
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


async def get(url: str, headers: dict | None = None, cookies: dict | None = None):
    async with aiohttp.ClientSession(cookies=cookies) as session:
        async with session.get(url, headers=headers or {}, allow_redirects=False) as response:
            return response.status, await response.text(), response.headers.getall("Set-Cookie", [])


async def websocket_status(url: str, headers: dict | None = None, cookies: dict | None = None) -> int:
    """101 when the upgrade is accepted (the socket is closed at once), else the HTTP status."""
    async with aiohttp.ClientSession(cookies=cookies) as session:
        try:
            async with session.ws_connect(url, headers=headers or {}) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


async def test_the_right_token_gets_the_page_and_a_strict_http_only_cookie(served):
    base, token, port = served
    status, body, cookies = await get(f"{base}/?token={token}")
    assert status == 200
    assert "textual.js" in body and "Transformer math tutor" in body
    assert f"ws://127.0.0.1:{port}/ws" in body
    cookie = next(c for c in cookies if c.startswith(f"tutor_token_{port}="))
    assert token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie


@pytest.mark.parametrize("query", ["", "?token=", "?token=wrong", "?fontsize=20"])
async def test_no_token_or_a_wrong_one_is_refused(served, query):
    base, token, _ = served
    status, body, cookies = await get(f"{base}/{query}")
    assert status == 403 and "token" in body and not cookies
    assert token not in body


async def test_static_files_need_the_cookie(served):
    base, token, port = served
    assert (await get(f"{base}/static/js/textual.js"))[0] == 403
    assert (await get(f"{base}/static/js/textual.js", cookies={f"tutor_token_{port}": "wrong"}))[0] == 403
    assert (await get(f"{base}/static/js/textual.js", cookies={f"tutor_token_{port}": token}))[0] == 200


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1:1", "127.0.0.1.evil.example:{port}"])
async def test_a_host_header_naming_another_server_is_refused_even_with_the_token(served, host):
    base, token, port = served
    status, body, _ = await get(f"{base}/?token={token}", headers={"Host": host.format(port=port)})
    assert status == 403 and "Host" in body


async def test_a_websocket_from_another_origin_is_refused_even_with_the_token(served):
    base, token, port = served
    ws = base.replace("http", "ws") + "/ws"
    cookie = {f"tutor_token_{port}": token}
    for origin in ("http://evil.example", f"http://evil.example:{port}", "null", f"https://127.0.0.1.evil.example:{port}"):
        assert await websocket_status(ws, headers={"Origin": origin}, cookies=cookie) == 403, origin
    assert await websocket_status(ws, headers={"Origin": base}) == 403             # no token
    assert await websocket_status(f"{ws}?token=wrong", headers={"Origin": base}) == 403


async def test_the_websocket_opens_with_the_cookie_from_the_page_own_origin(served):
    base, token, port = served
    ws = base.replace("http", "ws") + "/ws"
    assert await websocket_status(ws, headers={"Origin": base}, cookies={f"tutor_token_{port}": token}) == 101


def test_the_policy_accepts_this_server_names_and_refuses_others():
    policy = AccessPolicy("secret", "127.0.0.1", 8000)
    assert policy.refusal("127.0.0.1:8000", None, "secret") is None
    assert policy.refusal("localhost:8000", "http://localhost:8000", "secret") is None
    assert policy.refusal("[::1]:8000", None, "secret") is None
    for host in ("127.0.0.1", "127.0.0.1:80", "evil.example:8000", "127.0.0.1:8000@evil", "127.0.0.1:x", ""):
        assert policy.refusal(host, None, "secret") is not None, host
    assert policy.refusal("127.0.0.1:8000", "http://127.0.0.1:8000", "Secret") is not None
    assert policy.refusal("127.0.0.1:8000", None, None) is not None
    public = AccessPolicy("secret", "0.0.0.0", 8000)   # --public on every address: IPs, not other names
    assert public.refusal("192.168.1.5:8000", "http://192.168.1.5:8000", "secret") is None
    assert public.refusal("evil.example:8000", None, "secret") is not None
    assert public.refusal("192.168.1.5:8000", None, "wrong") is not None


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


def test_browsers_are_sent_to_a_usable_address():
    assert display_host("127.0.0.1") == "127.0.0.1"
    assert display_host("::1") == "[::1]"
    assert display_host("0.0.0.0") not in ("0.0.0.0", "")
