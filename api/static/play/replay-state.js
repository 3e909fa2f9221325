// A game's replay as pure functions of its history (GET /v1/games/{id}/history): the position after every
// commit, as a spectator's view (the shape board.js and text.js draw), plus every hand when the history
// reveals them (a finished game: its deals and every draw). A live game's history hides the hands and the
// drawn tiles: its positions carry hand counts only, as the spectator's view does.
//
// A commit that ends a round also deals the next one (one version, both events): it gives two steps, the
// round's end (the last board, the hands left, the result) and the new deal.

import { parseTile } from './tiles.js';

const byPips = (x, y) => {
  const [a, b] = parseTile(x);
  const [c, d] = parseTile(y);
  return c - a || d - b;
};

const tileName = ([a, b]) => `${a}-${b}`;

/** The tiles of a double-N set. */
const setSize = (max) => ((max + 1) * (max + 2)) / 2;

/** The All Fives count of the open ends (docs/rules.md#counting-the-ends): a lone tile counts its pips;
 * otherwise each end its value, a double across it twice; a spinner's arm counts once a tile covers it. */
export function fivesCount(line, up, down) {
  if (!line.length) return 0;
  if (line.length === 1 && !up.length && !down.length) return line[0][0] + line[0][1];
  const end = ([a, b], outer) => (a === b ? 2 * outer : outer);
  let count = end(line[0], line[0][0]) + end(line[line.length - 1], line[line.length - 1][1]);
  for (const arm of [up, down]) if (arm.length) count += end(arm[arm.length - 1], arm[arm.length - 1][1]);
  return count;
}

// ---------------------------------------------------------------- the table, as it changes

function lineBoard(table, spinnerGame) {
  const { line, up, down, spinner } = table;
  const board = {
    line: line.map(tileName),
    ends: { left: line.length ? line[0][0] : null, right: line.length ? line[line.length - 1][1] : null },
  };
  if (spinnerGame) {
    const open = spinner !== null && spinner > 0 && spinner < line.length - 1;
    const v = spinner === null ? null : line[spinner][0];
    board.spinner = spinner === null ? null : tileName(line[spinner]);
    board.spinner_index = spinner;
    board.arms = { up: up.map(tileName), down: down.map(tileName) };
    board.ends.up = open ? (up.length ? up[up.length - 1][1] : v) : null;
    board.ends.down = open ? (down.length ? down[down.length - 1][1] : v) : null;
    board.count = fivesCount(line, up, down);
  }
  return board;
}

function placeOnLine(table, tile, end, spinnerGame) {
  const [hi, lo] = parseTile(tile);
  const double = hi === lo;
  const spins = spinnerGame && table.spinner === null && double;
  const other = (v) => (hi === v ? lo : hi);
  const { line } = table;
  if (end === null || end === undefined) {
    table.line = [[hi, lo]];
    table.spinner = spins ? 0 : null;
  } else if (end === 'left') {
    const v = line[0][0];
    table.line = [[other(v), v], ...line];
    if (spins) table.spinner = 0;
    else if (table.spinner !== null) table.spinner += 1;
  } else if (end === 'right') {
    const v = line[line.length - 1][1];
    table.line = [...line, [v, other(v)]];
    if (spins) table.spinner = line.length;
  } else {
    const arm = table[end];
    const v = arm.length ? arm[arm.length - 1][1] : line[table.spinner][0];
    table[end] = [...arm, [v, other(v)]];
  }
}

const trainKey = (name) => (name === 'mexican' ? 'mexican' : Number(name.slice(6)));

function trainBoard(table, rules) {
  const engine = table.engine;
  const end = (tiles) => (tiles.length ? tiles[tiles.length - 1][1] : engine);
  const trains = table.trains.map((tiles, owner) => ({ owner, tiles: tiles.map(tileName), end: end(tiles), marker: table.markers[owner] }));
  if (rules.mexican_train) trains.push({ owner: null, tiles: table.mexican.map(tileName), end: end(table.mexican), marker: true });
  const last = (name) => {
    const tiles = name === 'mexican' ? table.mexican : table.trains[trainKey(name)];
    return tileName(tiles[tiles.length - 1]);
  };
  return {
    engine_double: `${engine}-${engine}`, trains, pending_doubles: table.pending.map(last),
    active_double: null, first_turn_pending: [], phase: null,
  };
}

function placeOnTrain(table, tile, name) {
  const [hi, lo] = parseTile(tile);
  const key = trainKey(name);
  const tiles = key === 'mexican' ? table.mexican : table.trains[key];
  const v = tiles.length ? tiles[tiles.length - 1][1] : table.engine;
  const grown = [...tiles, [v, hi === v ? lo : hi]];
  if (key === 'mexican') table.mexican = grown;
  else table.trains = table.trains.map((t, s) => (s === key ? grown : t));
  table.pending = table.pending.filter((n) => n !== name); // a tile on an uncovered double covers it
  if (hi === lo) table.pending = [...table.pending, name];
}

// ---------------------------------------------------------------- the game, event by event

function freshTable(history, event) {
  const rules = history.rules;
  if (history.variant === 'mexican_train') {
    const engine = parseTile(event.engine_double)[0];
    return { engine, trains: Array.from({ length: rules.players }, () => []), mexican: [], markers: Array(rules.players).fill(false), pending: [] };
  }
  return { line: [], up: [], down: [], spinner: null };
}

function startRound(game, history, event) {
  const rules = history.rules;
  const deal = (history.deals || []).find((d) => d.round === event.round);
  game.round = event.round;
  game.table = freshTable(history, event);
  game.hands = deal ? deal.hands.map((hand) => [...hand].sort(byPips)) : null;
  game.counts = deal ? deal.hands.map((hand) => hand.length) : Array(rules.players).fill(rules.hand_size);
  const left = deal ? deal.boneyard.length : setSize(rules.set_max_pips || 6) - rules.players * rules.hand_size;
  game.boneyard = left;
  game.drawable = rules.draw_policy !== 'no_draw';
  game.log = [];
  game.roundScores = [...game.scores];
}

function play(game, history, event) {
  const seat = event.seat;
  game.counts[seat] -= 1;
  if (game.hands) game.hands[seat] = game.hands[seat].filter((t) => t !== event.tile);
  if (event.type === 'engine_double_placed') return;
  if (history.variant === 'mexican_train') placeOnTrain(game.table, event.tile, event.end);
  else placeOnLine(game.table, event.tile, event.end, history.rules.spinner === 'first_double');
  if (event.points) {
    const teams = history.rules.teams === 'partners_opposite';
    game.scores = game.scores.map((score, s) => (s === seat || (teams && s % 2 === seat % 2) ? score + event.points : score));
  }
}

const EVENT_KEYS = new Set(['id', 'version', 'type', 'seat']);

/** A round_ended event's result, as a view's `last_round` shows it. */
const roundResult = (event) => Object.fromEntries(Object.entries(event).filter(([key]) => !EVENT_KEYS.has(key)));

// The events that change what a replay shows (not a hint asked for, which marks the seat's next move instead;
// not a seat claimed, a rematch offered).
const SHOWN = new Set([
  'round_started', 'tile_played', 'engine_double_placed', 'tile_drawn', 'passed', 'marker_placed', 'marker_removed',
  'round_ended', 'resigned', 'game_ended',
]);

function apply(game, history, event) {
  const seat = event.seat;
  switch (event.type) {
    case 'round_started': startRound(game, history, event); break;
    case 'tile_played':
      play(game, history, event);
      game.log.push({ seat, type: 'play', tile: event.tile, end: event.end });
      break;
    case 'engine_double_placed': play(game, history, event); break;
    case 'tile_drawn':
      game.counts[seat] += 1;
      game.boneyard = event.boneyard_count;
      if (game.hands && event.tile) game.hands[seat] = [...game.hands[seat], event.tile].sort(byPips);
      game.log.push({ seat, type: 'draw' });
      break;
    case 'passed': game.log.push({ seat, type: 'pass' }); break;
    case 'marker_placed': case 'marker_removed':
      game.table.markers = game.table.markers.map((m, s) => (s === trainKey(event.train) ? event.type === 'marker_placed' : m));
      break;
    case 'round_ended': {
      game.lastRound = roundResult(event);
      game.scores = game.roundScores.map((score, s) => score + event.points[s]);
      game.hands = event.hands.map((hand) => [...hand]);
      game.counts = event.hands.map((hand) => hand.length);
      break;
    }
    case 'hint_used': game.hinted.add(seat); break;
    case 'resigned': game.resigned = seat; break;
    case 'game_ended':
      game.status = 'finished';
      game.winners = event.winners;
      game.scores = event.scores;
      game.outcome = { reason: event.reason, winners: event.winners, team: event.team };
      break;
    default: break;
  }
}

/** The moves a step shows (what happened at this commit): plays, draws and passes, the engine double. */
const MOVE_TYPES = { tile_played: 'play', tile_drawn: 'draw', passed: 'pass' };

function snapshot(game, history, version, kind, events) {
  const rules = history.rules;
  const teams = rules.teams === 'partners_opposite';
  const board = history.variant === 'mexican_train'
    ? trainBoard(game.table, rules) : lineBoard(game.table, rules.spinner === 'first_double');
  const moves = events.filter((e) => MOVE_TYPES[e.type] && !e.search)
    .map((e) => ({
      seat: e.seat, type: MOVE_TYPES[e.type], tile: e.tile, end: e.end, version: e.version,
      ...(game.hinted.has(e.seat) ? { hinted: true } : {}),
    }));
  return {
    kind, version, moves,
    id: history.id, variant: history.variant, rules, round: game.round, seat: null, turn: null,
    status: game.status,
    seats: history.seats.map((s) => ({ ...s, hand_count: game.counts[s.seat] })),
    hands: game.hands ? game.hands.map((hand) => [...hand]) : null,
    scores: [...game.scores], team_scores: teams ? [game.scores[0], game.scores[1]] : null,
    boneyard_count: game.drawable ? game.boneyard : 0, out_of_play_count: game.drawable ? 0 : game.boneyard,
    board, log: [...game.log], last_round: game.lastRound,
    winners: [...game.winners], outcome: game.outcome,
    resigned: game.resigned,
  };
}

/**
 * The replay's steps, in order: {kind, version, moves (this commit's moves), ...a spectator's view at that
 * point, hands (every seat's tiles, or null when hidden)}. Kinds: 'deal' (a round dealt), 'move', 'round'
 * (a round's end), 'end' (the game's end).
 */
export function replaySteps(history) {
  const game = {
    round: 0, table: null, hands: null, counts: [], boneyard: 0, drawable: true, log: [], roundScores: [],
    scores: Array(history.rules.players).fill(0), lastRound: null, status: 'playing', winners: [], outcome: null,
    resigned: undefined, hinted: new Set(),
  };
  const byVersion = new Map();
  for (const e of history.events) {
    if (!byVersion.has(e.version)) byVersion.set(e.version, []);
    byVersion.get(e.version).push(e);
  }
  const steps = [];
  for (const [version, events] of byVersion) {
    let done = [];
    for (const e of events) {
      if (e.type === 'round_started' && done.some((d) => d.type === 'round_ended')) {
        steps.push(snapshot(game, history, version, 'round', done));
        done = [];
      }
      apply(game, history, e);
      done.push(e);
    }
    // A game not started yet (a seat still open) has nothing on the table; a commit that shows nothing new
    // (a hint, a rematch offered after the end) is no step; a hint's seat's next move says "after a hint".
    if (!game.table || !done.some((e) => SHOWN.has(e.type))) continue;
    let kind = 'move';
    if (done.some((e) => e.type === 'game_ended')) kind = 'end';
    else if (done.some((e) => e.type === 'round_started')) kind = 'deal';
    else if (done.some((e) => e.type === 'round_ended')) kind = 'round';
    const step = snapshot(game, history, version, kind, done);
    steps.push(step);
    for (const m of step.moves) game.hinted.delete(m.seat);  // a hint counts for the seat's next move only
  }
  return steps;
}

/** The step to open for `?v=<version>`: the first at that version, else the last before it (0: the start). */
export function stepAt(steps, version) {
  if (version === null || version === undefined || Number.isNaN(version)) return steps.length - 1;
  let at = 0;
  for (let i = 0; i < steps.length && steps[i].version <= version; i++) {
    if (steps[i].version === version) return i;
    at = i;
  }
  return at;
}

/** The analysis of the move a step shows (the analysis's `version` is the move's commit), if any. */
export function analysisAt(analysis, step) {
  if (!analysis || analysis.status !== 'done' || !step || step.kind === 'deal') return null;
  return (analysis.moves || []).find((m) => m.version === step.version) || null;
}
