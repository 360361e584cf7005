"""textual-serve's Server with what a served tutor needs on top: the access checks, a page that
fetches nothing from outside and links to the Host the browser used, a cap on open sessions,
the browser's language, TLS, and a Unix socket for a proxy in front (jupyter-server-proxy).

textual-serve starts one ``tutor`` process per WebSocket (per browser tab), so the served app is
exactly the terminal app.  Its routes and static files are used as they are, except the index
page, which is our own template: textual-serve's loads its font from an internet font service
(an offline classroom got a fallback font and a failed request on every load) and builds its
links from one fixed address (a page opened by IP or by a ``.local`` name hung on the splash).
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.common.i18n import LANGUAGES, N_, _, current_language, language_code
from tutor.web import DEFAULT_MAX_SESSIONS, TAB_THREADS
from tutor.web.access import AccessPolicy, guard_middleware
from tutor.web.hub_service import without_hub_settings

if TYPE_CHECKING:
    import ssl

    from tutor.web.hub_login import HubGate
    from tutor.web.hub_service import Learners

TEMPLATES = Path(__file__).resolve().parent / "templates"
ICONS = Path(__file__).resolve().parent / "icons"   # tutor.svg, and favicon.ico rendered from it
TITLE = N_("Transformer math tutor")


@dataclass(frozen=True)
class Listen:
    """Where the server listens: a TCP host and port, or a Unix socket (then ``host`` is unused)."""

    host: str = "127.0.0.1"
    port: int = 8000
    unix_socket: Path | None = None
    ssl_context: ssl.SSLContext | None = None


def tls_context(certfile: Path, keyfile: Path | None) -> ssl.SSLContext:
    """A server TLS context; OSError or ssl.SSLError (unreadable, mismatched) for the caller to report."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certfile), str(keyfile) if keyfile else None)
    return context


def browser_language(accept_language: str | None) -> str | None:
    """The first language of ``Accept-Language`` (by its q weights) that the tutor has, or None."""
    weighted = []
    for position, part in enumerate((accept_language or "")[:1000].split(",")):
        tag, _sep, params = part.strip().partition(";")
        try:
            weight = float(params.strip()[2:]) if params.strip().startswith("q=") else 1.0
        except ValueError:
            continue
        code = language_code(tag)
        if code in LANGUAGES and weight > 0:
            weighted.append((-weight, position, code))
    return min(weighted)[2] if weighted else None


def tab_environment(environment: dict[str, str], language: str | None) -> dict[str, str]:
    """textual-serve's environment for a tab's process, plus: the browser's language unless the
    tutor was told another (--lang) or the learner chose one (remembered), as LANGUAGE is the
    locale's first word; and one torch thread unless the server's own environment sets one
    (tutor.web.TAB_THREADS; a forked tab has its count from the fork server).  The hub's settings
    and API token stay with the server, which alone logs in and posts activity: a tab started by
    ``--hub`` has no more use for the learner's token than a hub service's tab has for the service's."""
    environment = without_hub_settings(environment)
    environment.setdefault("OMP_NUM_THREADS", TAB_THREADS)
    if language:
        environment["LANGUAGE"] = language
    return environment


def full_page(open_sessions: int, limit: int) -> str:
    """The page a tab gets when the server already runs as many sessions as it may."""
    heading = _("Too many open sessions")
    body = _("This tutor already runs {open} sessions, its limit ({limit}). Close a tab you no longer use, "
             "or ask whoever started it to raise --max-sessions, then reload this page.").format(
        open=open_sessions, limit=limit)
    return (f'<!DOCTYPE html><html lang="{current_language()}"><head><meta charset="utf-8"><title>'
            f"{html.escape(heading)}</title></head><body style=\"font-family: sans-serif; margin: 3em\">"
            f"<h1>{html.escape(heading)}</h1><p>{html.escape(body)}</p></body></html>")


async def close_quietly(websocket) -> None:
    """Close a WebSocket whose connection may already be gone."""
    try:
        await websocket.close()
    except Exception:
        pass


def make_server(command: str, listen: Listen, policy: AccessPolicy | None, *,
                max_sessions: int = DEFAULT_MAX_SESSIONS, announce=None, hub: HubGate | None = None,
                learners: Learners | None = None, activity=None):
    """A textual-serve Server for ``command``; every request passes ``policy`` (None: no checks,
    for a Unix socket in a private folder that only the proxy in front can reach), or, started by a
    JupyterHub, ``hub``'s login under the hub's /user/NAME/ prefix (tutor.web.hub_login).

    ``learners`` (a hub service, with ``hub``): each tab is its session's hub login's, started by
    ``learners.command(login)`` in that login's home, one per login (tutor.web.hub_service).

    ``activity`` (a HubActivity, with ``hub``): messages from the browser are posted to the hub as
    the server's activity (tutor.web.hub_activity).

    ``announce()`` is called once the server listens (the CLI prints the address to open then).
    """
    import asyncio
    import contextlib
    import signal

    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from aiohttp.web_runner import GracefulExit
    from textual_serve.server import Server, to_int

    import textual_serve
    from tutor.web.hub_activity import TouchingWebSocket
    from tutor.web.hub_login import HUB_USER
    from tutor.web.tab_process import TabService

    secure = listen.ssl_context is not None

    async def post_activity(_app):
        """While the server runs, the hub hears of the student's messages (stopped with it)."""
        task = asyncio.create_task(activity.run())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    class TutorServer(Server):
        open_sessions = 0
        tabs: dict = {}   # as a hub service: hub login -> (its WebSocket, its TabService)

        async def _make_app(self):
            app = await super()._make_app()
            # our own page template; textual-serve's static files (its JS, CSS and fonts) as they are
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
            for name in ("favicon.ico", "favicon.svg"):   # the page links them beside itself (a proxy's prefix kept)
                app.router.add_get(f"/{name}", self.handle_icon)
            if policy is not None:
                app.middlewares.append(guard_middleware(policy))
            if hub is None:
                return app
            # the hub's proxy passes /user/NAME/... as it is: the tutor's pages live under that prefix
            root = web.Application(middlewares=[hub.middleware()])
            root.add_subapp(hub.login.prefix.rstrip("/"), app)

            async def close_hub_client(_app) -> None:
                await hub.close()

            root.on_cleanup.append(close_hub_client)
            if activity is not None:
                root.cleanup_ctx.append(post_activity)
            return root

        async def on_startup(self, app) -> None:
            if announce is not None:
                announce()

        async def handle_icon(self, request: web.Request):
            """The tab's icon: browsers ask for /favicon.ico, and a 404 filled every server's log."""
            icon = ICONS / ("favicon.ico" if request.path.endswith(".ico") else "tutor.svg")
            return web.FileResponse(icon, headers={"Cache-Control": "max-age=86400"})

        def refuse_full(self):
            return web.Response(status=503, text=full_page(self.open_sessions, max_sessions),
                                content_type="text/html", headers={"Retry-After": "30"})

        async def handle_index(self, request: web.Request):
            if self.open_sessions >= max_sessions:
                return self.refuse_full()
            context = {
                "lang": current_language(), "title": _(TITLE), "start": _("Start"), "ended": _("Session ended."),
                "restart": _("Restart"),
                "font_size": max(6, min(48, to_int(request.query.get("fontsize", "16"), 16))),
                "static_url": "static/",   # beside the page, so a proxy's path prefix is kept
                # the Host the browser used (the guard has checked it names this server)
                "websocket_url": f"{'wss' if secure else 'ws'}://{request.host}/ws",
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def handle_websocket(self, request: web.Request):
            """textual-serve's handler, with the session cap, the browser's language, and a tab that is
            stopped and its place freed however the connection ends (textual-serve's own re-raised
            from stopping a tab whose connection dropped mid-frame, and left it running)."""
            if self.open_sessions >= max_sessions:   # the page may have loaded while a place was free
                return self.refuse_full()
            user = request.get(HUB_USER)
            if learners is not None and user is None:   # the hub gate lets no request here without a login
                raise web.HTTPForbidden()
            self.open_sessions += 1
            websocket = web.WebSocketResponse(heartbeat=15)
            service = None
            try:
                await websocket.prepare(request)
                language = browser_language(request.headers.get("Accept-Language"))
                command, environment = self.command, (lambda environment: tab_environment(environment, language))
                if learners is not None:
                    command = learners.command(user)
                    environment = (lambda environment: learners.environment(tab_environment(environment, language),
                                                                            user))
                service = TabService(command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=websocket.close, download_manager=self.download_manager,
                                     environment=environment)
                service.owner = user
                if learners is not None:
                    await self.take_over(user, websocket, service)
                await service.start(request.query.get("width", "80"), request.query.get("height", "24"))   # capped
                await self._process_messages(websocket if activity is None else TouchingWebSocket(websocket, activity),
                                             service)
            except asyncio.CancelledError:   # the server stops: the tab with it (below)
                pass
            except Exception:   # a message that is not the protocol, or a connection lost mid-write
                pass
            finally:
                # whatever happened above: the place is freed and the tab's processes are stopped
                self.open_sessions -= 1
                if learners is not None and self.tabs.get(user, (None, None))[1] is service:
                    del self.tabs[user]
                try:
                    if service is not None:
                        await service.end()
                finally:
                    await close_quietly(websocket)
            return websocket

        async def take_over(self, user: str, websocket, service) -> None:
            """Make this the login's tab and end the one open elsewhere (another browser tab, a device
            left on): one tab per login, since two would write one progress database at once."""
            old_websocket, old_service = self.tabs.get(user, (None, None))
            self.tabs[user] = (websocket, service)   # before the wait below: a third connection ends this one
            if old_service is not None:
                await old_service.end()
                await close_quietly(old_websocket)

        async def handle_download(self, request: web.Request):
            """textual-serve's, but as a hub service only for the login whose tab offered the file."""
            if learners is not None:
                try:
                    offered = await self.download_manager.get_download_metadata(request.match_info["key"])
                except KeyError:
                    raise web.HTTPNotFound() from None
                if getattr(offered.app_service, "owner", None) != request.get(HUB_USER):
                    raise web.HTTPForbidden(text="403 Forbidden: not your download\n")
            return await super().handle_download(request)

        def serve(self, debug: bool = False) -> None:
            """textual-serve's serve(), with TLS or a Unix socket, and without its banner and log setup."""
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)

            def request_exit() -> None:
                raise GracefulExit()

            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, request_exit)
            where = ({"path": str(listen.unix_socket)} if listen.unix_socket else
                     {"host": listen.host, "port": listen.port, "ssl_context": listen.ssl_context})
            web.run_app(self._make_app(), handle_signals=False, loop=loop, print=lambda *args: None, **where)

    return TutorServer(command, host=listen.host, port=listen.port, title=_(TITLE),
                       statics_path=Path(textual_serve.__file__).resolve().parent / "static")
