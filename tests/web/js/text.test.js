import { test, eq } from './runner.js';
import { lineView, trainView } from './views.js';
import {
  describeMove, seatName, turnText, announcements, endReason, handHint, goalText, placeText, gameOverTitle,
  teamScoresText, humanWhy,
} from '/play/text.js';

test('moves are described in words, seats by name and "You" for this seat', () => {
  const view = lineView();
  eq(describeMove(view, { seat: 1, type: 'play', tile: '6-4', end: 'left' }), 'greedy played 6-4 on the left');
  eq(describeMove(view, { seat: 0, type: 'play', tile: '6-6', end: null }), 'You played 6-6');
  eq(describeMove(view, { seat: 1, type: 'draw' }), 'greedy drew a tile');
  eq(describeMove(view, { seat: 0, type: 'pass' }), 'You passed');
  const spectator = lineView({ seat: null });
  eq(describeMove(spectator, { seat: 0, type: 'play', tile: '6-4', end: 'left' }), 'Ana played 6-4 on the left');
});

test('a move on a train names the train', () => {
  const view = trainView();
  eq(describeMove(view, { seat: 1, type: 'play', tile: '9-2', end: 'train:0' }), 'greedy played 9-2 on your train');
  eq(describeMove(view, { seat: 0, type: 'play', tile: '7-1', end: 'train:1' }), "You played 7-1 on greedy's train");
  eq(describeMove(view, { seat: 0, type: 'play', tile: '12-1', end: 'mexican' }), 'You played 12-1 on the Mexican train');
});

test('two computer players of one strategy are told apart by seat; open seats say so', () => {
  const view = lineView({
    seat: null,
    seats: [
      { seat: 0, name: 'greedy', kind: 'bot', hand_count: 7 }, { seat: 1, name: 'greedy', kind: 'bot', hand_count: 7 },
      { seat: 2, name: null, kind: 'open', hand_count: 0 },
    ],
  });
  eq([0, 1, 2, 5].map((s) => seatName(view, s)), ['greedy (seat 1)', 'greedy (seat 2)', 'Seat 3 (open)', 'Seat 6']);
});

test('whose turn it is', () => {
  eq(turnText(lineView()), 'Your turn');
  eq(turnText(lineView({ turn: 1 })), "greedy's turn");
  eq(turnText(lineView({ turn: null })), '');
});

test('the table just opened: only whose turn it is is announced', () => {
  eq(announcements(null, lineView()), ['Your turn']);
  eq(announcements(null, lineView({ status: 'waiting', turn: null })), []);
});

test('each move since the last view is announced, then whose turn it is', () => {
  const before = lineView({ turn: 1, version: 17 });
  const after = lineView({
    version: 19, turn: 0,
    log: [...before.log, { seat: 1, type: 'draw' }, { seat: 1, type: 'play', tile: '6-2', end: 'left' }],
  });
  eq(announcements(before, after), ['greedy drew a tile', 'greedy played 6-2 on the left', 'Your turn']);
});

test('an older or the same view announces nothing', () => {
  const view = lineView();
  eq(announcements(view, lineView({ version: 16 })), []);
  eq(announcements(view, view), []);
});

test('a new round: its predecessor\'s end, the new round\'s moves, the turn', () => {
  const before = lineView({ round: 1, version: 30, turn: 1 });
  const after = lineView({
    round: 2, version: 33, turn: 0,
    last_round: { round: 1, end: 'blocked', pips_left: [3, 9], hands: [[], []], points: [9, 0], why: 'seat 0 has fewer pips' },
    log: [{ seat: 1, type: 'play', tile: '6-6', end: null }],
  });
  eq(announcements(before, after), ['Round 1: blocked', 'greedy played 6-6', 'Your turn']);
});

test('the start and the end of the game', () => {
  const waiting = lineView({ status: 'waiting', turn: null, version: 1, log: [] });
  eq(announcements(waiting, lineView({ version: 2, log: [], turn: 1 })), ['The game has started', "greedy's turn"]);
  const playing = lineView({ turn: 1 });
  const last = { seat: 1, type: 'play', tile: '3-1', end: 'right' };
  const won = lineView({ status: 'finished', version: 18, winners: [1], log: [...playing.log, last] });
  eq(announcements(playing, won), ['greedy played 3-1 on the right', 'Game over: greedy wins.']);
  eq(gameOverTitle(lineView({ status: 'finished', winners: [0] })), 'You won!');
  eq(gameOverTitle(lineView({ status: 'finished', winners: [0, 1], seat: null })), 'Game over: Ana and greedy win.');
  eq(gameOverTitle(lineView({ status: 'aborted' })), 'The game was aborted.');
});

test('why the match ended', () => {
  const view = lineView({ rules: { target_score: 20, rounds: 13, scoring: 'mexican_penalty' } });
  eq(endReason(view, { reason: 'target_score' }), 'The target of 20 points was reached.');
  eq(endReason(view, { reason: 'fixed_rounds' }), 'All 13 rounds were played: the fewest points win.');
  eq(endReason(view, { reason: 'resigned' }, 1), 'greedy resigned.');
  eq(endReason(view, { reason: 'resigned' }), 'The match ended by resignation.');
  eq(endReason(view, { reason: 'timeout' }), 'The match ended (timeout).');
});

test('the hint above the hand follows the turn and the selection', () => {
  const view = lineView();
  eq(handHint(view, 'your-turn', null), 'Your turn: pick a highlighted tile.');
  eq(handHint(view, 'your-turn', '1-5'), 'Now pick where 1-5 goes on the table.');
  eq(handHint(lineView({ legal_moves: [{ type: 'draw' }] }), 'your-turn', null), 'Your turn: no tile fits, draw from the boneyard.');
  eq(handHint(lineView({ legal_moves: [{ type: 'pass' }] }), 'your-turn', null), 'Your turn: no tile fits, pass.');
  eq(handHint(lineView({ turn: 1 }), 'waiting', null), 'Waiting for greedy…');
  eq(handHint(view, 'over', null), '');
});

test('the goal, the places, the teams and the round\'s reason in words', () => {
  eq(goalText(lineView()), 'round 2 · play to 100');
  eq(goalText(trainView()), 'round 2 of 13');
  const view = trainView();
  eq(placeText(view, 'left', 4), 'on the left end (4)');
  eq(placeText(view, 'up', 5), "on the spinner's upper arm (5)");
  eq(placeText(view, 'train:1', 7), "on greedy's train (7)");
  eq(placeText(view, 'mexican', 12), 'on the Mexican train (12)');
  const four = lineView({
    seat: 2, team_scores: [30, 12],
    seats: ['Ana', 'Bo', 'Cy', 'Di'].map((name, seat) => ({ seat, name, kind: 'human', hand_count: 7 })),
  });
  eq(teamScoresText(four), 'Teams: Ana & You 30 – Bo & Di 12');
  eq(humanWhy(four, 'seat 1 went out; seat 2 had 3 pips'), 'Bo went out; You had 3 pips');
});
