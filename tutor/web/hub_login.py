"""``tutor serve --hub``: the tutor as a JupyterHub user's whole server (the tutor-only profile),
checking the hub's login itself.

Why not jupyter-server-proxy's standalone proxy in front, as before: it was a second process per
student (66 MB PSS: tornado, jupyter_server, the proxy) doing two jobs, the hub's login and copying
bytes to the tutor.  Why not jupyterhub.services.auth.HubOAuth here: importing it (tornado,
traitlets, jupyterhub) adds 38 MB to this process, while the OAuth code flow against the hub is
three HTTP requests, made with aiohttp, which the server has loaded anyway.

The flow, as a Jupyter server does it (the hub gives each server its settings in JUPYTERHUB_*
variables): a request without this server's session cookie is sent to the hub's authorize page
with a random state, kept in a cookie too, so only the browser that started a login can finish
it; the hub logs the student in if needed and sends the browser back to the callback with a
code; the callback trades the code for a token (with the server's client secret, its hub API
token; PKCE as well), asks the hub whose token it is and lets in only the server's own user,
with a random session id in an HttpOnly cookie scoped to /user/NAME/.  The token is checked with
the hub again every few minutes, so a hub logout or a revoked token ends access.  A request whose
Origin is not the address it was sent to is refused whoever sends it: another site's page gets
nothing, not even a login redirect.

As a hub *service* (``tutor serve --hub-service``, one tutor for the whole hub at /services/NAME/),
the same flow lets in every hub user the hub lets through (optionally only a group's members), and
each session is bound to the login it was made for: the server picks that user's tab and home by
it (tutor.web.server), so nothing a browser sends can name another student.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from aiohttp import web   # only a server imports this module, and it runs on aiohttp

STATE_MAX_AGE = 600      # seconds a login may take between leaving for the hub and coming back
RECHECK_AFTER = 300      # seconds a hub token is trusted before asking the hub again (HubAuth's cache age)
MAX_PENDING = 64         # logins under way at once; older ones are forgotten first
MAX_SESSIONS = 64        # browsers logged in at once (one student's devices; older ones log in again)
SERVICE_SESSIONS = 4096  # as a hub service, a whole hub's browsers (the oldest log in again, unseen)
SERVICE_PENDING = 1024   # as a hub service, a class logging in at once (a lecture hall, each with two tabs)
STATE_COOKIE = "tutor-hub-state"
# the request key under which the gate leaves the session's hub login (a typed key where aiohttp has them)
HUB_USER = getattr(web, "RequestKey", lambda name, _type: name)("tutor_hub_user", str)
SESSION_COOKIE = "tutor-hub-session"
NEEDED = ("JUPYTERHUB_USER", "JUPYTERHUB_CLIENT_ID", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_API_URL",
          "JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_SERVICE_URL", "JUPYTERHUB_OAUTH_CALLBACK_URL")
# a managed service's (jupyterhub.services.service): no user of its own, a service name instead
SERVICE_NEEDED = ("JUPYTERHUB_SERVICE_NAME", *NEEDED[1:])


class HubSettingsError(ValueError):
    """The environment is not a JupyterHub spawner's (a variable missing or malformed)."""


@dataclass(frozen=True)
class HubLogin:
    """What the hub told this server about itself, from the spawner's environment."""

    user: str | None      # the one hub user let in; None as a hub service: any (of ``group``)
    client_id: str
    secret: str           # JUPYTERHUB_API_TOKEN: the OAuth client's secret as well
    api_url: str          # the hub's API as this server reaches it (the token and user requests)
    authorize_url: str    # the hub's authorize page as the browser reaches it
    callback: str         # the redirect URI the hub registered for this server (a path, as a rule)
    prefix: str           # /user/NAME/: every page of this server is under it
    host: str             # where to listen (JUPYTERHUB_SERVICE_URL)
    port: int
    group: str | None = None   # as a hub service: only this hub group's members (None: every hub user)

    @classmethod
    def from_environment(cls, environ, *, service: bool = False, group: str | None = None) -> HubLogin:
        """A user's server's settings, or with ``service`` a managed hub service's (every user, or ``group``)."""
        missing = [name for name in (SERVICE_NEEDED if service else NEEDED) if not environ.get(name)]
        if missing:
            started_by = "as a JupyterHub service" if service else "by a JupyterHub spawner"
            raise HubSettingsError(f"not started {started_by}: " + ", ".join(missing) + " not set")
        bind = urlsplit(environ["JUPYTERHUB_SERVICE_URL"])
        try:
            port = bind.port
        except ValueError:
            port = None
        if bind.scheme != "http" or not bind.hostname or port is None:
            raise HubSettingsError(f"JUPYTERHUB_SERVICE_URL must be http://HOST:PORT/..., not "
                                   f"{environ['JUPYTERHUB_SERVICE_URL']!r} (internal TLS is not supported)")
        prefix = "/" + environ["JUPYTERHUB_SERVICE_PREFIX"].strip("/") + "/"
        callback = environ["JUPYTERHUB_OAUTH_CALLBACK_URL"]
        if not urlsplit(callback).path.startswith(prefix):
            raise HubSettingsError(f"JUPYTERHUB_OAUTH_CALLBACK_URL {callback!r} is not under {prefix!r}")
        hub_base = "/" + (environ.get("JUPYTERHUB_BASE_URL") or "/").strip("/")
        authorize = f"{environ.get('JUPYTERHUB_HOST', '')}{hub_base.rstrip('/')}/hub/api/oauth2/authorize"
        return cls(user=None if service else environ["JUPYTERHUB_USER"], client_id=environ["JUPYTERHUB_CLIENT_ID"],
                   secret=environ["JUPYTERHUB_API_TOKEN"], api_url=environ["JUPYTERHUB_API_URL"].rstrip("/"),
                   authorize_url=authorize, callback=callback, prefix=prefix, host=bind.hostname, port=port,
                   group=group or None)

    def admits(self, model) -> str | None:
        """The hub login of a ``/user`` reply that may use this tutor, or None: this server's own user;
        as a service, any hub user (not another service's token), a member of ``group`` if one is set."""
        if not isinstance(model, dict) or not isinstance(model.get("name"), str) or not model["name"]:
            return None
        name = model["name"]
        if self.user is not None:
            return name if name == self.user else None
        if model.get("kind", "user") != "user":
            return None
        groups = model.get("groups")
        if self.group is not None and not (isinstance(groups, list) and self.group in groups):
            return None
        return name

    @property
    def callback_path(self) -> str:
        return urlsplit(self.callback).path


@dataclass
class Pending:
    """A login under way: where the browser wanted to go, and the PKCE verifier for its code."""

    next_path: str
    verifier: str
    started: float


@dataclass
class Session:
    token: str
    checked: float
    user: str         # the hub login this session was made for; it never changes


class Bounded(OrderedDict):
    """A dict that forgets its oldest entries past ``limit`` (a flood of logins cannot fill memory)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while len(self) > self.limit:
            self.popitem(last=False)


def challenge(verifier: str) -> str:
    """PKCE's S256 code challenge of ``verifier`` (RFC 7636)."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def same_origin(origin: str | None, host: str | None) -> bool:
    """An Origin header, when a browser sends one, names the host the request was sent to (as a
    Jupyter server checks it: the hub's public name is not known here, the Host header is)."""
    if origin is None:
        return True
    return bool(host) and urlsplit(origin).netloc.lower() == host.lower() and origin.startswith(("http://", "https://"))


class HubGate:
    """The checks every request to a hub-spawned ``tutor serve`` passes, and its login callback."""

    def __init__(self, login: HubLogin, clock=time.monotonic) -> None:
        self.login, self.clock = login, clock
        one_student = login.user is not None
        self.pending: Bounded = Bounded(MAX_PENDING if one_student else SERVICE_PENDING)
        self.sessions: Bounded = Bounded(MAX_SESSIONS if one_student else SERVICE_SESSIONS)
        self.http = None   # an aiohttp ClientSession for the hub's API, made in the server's loop

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()

    async def hub_api(self, method: str, path: str, **kwargs):
        """(status, JSON or None) of a request to the hub's API."""
        import aiohttp

        if self.http is None:
            self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        async with self.http.request(method, f"{self.login.api_url}/{path}", **kwargs) as response:
            body = await response.json(content_type=None) if response.status == 200 else None
            return response.status, body

    async def owner(self, token: str) -> str | None:
        """The hub login whose token ``token`` is, in the hub's eyes now, if it may use this tutor."""
        import aiohttp

        try:
            status, model = await self.hub_api("GET", "user", headers={"Authorization": f"token {token}"})
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None   # the hub cannot say: nobody gets in on an unchecked token
        return self.login.admits(model) if status == 200 else None

    async def session_user(self, session_id: str | None) -> str | None:
        """The hub login of a live session, or None (no such session, or the hub no longer vouches for it)."""
        session = self.sessions.get(session_id or "")
        if session is None:
            return None
        if self.clock() - session.checked > RECHECK_AFTER:
            if await self.owner(session.token) != session.user:
                self.sessions.pop(session_id, None)
                return None
            session.checked = self.clock()
        return session.user

    def start_login(self, request):
        """A redirect to the hub's authorize page, with a new state in a cookie of its own."""
        from aiohttp import web

        state, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(48)
        wanted = request.rel_url.path_qs
        self.pending[state] = Pending(wanted if wanted.startswith(self.login.prefix) else self.login.prefix,
                                      verifier, self.clock())
        query = urlencode({"client_id": self.login.client_id, "redirect_uri": self.login.callback,
                           "response_type": "code", "state": state,
                           "code_challenge": challenge(verifier), "code_challenge_method": "S256"})
        response = web.Response(status=302, headers={"Location": f"{self.login.authorize_url}?{query}"})
        self.set_cookie(request, response, STATE_COOKIE, state, STATE_MAX_AGE)
        return response

    async def finish_login(self, request):
        """The callback: the state this browser was given, the code traded for a token, the token's owner."""
        from aiohttp import web

        state = request.query.get("state", "")
        kept = request.cookies.get(STATE_COOKIE, "")
        pending = self.pending.pop(state, None)
        if not state or not hmac.compare_digest(state.encode(), kept.encode()) or pending is None \
                or self.clock() - pending.started > STATE_MAX_AGE:
            raise web.HTTPForbidden(text="403 Forbidden: this login was not started here, or took too long; "
                                         "open the tutor from the hub again\n")
        code = request.query.get("code", "")
        token = await self.token_for(code, pending.verifier) if code else None
        user = await self.owner(token) if token is not None else None
        if user is None:
            raise web.HTTPForbidden(text="403 Forbidden: this tutor is its own student's only\n"
                                    if self.login.user is not None else
                                    "403 Forbidden: this tutor is for its class's students only\n")
        session_id = secrets.token_urlsafe(32)
        self.sessions[session_id] = Session(token, self.clock(), user)
        response = web.Response(status=302, headers={"Location": pending.next_path})
        response.del_cookie(STATE_COOKIE, path=self.login.prefix)
        self.set_cookie(request, response, SESSION_COOKIE, session_id, None)
        return response

    async def token_for(self, code: str, verifier: str) -> str | None:
        import aiohttp

        form = {"client_id": self.login.client_id, "client_secret": self.login.secret,
                "grant_type": "authorization_code", "code": code, "redirect_uri": self.login.callback,
                "code_verifier": verifier}
        try:
            status, reply = await self.hub_api("POST", "oauth2/token", data=form)
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None
        token = reply.get("access_token") if status == 200 and isinstance(reply, dict) else None
        return token if isinstance(token, str) and token else None

    def set_cookie(self, request, response, name: str, value: str, max_age: int | None) -> None:
        """HttpOnly, sent only to this server's pages, over HTTPS only when the hub is served over it.
        SameSite=Lax, not Strict: a login that starts from a link on another site (an LMS) comes back
        through the hub in a redirect chain that a Strict cookie would not follow."""
        secure = request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"
        response.set_cookie(name, value, path=self.login.prefix, httponly=True, samesite="Lax", secure=secure,
                            max_age=max_age)

    def middleware(self):
        from aiohttp import hdrs, web

        login = self.login

        @web.middleware
        async def gate(request: web.Request, handler):
            if not same_origin(request.headers.get(hdrs.ORIGIN), request.headers.get(hdrs.HOST)):
                raise web.HTTPForbidden(text="403 Forbidden: requests from another site's page are refused\n")
            path = request.path
            if path == login.prefix.rstrip("/"):
                raise web.HTTPFound(login.prefix)
            if not path.startswith(login.prefix):
                raise web.HTTPNotFound()
            if path == login.callback_path:
                return await self.finish_login(request)
            user = await self.session_user(request.cookies.get(SESSION_COOKIE))
            if user is not None:
                request[HUB_USER] = user   # whose tab and home this request may reach (tutor.web.server)
                return await handler(request)
            if request.method == "GET" and request.headers.get(hdrs.UPGRADE, "").lower() != "websocket":
                return self.start_login(request)
            raise web.HTTPForbidden(text="403 Forbidden: log in through the hub first\n")

        return gate
