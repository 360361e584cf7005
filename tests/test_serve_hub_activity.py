"""``tutor serve --hub`` tells the hub the student is busy, as jupyterhub-singleuser does: the idle
culler saw a student typing in the tutor as idle, since one long-lived WebSocket makes no new request
for the proxy to count.  A stand-in hub takes the posts; the clock is injected (nothing sleeps)."""
from datetime import datetime, timedelta, timezone

import aiohttp
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

from tutor.web.hub_activity import HubActivity, TouchingWebSocket, is_ping

TOKEN = "api-token-of-ana's-server"
T0 = datetime(2026, 12, 5, 20, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class StandInHub:
    """The hub's activity endpoint: what it was sent, and a status it can be told to answer."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict]] = []
        self.status = 200

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/hub/api/users/ana/activity", self.activity)
        return app

    async def activity(self, request):
        self.posts.append((request.headers.get("Authorization"), await request.json()))
        return web.Response(status=self.status)


async def start(hub):
    server = TestServer(hub.app())
    await server.start_server()
    return server


async def test_messages_are_posted_at_most_once_per_interval_and_only_when_new():
    hub, clock = StandInHub(), Clock()
    server = await start(hub)
    activity = HubActivity(str(server.make_url("/hub/api/users/ana/activity")), TOKEN, "", interval=300, clock=clock)
    try:
        async with aiohttp.ClientSession() as http:
            assert not await activity.post_if_due(http)            # nothing from the student yet: no post
            clock.now += timedelta(seconds=10)
            activity.touch()
            assert await activity.post_if_due(http)
            assert hub.posts == [(f"token {TOKEN}", {"servers": {"": {"last_activity": "2026-12-05T20:00:10Z"}},
                                                     "last_activity": "2026-12-05T20:00:10Z"})]
            clock.now += timedelta(seconds=60)
            activity.touch()
            assert not await activity.post_if_due(http)            # within the interval: waits
            clock.now += timedelta(seconds=300)
            assert await activity.post_if_due(http)                # the message at 20:01:10, posted now
            assert hub.posts[-1][1]["last_activity"] == "2026-12-05T20:01:10Z"
            clock.now += timedelta(seconds=900)
            assert not await activity.post_if_due(http)            # idle since: the hub hears nothing
            assert len(hub.posts) == 2
    finally:
        await server.close()


async def test_a_hub_that_refuses_or_is_gone_is_logged_and_tried_again(caplog):
    hub, clock = StandInHub(), Clock()
    server = await start(hub)
    url = str(server.make_url("/hub/api/users/ana/activity"))
    activity = HubActivity(url, TOKEN, "lab", clock=clock)
    try:
        async with aiohttp.ClientSession() as http:
            hub.status = 503
            activity.touch()
            assert not await activity.post_if_due(http)
            assert "HTTP 503" in caplog.text
            hub.status = 200
            assert await activity.post_if_due(http)                # the next turn: the same message, taken
            assert list(hub.posts[-1][1]["servers"]) == ["lab"]    # a named server reports under its name
    finally:
        await server.close()
    gone = HubActivity(url, TOKEN, clock=clock)                    # the hub is down
    gone.touch()
    async with aiohttp.ClientSession() as http:
        assert not await gone.post_if_due(http)
    assert "could not post activity" in caplog.text


def test_no_reporter_outside_a_hub():
    assert HubActivity.from_environment({}) is None
    assert HubActivity.from_environment({"JUPYTERHUB_API_TOKEN": TOKEN}) is None
    found = HubActivity.from_environment({"JUPYTERHUB_ACTIVITY_URL": "http://hub/api/users/ana/activity",
                                          "JUPYTERHUB_API_TOKEN": TOKEN, "JUPYTERHUB_SERVER_NAME": "",
                                          "JUPYTERHUB_ACTIVITY_INTERVAL": "120"})
    assert (found.url, found.token, found.server_name, found.interval) == (
        "http://hub/api/users/ana/activity", TOKEN, "", 120.0)


class Message:
    def __init__(self, type_, data="") -> None:
        self.type, self.data = type_, data


class FakeSocket:
    def __init__(self, messages) -> None:
        self.messages = messages
        self.closed = False

    async def __aiter__(self):
        for message in self.messages:
            yield message


async def test_only_the_students_messages_touch_not_the_pages_pings():
    clock = Clock()
    activity = HubActivity("http://hub/activity", TOKEN, clock=clock)
    ping = Message(WSMsgType.TEXT, '["ping", "1"]')
    socket = TouchingWebSocket(FakeSocket([ping, Message(WSMsgType.PING)]), activity)
    assert [m async for m in socket] and activity.last_message is None and socket.closed is False
    assert is_ping(ping) and not is_ping(Message(WSMsgType.TEXT, '["stdin", "a"]'))
    clock.now += timedelta(seconds=5)
    async for _message in TouchingWebSocket(FakeSocket([Message(WSMsgType.TEXT, '["stdin", "a"]')]), activity):
        pass
    assert activity.last_message == T0 + timedelta(seconds=5)


async def test_serve_hub_posts_what_the_students_websocket_sent():
    """Wired through: ana logs in through the hub, types in her tab's WebSocket, and the hub hears of it."""
    from aiohttp.test_utils import unused_port
    from test_serve_hub_login import FakeHub, client, environment

    from tutor.web.hub_login import HubGate, HubLogin
    from tutor.web.server import Listen, make_server

    hub, stand_in, clock = FakeHub(), StandInHub(), Clock()
    app = hub.app()
    app.router.add_post("/hub/api/users/ana/activity", stand_in.activity)
    async with TestServer(app, host="127.0.0.1") as hub_server:
        hub_url = str(hub_server.make_url("")).rstrip("/")
        port = unused_port()
        gate = HubGate(HubLogin.from_environment(environment(hub_url, port)))
        activity = HubActivity(f"{hub_url}/hub/api/users/ana/activity", TOKEN, clock=clock)
        server = make_server("sleep 30", Listen("127.0.0.1", port), None, max_sessions=3, hub=gate,
                             activity=activity)
        async with TestServer(await server._make_app(), host="127.0.0.1", port=port) as served:
            base = str(served.make_url("")).rstrip("/")
            hub.tutor_base = base
            async with client() as browser:
                async with browser.get(f"{base}/user/ana/") as response:
                    assert response.status == 200
                async with browser.ws_connect(f"{base}/user/ana/ws", headers={"Origin": base}) as socket:
                    await socket.send_str('["ping", "1"]')
                    assert (await socket.receive_json(timeout=10)) == ["pong", "1"]
                    assert activity.last_message is None                  # the page's ping is not the student
                    clock.now += timedelta(seconds=3)
                    await socket.send_str('["stdin", "a"]')
                    await socket.send_str('["ping", "2"]')
                    assert (await socket.receive_json(timeout=10)) == ["pong", "2"]   # stdin was read before it
            assert activity.last_message == T0 + timedelta(seconds=3)
            async with aiohttp.ClientSession() as http:
                assert await activity.post_if_due(http)
            assert stand_in.posts[-1][1]["last_activity"] == "2026-12-05T20:00:03Z"
