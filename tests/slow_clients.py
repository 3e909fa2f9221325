"""Slow clients for the tests of issue 32: requests whose headers arrive at once and whose body does not."""

from __future__ import annotations

import resource
import selectors
import socket


def slow_body(port: int, path: str = "/v1/games", source: str = "127.0.0.1", length: int = 100) -> socket.socket:
    """A connection from ``source`` that has sent a POST's headers (``Content-Length: length``) and one byte of
    its body: the rest is for the caller to send, or never."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(source, 0))
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{"
    )
    sock.sendall(head.encode())
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or resets it)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def first_answer(sock: socket.socket) -> bytes:
    """The first answer the server sends (its head, and its body by ``Content-Length``), without waiting for the
    connection to close: a proxy may keep it open after answering, until the rest of the body arrives."""
    raw = b""
    while b"\r\n\r\n" not in raw or len(raw.partition(b"\r\n\r\n")[2]) < _length(raw):
        chunk = sock.recv(65536)
        if not chunk:
            break
        raw += chunk
    return raw


def first_answers(socks: list[socket.socket], count: int) -> list[bytes]:
    """The first ``count`` answers the server sends on any of ``socks``, in the order they come (fewer when the
    rest are closed unanswered). Which of many connections from one address a proxy refuses is its choice: its
    workers read their requests in no fixed order."""
    answers: list[bytes] = []
    with selectors.DefaultSelector() as waiting:
        for sock in socks:
            waiting.register(sock, selectors.EVENT_READ)
        while len(answers) < count and waiting.get_map():
            for key, _ in waiting.select():
                waiting.unregister(key.fileobj)
                if raw := first_answer(key.fileobj):  # type: ignore[arg-type]
                    answers.append(raw)
    return answers[:count]


def _length(raw: bytes) -> int:
    for line in raw.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def status(raw: bytes) -> int | None:
    """The status of the first answer in ``raw`` (None: nothing came)."""
    line = raw.partition(b"\r\n")[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def raise_open_files(needed: int) -> None:
    """Raise this process's open-files soft limit to at least ``needed`` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard == resource.RLIM_INFINITY else min(needed, hard), hard))
