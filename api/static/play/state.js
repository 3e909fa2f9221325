// The table's state as pure functions of the API's game view: which views to keep, whose turn it is, which
// tiles are playable and where the selected one may go.

export const over = (view) => view.status === 'finished' || view.status === 'aborted';

export function legalPlays(view, tile) {
  return (view.legal_moves || []).filter((m) => m.type === 'play' && m.tile === tile);
}

/**
 * A view arrives: the newer one is kept (an older answer arriving late, our move's after the stream already
 * fetched the bot's reply, keeps the newer), and a selected tile no longer playable is let go.
 * Returns the next {view, selected}.
 */
export function acceptView(current, selected, view) {
  if (current && view.version < current.version) return { view: current, selected };
  return { view, selected: selected && legalPlays(view, selected).length ? selected : null };
}

/** over, waiting-players, spectating, your-turn or waiting (someone else's turn). */
export function turnState(view) {
  if (over(view)) return 'over';
  if (view.status === 'waiting') return 'waiting-players';
  if (view.seat === null || view.seat === undefined) return 'spectating';
  if (view.turn === view.seat && (view.legal_moves || []).length) return 'your-turn';
  return 'waiting';
}

/** The places the selected tile may go, by end ('start' for the opening tile). */
export function targetsFor(view, selected) {
  const out = {};
  if (!selected) return out;
  for (const m of legalPlays(view, selected)) out[m.end || 'start'] = m;
  return out;
}

/** The draw and pass moves on offer, when it is this seat's turn. */
export function turnActions(view) {
  const legal = turnState(view) === 'your-turn' ? view.legal_moves : [];
  return { draw: legal.find((m) => m.type === 'draw'), pass: legal.find((m) => m.type === 'pass') };
}

export function maxPips(view) {
  return (view.rules && view.rules.set_max_pips) || 6;
}

/** The board is Mexican Train's trains (else a line, perhaps a cross around a spinner). */
export function hasTrains(view) {
  return view.variant === 'mexican_train' || Boolean(view.board && view.board.trains);
}
