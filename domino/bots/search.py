"""Search bots (``club``, ``expert``): determinized Monte Carlo search over sampled deals.

Each iteration samples one deal of the hidden tiles consistent with everything the seat has seen
(:mod:`domino.bots.inference`), then plays every candidate move on that same deal (common random numbers:
the candidates are compared on identical deals) and finishes the round with a fast heuristic playout
policy on the perfect-information simulator (:mod:`domino.core.position`). A move's value is the mean
round result for the bot's side: the point margin over the best other side, plus ``win_bonus`` for a won
round (minus for a lost one).

``expert`` also weights each sampled deal (block game) by how likely the other seats' earlier plays were
under a heavier-tile-first model (a softmax over pips): a seat that laid a light tile when it could have
laid a heavy one probably had no heavy one there. The model's inverse temperature is fitted to the plays
seen (``model_betas``: the largest marginal likelihood; 0 = no model), because a fixed strong model
helps against heavy-first players and misleads against others. Measured (bench/bot_strength.py), that
was the largest gain in the block game. Also available and measured, but off by default: successive
halving over the candidates (neutral without the model; with it, 70% against 77% in team block on the
same deals: weighted samples are too few to prune early), and an exact alpha-beta solve (transposition
table, heaviest-first ordering) of every sampled deal in the block game (PIMC): in 2-player block it did
worse than playouts (53% against 58% vs greedy), because a solve of a deal assumes both sides see every
hand.

Budget: ``Budget(nodes=N)`` caps the number of simulator moves (playout moves; an alpha-beta node counts
3; each playout and each sampled deal is charged its fixed cost), so a node costs about the same time in
every variant and at every stage of a round; deterministic for a given ``rng``. A ``deadline``
(``time.monotonic()``) is checked after every playout and every 256 alpha-beta nodes; with neither, the
bot's own ``default_ms`` applies. The bot always has a move ready (the policy's choice) before it searches.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from domino.bots import mexican, train_search
from domino.bots.base import Budget
from domino.bots.endgame import WIN_BONUS, Abort, candidates, endgame_ok, solve, utility
from domino.bots.inference import Sampler, Tables, infer
from domino.core.position import LineSim
from domino.core.codes import DRAW_CODE, to_code, to_move
from domino.moves import Move, Play
from domino.rules import Rules
from domino.state import LineBoard, Placed
from domino.variants import line_board as line

__all__ = ["SearchBot", "rollout", "root_sim"]

# Node budgets count simulator moves; the fixed costs of a playout (copy, scoring) and of a sampled deal
# are charged as moves too, so that a node costs about the same time early and late in a round.
_AB_COST = 3  # an alpha-beta node
_PLAYOUT_COST = 8
_SAMPLE_COST = 10


def _placed(s: str) -> Placed:
    a, b = s.split("-")
    return int(a), int(b)


def board_of(view: Any) -> LineBoard:
    b = view.board
    line = tuple(_placed(x) for x in b.get("line", ()))
    arms = b.get("arms") or {}
    return LineBoard(
        line=line,
        spinner=b.get("spinner_index"),
        up=tuple(_placed(x) for x in arms.get("up", ())),
        down=tuple(_placed(x) for x in arms.get("down", ())),
    )


def root_sim(view: Any, rules: Rules, tb: Tables) -> LineSim:
    """The simulator at the view's position, with the other hands empty (a sample fills them)."""
    last = view.last_round
    by_rule = not (rules.next_round_starter == "previous_winner" and last is not None and last.end == "domino")
    s = LineSim.new(tb, rules, by_rule)
    s.set_board(board_of(view))
    me = int(view.seat)
    s.turn = me
    mine = 0
    for t in view.hand or ():
        mine |= 1 << tb.index_of[t]
    s.hands[me] = mine
    drawn = 0
    for e in reversed(view.log):
        if e.seat != me or e.type != "draw":
            break
        drawn += 1
    s.drawn = drawn
    log = view.log
    s.extra = bool(
        rules.opener_extra_play and len(log) == 1 and log[0].seat == me and log[0].type == "play" and by_rule
    )
    return s


def _pick(sim: LineSim, rng: random.Random, eps: float, block_w: float = 0.0) -> int:
    """The playout policy: score-first in All Fives, else shed heavy tiles and doubles, keep control,
    and (``block_w``) shut the next seat out when it is an opponent."""
    p = sim.turn
    hand = sim.hands[p]
    cfg = sim.cfg
    q = (p + 1) % cfg.players
    nxt = sim.hands[q] if block_w and cfg.side[q] != cfg.side[p] else 0
    tb = sim.tb
    val = tb.value_mask
    ev = sim.ev
    best = -1
    best_score = -1e9
    fives = cfg.all_fives
    n = 0
    pips = tb.pips
    dbl = tb.double
    for e in range(sim.nopen):
        m = hand & val[ev[e]]
        while m:
            low = m & -m
            m ^= low
            t = low.bit_length() - 1
            n += 1
            mv = t << 3 | e
            if eps and rng.random() < eps:
                sc = rng.random() * 100.0
            else:
                nv = tb.high[t] + tb.low[t] - ev[e]
                sc = pips[t] + (4.0 if dbl[t] else 0.0) + 1.5 * ((hand ^ low) & val[nv]).bit_count()
                if nxt:
                    others = 0
                    for k in range(sim.nopen):
                        if k != e:
                            others |= val[ev[k]]
                    if not nxt & (others | val[nv]):
                        sc += block_w
                if fives:
                    c = sim.count(e, nv, dbl[t])  # the count after this play
                    if c % 5 == 0 and c > 0:
                        sc += 2.0 * c
                sc += rng.random()
            if sc > best_score:
                best_score = sc
                best = mv
    return best


def rollout(sim: LineSim, rng: random.Random, eps: float, block_w: float = 0.0) -> int:
    """Finish the round in place with the playout policy; the number of moves it made."""
    n = 0
    while not sim.over:
        n += 1
        p = sim.turn
        hand = sim.hands[p]
        if sim.nopen == 0:  # only at a root opening; the policy leads its heaviest tile
            sim.apply(max(sim.placements(hand), key=lambda mv: sim.tb.pips[mv >> 3]))
            continue
        if hand & sim.ends_mask():
            mv = _pick(sim, rng, eps, block_w)
            sim.play(mv >> 3, mv & 7)
        elif sim.options(False)[0] == DRAW_CODE:  # the rules leave one move: draw or pass
            sim.draw()
        else:
            sim.pass_()
    return n


def play_model(view: Any, tb: Tables, beta: float) -> list[tuple[int, int, int, int]] | None:
    """The other seats' choices in the log, for weighting sampled deals by how likely each seat was to play
    as it did under a heavier-first model (a softmax over pips with inverse temperature ``beta``).

    Only for games without drawing, where a seat's hand at any earlier moment is exactly its hand now plus
    the tiles it has played since. Returns (seat, tile played, mask of the open values then, mask of the
    seat's tiles played later), for plays that were a choice; None when the model does not apply."""
    rules = view.rules
    if beta <= 0 or rules.get("draw_policy") != "no_draw":
        return None
    spinner = rules.get("spinner") == "first_double"
    me = int(view.seat)
    board = LineBoard()
    out: list[tuple[int, int, int, int]] = []
    plays: list[tuple[int, int, int]] = []  # (seat, tile, open mask)
    for e in view.log:
        if e.type != "play" or e.tile is None:
            continue
        open_mask = 0
        for _, v in line.open_ends(board):
            open_mask |= tb.value_mask[v]
        if board.line and e.seat != me:
            plays.append((e.seat, tb.index_of[e.tile], open_mask))
        board = line.place(board, e.tile, e.end, spinner)
    later: dict[int, int] = {}
    for seat, t, open_mask in reversed(plays):
        out.append((seat, t, open_mask, later.get(seat, 0)))
        later[seat] = later.get(seat, 0) | 1 << t
    return out


def _weight(model: list[tuple[int, int, int, int]], hands: dict[int, int], ex: list[float]) -> float:
    w = 1.0
    for seat, t, open_mask, later in model:
        playable = ((hands[seat] | later) & open_mask) | (1 << t)
        z = 0.0
        while playable:
            low = playable & -playable
            z += ex[low.bit_length() - 1]
            playable ^= low
        w *= ex[t] / z
    return w


_FIT_SAMPLES = 24
_MARGIN_S = 0.004  # stop searching this long before the deadline


def _fit_beta(
    model: list[tuple[int, int, int, int]], sampler: Sampler, rng: random.Random, tb: Tables, betas: tuple[float, ...]
) -> float:
    """The model temperature that best explains the plays seen: the largest marginal likelihood (the mean
    weight over deals sampled from the uniform prior), ties to the smaller beta."""
    tables_ = [[math.exp(b * p) for p in tb.pips] for b in betas]
    sums = [0.0] * len(betas)
    for _ in range(_FIT_SAMPLES):
        hands, _ = sampler.sample(rng)
        for k, ex in enumerate(tables_):
            sums[k] += _weight(model, hands, ex)
    best = 0
    for k in range(1, len(betas)):
        if sums[k] > sums[best] * 1.0001:
            best = k
    return betas[best]


@dataclass(frozen=True, slots=True)
class SearchBot:
    """A determinized Monte Carlo searcher; see the module docstring."""

    id: str
    description: str
    strength: str
    default_ms: float = 100.0
    eps: float = 0.1  # playout exploration
    halving: bool = False  # successive halving over the candidates
    endgame: int = 0  # exact solve when at most this many tiles are left in hands (block games)
    model_beta: float = 0.0  # weight sampled deals by a heavier-first model of the others' plays (block)
    model_betas: tuple[float, ...] = ()  # if set: fit the model's beta among these to the plays seen
    block_w: float = 0.0  # playout policy: weight of shutting out the next seat
    win_bonus: float = WIN_BONUS  # utility = point margin of the round + this for a win (- for a loss)
    bench_nodes: int = 40000  # a node budget that costs about ``default_ms`` on the bench machine
    trains: train_search.TrainSearch | None = None  # Mexican Train: search so (None: the train planner)

    def choose(self, view: Any, rng: random.Random, budget: Budget) -> Move:
        legal_moves = tuple(view.legal_moves)
        if not legal_moves:
            raise ValueError("the bot's seat has no move to make")
        if len(legal_moves) == 1:
            return legal_moves[0]  # type: ignore[no-any-return]
        deadline = budget.deadline
        if deadline is None and budget.nodes is None:
            deadline = time.monotonic() + self.default_ms / 1000.0
        if deadline is not None:
            deadline -= _MARGIN_S  # finish the move and return before the deadline, not after it
        if view.rules.get("variant") == "mexican_train":
            if self.trains is None:
                return mexican.choose(view, rng, budget, deadline, self)
            return train_search.choose(view, rng, budget, deadline, self)
        return self._line(view, rng, budget.nodes, deadline, legal_moves)

    def _line(
        self, view: Any, rng: random.Random, nodes: int | None, deadline: float | None, legal_moves: tuple[Move, ...]
    ) -> Move:
        rules = Rules.from_dict(view.rules)
        know = infer(view)
        tb = know.tables
        root = root_sim(view, rules, tb)
        cands = candidates(root, [to_code(m) for m in legal_moves])
        # The move ready before any search: the playout policy's choice.
        fallback = _policy_move(root, cands, rng)
        if len(cands) == 1:
            return _as_legal(cands[0], tb, legal_moves)
        if deadline is not None and time.monotonic() >= deadline:
            return _as_legal(fallback, tb, legal_moves)
        tally = _Tally([0.0] * len(cands), [0.0] * len(cands), [0] * len(cands))
        cap = nodes if nodes is not None else 1 << 30
        self._search(view, rng, know, root, cands, tally, cap, deadline)
        best = tally.best(self.halving)
        return _as_legal(fallback if best is None else cands[best], tb, legal_moves)

    def _search(
        self, view: Any, rng: random.Random, know: Any, root: LineSim, cands: list[int], tally: _Tally, cap: int,
        deadline: float | None,
    ) -> None:  # fmt: skip
        """Sample deals until the budget is spent, valuing every live candidate on each (``tally``)."""
        tb = know.tables
        sampler = Sampler(know)
        side = root.rules.side_of(int(view.seat))
        used = 0
        beta = self.model_beta
        model = play_model(view, tb, max((beta, *self.model_betas)))
        if model and self.model_betas:
            beta = _fit_beta(model, sampler, rng, tb, self.model_betas)
            used += _FIT_SAMPLES * _SAMPLE_COST
            if beta <= 0:
                model = None
        ex = [math.exp(beta * p) for p in tb.pips]
        alive = list(range(len(cands)))
        rounds_done = 0
        exact_ok = self.endgame > 0 and endgame_ok(root)
        while used < cap:
            hands, rest = sampler.sample(rng)
            used += _SAMPLE_COST
            w = _weight(model, hands, ex) if model else 1.0
            base = root.copy()
            for s, m in hands.items():
                base.hands[s] = m
            base.bone = rest[: view.boneyard_count]
            exact = exact_ok and sum(base.hands).bit_count() <= self.endgame
            used, solved = self._value_deal(base, cands, alive, tally, w, used, cap, deadline, exact, side, rng)
            exact_ok = exact_ok and solved
            rounds_done += 1
            if self.halving and len(alive) > 2 and rounds_done % 16 == 0:
                alive.sort(key=lambda i: -tally.mean(i, 0.0))
                alive = alive[: max(2, (len(alive) + 1) // 2)]
            if deadline is not None and time.monotonic() >= deadline:
                break

    def _value_deal(
        self, base: LineSim, cands: list[int], alive: list[int], tally: _Tally, w: float, used: int, cap: int,
        deadline: float | None, exact: bool, side: int, rng: random.Random,
    ) -> tuple[int, bool]:  # fmt: skip
        """Play each live candidate on one sampled deal (solved exactly when ``exact``, else by a playout) and
        add its weighted value: (nodes used so far, False if an exact solve ran out of room)."""
        tt: dict[tuple[int, ...], tuple[float, int]] = {}
        aborted = False
        for i in alive:
            if used >= cap or (deadline is not None and time.monotonic() >= deadline):
                break
            sim = base.copy()
            sim.apply(cands[i])
            v = None
            if exact:
                try:
                    v, n_ab = solve(sim, side, 4000, tt, deadline, self.win_bonus)
                    used += n_ab * _AB_COST
                except Abort:
                    exact, aborted = False, True
            if v is None:
                used += rollout(sim, rng, self.eps, self.block_w)
                v = utility(sim, side, self.win_bonus)
            tally.add(i, w, v)
            used += _PLAYOUT_COST
        return used, not aborted


@dataclass(slots=True)
class _Tally:
    """Per candidate: the weighted sum of its values, the sum of the weights, and the deals it was played on."""

    total: list[float]
    wsum: list[float]
    visits: list[int]

    def add(self, i: int, w: float, v: float) -> None:
        self.total[i] += w * v
        self.wsum[i] += w
        self.visits[i] += 1

    def mean(self, i: int, unseen: float) -> float:
        return self.total[i] / self.wsum[i] if self.wsum[i] > 0 else unseen

    def best(self, halving: bool) -> int | None:
        """The candidate with the best mean (with halving, among the most visited); None if none was played."""
        most = max(self.visits)
        pool = [i for i in range(len(self.total)) if not halving or self.visits[i] == most]
        best = max(pool, key=lambda i: self.mean(i, -1e18))
        return None if self.visits[best] == 0 else best


def _policy_move(root: LineSim, cands: list[int], rng: random.Random) -> int:
    plays = [mv for mv in cands if mv >= 0]
    if not plays:
        return cands[0]
    if root.nopen == 0:
        return max(plays, key=lambda mv: root.tb.pips[mv >> 3])
    mv = _pick(root, random.Random(0), 0.0)
    return mv if mv in cands else plays[0]


def _as_legal(mv: int, tb: Tables, legal_moves: tuple[Move, ...]) -> Move:
    m = to_move(mv, tb)
    if m in legal_moves:
        return m
    if isinstance(m, Play):  # the opening: the engine lists it with end None
        for lm in legal_moves:
            if isinstance(lm, Play) and lm.tile == m.tile:
                return lm
    return legal_moves[0]
