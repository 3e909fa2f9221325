"""The kernel at any mid-round position of Mexican Train: one round, every hand known, moves made in place;
the Mexican Train search plays its sampled deals on it (docs/rules.md#mexican_train).

Tiles are indices into the canonical set (:func:`domino.core.tables.tables`), hands are bitmasks. The
trains are numbered: seat ``s``'s personal train is ``s``, the Mexican train is ``players``. Only what the
rules read is kept: each train's end value, the markers (a seat bitmask), the uncovered doubles (train
numbers, oldest first), the seats still owed a first turn, the turn's phase and the draws made this turn.
A move is an int: a play is ``tile << 4 | train``; ``DRAW_CODE`` and ``PASS_CODE`` as in the line games.

It follows ``domino.variants.mexican_train`` exactly for the current round (tests/bots/test_trains_agree.py
plays the same random rounds through both); scoring a match is left to the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from domino.core.codes import DRAW_CODE, PASS_CODE
from domino.core.tables import Tables, index
from domino.moves import DRAW, PASS, Draw, Move, Play
from domino.rules import Rules
from domino.variants.trains import MEXICAN, train_name

# Turn kinds (mexican_train._kind) and phases (TrainTurn.phase).
FIRST, SEQUENCE, COVER, PLAY, FOLLOW = 0, 1, 2, 3, 4
START = 0
PHASE_OF = {"start": START, "sequence": SEQUENCE, "follow": FOLLOW}


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """The rules of a Mexican Train round as the simulator reads them."""

    players: int
    trains: int  # personal trains + the Mexican train if played
    mexican: bool
    reserve: int  # boneyard_reserve
    may_draw: bool  # may_draw_when_playable
    may_pass: bool  # drawn_tile_play = may
    deferred: bool  # first_turn_double = deferred
    blank_value: int  # what 0-0 counts at the round's end

    @classmethod
    def of(cls, rules: Rules) -> TrainConfig:
        return cls(
            players=rules.players,
            trains=rules.players + (1 if rules.mexican_train else 0),
            mexican=bool(rules.mexican_train),
            reserve=rules.boneyard_reserve,
            may_draw=bool(rules.may_draw_when_playable),
            may_pass=rules.drawn_tile_play == "may",
            deferred=rules.first_turn_double == "deferred",
            blank_value=rules.double_blank_value or 0,
        )


def train_index(name: str, players: int) -> int:
    return players if name == MEXICAN else int(name[6:])


def to_code(move: Move, players: int) -> int:
    if isinstance(move, Play):
        assert move.end is not None
        return index(move.tile) << 4 | train_index(move.end, players)
    return DRAW_CODE if isinstance(move, Draw) else PASS_CODE


def to_move(code: int, tb: Tables, players: int) -> Move:
    if code == DRAW_CODE:
        return DRAW
    if code == PASS_CODE:
        return PASS
    k = code & 15
    return Play(tb.tiles[code >> 4], MEXICAN if k == players else train_name(k))


class TrainSim:
    """One Mexican Train round in progress. ``copy()`` is cheap; moves mutate in place."""

    __slots__ = (
        "tb", "cfg", "hands", "bone", "bpos", "ends", "markers", "pending", "first", "phase", "drawn", "turn",
        "over", "went_out",
    )  # fmt: skip

    tb: Tables
    cfg: TrainConfig
    hands: list[int]
    bone: tuple[int, ...]  # the boneyard in draw order, never changed: ``bpos`` tiles are gone
    bpos: int
    ends: list[int]  # train -> end value
    markers: int  # bit s: seat s's train is open
    pending: list[int]  # trains ending in an uncovered double, oldest first
    first: list[int]  # seats still owed their first turn, in turn order
    phase: int  # START, SEQUENCE or FOLLOW
    drawn: int
    turn: int
    over: bool
    went_out: int  # once over: the seat that went out, -1 when the round was blocked

    @classmethod
    def new(cls, tb: Tables, cfg: TrainConfig, engine: int) -> TrainSim:
        s = cls()
        s.tb, s.cfg = tb, cfg
        s.hands = [0] * cfg.players
        s.bone, s.bpos = (), 0
        s.ends = [engine] * cfg.trains
        s.markers = 0
        s.pending, s.first = [], []
        s.phase = START
        s.drawn = s.turn = 0
        s.over, s.went_out = False, -1
        return s

    def copy(self) -> TrainSim:
        s = TrainSim.__new__(TrainSim)
        s.tb, s.cfg = self.tb, self.cfg
        s.hands = self.hands[:]
        s.bone, s.bpos = self.bone, self.bpos
        s.ends = self.ends[:]
        s.markers = self.markers
        s.pending, s.first = self.pending[:], self.first[:]
        s.phase, s.drawn, s.turn = self.phase, self.drawn, self.turn
        s.over, s.went_out = self.over, self.went_out
        return s

    # -- the rules ---------------------------------------------------------------------------------

    def boneyard_left(self) -> int:
        return len(self.bone) - self.bpos

    def can_draw(self) -> bool:
        return len(self.bone) - self.bpos > self.cfg.reserve

    def active(self) -> int:
        """The train whose uncovered double binds the seat to move, or -1."""
        if not self.pending or (self.first and self.cfg.deferred):
            return -1
        return self.pending[0]

    def kind(self) -> int:
        if self.phase != START:
            return self.phase
        if self.pending and not (self.first and self.cfg.deferred):
            return COVER
        return FIRST if self.turn in self.first else PLAY

    def targets(self, kind: int) -> list[int]:
        p = self.turn
        if kind <= SEQUENCE:
            return [p]
        if kind == COVER:
            return [self.pending[0]]
        m = self.markers & ~(1 << p)
        out = [p]
        s = 0
        while m:
            if m & 1:
                out.append(s)
            m >>= 1
            s += 1
        if self.cfg.mexican:
            out.append(self.cfg.players)
        return out

    def plays(self, kind: int) -> list[int]:
        """The play codes of the seat to move in this kind of turn."""
        hand = self.hands[self.turn]
        vm = self.tb.value_mask
        ends = self.ends
        out = []
        for k in self.targets(kind):
            m = hand & vm[ends[k]]
            while m:
                low = m & -m
                m ^= low
                out.append((low.bit_length() - 1) << 4 | k)
        return out

    def legal(self) -> list[int]:
        """Every legal move (unsorted), as ``mexican_train.legal_moves``."""
        kind = self.kind()
        plays = self.plays(kind)
        if kind == FIRST:
            return plays or [PASS_CODE]
        if kind == SEQUENCE:
            return plays if plays and self.turn in self.pending else plays + [PASS_CODE]
        if self.drawn == 0:
            if self.can_draw() and (not plays or self.cfg.may_draw):
                return plays + [DRAW_CODE]
            return plays or [PASS_CODE]
        if plays:
            return plays + [PASS_CODE] if self.cfg.may_pass else plays
        return [PASS_CODE]

    # -- moves -------------------------------------------------------------------------------------

    def apply(self, code: int) -> None:
        if code >= 0:
            self.play(code >> 4, code & 15)
        elif code == DRAW_CODE:
            self.draw()
        else:
            self.pass_()

    def play(self, t: int, k: int) -> None:
        kind = self.kind()
        p = self.turn
        self.hands[p] ^= 1 << t
        double = self.lay(t, k)
        if not self.hands[p]:
            self.over, self.went_out = True, p
            return
        if kind <= SEQUENCE:
            self.phase = SEQUENCE
            if not self.hands[p] & self.tb.value_mask[self.ends[p]]:
                self._end_turn()  # nothing more fits: the run ends by itself, no marker
            return
        if kind != COVER and double:
            self.phase = FOLLOW
            return
        self._end_turn()

    def lay(self, t: int, k: int) -> bool:
        """What a play of tile ``t`` on train ``k`` does to the table (not to the hand, nor to whose turn it
        is): the train's end, the uncovered doubles, the mover's marker. True when ``t`` is a double."""
        self.ends[k] = self.tb.pips[t] - self.ends[k]
        pending = self.pending
        if k in pending:
            pending.remove(k)  # a tile on an uncovered double covers it
        double = self.tb.double[t]
        if double:
            pending.append(k)
        if k == self.turn:
            self.markers &= ~(1 << k)
        self.drawn = 0
        return double

    def draw(self) -> None:
        self.hands[self.turn] |= 1 << self.bone[self.bpos]
        self.bpos += 1
        self.drawn += 1

    def pass_(self) -> None:
        if self.kind() != SEQUENCE:
            self.markers |= 1 << self.turn
        self._end_turn()

    def next_turn(self) -> None:
        """The turn passes clockwise (without the block test: for replaying a public log)."""
        p = self.turn
        if self.first and p in self.first:
            self.first.remove(p)
        self.phase = START
        self.drawn = 0
        self.turn = (p + 1) % self.cfg.players

    def _end_turn(self) -> None:
        self.next_turn()
        if not self.first and not self.can_draw() and self.blocked():
            self.over, self.went_out = True, -1

    def blocked(self) -> bool:
        """Nobody holds a tile that can ever be played (docs/rules.md#mexican_train, end of the round)."""
        vm = self.tb.value_mask
        if self.pending:
            values = vm[self.ends[self.pending[0]]]
        else:
            values = 0
            for e in self.ends:
                values |= vm[e]
        for h in self.hands:
            if h & values:
                return False
        return True

    def penalties(self) -> list[int]:
        """Each seat's pips left in hand (0-0 counts the rules' ``double_blank_value``)."""
        pips = self.tb.pips
        out = []
        for h in self.hands:
            total = self.cfg.blank_value if h & 1 else 0
            while h:
                low = h & -h
                total += pips[low.bit_length() - 1]
                h ^= low
            out.append(total)
        return out
