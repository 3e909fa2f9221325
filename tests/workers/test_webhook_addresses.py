"""Which addresses a webhook may reach (issue 32, item 4): IANA's special-purpose registries as an explicit
table, whatever the running Python's ``ipaddress`` says, and DNS lookups that cannot starve one another."""

from __future__ import annotations

import ipaddress
import socket
import threading

import pytest

from api.service import addresses
from support import returns_within

REFUSED = [
    "0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.9.9.9", "169.254.169.254",
    "172.16.0.1", "172.31.255.1", "192.0.0.1", "192.0.0.8", "192.0.0.9", "192.0.0.170", "192.0.2.1", "192.31.196.1",
    "192.52.193.1", "192.88.99.1", "192.168.1.1", "192.175.48.1", "198.18.0.1", "198.19.255.1", "198.51.100.7",
    "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    "::", "::1", "100::1", "100:0:0:1::1", "2001::1", "2001:2::1", "2001:20::1", "2001:db8::1", "2620:4f:8000::1",
    "3fff::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1", "4000::1", "64:ff9b:1::808:808",
    "::ffff:10.0.0.1", "64:ff9b::c000:8", "2002:c000:8::1",
]  # fmt: skip
PUBLIC = ["8.8.8.8", "1.1.1.1", "192.0.1.1", "100.128.0.1", "198.20.0.1", "172.32.0.1", "2606:4700::1111", "2a00:1450::1",
          "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]  # fmt: skip


@pytest.mark.parametrize("address", REFUSED)
def test_special_purpose_addresses_are_refused(address):
    assert addresses.non_public(ipaddress.ip_address(address)), address


@pytest.mark.parametrize("address", PUBLIC)
def test_public_unicast_addresses_are_allowed(address):
    assert addresses.non_public(ipaddress.ip_address(address)) is None, address


def test_the_judgement_does_not_depend_on_the_pythons_own_tables(monkeypatch):
    # Python 3.11.7 called 192.0.0.0/24 global, and a delivery to 192.0.0.8 went out: make every flag say so.
    for cls in (ipaddress.IPv4Address, ipaddress.IPv6Address):
        monkeypatch.setattr(cls, "is_global", property(lambda self: True))
        monkeypatch.setattr(cls, "is_private", property(lambda self: False))
        monkeypatch.setattr(cls, "is_reserved", property(lambda self: False))
    for address in ("192.0.0.8", "10.0.0.1", "fd00::1", "100.64.0.1"):
        assert addresses.non_public(ipaddress.ip_address(address)), address
    assert addresses.literal_target("http://192.0.0.8/hook")


def test_private_addresses_are_allowed_when_configured():
    """``DOMINO_WEBHOOK_ALLOW_PRIVATE=1`` (tests, private deployments): loopback and private ranges are called."""
    for url in ("http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]:9/hook"):
        with pytest.raises(addresses.Refused):
            addresses.pin(url, allow_private=False, deadline=1.0)
        assert addresses.pin(url, allow_private=True, deadline=1.0).url.startswith("http://")


@pytest.fixture
def slow_dns(monkeypatch):  # type: ignore[no-untyped-def]
    """``*.slow.example`` never resolves (until the test ends); ``fast.example`` is 127.0.0.1 at once."""
    release = threading.Event()
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host.endswith(".slow.example"):
            release.wait(60)
            raise socket.gaierror("gave up")
        if host == "fast.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
    release.set()


def test_slow_names_cannot_starve_other_owners_lookups(slow_dns):
    # One owner's slow names: each fails at its own deadline, and once its lookups left hanging reach the cap,
    # its next ones fail at once, without a thread.
    for i in range(addresses.MAX_LINGERING_PER_OWNER + 3):
        with pytest.raises(addresses.Refused, match="in time"):
            returns_within(30, lambda: addresses.resolve(f"n{i}.slow.example", 80, 0.05, owner="game:attacker"))
    assert addresses._lingering["game:attacker"] == addresses.MAX_LINGERING_PER_OWNER
    # Another owner's name resolves meanwhile (the old shared pool of 4 threads was full of slow names here).
    got = returns_within(30, lambda: addresses.resolve("fast.example", 80, 5.0, owner="game:honest"))
    assert got == [ipaddress.ip_address("127.0.0.1")]
    assert "game:honest" not in addresses._lingering, "a lookup that answered holds nothing"
