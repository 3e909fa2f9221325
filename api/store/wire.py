"""The Redis protocol by hand: the one module where the store steps past redis-py's client.

A move's load and commit, and every wake of an event stream, are one round trip each; through redis-py's
client they also paid its pool (a lock and a check per command), its per-call retry wrapping and its
argument packer (every argument copied through a generator), more CPU than the round trip itself. Here
commands are packed by hiredis and written to a connection redis-py made, and the replies read from it.

What this takes of redis-py and hiredis beyond their documented client is named in :data:`INTERNALS`;
``tests/test_seams.py`` checks each against the installed versions (pinned as ranges in ``pyproject.toml``),
so an upgrade that changes one fails there, by name.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
import redis
from redis.connection import ConnectionPool

# (module, dotted name, what it is used for)
INTERNALS: tuple[tuple[str, str, str], ...] = (
    ("hiredis", "pack_command", "packed: commands in the protocol, packed in C"),
    ("redis.connection", "Connection.send_packed_command", "a packed batch written as it is"),
    ("redis.connection", "Connection.read_response", "one reply read (an error reply raised as ResponseError)"),
    ("redis.connection", "Connection.disconnect", "a connection left half-read is closed; it reconnects on use"),
    ("redis.connection", "ConnectionPool.make_connection", "RoundTrips: a connection of our own, outside the pool"),
    ("redis.connection", "ConnectionPool.get_connection", "Held: a pool connection held for an event stream"),
    ("redis.connection", "ConnectionPool.release", "Held: given back"),
)

Command = tuple[Any, ...]


def packed(commands: Sequence[Command]) -> bytes:
    """Commands in the Redis protocol, packed by hiredis directly (redis-py's packer first copies every
    argument through a Python generator: four times the CPU for a commit's dozen arguments)."""
    return b"".join(map(hiredis.pack_command, commands))


def _reply(conn: Any) -> Any:
    try:
        return conn.read_response()
    except redis.exceptions.ResponseError as exc:  # the command failed; the connection is fine
        return exc


class RoundTrips:
    """Commands sent and their replies read in one round trip, on a connection of a plain stack of idle ones
    (made by the pool's factory when the stack is empty: as many as requests run at once, threads or
    greenlets). A dropped connection is retried at once, ``retries`` times; a timeout is not."""

    def __init__(self, retries: int) -> None:
        self.retries = retries
        self._idle: list[Any] = []  # last used first
        self._lock = threading.Lock()

    def roundtrip(self, pool: Callable[[], ConnectionPool], commands: Sequence[Command]) -> list[Any]:
        """The replies of ``commands``; a reply that is an error comes back as that exception, not raised.
        ``pool`` gives the pool whose settings a new connection takes (asked only when one is made)."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = pool().make_connection()
        try:
            for attempt in range(self.retries + 1):
                try:
                    conn.send_packed_command([packed(commands)])
                    return [_reply(conn) for _ in commands]
                except redis.exceptions.ConnectionError:
                    conn.disconnect()  # reconnects on its next use
                    if attempt == self.retries:
                        raise
                except BaseException:
                    conn.disconnect()  # a half-read answer must not reach the next command
                    raise
            raise AssertionError("unreachable")
        finally:
            with self._lock:
                self._idle.append(conn)


class Held:
    """A connection taken from ``pool`` and held until :meth:`release` (an event stream wakes once per commit
    for as long as a game lasts: each wake is then one round trip, with no pool traffic in between)."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self.conn: Any = pool.get_connection()

    def exchange(self, payload: bytes, replies: int) -> list[Any]:
        """Send ``payload`` (packed commands) and read ``replies`` replies (an error reply raises). On any
        failure the connection is closed and given back: a half-read answer must not reach its next user."""
        try:
            self.conn.send_packed_command([payload])
            return [self.conn.read_response() for _ in range(replies)]
        except BaseException:
            self.conn.disconnect()
            self.release()
            raise

    def release(self) -> None:
        if self.conn is not None:
            self.pool.release(self.conn)
            self.conn = None
