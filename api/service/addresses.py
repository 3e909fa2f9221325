"""Where a webhook may be delivered: which addresses are public, and the one address a delivery connects to.

A delivery resolves the URL's host once, judges every address it got, and connects to the first one it
judged (:func:`pin`), keeping the host name for the ``Host`` header and for TLS (SNI and the certificate
check): a name that resolves to a public address for the check and to a private one for the connection
(DNS rebinding) reaches only the address that was checked.

Public is judged by the tables below, not by the running Python's ``ipaddress`` flags (which change between
versions: on 3.11.7 ``192.0.0.0/24`` counted as global). They are IANA's IPv4 and IPv6 Special-Purpose
Address Registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
https://www.iana.org/assignments/iana-ipv6-special-registry, as of 2025), every entry refused whether or
not the registry calls it globally reachable (a webhook has no business calling an anycast relay or a DNS
sink), plus multicast; and an IPv6 address is public only inside global unicast, ``2000::/3``. The IPv6
forms that carry an IPv4 address (IPv4-mapped ``::ffff:0:0/96``, IPv4-compatible ``::/96``, NAT64
``64:ff9b::/96``, 6to4 ``2002::/16``) are public when the IPv4 address is.

Each DNS lookup runs in a thread of its own, so a name that never answers costs its own delivery its
deadline and nothing else (no shared pool for slow names to fill); the lookups left running past their
deadline are capped per process, and per owner of the deliveries (``owner``), so that no one owner's slow
names can use up the others' lookups.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
import threading
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

SPECIAL_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",  # "this network" (RFC 791); 0.0.0.0/32 "this host"
        "10.0.0.0/8",  # private use (RFC 1918)
        "100.64.0.0/10",  # shared address space, carrier-grade NAT (RFC 6598)
        "127.0.0.0/8",  # loopback (RFC 1122)
        "169.254.0.0/16",  # link local (RFC 3927): cloud metadata services live here
        "172.16.0.0/12",  # private use (RFC 1918)
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890): DS-Lite, the dummy 192.0.0.8, anycast, NAT64
        "192.0.2.0/24",  # documentation, TEST-NET-1 (RFC 5737)
        "192.31.196.0/24",  # AS112-v4 (RFC 7535)
        "192.52.193.0/24",  # AMT (RFC 7450)
        "192.88.99.0/24",  # deprecated 6to4 relay anycast (RFC 7526)
        "192.168.0.0/16",  # private use (RFC 1918)
        "192.175.48.0/24",  # direct delegation AS112 service (RFC 7534)
        "198.18.0.0/15",  # benchmarking (RFC 2544)
        "198.51.100.0/24",  # documentation, TEST-NET-2 (RFC 5737)
        "203.0.113.0/24",  # documentation, TEST-NET-3 (RFC 5737)
        "224.0.0.0/4",  # multicast (RFC 5771; not in the registry, never a unicast host)
        "240.0.0.0/4",  # reserved (RFC 1112), and 255.255.255.255/32 limited broadcast (RFC 919)
    )
)
SPECIAL_V6 = tuple(
    ipaddress.IPv6Network(n)
    for n in (
        "::1/128",  # loopback (RFC 4291)
        "::/128",  # unspecified (RFC 4291)
        "64:ff9b:1::/48",  # local-use IPv4/IPv6 translation (RFC 8215): someone's own network
        "100::/64",  # discard-only (RFC 6666)
        "100:0:0:1::/64",  # dummy IPv6 prefix (RFC 9780)
        "2001::/23",  # IETF protocol assignments (RFC 2928): Teredo, benchmarking, ORCHID, AMT, AS112, anycast
        "2001:db8::/32",  # documentation (RFC 3849)
        "2620:4f:8000::/48",  # direct delegation AS112 service (RFC 7534)
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # segment routing SIDs (RFC 9602)
        "fc00::/7",  # unique local (RFC 4193)
        "fe80::/10",  # link-local unicast (RFC 4291)
        "fec0::/10",  # site-local, deprecated (RFC 3879)
        "ff00::/8",  # multicast (RFC 4291)
    )
)
GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052: carries an IPv4 address
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated (RFC 4291): carries an IPv4 address

# DNS lookups still running past their deadline (a resolver that never answers holds its thread until the
# system's own timeout): at most this many in a process, and this many of one owner's.
MAX_LINGERING = 256
MAX_LINGERING_PER_OWNER = 8
_lingering: Counter[str] = Counter()
_lingering_lock = threading.Lock()


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
    """Why ``address`` is not a public unicast address (None when it is), by the tables above."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            if non_public(inner):
                return f"points to a non-public address ({address}, which carries {inner})"
            return None
        if address in GLOBAL_UNICAST_V6 and not any(address in net for net in SPECIAL_V6):
            return None
        return f"points to a non-public address ({address})"
    if any(address in net for net in SPECIAL_V4):
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
    port: int


def literal(host: str) -> Address | None:
    """The address ``host`` is written as (no lookup), or None: a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def resolve(host: str, port: int, deadline: float, owner: str = "") -> list[Address]:
    """The addresses of ``host`` (a literal is itself), waiting at most ``deadline`` seconds for DNS, in a
    thread of this lookup's own."""
    if (address := literal(host)) is not None:
        return [address]
    with _lingering_lock:
        if _lingering[owner] >= MAX_LINGERING_PER_OWNER or sum(_lingering.values()) >= MAX_LINGERING:
            raise Refused("does not resolve in time")  # its earlier lookups still hang
        _lingering[owner] += 1
    done = threading.Event()
    answer: list[list[tuple[object, object, object, object, tuple[object, ...]]] | Exception] = []

    def lookup() -> None:
        try:
            answer.append(list(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)))
        except (OSError, UnicodeError, ValueError) as exc:
            answer.append(exc)
        finally:
            with _lingering_lock:
                _lingering[owner] -= 1
                if _lingering[owner] <= 0:
                    del _lingering[owner]
            done.set()

    threading.Thread(target=lookup, name="webhook-dns", daemon=True).start()
    if not done.wait(deadline):
        raise Refused("does not resolve in time")
    infos = answer[0]
    if isinstance(infos, Exception):
        raise Refused("does not resolve")
    addresses = [ipaddress.ip_address(str(info[4][0]).partition("%")[0]) for info in infos]
    if not addresses:
        raise Refused("does not resolve")
    return addresses


def pin(url: str, allow_private: bool, deadline: float, owner: str = "") -> Pinned:
    """Resolve ``url``'s host once (a lookup counted as ``owner``'s), judge every address (unless
    ``allow_private``), and bind the URL to the first. Raises :class:`Refused`."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not allow_private and (why := literal_target(url)):
        raise Refused(why)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:  # stored before creation checked it
        raise Refused("has a port out of range") from None
    addresses = resolve(host, port, deadline, owner)
    if not allow_private:
        for address in addresses:
            if why := non_public(address):
                raise Refused(why)
    address = addresses[0]
    netloc = f"[{address}]" if address.version == 6 else str(address)
    if parts.port is not None:
        netloc += f":{parts.port}"
    host_header = parts.netloc.rpartition("@")[2]
    return Pinned(urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")), host, host_header, address, port)


def host_key(address: Address) -> str:
    """Whose failures an address shares for back-off: an IPv4 address, or an IPv6 address's /64."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else address)
