"""OpenSpiel's ``ISMCTSBot`` on its ``python_block_dominoes`` game, as an opponent for bench/bot_strength.py
(``--setup block2_lot --opp ismcts``), given the same process CPU time per move as the bot it plays.

OpenSpiel's game is the 2-player block game with 7 tiles each, player 0 leading any tile, and a player who
cannot play skipped (no pass move); the round is played on our engine (``block2_lot``: the opener drawn by lot
leads any tile), and at each of its moves with a choice the ISMCTS seat's view is turned into an OpenSpiel
state: its player 0 is the round's opener, its history the log's plays (a covered end named by its pips).

OpenSpiel's Python game has no resampler of its own (``resample_from_infostate``), so this gives it one
(:func:`resample`): the other hand is dealt uniformly from the tiles the searcher has not seen, avoiding every
pip value that player could not match when it was skipped (its passes); its tiles played later were in that
hand too, so the rule holds for the whole hand it has now.

Equal CPU: the bot under test plays by its node budget, and its process CPU time per move with a choice is
measured (:class:`Metered`); ISMCTS searches each of its moves until the process CPU time it used reaches the
mean of the bot's so far (``--ismcts-ms`` before the bot has moved). Its settings: a random-rollout evaluator
(one rollout), ``uct_c`` ``UCT_C`` (returns are in pips, tens of points), unlimited world samples, the move
most visited.
"""

from __future__ import annotations

import random
import time
from typing import Any

import domino

UCT_C = 10.0  # returns are pip counts (a round is worth about 10-40): the exploration term on that scale


class Metered:
    """A bot whose process CPU time per move with a choice is kept (the budget ISMCTS gets)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.cpu: list[float] = []
        self.default_ms = getattr(bot, "default_ms", 100.0)
        self.bench_nodes = getattr(bot, "bench_nodes", 2000)

    def choose(self, view: Any, rng: random.Random, budget: Any) -> Any:
        t0 = time.process_time()
        move = self.bot.choose(view, rng, budget)
        if len(view.legal_moves) > 1:
            self.cpu.append(time.process_time() - t0)
        return move


def _spiel() -> tuple[Any, Any, Any, Any]:
    import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from open_spiel.python.games import block_dominoes  # type: ignore[import-not-found,import-untyped,unused-ignore]

    return pyspiel, ismcts, mcts, block_dominoes


def _tile(t: Any) -> tuple[float, float]:
    return (float(t.low), float(t.high))


class Ismcts:
    """OpenSpiel's ``ISMCTSBot`` playing one seat of our 2-player block round from its view."""

    def __init__(self, matched: Metered, first_ms: float, seed: int = 0) -> None:
        pyspiel, ismcts, mcts, bd = _spiel()
        self.bd = bd
        self.game = pyspiel.load_game("python_block_dominoes")
        self.matched = matched
        self.first_ms = first_ms
        self.cpu: list[float] = []
        self.sims: list[int] = []
        self.action_of = {(a.player, a.tile, a.edge): i for i, a in enumerate(bd._ACTIONS)}
        self.deck_index = {t: i for i, t in enumerate(bd._DECK)}
        self.bot = ismcts.ISMCTSBot(
            game=self.game,
            evaluator=mcts.RandomRolloutEvaluator(1, __import__("numpy").random.RandomState(seed)),
            uct_c=UCT_C,
            max_simulations=1,  # the search is run by :meth:`_search`, to a CPU deadline
            random_state=__import__("numpy").random.RandomState(seed + 1),
        )
        self.rng = random.Random(seed + 2)
        self.bot.set_resampler(self.resample)

    # -- the view as an OpenSpiel state -----------------------------------------------------------

    def _history(self, view: Any) -> tuple[int, list[tuple[int, tuple[float, float], float | None]]]:
        """(the opener's seat, the plays as (seat, tile, covered pips or None)) from the round's log."""
        plays: list[tuple[int, tuple[float, float], float | None]] = []
        ends: list[float] = []
        opener = -1
        for e in view.log:
            if opener < 0:
                opener = e.seat
            if e.type != "play":
                continue
            t = _tile(e.tile)
            if not ends:
                plays.append((e.seat, t, None))
                ends = [t[1], t[0]]  # the opening tile lies high half left (``line_board.place``)
                continue
            i = 0 if e.end == "left" else 1
            covered = ends[i]
            plays.append((e.seat, t, covered))
            ends[i] = t[1] if t[0] == covered else t[0]
        return opener, plays

    def _state(self, hands: list[list[tuple[float, float]]], actions: list[int]) -> Any:
        s = self.game.new_initial_state()
        for hand in hands:  # the deal: player 0's seven tiles, then player 1's
            for t in hand:
                s.apply_action(self.deck_index[t])
        for a in actions:
            s.apply_action(a)
        return s

    def resample(self, state: Any, player: int) -> Any:
        """A state the searcher (``player``) cannot tell from ``state``: the other hand dealt again."""
        mine, history = list(state.hands[player]), state.actions_history
        return self._dealt(player, mine, self._other_hand(player, mine, history, len(state.hands[1 - player])), history)

    def _other_hand(self, player: int, mine: list[Any], history: list[Any], count: int) -> list[Any]:
        """The other player's hand dealt uniformly from the tiles ``player`` has not seen, none holding a pip
        value that player was skipped on (its tiles played since were in that hand: the rule holds for all
        it holds now). ``player`` is to move."""
        seen = set(mine) | {a.tile for a in history}
        lacks: set[float] = set()
        ends: list[float] = []
        for k, a in enumerate(history):
            if k > 0 and history[k - 1].player == a.player == player:
                lacks.update(ends)  # the other player was skipped before this move: it matched neither end
            if not ends:
                ends = list(a.tile)
            else:
                ends.remove(a.edge)
                ends.append(a.tile[0] if a.tile[0] != a.edge else a.tile[1])
        if history and history[-1].player == player:
            lacks.update(ends)  # skipped just now
        pool = [t for t in self.bd._DECK if t not in seen and t[0] not in lacks and t[1] not in lacks]
        return self.rng.sample(pool, count)

    def _dealt(self, player: int, mine: list[Any], theirs: list[Any], history: list[Any]) -> Any:
        hands: list[list[tuple[float, float]]] = [[], []]
        hands[player], hands[1 - player] = list(mine), list(theirs)
        for a in history:
            hands[a.player].append(a.tile)
        actions = [self.action_of[(a.player, a.tile, a.edge)] for a in history]
        return self._state(hands, actions)

    # -- a move ------------------------------------------------------------------------------------

    def choose(self, view: Any, rng: random.Random, budget: Any) -> Any:
        legal = view.legal_moves
        if len(legal) == 1:
            return legal[0]
        t0 = time.process_time()
        opener, plays = self._history(view)
        me = 0 if opener < 0 or opener == view.seat else 1
        of = (lambda seat: 0 if seat == opener else 1) if opener >= 0 else (lambda seat: 0)
        hand = [_tile(t) for t in view.hand]
        played: list[Any] = [self.bd.Action(of(s), t, c) for s, t, c in plays]
        theirs = self._other_hand(me, hand, played, view.hand_counts[1 - view.seat])  # the search resamples it
        root = self._dealt(me, hand, theirs, played)
        assert root.current_player() == me, (root, view)
        spent = self.matched.cpu
        allowance = (sum(spent) / len(spent)) if spent else self.first_ms / 1000.0
        action = self._search(root, t0 + allowance)
        self.cpu.append(time.process_time() - t0)
        a = self.bd._ACTIONS[action]
        for m in legal:
            if isinstance(m, domino.Play) and _tile(m.tile) == a.tile:
                if a.edge is None or m.end is None or dict(view.ends).get(m.end) == a.edge:
                    return m
        raise AssertionError(f"ISMCTS chose {a}, not among {legal}")

    def _search(self, root: Any, deadline: float) -> int:
        """``ISMCTSBot.run_search`` with its loop bounded by process CPU time instead of a count."""
        bot = self.bot
        bot.reset()
        bot._root_node = bot.create_new_node(root)
        sims = 0
        while sims == 0 or time.process_time() < deadline:
            bot.run_simulation(bot.sample_root_state(root))
            sims += 1
        self.sims.append(sims)
        policy = bot.get_final_policy(root, bot._root_node)
        return int(max(policy, key=lambda p: p[1])[0])
