"""A reference client for domino-service: a small bot that plays over HTTP.

One seat of one game: it claims an open seat (or is given a seat token), follows the game with the long poll
(``GET /v1/games/{id}/events?after=V&wait=25``) and, when a ``turn_started`` event names its seat, posts one
of the legal moves that event lists: the heaviest tile it can play, else a draw, else a pass. It reads its
view only at the start and at the end.

    python examples/hosted_bot.py --url http://127.0.0.1:8000 --game <id> --claim 1 --name mybot
    DOMINO_TOKEN=<seat token> python examples/hosted_bot.py --url http://127.0.0.1:8000 --game <id>

A registered bot (``--registered``, see ``POST /v1/bots``): any number of games at once, on its one stream
(``GET /v1/bot/events``, a long poll, or Server-Sent Events with ``--sse``); each ``turn`` notice is answered
with one of its ``legal_moves``, with the bot token. With ``--accept-challenges`` it accepts every ``challenge``
notice (``POST /v1/challenges/{id}/accept``: its consent to that game). It runs until stopped, or until
``--games N`` games ended.

    DOMINO_BOT_TOKEN=dsk_bot_... python examples/hosted_bot.py --url http://127.0.0.1:8000 --registered --sse

Tokens are read from ``DOMINO_TOKEN`` / ``DOMINO_BOT_TOKEN`` (``--token`` also works, but on a shared machine
other users can see a command line). Only the standard library and ``httpx``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx


class ProblemError(Exception):
    """The service answered with a problem (RFC 9457): its ``detail`` says what went wrong."""

    def __init__(self, resp: httpx.Response) -> None:
        try:
            body = resp.json()
        except ValueError:
            body = {}
        self.status = resp.status_code
        self.detail = body.get("detail") or resp.reason_phrase
        super().__init__(f"{resp.status_code} {body.get('title', resp.reason_phrase)}: {self.detail}")


def checked(resp: httpx.Response) -> httpx.Response:
    if resp.status_code >= 400:
        raise ProblemError(resp)
    return resp


def pips(tile: str) -> int:
    return sum(int(half) for half in tile.split("-"))


def choose(legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The heaviest play, else a draw, else a pass (moves are posted back as the view lists them)."""
    plays = [m for m in legal_moves if m["type"] == "play"]
    if plays:
        return max(plays, key=lambda m: pips(m["tile"]))
    return next((m for m in legal_moves if m["type"] == "draw"), legal_moves[0])


class Bot:
    def __init__(self, url: str, game_id: str, token: str | None = None, wait: float = 25.0) -> None:
        self.http = httpx.Client(base_url=url.rstrip("/"), timeout=wait + 10)
        self.game_id = game_id
        self.token = token
        self.wait = wait

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def claim(self, seat: int, name: str) -> None:
        resp = self.http.post(f"/v1/games/{self.game_id}/seats/{seat}", json={"name": name})
        self.token = checked(resp).json()["token"]  # 409 seat-taken: someone was faster

    def view(self) -> dict[str, Any]:
        resp = self.http.get(f"/v1/games/{self.game_id}", headers=self.auth)
        return checked(resp).json()  # type: ignore[no-any-return]

    def move(self, legal_moves: list[dict[str, Any]], version: int) -> None:
        move = {**choose(legal_moves), "expected_version": version}
        # return=minimal: the answer need not carry our view, the next turn_started brings what we need.
        headers = {**self.auth, "Prefer": "return=minimal"}
        resp = self.http.post(f"/v1/games/{self.game_id}/moves", json=move, headers=headers)
        if resp.status_code in (409, 412):  # the game moved on (e.g. our clock ran out): read it again
            return
        checked(resp)

    def events(self, after: int) -> dict[str, Any]:
        """Long poll: returns as soon as something happens after version ``after`` (or empty after the wait)."""
        params = {"after": after, "wait": self.wait}
        for delay in (0.5, 1, 2, 4, 8):
            try:
                resp = self.http.get(f"/v1/games/{self.game_id}/events", params=params, headers=self.auth)
                if resp.status_code != 503:
                    return checked(resp).json()  # type: ignore[no-any-return]
            except httpx.TransportError:
                pass
            time.sleep(delay)
        raise RuntimeError("the service stays unavailable")

    def play(self) -> dict[str, Any]:
        """Play until the game ends; returns the final view."""
        view = self.view()
        seat, after = view["seat"], view["version"]
        if view["status"] == "playing" and view["legal_moves"]:
            self.move(view["legal_moves"], after)
        while True:
            page = self.events(after)
            if page["ended"]:
                return self.view()
            if not page["events"]:
                continue  # the wait ran out: nothing happened, ask again
            after = page["last_version"]
            last = page["events"][-1]  # a turn notice ends the changes it follows
            if last["type"] == "turn_started" and last["seat"] == seat and last.get("legal_moves"):
                self.move(last["legal_moves"], last["version"])


class RegisteredBot:
    """A registered bot: every game it sits in, from its one stream, with its bot token."""

    def __init__(self, url: str, token: str, wait: float = 25.0, sse: bool = False, accept: bool = False) -> None:
        self.http = httpx.Client(base_url=url.rstrip("/"), timeout=wait + 10)
        self.auth = {"Authorization": f"Bearer {token}"}
        self.wait = wait
        self.sse = sse
        self.accept = accept  # accept the challenges it hears of
        self.after: str | None = None  # the last notice handled: where a reconnect resumes
        self.results: dict[str, dict[str, Any]] = {}  # game id -> its game_ended notice
        # Games this run moved in: a new connection first replays the notices kept from before (their turns
        # answer 412, their starts and endings are not this run's games).
        self.ours: set[str] = set()

    def notices(self) -> Iterator[dict[str, Any]]:
        """Every notice, in order, for ever: reconnects (resuming after the last one) when the connection ends."""
        delay = 0.5
        while True:
            try:
                yield from (self._stream() if self.sse else self._poll())
                delay = 0.5
            except httpx.TransportError:
                time.sleep(delay)
                delay = min(delay * 2, 8)

    def _poll(self) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {"wait": self.wait, **({"after": self.after} if self.after else {})}
        resp = self.http.get("/v1/bot/events", params=params, headers=self.auth)
        if resp.status_code in (429, 503):
            time.sleep(float(resp.headers.get("Retry-After", 1)))
            return
        yield from checked(resp).json()["events"]

    def _stream(self) -> Iterator[dict[str, Any]]:
        headers = {**self.auth, "Accept": "text/event-stream", **({"Last-Event-ID": self.after} if self.after else {})}
        with self.http.stream("GET", "/v1/bot/events", headers=headers, timeout=httpx.Timeout(10, read=60)) as resp:
            if resp.status_code in (429, 503):
                time.sleep(float(resp.headers.get("Retry-After", 1)))
                return
            if resp.status_code >= 400:
                resp.read()  # the problem's body, for its detail
                checked(resp)
            for line in resp.iter_lines():  # one `data:` line per notice; ids, types and comments are in it too
                if line.startswith("data: "):
                    yield json.loads(line[len("data: "):])

    def play(self, games: int | None = None) -> dict[str, dict[str, Any]]:
        """Answer turn notices until ``games`` games have ended (None: for ever); returns their endings."""
        for notice in self.notices():
            self.after = notice["id"]
            if notice["type"] == "turn" and notice["legal_moves"]:
                if self.move(notice):
                    self.ours.add(notice["game_id"])
            elif notice["type"] == "challenge" and self.accept and notice["challenge"]["status"] == "open":
                game_id = self.take(notice["challenge_id"])
                if game_id is not None:
                    self.ours.add(game_id)
            elif notice["type"] == "game_ended" and notice["game_id"] in self.ours:
                self.results[notice["game_id"]] = notice
                won = notice["seat"] in notice["winners"]
                print(f"game {notice['game_id']}: ended, scores {notice['scores']} ({'we won' if won else 'we lost'})",
                      flush=True)  # fmt: skip
                if games is not None and len(self.results) >= games:
                    return self.results
        return self.results

    def take(self, challenge_id: str) -> str | None:
        """Accept a challenge: the game's id, or None when it is no longer open (answered, cancelled, expired)."""
        resp = self.http.post(f"/v1/challenges/{challenge_id}/accept", headers=self.auth)
        if resp.status_code == 409:  # offer-closed (an old notice), or bot-busy
            return None
        game_id: str = checked(resp).json()["game_id"]
        print(f"challenge {challenge_id}: accepted, game {game_id}", flush=True)
        return game_id

    def move(self, notice: dict[str, Any]) -> bool:
        """Play the turn; False when the notice was an old one (the server moved for us meanwhile, or the game
        is over): the next notice counts."""
        move = {**choose(notice["legal_moves"]), "expected_version": notice["version"]}
        headers = {**self.auth, "Prefer": "return=minimal"}
        resp = self.http.post(notice["move_url"], json=move, headers=headers)
        if resp.status_code in (409, 412):
            return False
        checked(resp)
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", help="the game id (one seat of one game)")
    parser.add_argument("--registered", action="store_true", help="play as a registered bot: all its games, one stream")
    parser.add_argument("--token", help="the bot token (else DOMINO_BOT_TOKEN; or the seat token, else DOMINO_TOKEN)")
    parser.add_argument("--sse", action="store_true", help="registered: Server-Sent Events instead of the long poll")
    parser.add_argument("--games", type=int, metavar="N", help="registered: stop after N of this run's games ended")
    parser.add_argument("--accept-challenges", action="store_true", help="registered: accept every challenge it hears of")
    parser.add_argument("--claim", type=int, metavar="SEAT", help="claim this open seat (else DOMINO_TOKEN is used)")
    parser.add_argument("--name", default="hosted_bot", help="the name to claim the seat with")
    parser.add_argument("--wait", type=float, default=25.0, help="long-poll wait, seconds (at most 30)")
    args = parser.parse_args(argv)
    if args.registered:
        return play_registered(parser, args)
    if not args.game:
        parser.error("give --game ID (or --registered)")

    bot = Bot(args.url, args.game, args.token or os.environ.get("DOMINO_TOKEN"), wait=args.wait)
    if args.claim is None and not bot.token:
        parser.error("give --claim SEAT or set DOMINO_TOKEN")
    try:
        if args.claim is not None:
            bot.claim(args.claim, args.name)
        final = bot.play()
    except ProblemError as problem:  # e.g. 409 seat-taken: say why, no traceback
        print(f"hosted_bot: {problem}", file=sys.stderr)
        return 1
    won = final["seat"] in final["winners"]
    print(f"game {args.game}: {final['status']}, scores {final['scores']}, winners {final['winners']}"
          f" ({'we won' if won else 'we lost'})")
    return 0


def play_registered(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("DOMINO_BOT_TOKEN")
    if not token:
        parser.error("give --token or set DOMINO_BOT_TOKEN (the token POST /v1/bots answered)")
    bot = RegisteredBot(args.url, token, wait=args.wait, sse=args.sse, accept=args.accept_challenges)
    try:
        results = bot.play(args.games)
    except ProblemError as problem:  # e.g. 401: a wrong token
        print(f"hosted_bot: {problem}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        results = bot.results
    won = sum(1 for r in results.values() if r["seat"] in r["winners"])
    print(f"{len(results)} games ended, {won} won")
    return 0


if __name__ == "__main__":
    sys.exit(main())
