"""The test oracles: the rules written out a second time, independently of the engine and as plainly as the
docs say them (docs/rules.md, docs/engine.md), for the tests to check the engine against. Nothing here
imports the engine's own rule code: an oracle that shared it could not catch its mistakes."""

from __future__ import annotations

import hashlib
from typing import Any

import domino
from domino import Draw, Pass, Play

SPACE = 1 << 32  # version 2 draws 32-bit words


# -- the line games (docs/rules.md) ----------------------------------------------------------------------


def can_draw(s: domino.State) -> bool:
    return s.rules.draw_policy != "no_draw" and len(s.boneyard) > s.rules.boneyard_reserve


def ends(board: domino.LineBoard) -> list[int]:
    """Open end values: left, right, and up/down once both spinner sides are covered (docs/rules.md#the-spinner)."""
    if not board.line:
        return []
    ends = [board.line[0][0], board.line[-1][1]]
    s = board.spinner
    if s is not None and s != 0 and s != len(board.line) - 1:
        v = board.line[s][0]
        ends.append(board.up[-1][1] if board.up else v)
        ends.append(board.down[-1][1] if board.down else v)
    return ends


def count(board: domino.LineBoard) -> int:
    """The All Fives count (docs/rules.md#counting-the-ends)."""
    tiles = board.line + board.up + board.down
    if len(tiles) == 1:
        return tiles[0][0] + tiles[0][1]
    arms = [board.line[0][::-1], board.line[-1]] + [arm[-1] for arm in (board.up, board.down) if arm]
    return sum(2 * outer if inner == outer else outer for inner, outer in arms)


def r5(x: int) -> int:
    return 5 * ((x + 2) // 5)


def _fives(r: domino.Rules, counted: list[int]) -> int:
    return sum(r5(c) for c in counted) if r.fives_bonus_scope == "per_opponent" else r5(sum(counted))


def _team_award(r: domino.Rules, res: domino.RoundResult) -> tuple[int, ...]:
    """docs/rules.md#team-play: the winning team's award, on both its seats."""
    pips = res.pips_left
    team = [pips[0] + pips[2], pips[1] + pips[3]]
    if res.end == "domino":
        w = res.winner
        assert w is not None
        t = w % 2
    else:
        if team[0] == team[1]:
            return (0,) * 4
        t = 0 if team[0] < team[1] else 1
    if r.scoring == "pagat_difference":
        pts = max(0, team[1 - t] - team[t])
    else:
        if r.team_scoring == "opponents_only":
            counted = [pips[s] for s in range(4) if s % 2 != t]
        elif res.end == "domino":
            counted = [pips[s] for s in range(4) if s != res.winner]
        else:
            counted = list(pips)
        if r.scoring == "all_fives":
            pts = 0 if (res.end == "blocked" and r.fives_blocked_award == "none") else _fives(r, counted)
        else:
            pts = sum(counted)
    return tuple(pts if s % 2 == t else 0 for s in range(4))


def award(r: domino.Rules, res: domino.RoundResult) -> tuple[int, ...]:
    """docs/rules.md#scoring-a-round, #all_fives, #team-play: what each seat gains at the end of the round (a team's award on both)."""
    n = r.players
    pips = res.pips_left
    out = [0] * n
    if res.end == "abandoned":
        return tuple(out)
    if r.has_teams:
        return _team_award(r, res)

    def single(w_pips: int, others: list[int], blocked: bool) -> int:
        if r.scoring == "opponents_total":
            return sum(others)
        if r.scoring == "pagat_difference":
            if r.difference_mode == "pairwise":
                return sum(o - w_pips for o in others)
            return sum(others) - w_pips
        assert r.scoring == "all_fives"
        if blocked and r.fives_blocked_award == "none":
            return 0
        return _fives(r, others)

    if res.end == "domino":
        w = res.winner
        assert w is not None and pips[w] == 0
        out[w] = single(0, [p for s, p in enumerate(pips) if s != w], False)
        return tuple(out)
    low = min(pips)
    tied = [s for s in range(n) if pips[s] == low]
    rest = [p for p in pips if p != low]
    if len(tied) == 1:
        out[tied[0]] = single(low, rest, True)
    elif r.blocked_tie == "split" and rest:
        share = single(low, rest, True) // len(tied)
        for s in tied:
            out[s] = share
    return tuple(out)


def legal(s: domino.State) -> set[Any]:
    """docs/rules.md#the-line-games, written out independently: the legal moves of the seat to move."""
    r, hand, board = s.rules, s.hands[s.turn], s.board
    if not board.line:
        return {Play(s.lead)} if s.lead is not None else {Play(t) for t in hand}
    values = ends(board)
    names = ["left", "right", "up", "down"][: len(values)]
    placements: set[Any] = {Play(t, name) for t in hand for name, v in zip(names, values) if t.has(v)}
    if s.extra_play:
        return placements | {Pass()}
    cd = can_draw(s)
    if s.drawn == 0:
        if placements:
            return placements | ({Draw()} if r.may_draw_when_playable and cd else set())
        return {Draw()} if cd else {Pass()}
    if not placements:
        return {Draw()} if cd and r.draw_policy == "draw_until_playable" else {Pass()}
    extra: set[Any] = {Pass()} if r.drawn_tile_play == "may" else set()
    if r.draw_policy == "draw_until_playable" and r.may_draw_when_playable and cd:
        extra.add(Draw())
    return placements | extra


# -- the deal (docs/engine.md#deal-versions) ---------------------------------------------------------


def words(seed: str, r: int, purpose: str, count: int) -> list[int]:
    """The stream written out independently: SHAKE-256 of seed ‖ 0x02 ‖ "<r>|<purpose>", 32-bit little-endian."""
    data = hashlib.shake_256(seed.encode() + b"\x02" + f"{r}|{purpose}".encode()).digest(4 * count)
    return [int.from_bytes(data[i : i + 4], "little") for i in range(0, len(data), 4)]


def draws(stream: list[int], ranges: list[int], space: int = SPACE) -> tuple[list[int], int]:
    """Draws by rejection sampling over the words of ``stream`` (accepted below the largest multiple of n up to
    ``space``), and how many words were skipped."""
    it = iter(stream)
    out, skipped = [], 0
    for n in ranges:
        x = next(it)
        while x >= space - space % n:
            skipped += 1
            x = next(it)
        out.append(x % n)
    return out, skipped


def deal_v1(seed: str, n: int, players: int, hand_size: int) -> tuple[list[list[str]], list[str]]:
    """The shuffle, written out independently: Fisher–Yates over the set in canonical order (0-0, 1-0, 1-1,
    ...), draw i for position k taken from SHA-256("seed|round|deal|i|attempt"), first 8 bytes big-endian,
    rejected while in the incomplete last block."""
    tiles = [f"{a}-{b}" for a in range(n + 1) for b in range(a + 1)]
    space = 1 << 64
    for i, k in enumerate(range(len(tiles) - 1, 0, -1)):
        m, attempt = k + 1, 0
        while True:
            x = int.from_bytes(hashlib.sha256(f"{seed}|1|deal|{i}|{attempt}".encode()).digest()[:8], "big")
            if x < space - space % m:
                break
            attempt += 1
        j = x % m
        tiles[k], tiles[j] = tiles[j], tiles[k]
    hands = [tiles[p * hand_size:(p + 1) * hand_size] for p in range(players)]
    return hands, tiles[players * hand_size:]


def deal_v2(seed: str, n: int, players: int, hand_size: int) -> tuple[list[list[str]], list[str]]:
    """Version 2, written out independently: the same Fisher–Yates, its draws taken in turn from the words of
    seed ‖ 0x02 ‖ "1|deal" (:func:`words`), a word skipped while it falls in the incomplete last block
    (:func:`draws`)."""
    tiles = [f"{a}-{b}" for a in range(n + 1) for b in range(a + 1)]
    picks, _ = draws(words(seed, 1, "deal", 4096), list(range(len(tiles), 1, -1)))
    for k, j in zip(range(len(tiles) - 1, 0, -1), picks):
        tiles[k], tiles[j] = tiles[j], tiles[k]
    hands = [tiles[p * hand_size:(p + 1) * hand_size] for p in range(players)]
    return hands, tiles[players * hand_size:]
