// Everything the page says in words: fixed phrases (SAY), names of seats, trains and variants, the
// descriptions of moves and turns (the log and the live announcements), and the match's outcome.
// Pure functions of a view (the API's game view); seats are counted from 1 in words.

import { over } from './state.js';

export const SAY = {
  unreachable: 'The service could not be reached',
  unreachableDetail: 'check your connection; retrying may help.',
  somethingWrong: 'Something went wrong',
  dismiss: 'Dismiss', dismissLabel: 'Dismiss the message',
  loading: 'Loading…', loadingGame: 'Loading the game…', loadingVariants: 'Loading the variants…',
  variantsFailed: 'The variants could not be loaded.',
  noSuchGame: 'There is no such game (or it has expired).', gameFailed: 'The game could not be loaded.',
  startNew: 'Start a new game',
  staleMove: 'The table changed before your move',
  staleMoveDetail: 'another move was played first; here is the table as it is now.',
  seatTaken: 'Seat taken', seatTakenDetail: (seat) => `someone took seat ${seat + 1} just before you.`,
  nameNeeded: 'A name is needed', nameNeededDetail: 'type your name, then take the seat.',
  watching: 'You are watching this game.',
  emptyTable: 'The table is empty: the opening tile goes here.',
  yourHand: 'Your hand', yourTiles: 'Your tiles', cancel: 'Cancel', pass: 'Pass',
  draw: (left) => `Draw (${left} left)`,
  join: 'Join this game', yourName: 'Your name', takeSeat: (seat) => `Take seat ${seat + 1}`,
  invite: 'Invite a friend', inviteHow: 'Send this link; the game starts when every open seat is taken.',
  link: 'Link', copyLink: 'Copy the link', copied: 'Copied',
  spectatorLink: 'Spectator link', resign: 'Resign', resignSure: 'Resign this game? ', resignYes: 'Yes, resign', no: 'No',
  history: 'The full history', historyWhat: ' (every deal and the seed) · ', playAgain: 'Play again', newGameLink: 'New game',
  rematchWaiting: 'Waiting for the other players to accept…', rematchOver: (status) => `No rematch: the offer was ${status}.`,
  nextGame: 'Follow the table to its next game',
  aborted: 'The game was aborted.', youWon: 'You won!',
  roundColumns: ['Player', 'Tiles left', 'Pips', 'Points'],
  markerTitle: 'Marker: this train is open to everyone', marker: 'marker: open to all',
  lobbyTitle: 'Games waiting for players', lobbyEmpty: 'No game is waiting. ', startOne: 'Start one',
  newGame: 'New game', variant: 'Variant', players: 'Players', start: 'Start the game',
  find: 'Find a game', findHint: 'Or let the service find other players: computer players fill the table after 10 s.',
  seeking: 'Looking for players…', cancelSeek: 'Stop looking', seekOver: (status) => `No game found: the search was ${status}.`,
  whoSits: 'Who sits at the table', you: 'You', openSeat: 'Open seat (invite a friend)',
  computer: (id) => `Computer: ${id}`, seat: (i) => `Seat ${i + 1}`, playersCount: (n) => `${n} players`,
  teams: 'Teams: seats 1 & 3 against 2 & 4', rounds: 'Rounds', playTo: 'Play to',
  points: (n) => `${n} points`, byDefault: 'default', listed: 'List open seats in the lobby',
  allComputers: 'Choose "Computer" for every seat to watch the computer players.', yourGames: 'Your games',
  savedGame: (seat) => ` · seat ${seat + 1}`,
  lobbyGame: (seats) => ` · ${seats.length} seats · ${seats.map((s) => (s.kind === 'open' ? 'open' : s.name || s.kind)).join(', ')}`,
  titleNew: 'New game · Dominoes', titleLobby: 'Lobby · Dominoes', titleGame: (id) => `Game ${id} · Dominoes`,
  secondsLeft: (n) => `${n} s left`, boneyard: (n) => `boneyard ${n}`, pts: ' pts',
  tiles: (n) => `${n} tile${n === 1 ? '' : 's'}`, yourTurn: 'your turn', toPlay: 'to play', computerKind: 'computer',
  youMark: ' (you)', lastRound: 'The last round', roundSoFar: (n) => `Round ${n} so far`,
  openRound: 'to open the round', play: (tile, where) => `Play ${tile} ${where}`,
  engine: (tile) => (tile ? `Engine ${tile}` : 'No engine yet'), trainEnd: (n) => `end ${n}`,
  spinner: (tile) => `Spinner ${tile}. `,
  replay: 'Replay', replayHere: 'Replay the moves so far', replayTitle: (id) => `Replay of game ${id}`,
  titleReplay: (id) => `Replay ${id} · Dominoes`, replayControls: 'Step through the game',
  first: 'First', back: 'Back', forward: 'Forward', last: 'Last',
  firstLabel: 'Go to the first position (Home)', backLabel: 'Back one move (Left arrow)',
  forwardLabel: 'Forward one move (Right arrow)', lastLabel: 'Go to the last position (End)',
  stepOf: (i, n, version) => `Step ${i + 1} of ${n} · version ${version}`,
  keysHint: 'Keys: Left and Right step, Home and End jump.',
  replayLive: 'This game is still being played: the replay shows the moves so far, without the hidden tiles, and follows the game.',
  replayCatchUp: 'Load the latest moves', watchLive: 'Watch it live',
  replayFinished: 'The game is over: every hand is shown.',
  replayUnrevealed: 'The game is over, but its deals are not revealed yet (an arena\'s games are revealed when the arena ends): hands are hidden.', nothingToReplay: 'Nothing has been played in this game yet.',
  moves: 'Moves', hands: 'Hands', handsHidden: 'hidden', analysis: 'Analysis',
  analysisNone: 'This game has not been analysed.', analyse: 'Analyse this game',
  analysisQueued: 'The analysis is queued…', analysisRunning: (p) => `Analysing… ${Math.round(p * 100)}%`,
  analysisFailed: 'The analysis failed.', analysisLive: 'An analysis can be asked for once the game is over.',
  noChoice: 'No choice to weigh at this step.',
  played: 'Played', best: 'Best', loss: 'Loss', value: 'Value', accuracy: 'Accuracy',
  lossShort: (loss) => ` (loss ${loss.toFixed(2)})`,
  lossText: (loss) => (loss <= 0 ? '0 (the best move)' : `${loss.toFixed(2)} point${loss === 1 ? '' : 's'}`),
  roundDealt: (n) => `Round ${n} dealt.`, gameStart: 'The start of the game.', afterHint: ' after a hint',
  scoresByRound: 'Scores by round', roundWord: 'Round', total: 'Total', roundHeading: (n) => `Round ${n}`,
  openTable: 'The game\'s table', loadingReplay: 'Loading the replay…', replayFailed: 'The replay could not be loaded.',
};

export const VARIANT_NAMES = {
  draw: 'Draw', draw_family: 'Draw (family)', block: 'Block', all_fives: 'All Fives (Muggins)',
  mexican_train: 'Mexican Train',
};

export const variantName = (id) => VARIANT_NAMES[id] || id;

export const CONN_TEXT = {
  live: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…', polling: 'live (polling)',
  offline: 'not live', ended: 'game over',
};

export function seatName(view, seat) {
  const s = view.seats[seat];
  if (!s) return `Seat ${seat + 1}`;
  if (s.kind === 'open') return `Seat ${seat + 1} (open)`;
  if (!s.name) return `Seat ${seat + 1}`;
  // Two computer players of one strategy share a name: tell them apart by seat.
  const twin = view.seats.some((o) => o.seat !== seat && o.name === s.name);
  return twin ? `${s.name} (seat ${seat + 1})` : s.name;
}

export function whoText(view, seat) {
  return view.seat === seat ? 'You' : seatName(view, seat);
}

export function trainName(view, owner) {
  if (owner === null || owner === undefined) return 'the Mexican train';
  return owner === view.seat ? 'your train' : `${seatName(view, owner)}'s train`;
}

/** A train's heading: "Mexican train", "Your train", "Ana's train". */
export function trainTitle(view, owner) {
  return owner === null ? 'Mexican train' : trainName(view, owner).replace(/^y/, 'Y');
}

/** Where a tile is played, for its button: "on the left end (4)", "on your train (6)". */
export function placeText(view, end, value) {
  if (end === 'start') return 'here';
  if (end === 'up') return `on the spinner's upper arm (${value})`;
  if (end === 'down') return `on the spinner's lower arm (${value})`;
  if (end === 'left' || end === 'right') return `on the ${end} end (${value})`;
  return `on ${trainName(view, end === 'mexican' ? null : Number(end.slice(6)))} (${value})`;
}

export function describeMove(view, m) {
  const who = whoText(view, m.seat);
  if (m.type === 'draw') return `${who} drew a tile`;
  if (m.type === 'pass') return `${who} passed`;
  if (m.type === 'play') {
    let where = '';
    if (m.end === 'mexican') where = ' on the Mexican train';
    else if (m.end && m.end.startsWith('train:')) where = ` on ${trainName(view, Number(m.end.slice(6)))}`;
    else if (m.end) where = ` on the ${m.end}`;
    return `${who} played ${m.tile}${where}`;
  }
  return `${who}: ${m.type}`;
}

export function turnText(view) {
  if (view.turn === null || view.turn === undefined) return '';
  return view.turn === view.seat ? 'Your turn' : `${seatName(view, view.turn)}'s turn`;
}

/** The hint above the hand, for the table's turn state (see state.turnState). */
export function handHint(view, state, selected) {
  const legal = view.legal_moves || [];
  if (state === 'your-turn') {
    if (selected) return `Now pick where ${selected} goes on the table.`;
    if (legal.some((m) => m.type === 'play')) return 'Your turn: pick a highlighted tile.';
    if (legal.some((m) => m.type === 'draw')) return 'Your turn: no tile fits, draw from the boneyard.';
    return 'Your turn: no tile fits, pass.';
  }
  if (state === 'waiting') return `Waiting for ${view.turn !== null ? whoText(view, view.turn) : 'the table'}…`;
  if (state === 'waiting-players') return 'Waiting for the open seats to be taken.';
  return '';
}

export function goalText(view) {
  const rules = view.rules || {};
  return rules.match_end === 'fixed_rounds'
    ? `round ${view.round} of ${rules.rounds}`
    : `round ${view.round} · play to ${rules.target_score}`;
}

export function endsText(ends) {
  const parts = [];
  for (const side of ['left', 'right', 'up', 'down']) {
    if (ends[side] !== null && ends[side] !== undefined) parts.push(`${side} ${ends[side]}`);
  }
  return parts.length ? `Open ends: ${parts.join(' · ')}` : '';
}

export function countText(count) {
  return `Ends count ${count}${count > 0 && count % 5 === 0 ? ' (scores)' : ''}. `;
}

export function roundTitle(lr) {
  const how = { domino: 'went out', blocked: 'blocked', abandoned: 'ended when the target was reached' }[lr.end] || lr.end;
  return `Round ${lr.round}: ${how}`;
}

export function humanWhy(view, why) {
  return String(why).replace(/seat (\d+)/g, (_, n) => whoText(view, Number(n)));
}

export function gameOverTitle(view) {
  if (view.status === 'aborted') return SAY.aborted;
  if (view.seat !== null && view.winners.includes(view.seat)) return SAY.youWon;
  const winners = view.winners.map((s) => whoText(view, s));
  return `Game over: ${winners.join(' and ') || 'no winner'} ${winners.length > 1 ? 'win' : 'wins'}.`;
}

/** A team by its partners (seats i and i + 2: partners sit opposite). */
export function teamText(view, team) {
  return `${whoText(view, team)} & ${whoText(view, team + 2)}`;
}

export function teamScoresText(view) {
  return `Teams: ${teamText(view, 0)} ${view.team_scores[0]} – ${teamText(view, 1)} ${view.team_scores[1]}`;
}

/** Why the match ended: `outcome` from the game_ended event or the history; `resigned` the seat, if any. */
export function endReason(view, outcome, resigned) {
  const reason = outcome.reason;
  if (reason === 'resigned') return resigned !== undefined ? `${whoText(view, resigned)} resigned.` : 'The match ended by resignation.';
  if (reason === 'target_score') return `The target of ${view.rules.target_score} points was reached.`;
  if (reason === 'fixed_rounds') {
    const fewest = view.rules.scoring === 'mexican_penalty' ? ': the fewest points win' : '';
    return `All ${view.rules.rounds} rounds were played${fewest}.`;
  }
  return `The match ended (${reason}).`;
}

export function firstTurnsText(view, seats) {
  return `Opening turns still to come: ${seats.map((s) => whoText(view, s)).join(', ')}.`;
}

export function pendingText(doubles) {
  return `Double ${doubles.join(', ')} must be covered before anything else is played.`;
}

/**
 * What a screen reader hears when the view moves on from `prev` (null: the table just opened): each move
 * since, a finished round, the game's start and end, and whose turn it is.
 */
export function announcements(prev, view) {
  if (prev && view.version <= prev.version) return [];
  const out = [];
  if (prev && prev.status === 'waiting' && view.status === 'playing') out.push('The game has started');
  let moves = [];
  if (prev && view.round === prev.round) moves = (view.log || []).slice((prev.log || []).length);
  else if (prev) {
    if (view.last_round && (!prev.last_round || prev.last_round.round !== view.last_round.round)) {
      out.push(roundTitle(view.last_round));
    }
    if (view.round !== view.last_round?.round) moves = view.log || [];
  }
  for (const m of moves) out.push(describeMove(view, m));
  if (over(view)) {
    if (!prev || !over(prev)) out.push(gameOverTitle(view));
  } else if (view.status === 'playing' && (!prev || moves.length || prev.turn !== view.turn || prev.status !== 'playing')) {
    out.push(turnText(view));
  }
  return out.filter(Boolean);
}

/** A move as the analysis names it ({type, tile, end}): "6-4 on the left", "draw", "pass". */
export function moveText(move) {
  if (move.type !== 'play') return move.type;
  if (!move.end) return `${move.tile} to open`;
  if (move.end === 'mexican') return `${move.tile} on the Mexican train`;
  if (move.end.startsWith('train:')) return `${move.tile} on train ${Number(move.end.slice(6)) + 1}`;
  return `${move.tile} on the ${move.end}`;
}

/** What a replay step shows, in words (its caption, announced as it changes). */
export function stepText(step) {
  // A finished game's history names the tiles drawn: say which.
  const moves = step.moves.map((m) => (m.type === 'draw' && m.tile ? `${whoText(step, m.seat)} drew ${m.tile}` : describeMove(step, m))
    + (m.hinted ? SAY.afterHint : ''));
  let parts = moves;
  if (step.kind === 'deal') parts = [...moves, SAY.roundDealt(step.round)];
  else if (step.kind === 'round') parts = [...moves, roundTitle(step.last_round)];
  else if (step.kind === 'end') {
    const ended = step.last_round && step.last_round.round === step.round ? roundTitle(step.last_round) : '';
    parts = [...moves, ended, gameOverTitle(step), step.outcome ? endReason(step, step.outcome, step.resigned) : ''];
  }
  const said = parts.filter(Boolean).map((p) => p.replace(/[.!]$/, ''));
  return said.length ? `${said.join('. ')}.` : SAY.gameStart;
}

/** A seat's summary in an analysis: "Ana: accuracy 80%, mean loss 0.42". */
export function accuracyText(view, summary) {
  const who = seatName(view, summary.seat);
  if (summary.accuracy === null || summary.accuracy === undefined) return `${who}: no choices`;
  return `${who}: accuracy ${Math.round(summary.accuracy)}%, mean loss ${summary.mean_loss.toFixed(2)}`;
}
