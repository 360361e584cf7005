"""Tell the hub a student is busy in the tutor, as jupyterhub-singleuser does.

Why: a hub's idle culler (jupyterhub-idle-culler) stops a server whose ``last_activity`` is old.
The hub's proxy sees traffic, but a student typing in one WebSocket opened an hour ago makes no new
request for it to count, so a student busy in ``tutor serve --hub`` looked idle and was culled. A
Jupyter server posts its own activity to JUPYTERHUB_ACTIVITY_URL; so does this, the same JSON with
the server's API token, at most once per interval and only when a message from the browser came
since the last post (the page's own keep-alive pings are not the student). A failed post is logged
and tried again at the next turn: activity is a hint to the culler, never a reason to stop serving.
Outside a hub (no JUPYTERHUB_ACTIVITY_URL) there is no reporter and nothing is posted.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timezone

log = logging.getLogger(__name__)

INTERVAL = 300.0   # seconds between posts at most, jupyterhub-singleuser's default (JUPYTERHUB_ACTIVITY_INTERVAL)
TICK = 30.0        # how often the loop looks whether a post is due


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    """The hub's form: UTC with a Z, as jupyterhub.utils.isoformat writes it."""
    return moment.astimezone(timezone.utc).replace(tzinfo=None).isoformat() + "Z"


class HubActivity:
    """When the student last sent something, and when the hub was last told."""

    def __init__(self, url: str, token: str, server_name: str = "", *, interval: float = INTERVAL,
                 clock: Callable[[], datetime] = utc_now) -> None:
        self.url, self.token, self.server_name = url, token, server_name
        self.interval, self.clock = interval, clock
        self.last_message: datetime | None = None
        self.last_post: datetime | None = None   # of a post the hub accepted
        self.posts = 0

    @classmethod
    def from_environment(cls, environ) -> HubActivity | None:
        url, token = environ.get("JUPYTERHUB_ACTIVITY_URL"), environ.get("JUPYTERHUB_API_TOKEN")
        if not url or not token:
            return None
        try:
            interval = float(environ.get("JUPYTERHUB_ACTIVITY_INTERVAL") or INTERVAL)
        except ValueError:
            interval = INTERVAL
        return cls(url, token, environ.get("JUPYTERHUB_SERVER_NAME", ""), interval=max(interval, 1.0))

    def touch(self) -> None:
        """A message came from the student's browser."""
        self.last_message = self.clock()

    def due(self) -> bool:
        if self.last_message is None or (self.last_post is not None and self.last_message <= self.last_post):
            return False
        return self.last_post is None or (self.clock() - self.last_post).total_seconds() >= self.interval

    def body(self, moment: datetime) -> dict:
        when = iso(moment)
        return {"servers": {self.server_name: {"last_activity": when}}, "last_activity": when}

    async def post_if_due(self, http) -> bool:
        """Post the last message's time if one came since the last post and the interval has passed;
        True when the hub took it. ``http`` is an aiohttp ClientSession."""
        if not self.due():
            return False
        moment = self.last_message
        try:
            async with http.post(self.url, json=self.body(moment),
                                 headers={"Authorization": f"token {self.token}"}) as reply:
                if reply.status >= 400:
                    log.warning("the hub refused the activity post: HTTP %s", reply.status)
                    return False
        except Exception as error:   # a hub restarting or unreachable: the next turn tries again
            log.warning("could not post activity to the hub: %s", error)
            return False
        self.last_post, self.posts = self.clock(), self.posts + 1
        return True

    async def run(self, tick: float = TICK) -> None:
        """Until cancelled (the server stops): look every ``tick`` seconds whether a post is due."""
        import aiohttp

        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as http:
            while True:
                await self.post_if_due(http)
                await asyncio.sleep(tick)


def is_ping(message) -> bool:
    """The page's keep-alive ("ping") and the WebSocket's own control frames are not the student."""
    from aiohttp import WSMsgType

    if message.type is not WSMsgType.TEXT:
        return True
    return message.data.startswith('["ping"')


class TouchingWebSocket:
    """A WebSocket whose incoming messages touch ``activity``; everything else is the WebSocket's."""

    def __init__(self, websocket, activity: HubActivity) -> None:
        self._websocket, self._activity = websocket, activity

    def __getattr__(self, name):
        return getattr(self._websocket, name)

    async def __aiter__(self):
        async for message in self._websocket:
            if not is_ping(message):
                self._activity.touch()
            yield message
