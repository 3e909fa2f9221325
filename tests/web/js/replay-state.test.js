import { test, eq } from './runner.js';
import { replaySteps, stepAt, analysisAt, fivesCount } from '/play/replay-state.js';
import { stepText, moveText } from '/play/text.js';

const SEATS = [{ seat: 0, name: 'Ana', kind: 'human' }, { seat: 1, name: 'greedy', kind: 'bot' }];
const DRAW_RULES = {
  variant: 'draw', players: 2, hand_size: 2, set_max_pips: 6, draw_policy: 'draw_until_playable', spinner: 'none',
  teams: 'none', match_end: 'fixed_rounds', rounds: 2,
};

const ev = (version, type, fields = {}) => ({ id: `${version}-x`, version, type, seat: null, ...fields });

/** A finished two-round draw game (hand-made, not a real deal): round 1 goes out, round 2 ends by resigning. */
function finished() {
  return {
    id: 'g1', variant: 'draw', status: 'finished', version: 10, seat: null, seats: SEATS, rules: DRAW_RULES,
    deals: [
      { round: 1, hands: [['5-1', '6-6'], ['6-4', '3-2']], boneyard: ['4-1', '2-2', '0-0'] },
      { round: 2, hands: [['1-1', '0-0'], ['2-1', '1-0']], boneyard: ['6-6', '5-5'] },
    ],
    events: [
      ev(0, 'game_created'), ev(0, 'round_started', { round: 1, opener: 0 }),
      ev(1, 'tile_played', { seat: 0, tile: '6-6', end: null, points: 0 }),
      ev(2, 'tile_played', { seat: 1, tile: '6-4', end: 'right', points: 0 }),
      ev(3, 'tile_drawn', { seat: 0, tile: '4-1', boneyard_count: 2 }),
      ev(4, 'tile_played', { seat: 0, tile: '4-1', end: 'right', points: 0 }),
      ev(5, 'tile_drawn', { seat: 1, tile: '2-2', boneyard_count: 1 }),
      ev(6, 'tile_played', { seat: 0, tile: '5-1', end: 'right', points: 0 }),
      ev(6, 'round_ended', {
        round: 1, end: 'domino', winner: 0, pips_left: [0, 9], hands: [[], ['3-2', '2-2']], points: [9, 0], award: [9, 0],
        why: 'seat 0 went out',
      }),
      ev(6, 'round_started', { round: 2, opener: 1 }),
      ev(7, 'tile_played', { seat: 1, tile: '2-1', end: null, points: 0 }),
      ev(8, 'hint_used', { seat: 0, hints_used: 1 }),
      ev(9, 'resigned', { seat: 1 }), ev(9, 'game_ended', { reason: 'resigned', winners: [0], team: null, scores: [9, 0] }),
      ev(10, 'rematch_created', { next_game_id: 'g9' }),
    ],
    outcome: { reason: 'resigned', winners: [0], team: null },
  };
}

/** The same game as a spectator reads it while it is on (after version 5): no deals, draws without tiles. */
function live() {
  const h = finished();
  delete h.deals;
  h.status = 'playing';
  h.events = h.events.filter((e) => e.version <= 5).map((e) => {
    const { tile, ...rest } = e;
    return e.type === 'tile_drawn' ? rest : e;
  });
  return h;
}

test('one step per commit that shows something; a commit that ends a round gives its end and the next deal', () => {
  const steps = replaySteps(finished());
  eq(steps.map((s) => [s.version, s.kind]),
    [[0, 'deal'], [1, 'move'], [2, 'move'], [3, 'move'], [4, 'move'], [5, 'move'], [6, 'round'], [6, 'deal'], [7, 'move'], [9, 'end']]);
  eq(steps.map((s) => s.round), [1, 1, 1, 1, 1, 1, 1, 2, 2, 2]);
});

test('the line grows at its ends, each tile turned to match; the boneyard counts down', () => {
  const steps = replaySteps(finished());
  eq(steps[2].board, { line: ['6-6', '6-4'], ends: { left: 6, right: 4 } });
  eq(steps[4].board.line, ['6-6', '6-4', '4-1']);
  eq([steps[0].boneyard_count, steps[3].boneyard_count, steps[5].boneyard_count], [3, 2, 1]);
  eq(steps[6].board.line, ['6-6', '6-4', '4-1', '1-5']);
});

test('every hand of a finished game, tile by tile, highest first', () => {
  const steps = replaySteps(finished());
  eq(steps[0].hands, [['6-6', '5-1'], ['6-4', '3-2']]);
  eq(steps[3].hands, [['5-1', '4-1'], ['3-2']]);
  eq(steps[3].seats.map((s) => s.hand_count), [2, 1]);
  eq(steps[6].hands, [[], ['3-2', '2-2']], 'the round\'s end: what was left');
  eq(steps[7].hands, [['1-1', '0-0'], ['2-1', '1-0']], 'the next deal');
  eq(steps[7].board.line, []);
});

test('scores move at the round\'s end; the last step is the outcome', () => {
  const steps = replaySteps(finished());
  eq([steps[5].scores, steps[6].scores, steps[7].scores], [[0, 0], [9, 0], [9, 0]]);
  eq(steps[6].last_round.points, [9, 0]);
  const last = steps[steps.length - 1];
  eq([last.status, last.winners, last.outcome.reason, last.resigned], ['finished', [0], 'resigned', 1]);
  eq([steps[7].status, steps[7].winners, steps[7].outcome], ['playing', [], null]);
});

test('the moves of each step, and the step a URL\'s version opens', () => {
  const steps = replaySteps(finished());
  eq(steps[3].moves, [{ seat: 0, type: 'draw', tile: '4-1', end: undefined, version: 3 }]);
  eq(steps[7].moves, []);
  eq([stepAt(steps, 0), stepAt(steps, 4), stepAt(steps, 6), stepAt(steps, 8), stepAt(steps, 99), stepAt(steps, null), stepAt(steps, NaN)],
    [0, 4, 6, 8, 9, 9, 9], 'a version with no step of its own (a hint): the step before it');
});

test('a live game as a spectator replays it: counts only, never a hidden tile', () => {
  const steps = replaySteps(live());
  eq(steps.length, 6);
  for (const s of steps) eq(s.hands, null);
  eq(steps[0].boneyard_count, 24, 'a double-six set less two hands of two');
  eq(steps[3].seats.map((s) => s.hand_count), [2, 1]);
  eq(steps[3].boneyard_count, 2);
  eq(steps[5].board.line, ['6-6', '6-4', '4-1']);
  eq(JSON.stringify(steps).includes('"5-1"'), false, 'a tile still in a hand appears nowhere');
});

test('a hint asked is no step of its own: the seat\'s next move says it came after a hint, and only that one', () => {
  const h = finished();
  // seat 0 asks for a hint at version 3, then draws (4) and plays (5); every later commit one version later
  h.events = h.events.flatMap((e) => {
    const moved = e.version >= 3 ? { ...e, version: e.version + 1 } : e;
    return e.version === 3 && e.type === 'tile_drawn' ? [ev(3, 'hint_used', { seat: 0, hints_used: 1 }), moved] : [moved];
  });
  const steps = replaySteps(h);
  eq(steps.map((s) => s.version).includes(3), false, 'the hint is no step');
  const byVersion = Object.fromEntries(steps.map((s) => [s.version, s]));
  eq(byVersion[4].moves.map((m) => Boolean(m.hinted)), [true]);
  eq(stepText(byVersion[4]), 'Ana drew 4-1 after a hint.');
  eq(byVersion[5].moves.map((m) => Boolean(m.hinted)), [false], 'the hint counts for one move');
  eq(byVersion[2].moves.map((m) => Boolean(m.hinted)), [false]);
});

test('All Fives: the first double spins, its arms open once both sides are covered, the count and the points', () => {
  const rules = { ...DRAW_RULES, variant: 'all_fives', spinner: 'first_double', teams: 'partners_opposite', players: 4, hand_size: 5 };
  const history = {
    id: 'g2', variant: 'all_fives', status: 'playing', seat: null, rules,
    seats: [0, 1, 2, 3].map((seat) => ({ seat, name: `p${seat}`, kind: 'bot' })),
    events: [
      ev(0, 'round_started', { round: 1, opener: 0 }),
      ev(1, 'tile_played', { seat: 0, tile: '5-5', end: null, points: 10 }),
      ev(2, 'tile_played', { seat: 1, tile: '5-0', end: 'right', points: 10 }),
      ev(3, 'tile_played', { seat: 2, tile: '5-2', end: 'left', points: 0 }),
      ev(4, 'tile_played', { seat: 3, tile: '5-1', end: 'up', points: 0 }),
    ],
  };
  const steps = replaySteps(history);
  eq(steps[2].board, {
    line: ['5-5', '5-0'], ends: { left: 5, right: 0, up: null, down: null }, spinner: '5-5', spinner_index: 0,
    arms: { up: [], down: [] }, count: 10,
  });
  eq(steps[4].board.ends, { left: 2, right: 0, up: 1, down: 5 });
  eq([steps[3].board.spinner_index, steps[4].board.arms, steps[4].board.count], [1, { up: ['5-1'], down: [] }, 3]);
  eq(steps[4].scores, [10, 10, 10, 10], 'partners share their points');
  eq(steps[4].team_scores, [10, 10]);
  eq([fivesCount([[6, 6]], [], []), fivesCount([[6, 6], [6, 4]], [], []), fivesCount([[2, 5], [5, 5], [5, 0]], [[5, 5]], [])],
    [12, 16, 12]);
});

test('Mexican Train: the engine, the trains, doubles pending until covered, markers', () => {
  const rules = { ...DRAW_RULES, variant: 'mexican_train', players: 2, hand_size: 3, set_max_pips: 12, mexican_train: true, draw_policy: 'draw_one' };
  const history = {
    id: 'g3', variant: 'mexican_train', status: 'finished', seat: null, seats: SEATS, rules,
    deals: [{ round: 1, hands: [['12-12', '12-3', '9-9'], ['12-7', '7-7', '7-1']], boneyard: ['3-9', '4-4'] }],
    events: [
      ev(0, 'round_started', { round: 1, opener: 0, engine_double: '12-12' }),
      ev(0, 'engine_double_placed', { seat: 0, tile: '12-12' }),
      ev(1, 'tile_played', { seat: 0, tile: '12-3', end: 'train:0', points: 0 }),
      ev(2, 'tile_played', { seat: 1, tile: '12-7', end: 'mexican', points: 0 }),
      ev(3, 'tile_played', { seat: 1, tile: '7-7', end: 'mexican', points: 0 }),
      ev(4, 'passed', { seat: 0 }), ev(4, 'marker_placed', { seat: 0, train: 'train:0' }),
      ev(5, 'tile_played', { seat: 1, tile: '7-1', end: 'mexican', points: 0 }),
    ],
  };
  const steps = replaySteps(history);
  eq(steps[0].hands, [['12-3', '9-9'], ['12-7', '7-7', '7-1']], 'the engine double left its hand');
  const at4 = steps[4].board;
  eq(at4.engine_double, '12-12');
  eq(at4.trains, [
    { owner: 0, tiles: ['12-3'], end: 3, marker: true },
    { owner: 1, tiles: [], end: 12, marker: false },
    { owner: null, tiles: ['12-7', '7-7'], end: 7, marker: true },
  ]);
  eq(at4.pending_doubles, ['7-7']);
  eq(steps[5].board.pending_doubles, [], 'covered');
  eq(steps[5].board.trains[2].tiles, ['12-7', '7-7', '7-1']);
});

test('the analysis of the move a step shows, and the words', () => {
  const steps = replaySteps(finished());
  const move = { version: 2, seat: 1, played: { type: 'play', tile: '6-4', end: 'right' }, best: { type: 'draw' }, values: [], loss: 1.5 };
  const analysis = { status: 'done', moves: [move], seats: [] };
  eq([analysisAt(analysis, steps[2]), analysisAt(analysis, steps[3]), analysisAt({ status: 'running' }, steps[2])], [move, null, null]);
  eq([moveText(move.played), moveText(move.best), moveText({ type: 'play', tile: '6-6', end: null }),
    moveText({ type: 'play', tile: '7-1', end: 'train:1' })], ['6-4 on the right', 'draw', '6-6 to open', '7-1 on train 2']);
  eq(stepText(steps[0]), 'Round 1 dealt.');
  eq(stepText(steps[3]), 'Ana drew 4-1.');
  eq(stepText(steps[6]), 'Ana played 5-1 on the right. Round 1: went out.');
  eq(stepText(steps[9]), 'Game over: Ana wins. greedy resigned.');
  eq(stepText(replaySteps(live())[3]), 'Ana drew a tile.');
});
