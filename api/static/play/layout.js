// Where each tile lies on the table and which way round, as pure functions of the board (no DOM): the line,
// All Fives' cross around the spinner, and Mexican Train's trains. A placed tile is
// {tile, a, b, upright, double}: `a` is the half drawn first (top or left).

import { parseTile } from './tiles.js';

/**
 * A tile on the table, along a row or a column: doubles lie crosswise (upright in a row), the others along.
 * `flip`: drawn b first (an up arm is listed from the spinner outwards, but drawn from the top).
 */
export function placed(tile, { along = 'row', flip = false } = {}) {
  let [a, b] = parseTile(tile);
  if (flip) [a, b] = [b, a];
  const double = a === b;
  return { tile, a, b, double, upright: along === 'row' ? double : !double };
}

/**
 * A tile as it would lie at an end (the ghost on a target button): the half that matches the end's value
 * faces it. `touching`: {side: 'before' (the end is after the tile: left, up) or 'after', value}.
 */
export function ghost(tile, { along = 'row', touching = null } = {}) {
  let [a, b] = parseTile(tile);
  if (touching !== null) {
    if (touching.side === 'before' && b !== touching.value) [a, b] = [b, a];
    if (touching.side === 'after' && a !== touching.value) [a, b] = [b, a];
  }
  const double = a === b;
  return { tile, a, b, double, upright: along === 'row' ? double : !double };
}

/** How a tile played at each end of a line lies: along which axis, and on which side the end is. */
export const END_PLACES = {
  left: { along: 'row', side: 'before' },
  right: { along: 'row', side: 'after' },
  up: { along: 'column', side: 'before' },
  down: { along: 'column', side: 'after' },
};

export function isCross(board) {
  return Boolean(board.spinner) && board.spinner_index !== null && board.spinner_index !== undefined;
}

/**
 * All Fives' cross: the spinner in the middle; the line's wings each listed from the spinner outwards (the
 * left wing is drawn right to left, so its first tile meets the spinner); the arms' tiles are listed from the
 * spinner outwards with the first half touching, so the up arm's are drawn flipped.
 */
export function crossLayout(board) {
  const si = board.spinner_index;
  const line = board.line;
  const arms = board.arms || { up: [], down: [] };
  return {
    spinner: placed(line[si]),
    left: line.slice(0, si).reverse().map((tile) => placed(tile)),
    right: line.slice(si + 1).map((tile) => placed(tile)),
    up: arms.up.map((tile) => placed(tile, { along: 'column', flip: true })),
    down: arms.down.map((tile) => placed(tile, { along: 'column' })),
  };
}

/** A tile's name with the higher half first (the board's pending doubles are named so). */
export function canonical(tile) {
  const [a, b] = parseTile(tile);
  return a >= b ? `${a}-${b}` : `${b}-${a}`;
}

/**
 * Mexican Train's trains as rows: {key (the move's end: 'mexican' or 'train:<seat>'), owner, mine, marked,
 * end, tiles: placed tiles, each with `pending` when it is a double still to be covered}.
 */
export function trainRows(board, seat) {
  const pending = new Set(board.pending_doubles || []);
  return board.trains.map((train) => ({
    key: train.owner === null ? 'mexican' : `train:${train.owner}`,
    owner: train.owner,
    mine: train.owner !== null && train.owner === seat,
    marked: Boolean(train.marker),
    end: train.end,
    tiles: train.tiles.map((tile) => ({ ...placed(tile), pending: pending.has(canonical(tile)) })),
  }));
}
