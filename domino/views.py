"""What one seat (or a spectator) may see (docs/rules.md#what-a-seat-may-see): never another hand, the boneyard's tiles or the seed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domino import variants
from domino.engine import legal_moves
from domino.moves import Move
from domino.state import LogEntry, RoundResult, State
from domino.tiles import Tile


@dataclass(frozen=True, slots=True)
class View:
    """A seat's (``seat`` None: a spectator's) picture of the game. Bots choose from this alone."""

    rules: dict[str, Any]
    round: int
    turn: int | None
    seat: int | None
    hand_counts: tuple[int, ...]
    scores: tuple[int, ...]
    team_scores: tuple[int, int] | None
    boneyard_count: int
    out_of_play_count: int
    board: dict[str, Any]
    log: tuple[LogEntry, ...]
    hand: tuple[Tile, ...] | None
    legal_moves: tuple[Move, ...]
    last_round: RoundResult | None
    winners: tuple[int, ...]
    finished: bool
    # Typed copies for bots, so they need not parse ``board``.
    ends: tuple[tuple[str, int], ...] = ()
    tiles_on_board: tuple[Tile, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "rules": self.rules,
            "round": self.round,
            "turn": self.turn,
            "seat": self.seat,
            "hand_counts": list(self.hand_counts),
            "scores": list(self.scores),
            "team_scores": None if self.team_scores is None else list(self.team_scores),
            "boneyard_count": self.boneyard_count,
            "out_of_play_count": self.out_of_play_count,
            "board": self.board,
            "log": [e.to_dict() for e in self.log],
            "last_round": None if self.last_round is None else self.last_round.to_dict(),
            "winners": list(self.winners),
            "finished": self.finished,
        }
        if self.seat is not None:
            d["hand"] = [str(t) for t in self.hand or ()]
            d["legal_moves"] = [m.to_dict() for m in self.legal_moves]
        return d


def view(state: State, seat: int | None = None) -> View:
    """The view of ``seat`` (None: a spectator)."""
    r = state.rules
    if seat is not None and not 0 <= seat < r.players:
        raise ValueError(f"no seat {seat}")
    board, ends, laid = variants.of(r).table(state)
    drawable = r.draw_policy != "no_draw"
    mine = seat is not None and state.outcome is None and state.turn == seat
    return View(
        rules=r.to_dict(),
        round=state.round,
        turn=state.to_move,
        seat=seat,
        hand_counts=tuple(len(h) for h in state.hands),
        scores=state.scores,
        team_scores=state.team_scores,
        boneyard_count=len(state.boneyard) if drawable else 0,
        out_of_play_count=0 if drawable else len(state.boneyard),
        board=board,
        log=state.log,
        hand=state.hands[seat] if seat is not None else None,
        legal_moves=legal_moves(state) if mine else (),
        last_round=state.last_round,
        winners=state.outcome.winners if state.outcome else (),
        finished=state.outcome is not None,
        ends=ends,
        tiles_on_board=laid,
    )
