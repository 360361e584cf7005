"""``tutor serve --hub-service``: one tutor for a whole JupyterHub at /services/tutor/, every hub
user (or a group's members) logged in by the hub, each session bound to its login, each login's tab
in a home of its own; one student's cookie, WebSocket or download never reaches another's tab or home.

The hub is the stand-in of tests/test_serve_hub_login.py, here with several users and groups; a
tab is a small stand-in program speaking textual-serve's protocol that reports what it was started
with (bench/hub_class.py --profile service runs the real tutor against a real JupyterHub).
"""
import asyncio
import contextlib
import json
import os
import stat
import sys
import textwrap

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from test_serve_hub_login import SECRET, Clock, FakeHub, client
from tutor.cli.main import main
from tutor.cli.serve import service_learners
from tutor.common.file_scope import OutsideHomeError, login_folder_name, typed_path
from tutor.web.hub_login import SESSION_COOKIE, HubGate, HubLogin, HubSettingsError
from tutor.web.server import Listen, make_server

PREFIX = "/services/tutor/"
# A tab: says who it was started for and where, offers a download named by its login, then waits.
TAB = textwrap.dedent("""
    import json, os, sys
    def packet(kind, body):
        sys.stdout.buffer.write(kind + len(body).to_bytes(4, "big") + body)
        sys.stdout.buffer.flush()
    sys.stdout.buffer.write(b"__GANGLION__\\n")
    args = sys.argv[1:]
    user = os.environ.get("TUTOR_HUB_USER", "")
    packet(b"D", json.dumps({"user": user, "home": args[args.index("--home") + 1],
                             "files_in_home": "--files-in-home" in args,
                             "hub_settings": sorted(k for k in os.environ if k.startswith("JUPYTERHUB_"))}).encode())
    packet(b"M", json.dumps({"type": "deliver_file_start", "key": "key-" + user, "path": "progress.json",
                             "open_method": "download", "mime_type": "application/json", "encoding": None}).encode())
    sys.stdin.buffer.read()
""")


class ClassHub(FakeHub):
    """The stand-in hub with a service's OAuth client and its users' groups."""

    client_id = "service-tutor"
    groups = {"ana": ["class-a"], "ben": ["class-b"], "a/b": ["class-a"], "a_b": ["class-a"]}


def service_environment(hub_url: str, port: int) -> dict[str, str]:
    """What JupyterHub gives a managed service named tutor (jupyterhub.services.service.Service.start)."""
    return {"JUPYTERHUB_SERVICE_NAME": "tutor", "JUPYTERHUB_CLIENT_ID": "service-tutor",
            "JUPYTERHUB_API_TOKEN": SECRET, "JUPYTERHUB_API_URL": f"{hub_url}/hub/api", "JUPYTERHUB_HOST": hub_url,
            "JUPYTERHUB_BASE_URL": "/", "JUPYTERHUB_SERVICE_PREFIX": PREFIX,
            "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}", "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{PREFIX}oauth_callback"}


@pytest.fixture
def tab_program(tmp_path):
    script = tmp_path / "tab.py"
    script.write_text(TAB)
    return (sys.executable, str(script))


async def start_service(tmp_path, tab_program, group=None, monkeypatch=None):
    hub = ClassHub()
    hub_server = TestServer(hub.app(), host="127.0.0.1")
    await hub_server.start_server()
    hub_url = str(hub_server.make_url("")).rstrip("/")
    environ = service_environment(hub_url, 10101)   # where the CLI would listen; the test server picks its own
    if monkeypatch is not None:   # as the hub starts it: the service's own environment holds its token
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
    gate = HubGate(HubLogin.from_environment(environ, service=True, group=group), clock=Clock())
    learners = service_learners(tmp_path / "data", [], None, None, program=tab_program)
    server = make_server("false", Listen("127.0.0.1", 10101), None, max_sessions=5, hub=gate, learners=learners)
    served = TestServer(await server._make_app(), host="127.0.0.1")   # any free port, bound at once
    await served.start_server()
    base = str(served.make_url("")).rstrip("/")
    hub.tutor_base = base
    return hub, base, gate, (served, hub_server)


@pytest.fixture
async def service(tmp_path, tab_program, monkeypatch):
    hub, base, gate, servers = await start_service(tmp_path, tab_program, monkeypatch=monkeypatch)
    yield hub, base, gate
    for one in servers:
        await one.close()


@contextlib.asynccontextmanager
async def ana_and_ben(hub, base):
    """Two students' browsers, each logged in through the hub."""
    async with client() as ana, client() as ben:
        await log_in(hub, base, ana, "ana")
        await log_in(hub, base, ben, "ben")
        yield ana, ben


async def log_in(hub, base, browser, who) -> None:
    hub.who = who
    async with browser.get(f"{base}{PREFIX}") as response:
        assert response.status == 200 and "textual.js" in await response.text()


async def open_tab(base, browser):
    """The tab's WebSocket, and what the stand-in tab said about itself (its first binary frame)."""
    ws = await browser.ws_connect(f"{base.replace('http', 'ws', 1)}{PREFIX}ws?width=80&height=24",
                                  headers={"Origin": base})
    while True:
        message = await asyncio.wait_for(ws.receive(), 30)
        if message.type == aiohttp.WSMsgType.BINARY:
            return ws, json.loads(message.data)
        assert message.type == aiohttp.WSMsgType.TEXT, message


async def test_every_hub_user_logs_in_and_each_session_is_bound_to_its_login(service):
    hub, base, gate = service
    async with ana_and_ben(hub, base) as (ana, ben):
        cookie = next(c for c in ana.cookie_jar if c.key == SESSION_COOKIE)
        assert cookie["path"] == PREFIX and cookie["httponly"]
    assert sorted(session.user for session in gate.sessions.values()) == ["ana", "ben"]


async def test_a_class_of_seventy_logging_in_at_once_all_get_in(service):
    """A user's server forgets all but 64 logins under way; a class on one service must not lose any."""
    hub, base, gate = service
    browsers = [client() for _ in range(70)]
    try:
        to_the_hub = []
        for browser in browsers:   # everyone has left for the hub's login page before anyone is back
            async with browser.get(f"{base}{PREFIX}", allow_redirects=False) as response:
                assert response.status == 302
                to_the_hub.append(response.headers["Location"])
        for index, (browser, authorize) in enumerate(zip(browsers, to_the_hub)):
            hub.who = f"student{index}"
            async with browser.get(authorize) as response:   # the hub sends them back with their state
                assert response.status == 200 and "textual.js" in await response.text(), index
    finally:
        for browser in browsers:
            await browser.close()
    assert len(gate.sessions) == 70


async def test_each_login_gets_a_tab_in_its_own_private_home_without_the_hub_token(service, tmp_path):
    hub, base, _gate = service
    async with ana_and_ben(hub, base) as (ana, ben):
        ana_ws, ana_tab = await open_tab(base, ana)
        ben_ws, ben_tab = await open_tab(base, ben)
        assert (ana_tab["user"], ben_tab["user"]) == ("ana", "ben")
        learners = (tmp_path / "data" / "learners").resolve()
        assert ana_tab["home"] == str(learners / login_folder_name("ana"))
        assert ben_tab["home"] == str(learners / login_folder_name("ben"))
        assert ana_tab["files_in_home"] and ben_tab["files_in_home"]   # typed paths stay in the home
        assert ana_tab["hub_settings"] == []   # the service's token and settings are not the tab's
        for folder in (tmp_path / "data", learners, learners / login_folder_name("ana")):
            assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        await ana_ws.close()
        await ben_ws.close()


async def test_a_websocket_or_page_without_the_session_of_a_login_gets_403(service):
    hub, base, gate = service
    ws_url = f"{base.replace('http', 'ws', 1)}{PREFIX}ws"
    async with client() as stranger:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await stranger.ws_connect(ws_url, headers={"Origin": base})
        assert refused.value.status == 403
        stranger.cookie_jar.update_cookies({SESSION_COOKIE: "made-up"})
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await stranger.ws_connect(ws_url, headers={"Origin": base})
        assert refused.value.status == 403
    async with client() as ana:   # logged in, but the request comes from another site's page
        await log_in(hub, base, ana, "ana")
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await ana.ws_connect(ws_url, headers={"Origin": "http://evil.example"})
        assert refused.value.status == 403
        async with ana.get(f"{base}{PREFIX}", headers={"Origin": "http://evil.example"}) as response:
            assert response.status == 403


async def test_a_download_is_served_only_to_the_login_whose_tab_offered_it(service):
    hub, base, _gate = service
    async with ana_and_ben(hub, base) as (ana, ben):
        ana_ws, _tab = await open_tab(base, ana)
        offered = await asyncio.wait_for(ana_ws.receive(), 30)
        assert json.loads(offered.data) == ["deliver_file_start", "key-ana"]
        async with ben.get(f"{base}{PREFIX}download/key-ana") as response:
            assert response.status == 403
        async with ben.get(f"{base}{PREFIX}download/no-such-key") as response:
            assert response.status == 404
        async with ana.get(f"{base}{PREFIX}download/key-ana") as response:
            assert response.status == 200   # its headers; the chunks would come from ana's tab
        await ana_ws.close()


async def test_a_second_tab_of_one_login_ends_the_first_and_leaves_others_alone(service):
    hub, base, _gate = service
    async with ana_and_ben(hub, base) as (ana, ben):
        first, _tab = await open_tab(base, ana)
        ben_ws, _tab = await open_tab(base, ben)
        second, tab = await open_tab(base, ana)
        assert tab["user"] == "ana"
        while (await asyncio.wait_for(first.receive(), 30)).type not in (aiohttp.WSMsgType.CLOSE,
                                                                         aiohttp.WSMsgType.CLOSED):
            pass
        assert not ben_ws.closed
        await second.close()
        await ben_ws.close()


async def test_only_the_group_given_gets_in(tmp_path, tab_program):
    hub, base, gate, servers = await start_service(tmp_path, tab_program, group="class-a")
    try:
        async with client() as ben:
            hub.who = "ben"
            async with ben.get(f"{base}{PREFIX}") as response:
                assert response.status == 403
        async with client() as ana:
            await log_in(hub, base, ana, "ana")
        assert [session.user for session in gate.sessions.values()] == ["ana"]
    finally:
        for one in servers:
            await one.close()


async def test_logins_that_differ_only_in_odd_characters_get_different_homes(tmp_path, tab_program, monkeypatch):
    hub, base, _gate, servers = await start_service(tmp_path, tab_program, monkeypatch=monkeypatch)
    try:
        homes = []
        for who in ("a/b", "a_b"):
            async with client() as browser:
                await log_in(hub, base, browser, who)
                ws, tab = await open_tab(base, browser)
                assert tab["user"] == who
                homes.append(tab["home"])
                await ws.close()
        assert homes[0] != homes[1]
        assert all(os.path.dirname(home) == str((tmp_path / "data" / "learners").resolve()) for home in homes)
    finally:
        for one in servers:
            await one.close()


def test_a_login_folder_name_is_one_plain_folder_per_login():
    odd = ["a/b", "a_b", "..", ".", "", "x\x00y", "\u202eevil", "张伟", "A", "a", "x" * 300]
    names = [login_folder_name(login) for login in odd]
    assert len(set(names)) == len(odd)
    for name in names:
        assert name and len(name) <= 53 and all(ch.isalnum() or ch in "_-" for ch in name), name
        assert name not in (".", "..") and len(name.encode()) < 255
    assert login_folder_name("张伟").startswith("张伟-") and login_folder_name("..").startswith("user-")


def test_a_tab_refuses_a_typed_path_into_another_learners_home(tmp_path):
    learners = tmp_path / "learners"
    ana, ben = learners / login_folder_name("ana"), learners / login_folder_name("ben")
    ana.mkdir(parents=True)
    ben.mkdir()
    for typed in (f"../{ben.name}/progress.db", str(ben / "mine.pt"), "../../data", str(tmp_path)):
        with pytest.raises(OutsideHomeError, match="only files inside"):
            typed_path(typed, ana, True)


def test_the_service_admits_users_not_other_services_tokens():
    login = HubLogin.from_environment(service_environment("http://hub", 9), service=True)
    assert login.user is None and login.prefix == PREFIX
    assert login.admits({"name": "ana", "kind": "user", "groups": []}) == "ana"
    assert login.admits({"name": "grader", "kind": "service"}) is None
    assert login.admits({"name": ""}) is None and login.admits(["ana"]) is None
    grouped = HubLogin.from_environment(service_environment("http://hub", 9), service=True, group="class-a")
    assert grouped.admits({"name": "ana", "kind": "user", "groups": ["class-a"]}) == "ana"
    assert grouped.admits({"name": "ben", "kind": "user", "groups": ["class-b"]}) is None
    assert grouped.admits({"name": "cy", "kind": "user"}) is None   # groups not readable: not let in
    with pytest.raises(HubSettingsError, match="JUPYTERHUB_SERVICE_NAME"):
        HubLogin.from_environment({**service_environment("http://hub", 9), "JUPYTERHUB_SERVICE_NAME": ""},
                                  service=True)


def test_the_cli_outside_a_hub_and_a_group_without_the_service_are_refused(monkeypatch, capsys):
    for name in list(os.environ):
        if name.startswith("JUPYTERHUB_"):
            monkeypatch.delenv(name)
    assert main(["serve", "--hub-service"]) == 2
    assert "not started as a JupyterHub service" in capsys.readouterr().err
    assert main(["serve", "--hub-group", "class-a"]) == 2
    assert "--hub-group needs --hub-service" in capsys.readouterr().err
    assert main(["serve", "--hub", "--hub-service"]) == 2
    assert "--hub-service listens where the hub says" in capsys.readouterr().err


async def test_a_service_tab_hands_in_under_its_hub_login_without_asking_a_name(tmp_path, monkeypatch):
    """All students' tabs run as one account, so a typed name could replace another student's hand-in."""
    from journey_helpers import record_notifications, wait_until
    from test_class_handin import class_app, hand_in_doc, open_hand_in
    from tutor.classroom.exports import hand_ins

    exchange = tmp_path / "exchange"
    exchange.mkdir()
    monkeypatch.setenv("TUTOR_HUB_USER", "ben/../ana")
    app = class_app(tmp_path, exchange, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = record_notifications(app)
        await open_hand_in(app, pilot)
        await wait_until(pilot, lambda: any("Handed in" in text for text, _options in seen), "the hand-in")
        assert not app.screen.query("#name-input")   # no name asked
    (handed,) = hand_ins(exchange)
    assert handed.name == login_folder_name("ben/../ana") + ".json.gz" and handed.parent == exchange
    assert hand_in_doc(handed)["learner"] == "ben/../ana"
