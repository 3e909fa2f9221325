"""A reference client for domino-service: a small bot that plays one seat of a game to the end over HTTP.

It claims an open seat (or is given a seat token), follows the game with the long poll
(``GET /v1/games/{id}/events?after=V&wait=25``) and, when a ``turn_started`` event names its seat, posts one
of the legal moves that event lists: the heaviest tile it can play, else a draw, else a pass. It reads its
view only at the start and at the end. Only the standard library and ``httpx``.

    python examples/hosted_bot.py --url http://127.0.0.1:8000 --game <id> --claim 1 --name mybot
    DOMINO_TOKEN=<seat token> python examples/hosted_bot.py --url http://127.0.0.1:8000 --game <id>

The token is read from ``DOMINO_TOKEN`` (not from the command line, where other users could see it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", required=True, help="the game id")
    parser.add_argument("--claim", type=int, metavar="SEAT", help="claim this open seat (else DOMINO_TOKEN is used)")
    parser.add_argument("--name", default="hosted_bot", help="the name to claim the seat with")
    parser.add_argument("--wait", type=float, default=25.0, help="long-poll wait, seconds (at most 30)")
    args = parser.parse_args(argv)

    bot = Bot(args.url, args.game, os.environ.get("DOMINO_TOKEN"), wait=args.wait)
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


if __name__ == "__main__":
    sys.exit(main())
