"""Where a webhook may be delivered: which addresses are public, and the one address a delivery connects to.

A delivery resolves the URL's host once, judges every address it got, and connects to the first one it
judged (:func:`pin`), keeping the host name for the ``Host`` header and for TLS (SNI and the certificate
check): a name that resolves to a public address for the check and to a private one for the connection
(DNS rebinding) reaches only the address that was checked.

Public means globally routable unicast (``ipaddress``'s ``is_global``), and for the IPv6 forms that carry
an IPv4 address (IPv4-mapped ``::ffff:0:0/96``, IPv4-compatible ``::/96``, NAT64 ``64:ff9b::/96``, 6to4
``2002::/16``) the IPv4 address must be public too; local-use NAT64 (``64:ff9b:1::/48``), Teredo
(``2001::/32``), site-local and multicast addresses are never public.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: translated inside someone's own network
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
TEREDO = ipaddress.IPv6Network("2001::/32")

# One resolver thread per process: a name whose DNS never answers costs a delivery at most its deadline.
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


class Refused(Exception):
    """A webhook URL that may not be called (its reason is the message)."""


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or None."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64 or address in IPV4_COMPATIBLE:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def non_public(address: Address) -> str | None:
    """Why ``address`` is not a public unicast address (None when it is)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in TEREDO or address in NAT64_LOCAL or address.is_site_local:
            return f"points to a non-public address ({address})"
        inner = embedded_ipv4(address)
        if inner is not None and non_public(inner):
            return f"points to a non-public address ({address}, which carries {inner})"
    if address.is_multicast or not address.is_global:
        return f"points to a non-public address ({address})"
    return None


def literal_target(url: str) -> str | None:
    """Why ``url`` names a non-public host without resolving it (a literal address, ``localhost``), or
    None: what a game's creation can judge without waiting on DNS."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return "points to this machine"
    try:
        return non_public(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:  # the other forms of an IPv4 address the resolver reads as one: 2130706433, 0177.0.0.1, 0x7f.1, 0
        return non_public(ipaddress.IPv4Address(socket.inet_aton(host)))
    except OSError:
        return None


@dataclasses.dataclass(frozen=True)
class Pinned:
    """A webhook URL bound to the address it was judged by."""

    url: str  # the URL with that address in place of the host name
    host: str  # the host name: TLS's server name and certificate check
    host_header: str  # the URL's host[:port], sent as ``Host``
    address: Address


def resolve(host: str, port: int, deadline: float) -> list[Address]:
    """The addresses of ``host`` (a literal is itself), waiting at most ``deadline`` seconds for DNS."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    lookup = _RESOLVER.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=deadline)
    except concurrent.futures.TimeoutError:
        raise Refused("does not resolve in time") from None
    except (OSError, UnicodeError, ValueError):
        raise Refused("does not resolve") from None
    addresses = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in infos]
    if not addresses:
        raise Refused("does not resolve")
    return addresses


def pin(url: str, allow_private: bool, deadline: float) -> Pinned:
    """Resolve ``url``'s host once, judge every address (unless ``allow_private``), and bind the URL to the
    first. Raises :class:`Refused`."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not allow_private and (why := literal_target(url)):
        raise Refused(why)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:  # stored before creation checked it
        raise Refused("has a port out of range") from None
    addresses = resolve(host, port, deadline)
    if not allow_private:
        for address in addresses:
            if why := non_public(address):
                raise Refused(why)
    address = addresses[0]
    netloc = f"[{address}]" if address.version == 6 else str(address)
    if parts.port is not None:
        netloc += f":{parts.port}"
    host_header = parts.netloc.rpartition("@")[2]
    return Pinned(urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")), host, host_header, address)


def host_key(address: Address) -> str:
    """Whose failures an address shares for back-off: an IPv4 address, or an IPv6 address's /64."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else address)
