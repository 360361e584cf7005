"""Who may talk to a ``tutor serve``: the run's token, and a Host (and Origin) naming this server.

Why a token even on loopback: any web page the learner opens may open a WebSocket to a
loopback port, or rebind its own DNS name to 127.0.0.1.  So, as notebook servers do:

* each run makes a secret token and prints the address with it (``/?token=…``); the first
  page load trades it for an HttpOnly, SameSite=Strict cookie, which the page's own scripts,
  styles and WebSocket then carry, and which another site's page never gets.  The token is
  not one-time: it opens the tutor for anyone who has it until the server stops;
* every request (page, static file, download, WebSocket upgrade) without the right token is
  refused with 403, compared in constant time;
* the Host header must name the served address (a rebound ``evil.example`` is refused), and an
  Origin header, when the browser sends one, must too.
"""
from __future__ import annotations

import hmac
import ipaddress
import socket
from urllib.parse import urlsplit

TOKEN_PARAM = "token"
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


def machine_names() -> set[str]:
    """The names other machines may use for this one: its host name, FQDN and mDNS ``.local`` name."""
    short = socket.gethostname().lower()
    return {short, socket.getfqdn().lower(), f"{short.split('.')[0]}.local"} - {""}


class AccessPolicy:
    """The checks every request passes before textual-serve sees it.

    Host names are what a DNS-rebinding page cannot fake: its requests carry its own name.  A
    wildcard --host serves every address of the machine, so any IP literal and the machine's
    own names are accepted there; the token still guards every request.
    """

    def __init__(self, token: str, host: str, port: int, secure: bool = False) -> None:
        self.token, self.port, self.secure = token, port, secure
        self.cookie = f"tutor_token_{port}"   # cookies ignore ports: two servers must not share one
        bound = host.strip("[]").lower()
        self.any_ip = bound in WILDCARDS
        names = {"localhost", "127.0.0.1", "::1", bound} - {""}
        if self.any_ip:
            names |= machine_names()
        self.names = names

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def netloc_ok(self, netloc: str, scheme: str | None = None) -> bool:
        """``host[:port]`` names this server (a missing port is the scheme's default)."""
        scheme = scheme or ("https" if self.secure else "http")
        try:
            parts = urlsplit(f"//{netloc}")
            port = parts.port or {"http": 80, "https": 443}.get(scheme)
        except ValueError:   # a port that is not a number, or out of range
            return False
        name = (parts.hostname or "").lower()
        if not name or port != self.port or parts.username is not None:
            return False
        return name in self.names or (self.any_ip and is_ip(name))

    def origin_ok(self, origin: str) -> bool:
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and self.netloc_ok(parts.netloc, parts.scheme)

    def refusal(self, host: str | None, origin: str | None, token: str | None) -> str | None:
        """Why a request is refused, or None to let it through."""
        if not host or not self.netloc_ok(host):
            return "this server answers only to its own address (Host header refused)"
        if origin is not None and not self.origin_ok(origin):
            return "requests from another site's page are refused (Origin header refused)"
        if not self.token_ok(token):
            return "open the address 'tutor serve' printed, with its ?token=..., to use this tutor"
        return None


def guard_middleware(policy: AccessPolicy):
    """An aiohttp middleware applying ``policy`` to every request, WebSocket upgrades included."""
    from aiohttp import hdrs, web

    @web.middleware
    async def guard(request: web.Request, handler):
        from_query = request.query.get(TOKEN_PARAM)
        reason = policy.refusal(request.headers.get(hdrs.HOST), request.headers.get(hdrs.ORIGIN),
                                from_query if from_query is not None else request.cookies.get(policy.cookie))
        if reason is not None:
            raise web.HTTPForbidden(text=f"403 Forbidden: {reason}\n")
        response = await handler(request)
        if from_query is not None and not response.prepared:
            # the page's own sub-requests and WebSocket carry the token from here on
            response.set_cookie(policy.cookie, policy.token, httponly=True, samesite="Strict", path="/",
                                secure=policy.secure)
        return response

    return guard


def display_host(host: str) -> str:
    """The host as a browser should be sent to it: brackets for IPv6, a name for a wildcard."""
    bare = host.strip("[]")
    if bare in WILDCARDS:
        return socket.gethostname()
    return f"[{bare}]" if ":" in bare else bare


def outward_address() -> str | None:
    """The IP address other machines on the network most likely reach this one by, or None.

    A UDP "connect" sends nothing; it only asks the kernel which interface would route there.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))   # TEST-NET-1: never routed anywhere real
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if is_loopback(address) else address
