"""The page's safety rules, one ASGI middleware in front of every route.

A local web server is reachable by every page the user's browser opens, so (as Jupyter
does, and for the reasons its security notes give):

- **Token**: a random per-run token (``secrets.token_urlsafe``, 32 bytes) is in the
  printed address; a request carrying it as ``?token=`` gets it as a cookie
  (``HttpOnly``, ``SameSite=Strict``), later requests carry the cookie. Any request
  with neither is refused with 403.
- **Host header**: only the names the server is reachable by, with its port, are
  answered: ``127.0.0.1``, ``localhost``, ``[::1]``, the ``--host`` given and its
  addresses, and for a wildcard address (``0.0.0.0``, ``::``: every interface) the
  machine's host name, its fully qualified name and the addresses of its interfaces
  (:func:`machine_names`); anything else is a DNS rebinding attempt and gets 403 (the
  token alone would not stop a rebound page that learnt it).
- **State changes**: only ``POST``, each with the ``X-CSRF-Token`` header equal to the
  run's CSRF secret, which the page reads from its own ``<meta>`` (another site can
  neither read it nor set the header without a CORS preflight that is never allowed).
  A ``GET`` changes nothing.
- **Content-Security-Policy**: scripts, styles and fonts from the page's own origin
  only (no inline script, no ``eval``), nothing framed, no form posted elsewhere, plus
  ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` (the token
  is in the first address). ``Cache-Control: no-store`` on every answer but the static
  files (``no-cache``: kept, asked again with their ETag).

Comparisons of secrets are constant-time (``hmac.compare_digest``).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "readinglist_token"
CSRF_HEADER = "x-csrf-token"
#: The policy of every answer (CSP Level 3). KaTeX sets its sizes through the CSSOM
#: (``element.style``), which style-src does not govern; its fonts come from 'self'.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
SAFE_METHODS = ("GET", "HEAD")
#: Where the page's own files are served (``web.app``'s static mount).
STATIC = "/static/"


def cookie_value(header: str, name: str) -> str | None:
    """The value of the cookie ``name`` in a ``Cookie`` request header, or None.

    Lenient as browsers are (RFC 6265, section 5.4: pairs split on ``;``): another
    cookie of this host that ``http.cookies`` cannot parse (JSON, a space, non-ASCII:
    cookies are shared by every port of 127.0.0.1) must not hide this one, which
    ``SimpleCookie.load`` does by dropping the whole header.
    """
    for pair in header.split(";"):
        key, equals, value = pair.strip().partition("=")
        if equals and key.strip() == name:
            return value.strip().strip('"')
    return None


@dataclass
class Secrets:
    """The per-run secrets: the token in the address and the CSRF secret of the page."""

    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))


WILDCARDS = ("0.0.0.0", "::", "[::]", "")


def bracketed(name: str) -> str:
    """``name`` as a Host header writes it: an IPv6 address in brackets (RFC 3986, 3.2.2)."""
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def resolved(name: str) -> set[str]:
    """The addresses ``name`` resolves to (``socket.getaddrinfo``; none when it does not)."""
    import socket

    try:
        found = socket.getaddrinfo(name, None)
    except (OSError, UnicodeError):
        return set()
    return {str(info[4][0]).split("%", 1)[0] for info in found}


def interface_addresses() -> set[str]:
    """The addresses of this machine's network interfaces, as far as the standard
    library tells them: the source address of the default route for IPv4 and IPv6 (a
    UDP ``connect`` sends nothing), on Linux each interface's IPv4 address
    (``SIOCGIFADDR``, netdevice(7)) and every IPv6 address (``/proc/net/if_inet6``)."""
    import socket

    found: set[str] = set()
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.add(str(udp.getsockname()[0]).split("%", 1)[0])
        except OSError:
            pass
    found |= _linux_addresses()
    return found


def _linux_addresses() -> set[str]:
    import ipaddress
    import socket
    import struct
    from pathlib import Path

    found: set[str] = set()
    try:
        import fcntl

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            for _, name in socket.if_nameindex():
                try:
                    packed = fcntl.ioctl(
                        udp.fileno(), 0x8915, struct.pack("256s", name[:15].encode())
                    )
                except OSError:  # an interface without an IPv4 address
                    continue
                found.add(socket.inet_ntoa(packed[20:24]))
    except (ImportError, OSError, AttributeError):
        pass
    try:
        lines = Path("/proc/net/if_inet6").read_text(encoding="ascii").splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if fields and len(fields[0]) == 32:
            found.add(str(ipaddress.IPv6Address(bytes.fromhex(fields[0]))))
    return found


def machine_names() -> set[str]:
    """The names this machine is reached by over the network: its host name, its fully
    qualified name, what they resolve to and the addresses of its interfaces."""
    import socket

    names = {socket.gethostname(), socket.getfqdn()} - {""}
    found = set(names)
    for name in names:
        found |= resolved(name)
    return found | interface_addresses()


def allowed_hosts(host: str, port: int) -> set[str]:
    """Return the Host header values answered for a server bound to ``host``:``port``:
    the local names always; the bound name and its addresses when it is another; for a
    wildcard address (every interface) :func:`machine_names` too. Each with the port;
    without it too on port 80 (RFC 9110, 7.2: the default port may be left out)."""
    bare = host.strip("[]")
    names = {*LOCAL_NAMES, bare, *resolved(bare)}
    if bare in WILDCARDS:
        names |= machine_names()
    written = {bracketed(n) for n in names if n and n not in WILDCARDS}
    return {f"{name}:{port}" for name in written} | (written if port == 80 else set())


def same(given: str | None, expected: str) -> bool:
    """True when ``given`` equals the secret ``expected`` (constant time)."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Guard:
    """ASGI middleware enforcing the module's rules before ``app`` sees a request."""

    def __init__(self, app: ASGIApp, keys: Secrets, hosts: Iterable[str]) -> None:
        self.app = app
        self.keys = keys
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse (403, a short plain text) or pass the request on with the headers added."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [None])[0]
        held = cookie_value(headers.get("cookie", ""), COOKIE)
        why = self.refusal(scope["method"], headers, given, held)
        if why:
            await self.refuse(send, why)
            return
        set_cookie = given is not None and not same(held, self.keys.token)
        # the page's own files (no secret in them) are kept and asked again with their
        # ETag (304, no body: a new tab does not fetch KaTeX's 270 kB again); the page
        # and its answers, which carry the CSRF secret, are never stored
        static = str(scope.get("path", "")).startswith(STATIC)
        cache = b"no-cache" if static else b"no-store"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                    (b"cache-control", cache),
                ]
                if set_cookie:
                    value = f"{COOKIE}={self.keys.token}; Path=/; HttpOnly; SameSite=Strict"
                    extra.append((b"set-cookie", value.encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def refusal(
        self, method: str, headers: dict[str, str], given: str | None, held: str | None
    ) -> str:
        """Return why the request is refused ("" when it may pass)."""
        if headers.get("host", "").lower() not in self.hosts:
            return "refused: this server answers only at the address it printed (Host header)"
        if not (same(given, self.keys.token) or same(held, self.keys.token)):
            return "refused: open the address with the token that `readinglist serve` printed"
        if method not in SAFE_METHODS:
            if method != "POST":
                return "refused: only GET and POST"
            if not same(headers.get(CSRF_HEADER), self.keys.csrf):
                return "refused: a change needs the page's CSRF token (reload the page)"
        return ""

    @staticmethod
    async def refuse(send: Send, why: str) -> None:
        """Answer 403 with ``why`` as plain text and the same safety headers."""
        body = (why + "\n").encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
