"""The kernel at any mid-round position of a line game: one round, every hand known, make-moves in place;
the search bots play their sampled deals on it.

Tiles are indices into the canonical set (:func:`domino.core.tables.tables`), hands are bitmasks, a move
is an int as in :mod:`domino.core.codes` (the end of a play indexes ``ev``/``dbl``/``has``). It follows the turn, round-end and All Fives rules (docs/rules.md) exactly as ``domino.engine`` does for the current
round (a test plays the same games through both); matches, and the All Fives ``immediate`` target
mid-round, are left to the engine: the search values a round by its points.
"""

from __future__ import annotations

from domino.core.codes import DOWN, DRAW_CODE, LEFT, OPEN, PASS_CODE, RIGHT, UP
from domino.core.round import Config, config, round_award
from domino.core.tables import Tables, pip_counts
from domino.rules import Rules
from domino.state import LineBoard


class LineSim:
    """One round in progress. ``copy()`` is cheap; moves mutate in place."""

    __slots__ = (
        "tb", "rules", "cfg", "by_rule",
        "hands", "bone", "bpos", "ev", "dbl", "has", "nopen", "sp", "sp_left_covered", "sp_right_covered", "ntiles",
        "turn", "drawn", "extra", "pts", "over", "went_out", "lead",
    )  # fmt: skip

    tb: Tables
    rules: Rules
    cfg: Config
    by_rule: bool
    hands: list[int]
    bone: list[int]
    bpos: int
    ev: list[int]
    dbl: list[bool]
    has: list[bool]
    nopen: int
    sp: int
    sp_left_covered: bool
    sp_right_covered: bool
    ntiles: int
    turn: int
    drawn: int
    extra: bool
    pts: list[int]
    over: bool
    went_out: int  # once over: the seat that went out, -1 when the round was blocked
    lead: int  # the tile the opener must lead, -1: any (read by ``moves`` only)

    @classmethod
    def new(cls, tb: Tables, rules: Rules, by_rule: bool) -> LineSim:
        s = cls()
        s.tb = tb
        s.rules = rules
        s.cfg = config(rules)
        s.by_rule = by_rule
        s.hands = [0] * rules.players
        s.bone = []
        s.bpos = 0
        s.ev = [0, 0, 0, 0]
        s.dbl = [False, False, False, False]
        s.has = [False, False, False, False]
        s.nopen = 0
        s.sp = -1
        s.sp_left_covered = s.sp_right_covered = False
        s.ntiles = 0
        s.turn = 0
        s.drawn = 0
        s.extra = False
        s.pts = [0] * rules.sides
        s.over = False
        s.went_out = -1
        s.lead = -1
        return s

    def set_board(self, board: LineBoard) -> None:
        """Load a line board (as the engine holds it)."""
        line = board.line
        self.ntiles = board.tile_count
        if not line:
            self.nopen = 0
            return
        self.ev[0], self.dbl[0] = line[0][0], line[0][0] == line[0][1]
        self.ev[1], self.dbl[1] = line[-1][1], line[-1][0] == line[-1][1]
        self.nopen = 2
        if board.spinner is not None:
            s = board.spinner
            self.sp = line[s][0]
            self.sp_left_covered = s > 0
            self.sp_right_covered = s < len(line) - 1
            if self.sp_left_covered and self.sp_right_covered:
                self.nopen = 4
                for e, arm in ((2, board.up), (3, board.down)):
                    self.has[e] = bool(arm)
                    if arm:
                        self.ev[e], self.dbl[e] = arm[-1][1], arm[-1][0] == arm[-1][1]
                    else:
                        self.ev[e], self.dbl[e] = self.sp, False

    def copy(self) -> LineSim:
        c = LineSim.__new__(LineSim)
        c.tb = self.tb
        c.rules = self.rules
        c.cfg = self.cfg
        c.by_rule = self.by_rule
        c.hands = self.hands[:]
        c.bone = self.bone
        c.bpos = self.bpos
        c.ev = self.ev[:]
        c.dbl = self.dbl[:]
        c.has = self.has[:]
        c.nopen = self.nopen
        c.sp = self.sp
        c.sp_left_covered = self.sp_left_covered
        c.sp_right_covered = self.sp_right_covered
        c.ntiles = self.ntiles
        c.turn = self.turn
        c.drawn = self.drawn
        c.extra = self.extra
        c.pts = self.pts[:]
        c.over = self.over
        c.went_out = self.went_out
        c.lead = self.lead
        return c

    # -- queries -------------------------------------------------------------------------------------

    def ends_mask(self) -> int:
        val = self.tb.value_mask
        ev = self.ev
        m = val[ev[0]] | val[ev[1]]
        if self.nopen == 4:
            m |= val[ev[2]] | val[ev[3]]
        return m

    def placements(self, hand: int) -> list[int]:
        """Every (tile, end) that fits, as move codes; each end once even if two show the same value."""
        out: list[int] = []
        if self.nopen == 0:
            m = hand
            while m:
                low = m & -m
                out.append((low.bit_length() - 1) << 3 | OPEN)
                m ^= low
            return out
        val = self.tb.value_mask
        for e in range(self.nopen):
            m = hand & val[self.ev[e]]
            while m:
                low = m & -m
                out.append((low.bit_length() - 1) << 3 | e)
                m ^= low
        return out

    def moves(self) -> list[int]:
        """The legal moves of the seat to move in the public engine's order: plays by tile, then end (left,
        right, up, down), then a draw or a pass; at the opening, the lead or any tile."""
        hand = self.hands[self.turn]
        out: list[int] = []
        if not self.nopen:
            if self.lead >= 0:
                return [self.lead << 3 | OPEN]
            while hand:
                low = hand & -hand
                out.append((low.bit_length() - 1) << 3 | OPEN)
                hand ^= low
            return out
        val = self.tb.value_mask
        ev = self.ev
        ml, mr = val[ev[0]], val[ev[1]]
        if self.nopen == 2:
            add = out.append
            c = hand & (ml | mr)
            while c:
                low = c & -c
                t8 = (low.bit_length() - 1) << 3
                if ml & low:
                    add(t8)  # | LEFT, which is 0
                if mr & low:
                    add(t8 | 1)  # | RIGHT
                c ^= low
        else:
            mu, md = val[ev[2]], val[ev[3]]
            c = hand & (ml | mr | mu | md)
            while c:
                low = c & -c
                t8 = (low.bit_length() - 1) << 3
                for e, m in ((LEFT, ml), (RIGHT, mr), (UP, mu), (DOWN, md)):
                    if m & low:
                        out.append(t8 | e)
                c ^= low
        cfg = self.cfg
        if cfg.fast:  # no drawing, no extra play: the one option is a pass, when nothing fits
            return out or [PASS_CODE]
        can_draw = cfg.draws and len(self.bone) - self.bpos > cfg.reserve
        out += cfg.options[self.extra << 3 | (not self.drawn) << 2 | (not out) << 1 | can_draw]
        return out

    def legal(self) -> list[int]:
        """The legal moves of the seat to move, plays by end (the search's order; opening: any tile)."""
        plays = self.placements(self.hands[self.turn])
        if self.nopen == 0:
            return plays
        return plays + [*self.options(bool(plays))]

    def options(self, plays: bool) -> tuple[int, ...]:
        """The draw and pass moves open to the seat to move once the round is open (``plays``: a tile fits)."""
        cfg = self.cfg
        can_draw = cfg.draws and len(self.bone) - self.bpos > cfg.reserve
        return cfg.options[self.extra << 3 | (not self.drawn) << 2 | (not plays) << 1 | can_draw]

    def count(self, at: int = -1, value: int = 0, double: bool = False) -> int:
        """The All Fives count C of the open ends (docs/rules.md#counting-the-ends): the rule's one home. A lone
        tile counts its pips; otherwise each end its value, a double across it twice; a spinner's arm counts
        once a tile covers it. With ``at``: as if end ``at`` showed ``value`` (a double across it when
        ``double``), i.e. the count after a play there on a board already opened (the arms the play might
        open count only once covered, so they do not change it)."""
        ev = self.ev
        if self.ntiles == 1 and at < 0:
            return ev[0] + ev[1]
        dbl, has = self.dbl, self.has
        c = 0
        for k in range(self.nopen):
            if k == at:
                c += 2 * value if double else value
            elif k < 2 or has[k]:
                c += 2 * ev[k] if dbl[k] else ev[k]
        return c

    # -- moves ---------------------------------------------------------------------------------------

    def apply(self, mv: int) -> None:
        if mv >= 0:
            self.play(mv >> 3, mv & 7)
        elif mv == DRAW_CODE:
            self.draw()
        else:
            self.pass_()

    def play(self, t: int, e: int) -> None:
        tb = self.tb
        cfg = self.cfg
        p = self.turn
        self.hands[p] &= ~(1 << t)
        d = tb.double[t]
        opening = e == OPEN
        if opening:
            self.ev[0], self.ev[1] = tb.high[t], tb.low[t]
            self.dbl[0] = self.dbl[1] = d
            self.nopen = 2
            if cfg.spinner and d:
                self.sp = tb.high[t]
                self.sp_left_covered = self.sp_right_covered = False
            self.ntiles = 1
        else:
            v = self.ev[e]
            self.ev[e] = tb.pips[t] - v
            self.dbl[e] = d
            if e >= 2:
                self.has[e] = True
            elif cfg.spinner:
                if self.sp < 0:
                    if d:
                        self.sp = v
                        if e == 0:
                            self.sp_left_covered, self.sp_right_covered = False, True
                        else:
                            self.sp_left_covered, self.sp_right_covered = True, False
                elif e == 0 and not self.sp_left_covered:
                    self.sp_left_covered = True
                    if self.sp_right_covered:
                        self._open_arms()
                elif e == 1 and not self.sp_right_covered:
                    self.sp_right_covered = True
                    if self.sp_left_covered:
                        self._open_arms()
            self.ntiles += 1
        if cfg.all_fives:
            c = self.count()
            if c > 0 and c % 5 == 0:
                self.pts[cfg.side[p]] += c
        self.drawn = 0
        self.extra = False
        if not self.hands[p]:
            self._end(p)
            return
        if opening and cfg.extra and self.by_rule and self.hands[p] & self.ends_mask():
            self.extra = True
        else:
            self.turn = (p + 1) % cfg.players
        if self.blocked():
            self._end(None)

    def play_plain(self, t: int, e: int) -> None:
        """``play`` under the block fast path (``cfg.fast``: no spinner, no scoring in play, no drawing, no
        extra play), without the tests those rules need: the public API's step, where ``play`` was most of
        a block move's cost."""
        tb = self.tb
        p = self.turn
        h = self.hands[p] & ~(1 << t)
        self.hands[p] = h
        ev = self.ev
        if e == OPEN:
            ev[0], ev[1] = tb.high[t], tb.low[t]
            self.dbl[0] = self.dbl[1] = tb.double[t]
            self.nopen = 2
            self.ntiles = 1
        else:
            ev[e] = tb.pips[t] - ev[e]
            self.dbl[e] = tb.double[t]
            self.ntiles += 1
        if not h:
            self._end(p)
            return
        self.turn = (p + 1) % self.cfg.players
        # ``blocked`` written flat for the fast path (two open ends, nobody draws): two calls a move fewer
        # on the public API's hottest step (tests/engine/test_core_agrees.py: the public engine, which steps
        # by this, ends every round as the playouts do).
        val = tb.value_mask
        m = val[ev[0]] | val[ev[1]]
        for held in self.hands:
            if held & m:
                return
        self._end(None)

    def _open_arms(self) -> None:
        self.nopen = 4
        self.ev[2] = self.ev[3] = self.sp
        self.dbl[2] = self.dbl[3] = False
        self.has[2] = self.has[3] = False

    def draw(self) -> None:
        t = self.bone[self.bpos]
        self.bpos += 1
        self.hands[self.turn] |= 1 << t
        self.drawn += 1
        if self.blocked():
            self._end(None)

    def pass_(self) -> None:
        self.turn = (self.turn + 1) % self.cfg.players
        self.drawn = 0
        self.extra = False
        if self.blocked():
            self._end(None)

    def blocked(self) -> bool:
        """The round is blocked (docs/rules.md#the-line-games): it has opened, nobody can draw, and no hand
        holds a tile that fits an open end. The rule's one home: every move of the kernel asks it (and the
        public engine's ``is_blocked``); the block playout (block.py) writes it flat, checked against this by
        tests/engine/test_core_agrees.py."""
        cfg = self.cfg
        if self.nopen == 0 or (cfg.draws and len(self.bone) - self.bpos > cfg.reserve):
            return False
        m = self.ends_mask()
        for h in self.hands:
            if h & m:
                return False
        return True

    def _end(self, went_out: int | None) -> None:
        self.went_out = -1 if went_out is None else went_out
        self.over = True

    @property
    def result(self) -> list[int] | None:
        """Once the round is over, what each seat scored in it (points in play plus the award), else None;
        worked out when read (most callers only need ``over``)."""
        if not self.over:
            return None
        _, _, award = round_award(self.rules, self.cfg, self.went_out, pip_counts(self.hands, self.tb))
        # the award is per seat, a side's on each of its seats; side k's first seat is seat k
        return [p + a for p, a in zip(self.pts, award)]
