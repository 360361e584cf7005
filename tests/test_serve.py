"""``tutor serve``: loopback by default, --public for other addresses, and nothing without the run's token,
from another Host (DNS rebinding) or from another site's page (Origin)."""
import shlex
import shutil
import ssl
import socket
import subprocess
import sys
import re

import aiohttp
import pytest

from tutor.cli.main import build_parser, main
from tutor.cli.serve import app_command
from tutor.common.i18n import set_language
from tutor.web.access import AccessPolicy, display_host, is_loopback

from serve_process import running_serve


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_serve(tmp_path_factory.mktemp("serve-home")) as running:
        yield running


@pytest.fixture(autouse=True)
def _english_afterwards():
    """main(["--lang", "zh", ...]) switches the process's language; later tests expect English."""
    yield
    set_language("en")


async def get(url: str, headers: dict | None = None, cookies: dict | None = None):
    async with aiohttp.ClientSession(cookies=cookies) as session:
        async with session.get(url, headers=headers or {}, allow_redirects=False) as response:
            body = (await response.read()).decode("utf-8", "replace")   # a font file is bytes
            return response.status, body, response.headers.getall("Set-Cookie", [])


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
    assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in body
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
    local_name = socket.gethostname().lower().split(".")[0] + ".local"   # mDNS, as a classroom's laptops name it
    assert public.refusal(f"{local_name}:8000", f"http://{local_name}:8000", "secret") is None
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


def test_the_served_command_is_this_tutor_with_the_same_home_lessons_and_language(tmp_path):
    command = shlex.split(app_command(tmp_path / "home dir", [tmp_path / "mine"], "zh", False))
    assert command[:3] == [sys.executable, "-m", "tutor"]
    assert command[3:] == ["--home", str((tmp_path / "home dir").resolve()), "--lessons", str(tmp_path / "mine"),
                           "--lang", "zh"]
    assert shlex.split(app_command(tmp_path, [], None, True))[3:] == ["--home", str(tmp_path), "--files-in-home"]


def test_every_global_option_reaches_the_per_tab_command(tmp_path, monkeypatch):
    """`tutor --lang zh serve` served English: the tabs ran without the options the server was given.
    Every global option of the parser is set here, so one added later without being passed on fails."""
    from tutor.web import server as web_server

    commands = []

    class Recorded:
        def serve(self):
            pass

    monkeypatch.setattr(web_server, "make_server", lambda command, *a, **k: commands.append(command) or Recorded())
    given = {"--lang": "zh", "--home": str(tmp_path / "home"), "--lessons": str(tmp_path / "mine"),
             "--files-in-home": None}
    globals_ = {option for action in build_parser()._actions for option in action.option_strings
                if option.startswith("--") and option not in ("--help", "--version")}
    assert globals_ == set(given), "a new global option must be passed to each tab (and listed here)"
    argv = [part for option, value in given.items() for part in ([option] if value is None else [option, value])]
    assert main(argv + ["serve", "--port", "8124"]) == 0
    command = shlex.split(commands[0])
    for option, value in given.items():
        assert option in command and (value is None or command[command.index(option) + 1] == value), option
    main(["--home", str(tmp_path), "serve", "--public", "--host", "0.0.0.0", "--port", "8124"])
    assert "--files-in-home" in shlex.split(commands[1])   # --public confines every tab's files to the home


def test_browsers_are_sent_to_a_usable_address():
    assert display_host("127.0.0.1") == "127.0.0.1"
    assert display_host("::1") == "[::1]"
    assert display_host("0.0.0.0") not in ("0.0.0.0", "")


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
async def test_the_page_links_to_the_host_the_browser_used(served, host):
    """With --public, a page opened by IP or by a .local name linked to gethostname() and hung."""
    base, token, port = served
    status, body, _ = await get(f"{base}/?token={token}", headers={"Host": f"{host}:{port}"})
    assert status == 200
    assert f'data-session-websocket-url="ws://{host}:{port}/ws"' in body
    assert 'href="static/css/xterm.css"' in body   # beside the page: kept under a proxy's /user/NAME/tutor/


def referenced(text: str) -> list[str]:
    """Every address a page or stylesheet makes the browser fetch: src, href, url(...), @import."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)   # CSS comments name sites without fetching them
    found = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", text)
    found += re.findall(r"""url\(\s*["']?([^"')]+)["']?\s*\)""", text)
    found += re.findall(r"""@import\s+["']([^"']+)["']""", text)
    return found


async def test_nothing_on_the_page_is_fetched_from_another_machine(served):
    """The page fetched its font from an internet font service: an offline class got a fallback font."""
    base, token, port = served
    cookie = {f"tutor_token_{port}": token}
    _status, page, _ = await get(f"{base}/?token={token}")
    assert not re.search(r"(https?:)?//[a-z0-9]", page.replace("ws://127.0.0.1", ""), re.I)
    seen, queue = set(), [("", link) for link in referenced(page)]   # the page's links are beside it
    assert any(link.endswith(".ttf") for _, link in queue)    # the shipped font, served from here
    while queue:
        folder, link = queue.pop()
        path = (folder + link) if not link.startswith("/") else link.lstrip("/")
        path = "/".join(part for part in path.replace("static/static/", "static/").split("/") if part != ".")
        if path in seen:
            continue
        seen.add(path)
        assert not re.match(r"[a-z]+:", link, re.I), link           # no scheme: nothing outside this server
        status, text, _ = await get(f"{base}/{path}", cookies=cookie)
        assert status == 200, path
        if path.endswith((".css", ".js")):
            assert not re.search(r"https?://", re.sub(r"/\*.*?\*/", "", text, flags=re.S)), path
            queue += [(path.rsplit("/", 1)[0] + "/", found) for found in referenced(text) if path.endswith(".css")]
    assert {"static/css/xterm.css", "static/js/textual.js", "favicon.svg", "favicon.ico"} <= seen


async def test_max_sessions_refuses_the_next_tab_with_a_clear_page(tmp_path):
    with running_serve(tmp_path, "--max-sessions", "1") as (base, token, port):
        ws = base.replace("http", "ws") + "/ws"
        cookie = {f"tutor_token_{port}": token}
        async with aiohttp.ClientSession(cookies=cookie) as session:
            async with session.ws_connect(ws, headers={"Origin": base}) as first:   # the one session allowed
                status, body, _ = await get(f"{base}/?token={token}")
                assert status == 503 and "Too many open sessions" in body and "--max-sessions" in body
                assert await websocket_status(ws, headers={"Origin": base}, cookies=cookie) == 503
                await first.send_json(["ping", "still here"])
                reply = await first.receive_json(timeout=60)   # the open session goes on being served
                assert reply == ["pong", "still here"]


async def test_with_a_certificate_the_page_and_its_websocket_are_served_over_tls(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    with running_serve(tmp_path, "--certfile", str(cert), "--keyfile", str(key)) as (base, token, port):
        assert base == f"https://127.0.0.1:{port}"
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False   # a certificate for an IP address in CN only: fine for this check
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/?token={token}", ssl=context) as response:
                page = await response.text()
                cookie = response.headers.get("Set-Cookie", "")
        assert response.status == 200 and f'data-session-websocket-url="wss://127.0.0.1:{port}/ws"' in page
        assert "Secure" in cookie   # the token never travels over plain HTTP


async def test_the_tab_icon_is_served(served):
    """Browsers ask for /favicon.ico whatever the page links: it was a 404 on every page load."""
    base, token, port = served
    async with aiohttp.ClientSession(cookies={f"tutor_token_{port}": token}) as session:
        async with session.get(f"{base}/favicon.ico") as response:
            assert response.status == 200 and (await response.read())[:4] == b"\0\0\1\0"   # an ICO file
        async with session.get(f"{base}/favicon.svg") as response:
            assert response.status == 200 and response.content_type == "image/svg+xml"
    assert (await get(f"{base}/favicon.ico"))[0] == 403   # as everything else: nothing without the token


def test_a_key_without_a_certificate_is_refused(tmp_path, capsys):
    assert main(["serve", "--keyfile", str(tmp_path / "key.pem")]) == 2
    assert "--certfile" in capsys.readouterr().err


def test_each_tab_runs_one_torch_thread_unless_the_server_environment_sets_a_count():
    """torch's default is a thread per core, spinning after every operation: ten tabs kept two
    cores busy between keypresses.  A count the teacher set on the server is kept."""
    from tutor.web.server import tab_environment

    plain = tab_environment({"PATH": "/bin"}, "zh")
    assert plain == {"PATH": "/bin", "OMP_NUM_THREADS": "1", "LANGUAGE": "zh"}
    assert tab_environment({"OMP_NUM_THREADS": "4"}, None) == {"OMP_NUM_THREADS": "4"}


def test_a_tab_never_gets_the_hubs_token_or_settings():
    """Under ``--hub`` the server holds the learner's API token to log in and post activity; the
    tab's process (whatever it runs) does not need it, so it is not handed down."""
    from tutor.web.server import tab_environment

    hub = {"PATH": "/bin", "JUPYTERHUB_API_TOKEN": "secret", "JUPYTERHUB_USER": "ana",
           "JUPYTERHUB_API_URL": "http://hub/api"}
    assert tab_environment(hub, None) == {"PATH": "/bin", "OMP_NUM_THREADS": "1"}
