"""What the other seats cannot hold in Mexican Train, read from a seat's view (docs/rules.md#mexican_train).

The same slot model as the line games (:mod:`domino.bots.inference`): each other seat's hand is a list of
slots, oldest first, one per tile it holds, each with a mask of the tiles it cannot be; a played tile takes
the oldest compatible slot; a proof that the seat held no tile of some values at a moment forbids them in
every slot it holds then (a tile drawn later is not constrained). The public log is replayed on a
:class:`~domino.core.trains.TrainSim` with empty hands, which keeps the table (ends, markers, uncovered
doubles, first turns, phase) as the engine did. What proves a void, at the moment it happens:

- a first turn that passes: no tile with the engine value (the seat's own train is empty then);
- a first-turn run that ends without a ``Pass`` (the next entry is another seat's): no tile fitting the
  end of the seat's own train;
- a draw, unless ``may_draw_when_playable``: no tile fitting any train the seat could play on (with an
  uncovered double active: its value only);
- a ``Pass`` outside a first-turn run, with no draw this turn, or after a draw when a playable drawn tile
  must be played: as for a draw, the new tile included.

**Sampling** (:class:`TrainSampler`): the slot groups are filled one after another, the tightest (fewest
free tiles to spare) first, each with tiles drawn uniformly among the hidden tiles it may hold that are still
free; what is left is the boneyard, shuffled. A fill that leaves a group short is started again (then, after
``TRIES``, that group's constraints are dropped). This is exact when at most one group is constrained or the constraints do not
overlap, and a close approximation otherwise. The line games' exact counting sampler is not used: with 91
tiles, 15-tile hands and several groups per seat its count explodes (seconds for one position).

The leading draws of the log are the engine search (docs/rules.md#mexican_train, placing the engine): each
gives its drawer a slot, except the last, which found the engine. The result is a
:class:`~domino.bots.inference.Knowledge` for the exact sampler; if the replay does not reproduce the
view's table or hand counts (a position built by hand) the constraints are dropped (``exact`` False).
"""

from __future__ import annotations

import random
from typing import Any

from domino.bots.inference import Knowledge, bits, knowledge_from_view
from domino.core.tables import Tables, tables
from domino.core.trains import COVER, FOLLOW, SEQUENCE, START, TrainConfig, TrainSim, train_index
from domino.rules import Rules
from domino.state import LogEntry

__all__ = ["TrainSampler", "infer_trains", "table_of"]


def table_of(view: Any, rules: Rules, tb: Tables) -> TrainSim:
    """The simulator at the view's table, the seat to move's hand filled in when it is the viewer's, the
    other hands empty. Its ``first`` and ``phase`` come from the view; ``drawn`` from the log's tail."""
    board = view.board
    n = rules.players
    engine = int(board["engine_double"].split("-")[0])
    sim = TrainSim.new(tb, TrainConfig.of(rules), engine)
    trains = board["trains"]
    last: dict[str, int] = {}
    for k, t in enumerate(trains):
        sim.ends[k] = int(t["end"])
        if t["owner"] is not None and t["marker"]:
            sim.markers |= 1 << int(t["owner"])
        if t["tiles"]:
            last[t["tiles"][-1]] = n if t["owner"] is None else int(t["owner"])
    sim.pending = [last[p] for p in board["pending_doubles"]]
    sim.first = list(board["first_turn_pending"])
    phase = board.get("phase")
    sim.phase = {"sequence": SEQUENCE, "follow": FOLLOW}.get(phase or "", START)
    sim.turn = int(view.turn if view.turn is not None else 0)
    me = view.seat
    if me is not None and view.hand:
        for t in view.hand:
            sim.hands[me] |= 1 << tb.index_of[t]
    if phase not in ("first", "sequence"):
        for e in reversed(view.log[_search_draws(view.log) :]):
            if e.seat != sim.turn or e.type != "draw":
                break
            sim.drawn += 1
    return sim


def _search_draws(log: tuple[LogEntry, ...]) -> int:
    """How many entries at the log's start are the engine search (a first turn never draws)."""
    k = 0
    while k < len(log) and log[k].type == "draw":
        k += 1
    return k


def infer_trains(view: Any) -> Knowledge:
    """What ``view.seat`` can deduce about the other hands and the boneyard in Mexican Train."""
    rules = Rules.from_dict(view.rules)
    tb = tables(rules.set_max_pips)
    me = int(view.seat)
    n = rules.players
    know = knowledge_from_view(view, tb)
    slots = _replay(view, rules, tb)
    know.exact = slots is not None
    for s in range(n):
        if s == me:
            continue
        sl = slots[s] if slots is not None else None
        if sl is None or len(sl) != view.hand_counts[s]:
            sl = [0] * view.hand_counts[s]
            know.exact = False
        groups: dict[int, int] = {}
        for f in sl:
            f &= know.hidden
            groups[f] = groups.get(f, 0) + 1
        know.groups[s] = sorted(groups.items(), key=lambda g: -g[0].bit_count())  # oldest (most forbidding) first
    return know


def _replay(view: Any, rules: Rules, tb: Tables) -> dict[int, list[int]] | None:
    """The other seats' slot masks after the round's public log; None if the log does not lead to the view's
    table (then nothing is inferred)."""
    me = int(view.seat)
    n = rules.players
    log: tuple[LogEntry, ...] = view.log
    start = _search_draws(log)
    slots = {s: [0] * rules.hand_size for s in range(n) if s != me}
    for e in log[: max(0, start - 1)]:
        if e.seat != me:
            slots[e.seat].append(0)
    engine = int(view.board["engine_double"].split("-")[0])
    sim = TrainSim.new(tb, TrainConfig.of(rules), engine)
    placer = log[start].seat if start < len(log) else int(view.turn)
    if start == 0 and rules.engine_setup == "from_hands" and placer != me:
        slots[placer].pop()  # the placer was dealt the engine
    sim.turn = placer
    sim.first = [(placer + i) % n for i in range(n)]
    vm = tb.value_mask

    def void(seat: int, values: int) -> None:
        for j, f in enumerate(slots.get(seat, ())):
            slots[seat][j] = f | values

    def reach(kind: int) -> int:
        m = 0
        for k in sim.targets(kind):
            m |= vm[sim.ends[k]]
        return m

    for e in log[start:]:
        if e.seat != sim.turn:
            if sim.phase != SEQUENCE:
                return None
            void(sim.turn, vm[sim.ends[sim.turn]])  # the run ended by itself: nothing fit
            sim.next_turn()
            if e.seat != sim.turn:
                return None
        if not _step(sim, e, slots, void, reach, tb):
            return None
    if sim.turn != view.turn and sim.phase == SEQUENCE:
        void(sim.turn, vm[sim.ends[sim.turn]])
        sim.next_turn()
    return slots if _same_table(sim, view, rules, tb) else None


def _step(sim: TrainSim, e: LogEntry, slots: dict[int, list[int]], void: Any, reach: Any, tb: Tables) -> bool:
    """Replay one public entry on the table, recording what it proves; False if it cannot have happened."""
    cfg = sim.cfg
    kind = sim.kind()
    sl = slots.get(e.seat)
    if e.type == "play":
        if e.tile is None or e.end is None:
            return False
        t = tb.index_of[e.tile]
        if sl is not None:
            j = next((j for j, f in enumerate(sl) if not f >> t & 1), None)
            if j is None:
                return False
            del sl[j]
        k = train_index(e.end, cfg.players)
        if k not in sim.targets(kind) or not tb.value_mask[sim.ends[k]] >> t & 1:
            return False
        double = sim.lay(t, k)
        if kind <= SEQUENCE:
            sim.phase = SEQUENCE
        elif kind != COVER and double:  # a double is followed in the same turn
            sim.phase = FOLLOW
        else:
            sim.next_turn()
    elif e.type == "draw":
        if kind <= SEQUENCE:
            return False
        if sim.drawn == 0 and not cfg.may_draw:
            void(e.seat, reach(kind))
        if sl is not None:
            sl.append(0)
        sim.drawn += 1
    else:
        if kind != SEQUENCE and (sim.drawn == 0 or not cfg.may_pass):
            void(e.seat, reach(kind))
        if kind != SEQUENCE:
            sim.markers |= 1 << e.seat
        sim.next_turn()
    return True


def _same_table(sim: TrainSim, view: Any, rules: Rules, tb: Tables) -> bool:
    """The replayed table is the view's (ends, markers, uncovered doubles, first turns, whose turn)."""
    table = table_of(view, rules, tb)
    return (
        sim.ends == table.ends
        and sim.markers == table.markers
        and sim.pending == table.pending
        and sim.first == table.first
        and sim.turn == table.turn
        and sim.phase == table.phase
    )


class TrainSampler:
    """Sequential sampling of the hidden tiles given :class:`Knowledge` (see the module docstring)."""

    TRIES = 16  # fills that may fail (a group left short) before the constraints of the short group are relaxed

    def __init__(self, know: Knowledge) -> None:
        self.know = know
        self.hidden = bits(know.hidden)
        groups = [(s, f & know.hidden, c) for s, gs in know.groups.items() for f, c in gs if c]
        # the tightest first: fewest free tiles to spare
        groups.sort(key=lambda g: (know.hidden & ~g[1]).bit_count() - g[2])
        self.groups = groups

    def sample(self, rng: random.Random) -> tuple[dict[int, int], list[int]]:
        """One completion: (seat -> mask of its hidden hand, the other hidden tiles shuffled: boneyard first)."""
        for _ in range(self.TRIES):
            got = self._fill(rng, relax=False)
            if got is not None:
                return got
        got = self._fill(rng, relax=True)
        assert got is not None  # a relaxed fill always completes
        return got

    def _fill(self, rng: random.Random, relax: bool) -> tuple[dict[int, int], list[int]] | None:
        pool = self.hidden[:]
        rng.shuffle(pool)
        hands = {s: 0 for s in self.know.groups}
        for s, forbid, count in self.groups:
            took = 0
            keep = []
            m = hands[s]
            for t in pool:
                if took < count and not forbid >> t & 1:
                    m |= 1 << t
                    took += 1
                else:
                    keep.append(t)
            if took < count:
                if not relax:
                    return None
                for t in keep[: count - took]:  # constraints that cannot all hold: this group takes any tiles
                    m |= 1 << t
                keep = keep[count - took :]
            hands[s] = m
            pool = keep
        return hands, pool
