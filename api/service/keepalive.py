"""The connections a delivery thread keeps open to the webhooks it calls (HTTP keep-alive).

A client (and its one connection) serves one URL scheme, host name, pinned address and port, in one thread:
every delivery still resolves and judges its host (:func:`api.service.addresses.pin`) and gets the client of
the address it judged, so a connection never outlives the judgement it was made under. A name that now points
elsewhere gets a new connection to the new address; the old one is closed. TLS names the host and checks the
certificate against it when the connection is made (:mod:`api.service.webhooks`), so another name on the same
address and port never shares it. A client whose request failed is closed: the next delivery connects afresh.

Why: a connection per delivery (its connect, its client and its teardown) was most of the webhooks worker's CPU
per delivered event, on the cores the API shares with it.
"""

from __future__ import annotations

import collections
import ssl
import threading

import httpx

MAX_HOSTS = 4  # hosts a thread keeps a connection to; past this, the least recently used is closed
# An idle connection is dropped after this, before receivers commonly close theirs (5 s and more): a connection
# the receiver closed while idle is seen before it is reused, but not one it closes as the request goes out.
# A delivery thread idle this long closes its connections (api/service/deliveries.py).
KEEPALIVE_S = 2.0
# A request that failed so on a connection that had served one before may have met the receiver closing it as
# it went out: it is sent once more, on a fresh connection (a receiver has at least once, by webhook-id).
STALE = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)

Key = tuple[str, str, str, int]  # scheme, host name, address, port

_kept = threading.local()


class _Kept:
    def __init__(self, tls: ssl.SSLContext) -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=KEEPALIVE_S)
        self.client = httpx.Client(follow_redirects=False, trust_env=False, verify=tls, limits=limits)
        self.tls = tls
        self.served = 0


def _clients() -> collections.OrderedDict[Key, _Kept]:
    kept: collections.OrderedDict[Key, _Kept] | None = getattr(_kept, "clients", None)
    if kept is None:
        kept = _kept.clients = collections.OrderedDict()
    return kept


def _client(key: Key, tls: ssl.SSLContext) -> _Kept:
    """This thread's client for ``key`` made with ``tls``; the clients of the same host at another address are
    closed."""
    kept = _clients()
    found = kept.get(key)
    if found is not None and found.tls is tls:
        kept.move_to_end(key)
        return found
    for other in [k for k in kept if k[:2] == key[:2] and k[3] == key[3]]:
        kept.pop(other).client.close()
    kept[key] = found = _Kept(tls)
    while len(kept) > MAX_HOSTS:
        kept.popitem(last=False)[1].client.close()
    return found


def post(key: Key, tls: ssl.SSLContext, url: str, body: bytes, headers: dict[str, str], timeout: httpx.Timeout, extensions: dict[str, str]) -> httpx.Response:
    """POST on this thread's connection for ``key`` (scheme, host name, pinned address, port), made on first use
    with ``tls``. Raises what httpx raises, the connection then closed."""
    kept = _client(key, tls)
    if kept.served:
        try:
            return _send(key, kept, url, body, headers, timeout, extensions)
        except STALE:
            kept = _client(key, tls)  # closed: a fresh one
    return _send(key, kept, url, body, headers, timeout, extensions)


def _send(key: Key, kept: _Kept, url: str, body: bytes, headers: dict[str, str], timeout: httpx.Timeout, extensions: dict[str, str]) -> httpx.Response:
    try:
        resp = kept.client.post(url, content=body, headers=headers, timeout=timeout, extensions=extensions)
    except BaseException:
        _clients().pop(key, None)
        kept.client.close()
        raise
    kept.served += 1
    return resp


def close_all() -> None:
    """Close this thread's connections (a delivery thread gone idle)."""
    kept = _clients()
    while kept:
        kept.popitem()[1].client.close()
