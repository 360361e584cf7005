"""textual-serve's Server with what a served tutor needs on top: the access checks, a page that
fetches nothing from outside and links to the Host the browser used, a cap on open sessions,
and TLS.

textual-serve starts one ``tutor`` process per WebSocket (per browser tab), so the served app is
exactly the terminal app.  Its routes and handlers are used as they are, except the index page,
which is our own template: textual-serve's loads its font from an internet font service (an
offline classroom got a fallback font and a failed request on every load) and builds its links
from one fixed address (a page opened by IP or by a ``.local`` name hung on the splash screen).
"""
from __future__ import annotations

import html
import ssl
from pathlib import Path

from tutor.common.i18n import N_, _, current_language
from tutor.web.access import AccessPolicy, guard_middleware

TEMPLATES = Path(__file__).resolve().parent / "templates"
TITLE = N_("Transformer math tutor")
# One learner rarely has more than a few tabs open; each session is a process of ~200 MB, so
# eight stay well inside a laptop's memory while every tab keeps its speed on two cores.
DEFAULT_MAX_SESSIONS = 8


def tls_context(certfile: Path, keyfile: Path | None) -> ssl.SSLContext:
    """A server TLS context; OSError or ssl.SSLError (unreadable, mismatched) for the caller to report."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certfile), str(keyfile) if keyfile else None)
    return context


def full_page(open_sessions: int, limit: int) -> str:
    """The page a tab gets when the server already runs as many sessions as it may."""
    heading = _("Too many open sessions")
    body = _("This tutor already runs {open} sessions, its limit ({limit}). Close a tab you no longer use, "
             "or ask whoever started it to raise --max-sessions, then reload this page.").format(
        open=open_sessions, limit=limit)
    return (f'<!DOCTYPE html><html lang="{current_language()}"><head><meta charset="utf-8"><title>'
            f"{html.escape(heading)}</title></head><body style=\"font-family: sans-serif; margin: 3em\">"
            f"<h1>{html.escape(heading)}</h1><p>{html.escape(body)}</p></body></html>")


def make_server(command: str, host: str, port: int, token: str, *, max_sessions: int = DEFAULT_MAX_SESSIONS,
                ssl_context: ssl.SSLContext | None = None, announce=None, policy: AccessPolicy | None = None):
    """A textual-serve Server for ``command`` guarded by ``policy`` (the run's token by default).

    ``announce()`` is called once the server listens (the CLI prints the address to open then).
    """
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from aiohttp.web_runner import GracefulExit
    from textual_serve.server import Server, to_int

    import textual_serve

    secure = ssl_context is not None
    scheme = "https" if secure else "http"
    policy = policy or AccessPolicy(token, host, port, secure=secure)

    class TutorServer(Server):
        open_sessions = 0

        async def _make_app(self):
            app = await super()._make_app()
            # our own page template; textual-serve's static files (its JS, CSS and fonts) as they are
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
            if policy is not None:
                app.middlewares.append(guard_middleware(policy))
            return app

        async def on_startup(self, app) -> None:
            if announce is not None:
                announce()

        def full(self) -> bool:
            return self.open_sessions >= max_sessions

        def refuse_full(self):
            return web.Response(status=503, text=full_page(self.open_sessions, max_sessions),
                                content_type="text/html", headers={"Retry-After": "30"})

        async def handle_index(self, request: web.Request):
            if self.full():
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
            if self.full():   # the page may have loaded while a place was free
                return self.refuse_full()
            self.open_sessions += 1
            try:
                return await super().handle_websocket(request)
            finally:
                self.open_sessions -= 1

        def serve(self, debug: bool = False) -> None:
            """textual-serve's serve(), with the TLS context and without its banner and log setup."""
            import asyncio
            import signal

            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)

            def request_exit() -> None:
                raise GracefulExit()

            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, request_exit)
            web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False, loop=loop,
                        ssl_context=ssl_context, print=lambda *args: None)

    shown = host if host else "127.0.0.1"
    server = TutorServer(command, host=host, port=port, title=TITLE, public_url=f"{scheme}://{shown}:{port}",
                         statics_path=Path(textual_serve.__file__).resolve().parent / "static")
    server.max_sessions = max_sessions
    return server
