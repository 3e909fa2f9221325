// Game views as the API sends them (GET /v1/games/{id}), for the modules' tests.

export function lineView(overrides = {}) {
  return {
    id: 'g1', variant: 'draw', rules: { hand_size: 7, target_score: 100 }, status: 'playing', version: 17,
    round: 2, turn: 0, seat: 0,
    seats: [
      { seat: 0, name: 'Ana', kind: 'human', hand_count: 2 },
      { seat: 1, name: 'greedy', kind: 'bot', hand_count: 6 },
    ],
    scores: [12, 40], team_scores: null, boneyard_count: 9, out_of_play_count: 0,
    board: { line: ['6-6', '6-4', '4-1'], ends: { left: 6, right: 1 } },
    log: [{ seat: 1, type: 'play', tile: '4-1', end: 'right' }],
    hand: ['5-2', '3-3', '1-5'],
    legal_moves: [
      { type: 'play', tile: '1-5', end: 'right' },
      { type: 'draw' },
    ],
    last_round: null, winners: [], deadline: null,
    ...overrides,
  };
}

/** All Fives: the spinner 5-5 at index 1 of the line, an arm each way. */
export function crossView(overrides = {}) {
  return lineView({
    variant: 'all_fives',
    board: {
      line: ['2-5', '5-5', '5-3'], spinner: '5-5', spinner_index: 1,
      arms: { up: ['5-1'], down: ['5-6', '6-6'] }, ends: { left: 2, right: 3, up: 1, down: 6 }, count: 12,
    },
    ...overrides,
  });
}

export function trainView(overrides = {}) {
  return lineView({
    variant: 'mexican_train', rules: { hand_size: 15, rounds: 13, match_end: 'fixed_rounds', set_max_pips: 12 },
    board: {
      engine_double: '12-12', pending_doubles: ['9-9'], phase: 'main', first_turn_pending: [],
      trains: [
        { owner: 0, tiles: ['12-3', '3-9', '9-9'], end: 9, marker: false },
        { owner: 1, tiles: ['12-7'], end: 7, marker: true },
        { owner: null, tiles: [], end: 12, marker: true },
      ],
    },
    legal_moves: [{ type: 'play', tile: '9-2', end: 'train:0' }],
    hand: ['9-2'],
    ...overrides,
  });
}
