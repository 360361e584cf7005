"""``tutor serve --hub``: the tutor as a JupyterHub user's server checks the hub's login itself (the OAuth
code flow a Jupyter server uses), lets in only its own user, and gives another site's page nothing.

The hub here is a small aiohttp stand-in speaking the three endpoints a hub-spawned server uses
(authorize, token, user); bench/hub_class.py --profile hub runs the same code against a real JupyterHub.
"""
import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer, unused_port

from tutor.cli.main import main
from tutor.web.hub_login import RECHECK_AFTER, SESSION_COOKIE, HubGate, HubLogin, HubSettingsError
from tutor.web.server import Listen, make_server

SECRET = "api-token-of-ana's-server"


class FakeHub:
    """The hub's side of the login: ``who`` is the browser's hub login; ``revoked`` tokens fail /user."""

    client_id = "jupyterhub-user-ana"   # the OAuth client the tutor must say it is
    groups: dict = {}                   # hub login -> its hub groups, as /user tells them

    def __init__(self) -> None:
        self.who = "ana"
        self.codes: dict[str, tuple[str, str]] = {}       # code -> (user, PKCE challenge)
        self.tokens: dict[str, str] = {}                  # token -> user
        self.revoked: set[str] = set()
        self.tutor_base = ""
        self.token_requests = 0

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/hub/api/oauth2/authorize", self.authorize)
        app.router.add_post("/hub/api/oauth2/token", self.token)
        app.router.add_get("/hub/api/user", self.user)
        return app

    async def authorize(self, request):
        query = request.query
        assert query["client_id"] == self.client_id and query["code_challenge_method"] == "S256"
        code = secrets.token_hex(8)
        self.codes[code] = (self.who, query["code_challenge"])
        raise web.HTTPFound(f"{self.tutor_base}{query['redirect_uri']}?code={code}&state={query['state']}")

    async def token(self, request):
        self.token_requests += 1
        form = await request.post()
        if form["client_secret"] != SECRET or form["code"] not in self.codes:
            raise web.HTTPForbidden()
        user, challenge = self.codes.pop(form["code"])
        digest = hashlib.sha256(form["code_verifier"].encode()).digest()
        if base64.urlsafe_b64encode(digest).decode().rstrip("=") != challenge:
            raise web.HTTPForbidden()
        token = secrets.token_hex(16)
        self.tokens[token] = user
        return web.json_response({"access_token": token, "token_type": "Bearer"})

    async def user(self, request):
        token = request.headers.get("Authorization", "").removeprefix("token ")
        if token not in self.tokens or token in self.revoked:
            raise web.HTTPForbidden()
        name = self.tokens[token]
        return web.json_response({"name": name, "kind": "user", "groups": self.groups.get(name, [])})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def environment(hub_url: str, port: int) -> dict[str, str]:
    """What a JupyterHub spawner gives user ana's server (jupyterhub.spawner.Spawner.get_env)."""
    return {"JUPYTERHUB_USER": "ana", "JUPYTERHUB_CLIENT_ID": "jupyterhub-user-ana", "JUPYTERHUB_API_TOKEN": SECRET,
            "JUPYTERHUB_API_URL": f"{hub_url}/hub/api", "JUPYTERHUB_HOST": hub_url, "JUPYTERHUB_BASE_URL": "/",
            "JUPYTERHUB_SERVICE_PREFIX": "/user/ana/", "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}/user/ana/",
            "JUPYTERHUB_OAUTH_CALLBACK_URL": "/user/ana/oauth_callback"}


@pytest.fixture
async def hub_and_tutor():
    """(fake hub, the tutor's base URL, its gate, its clock), both servers on loopback."""
    hub = FakeHub()
    async with TestServer(hub.app(), host="127.0.0.1") as hub_server:
        hub_url = str(hub_server.make_url("")).rstrip("/")
        clock, port = Clock(), unused_port()
        gate = HubGate(HubLogin.from_environment(environment(hub_url, port)), clock=clock)
        server = make_server("true", Listen("127.0.0.1", port), None, max_sessions=3, hub=gate)
        async with TestServer(await server._make_app(), host="127.0.0.1", port=port) as served:
            base = str(served.make_url("")).rstrip("/")
            hub.tutor_base = base
            yield hub, base, gate, clock


def client() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def sent_to_the_hub(browser: aiohttp.ClientSession, url: str) -> bool:
    """The page answers with a redirect to the hub's login (the authorize page), not the tutor."""
    async with browser.get(url, allow_redirects=False) as response:
        return response.status == 302 and "/hub/api/oauth2/authorize" in response.headers["Location"]


async def test_the_server_own_user_logs_in_through_the_hub_and_gets_the_page(hub_and_tutor):
    hub, base, _gate, _clock = hub_and_tutor
    async with client() as browser:
        async with browser.get(f"{base}/user/ana/?fontsize=18") as response:
            assert response.status == 200
            assert "textual.js" in await response.text()
            assert str(response.url) == f"{base}/user/ana/?fontsize=18"   # back where the student asked to go
            hops = [str(step.url) for step in response.history]
        assert any("/hub/api/oauth2/authorize" in hop for hop in hops)
        assert any("/user/ana/oauth_callback" in hop for hop in hops)
        cookie = next(c for c in browser.cookie_jar if c.key == SESSION_COOKIE)
        assert cookie["path"] == "/user/ana/" and cookie["httponly"] and cookie["samesite"] == "Lax"
        async with browser.get(f"{base}/user/ana/", allow_redirects=False) as response:   # logged in: no detour
            assert response.status == 200
        async with browser.get(f"{base}/user/ana/static/js/textual.js", allow_redirects=False) as response:
            assert response.status == 200


async def test_another_hub_user_is_refused_and_gets_no_session(hub_and_tutor):
    hub, base, gate, _clock = hub_and_tutor
    hub.who = "ben"
    async with client() as browser:
        async with browser.get(f"{base}/user/ana/") as response:
            assert response.status == 403
        assert not any(c.key == SESSION_COOKIE for c in browser.cookie_jar)
        assert not gate.sessions
        assert await sent_to_the_hub(browser, f"{base}/user/ana/")


async def test_a_callback_this_browser_did_not_start_is_refused_before_asking_the_hub(hub_and_tutor):
    hub, base, _gate, _clock = hub_and_tutor
    async with client() as browser:
        async with browser.get(f"{base}/user/ana/", allow_redirects=False) as response:
            state = parse_qs(urlsplit(response.headers["Location"]).query)["state"][0]
    async with client() as attacker:   # the state leaked, but not the cookie that goes with it
        async with attacker.get(f"{base}/user/ana/oauth_callback?code=x&state={state}") as response:
            assert response.status == 403
        async with attacker.get(f"{base}/user/ana/oauth_callback?code=x") as response:
            assert response.status == 403
    assert hub.token_requests == 0


async def test_another_sites_page_gets_nothing_even_from_a_logged_in_browser(hub_and_tutor):
    _hub, base, _gate, _clock = hub_and_tutor
    async with client() as browser:
        async with browser.get(f"{base}/user/ana/") as response:
            assert response.status == 200
        evil = {"Origin": "http://evil.example"}
        async with browser.get(f"{base}/user/ana/", headers=evil, allow_redirects=False) as response:
            assert response.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await browser.ws_connect(f"{base.replace('http', 'ws')}/user/ana/ws", headers=evil)
        assert refused.value.status == 403
        async with browser.get(f"{base}/user/ana/download/x", headers={"Origin": "null"},
                               allow_redirects=False) as response:
            assert response.status == 403


async def test_a_websocket_without_a_session_is_refused_not_redirected(hub_and_tutor):
    _hub, base, _gate, _clock = hub_and_tutor
    async with client() as stranger:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await stranger.ws_connect(f"{base.replace('http', 'ws')}/user/ana/ws", headers={"Origin": base})
        assert refused.value.status == 403


async def test_a_token_the_hub_revoked_ends_access_at_the_next_check(hub_and_tutor):
    hub, base, _gate, clock = hub_and_tutor
    async with client() as browser:
        async with browser.get(f"{base}/user/ana/") as response:
            assert response.status == 200
        hub.revoked |= set(hub.tokens)
        async with browser.get(f"{base}/user/ana/", allow_redirects=False) as response:
            assert response.status == 200   # trusted until the next check
        clock.now += RECHECK_AFTER + 1
        assert await sent_to_the_hub(browser, f"{base}/user/ana/")


async def test_only_paths_under_the_prefix_are_served_and_logins_return_only_there(hub_and_tutor):
    hub, base, gate, _clock = hub_and_tutor
    async with client() as browser:
        async with browser.get(f"{base}/user/ben/", allow_redirects=False) as response:
            assert response.status == 404
        async with browser.get(f"{base}/user/ana", allow_redirects=False) as response:
            assert response.status == 302 and response.headers["Location"] == "/user/ana/"
        async with browser.get(f"{base}//evil.example/user/ana/", allow_redirects=False) as response:
            assert response.status == 404
    assert all(pending.next_path.startswith("/user/ana/") for pending in gate.pending.values())


def test_the_settings_come_from_the_spawner_environment_and_a_missing_one_is_named():
    login = HubLogin.from_environment(environment("https://hub.example", 51234))
    assert (login.host, login.port, login.prefix, login.user) == ("127.0.0.1", 51234, "/user/ana/", "ana")
    assert login.authorize_url == "https://hub.example/hub/api/oauth2/authorize"
    partial = environment("", 1)
    del partial["JUPYTERHUB_API_TOKEN"]
    with pytest.raises(HubSettingsError, match="JUPYTERHUB_API_TOKEN"):
        HubLogin.from_environment(partial)


def test_serve_hub_outside_a_hub_says_what_is_missing(capsys, monkeypatch, tmp_path):
    for name in list(environment("", 1)):
        monkeypatch.delenv(name, raising=False)
    assert main(["--home", str(tmp_path), "serve", "--hub"]) == 2
    assert "JUPYTERHUB_USER" in capsys.readouterr().err
