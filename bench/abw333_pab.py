"""abw333 ``dominoes``' probabilistic alpha-beta (``pab``, its strongest player) as an opponent for
bench/bot_strength.py, in the 4-player team block game.

Its code is not ours and is not in this repository: the bench imports the ``dominoes`` package from a
checkout of github.com/abw333/dominoes given by ``--abw333 PATH`` or ``DOMINO_ABW333`` (the folder holding
``dominoes/``), else an installed ``dominoes`` (the ``bench`` extra). Only its public pieces are used:
``Game``, ``SkinnyBoard``, ``Hand``, ``Domino``, ``players.bota_gorda`` and ``search.alphabeta``.

What it does each move with a choice, as its ``probabilistic_alphabeta`` does: deal the unseen tiles to the
other seats at random, consistent with their hand sizes and with the values each lacks by its passes
(``Game.random_possible_hands``); solve that deal exactly with its alpha-beta; count which first move was
optimal; prefer the move most often optimal. With a node budget (ours: not in abw333, which searches every
possible deal) it samples deals until the budget is spent; a search that would go past the budget is dropped.
A node is one position its alpha-beta makes (one ``make_move``), counted through the move-ordering player it
calls at every position. Move ordering and ties: ``bota_gorda`` (heaviest first), so that before its search
can finish a deal (early in a round, a deal takes well over 40,000 nodes) it plays heaviest first.

abw333's alpha-beta maximises its own scoring (the winning team takes every pip left, a blocked round goes to
the lighter team), which is the team block rules the bench plays (``team_scoring=all_hands``); a tie on a
blocked round scores nothing in both.
"""

from __future__ import annotations

import collections
import copy
import hashlib
import importlib
import os
import random
import sqlite3
import sys
from typing import Any

import domino
from domino.tiles import full_set


class _Spent(Exception):
    """The node budget would be passed: drop this deal's search."""


def load(path: str | None) -> Any:
    """The ``dominoes`` package: from ``path`` (or ``DOMINO_ABW333``) if given, else an installed one."""
    path = path or os.environ.get("DOMINO_ABW333")
    if path:
        sys.path.insert(0, os.path.abspath(path))
    try:
        mod = importlib.import_module("dominoes")
        importlib.import_module("dominoes.search")
    except ImportError as exc:
        raise SystemExit(
            "pab needs abw333's dominoes: --abw333 PATH (a checkout of github.com/abw333/dominoes) "
            "or DOMINO_ABW333, or pip install 'dominoes==6.1.0'"
        ) from exc
    return mod


class Pab:
    """A ``choose(view, rng, budget)`` strategy that asks abw333's probabilistic alpha-beta.

    With ``cache`` (a SQLite file), its random numbers come from its view and the node budget rather than from
    the caller's ``rng``, so its move is a function of what it sees: moves are kept in the file and read back
    when the same view comes again (another run, another version of our bot on the same deals reaching the
    same position). Its searches are most of a run's time."""

    id = "pab"
    bench_nodes = 40000
    default_ms = 100.0

    def __init__(self, dominoes: Any, cache: str | None = None) -> None:
        self.d = dominoes
        self.db = sqlite3.connect(cache, timeout=60) if cache else None
        if self.db is not None:
            self.db.execute("CREATE TABLE IF NOT EXISTS moves (view TEXT PRIMARY KEY, move INTEGER)")
            self.db.commit()

    def choose(self, view: Any, rng: random.Random, budget: Any) -> Any:
        legal = view.legal_moves
        if len(legal) == 1:
            return legal[0]
        nodes = budget.nodes or self.bench_nodes
        if self.db is None:
            return self._search(view, rng, nodes)
        log = [(e.seat, e.type, str(e.tile), e.end) for e in view.log]
        seen = repr((nodes, view.seat, sorted(map(str, view.hand)), log))
        key = hashlib.sha256(seen.encode()).hexdigest()
        row = self.db.execute("SELECT move FROM moves WHERE view = ?", (key,)).fetchone()
        if row is not None:
            return legal[row[0]]
        move = self._search(view, random.Random(key), nodes)
        self.db.execute("INSERT OR REPLACE INTO moves VALUES (?, ?)", (key, legal.index(move)))
        self.db.commit()
        return move

    def _search(self, view: Any, rng: random.Random, nodes: int) -> Any:
        game = self._game(view)
        random.seed(rng.getrandbits(64))  # abw333 samples deals with the global generator
        counter = self._optimal_moves(game, nodes)
        self.d.players.bota_gorda(game)
        best = sorted(game.valid_moves, key=lambda m: -counter[m])[0]  # stable: ties stay heaviest first
        return self._ours(best, view.legal_moves)

    def _optimal_moves(self, game: Any, nodes: int) -> collections.Counter[Any]:
        """How often each first move was optimal over sampled deals, within ``nodes`` positions in all."""
        d = self.d
        counter: collections.Counter[Any] = collections.Counter()
        left = nodes
        while left > 0:
            g = copy.deepcopy(game)
            g.hands = g.random_possible_hands()
            g.skinny_board()
            used = [0]

            def ordering(position: Any, used: list[int] = used, cap: int = left) -> None:
                used[0] += len(position.valid_moves)
                if used[0] > cap:
                    raise _Spent
                d.players.bota_gorda(position)

            try:
                moves, _ = d.search.alphabeta(g, player=ordering)
            except _Spent:
                break
            counter[moves[0]] += 1
            left -= max(1, used[0])
        return counter

    def _game(self, view: Any) -> Any:
        """abw333's ``Game`` as the seat to move sees it: its own hand, the unseen tiles spread over the other
        seats by their counts (only their union and the counts are read), the board's ends, and every play
        and pass in order (``missing_values`` replays them)."""
        d = self.d
        mine = set(view.hand)
        unseen = sorted(set(full_set(view.rules["set_max_pips"])) - mine - set(view.tiles_on_board))
        hands = []
        for seat, count in enumerate(view.hand_counts):
            if seat == view.seat:
                tiles = list(view.hand)
            else:
                tiles, unseen = unseen[:count], unseen[count:]
            hands.append(d.Hand([d.Domino(t.high, t.low) for t in tiles]))
        line = view.board["line"]
        moves: list[Any] = []
        for entry in view.log:
            if entry.type == "pass":
                moves.append(None)
            elif entry.end is None:  # the opening: laid as it lies in the line, so the ends replay alike
                a, b = next(s for s in line if domino.Tile.parse(s) == entry.tile).split("-")
                moves.append((d.Domino(int(a), int(b)), True))
            else:
                moves.append((d.Domino(entry.tile.high, entry.tile.low), entry.end == "left"))
        ends = view.board["ends"]
        board = d.SkinnyBoard(ends["left"], ends["right"], len(line)) if line else d.SkinnyBoard()
        valid = tuple(
            (d.Domino(m.tile.high, m.tile.low), m.end == "left") for m in view.legal_moves if isinstance(m, domino.Play)
        )
        first = view.log[0].seat if view.log else view.seat
        return d.Game(board, hands, moves, view.seat, valid, first, None)

    @staticmethod
    def _ours(move: Any, legal: tuple[Any, ...]) -> Any:
        tile = domino.Tile(*move[0])
        end = "left" if move[1] else "right"
        plays = [m for m in legal if isinstance(m, domino.Play) and m.tile == tile]
        return next((m for m in plays if m.end == end), plays[0])
