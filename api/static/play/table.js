// The table: status line, board, hand, seats and scores, the round's result, the log, and the tools. Built
// once per open game, then updated in place on every event: each part is keyed (the hand by tile, the seats
// by seat, the log by move), and only what changed is drawn again.
//
// `t` is the open table (see play.js): its view, selected tile, busy flag, outcome, and actions.

import { h, keyed, part, piece, attr, setText } from './dom.js';
import { tileSvg, tileBack, parseTile } from './tiles.js';
import { boardItem, smallTile } from './board.js';
import { over, legalPlays, turnState, turnActions, maxPips } from './state.js';
import * as text from './text.js';
import { historyHref, replayHref } from './api.js';

const { SAY } = text;

function statusItem(t) {
  const view = t.view;
  const data = [view.variant, text.goalText(view), view.boneyard_count, view.status, Boolean(view.deadline)];
  return {
    ...piece('status', data, () => h('div', { class: 'status-line' },
      h('span', { class: 'variant' }, text.variantName(view.variant)),
      h('span', {}, data[1]),
      h('span', {}, SAY.boneyard(view.boneyard_count)),
      h('span', { class: 'status', 'data-testid': 'status', 'data-status': view.status }, view.status),
      h('span', { class: 'conn', id: 'conn' }),
      view.deadline ? h('span', { id: 'deadline', class: 'deadline' }, '') : null)),
    update: (el) => showConn(el.querySelector('#conn'), t.conn ? t.conn.state : 'offline'),
  };
}

/** The connection's state in the status line (updated on its own, as it changes). */
export function showConn(el, state) {
  if (!el) return;
  setText(el, text.CONN_TEXT[state] || state);
  attr(el, 'data-state', state);
}

export function gameOverItem(t) {
  const view = t.view;
  if (!over(view)) return null;
  if (view.status === 'aborted') {
    return piece('over', 'aborted', () => h('section', { class: 'card game-over', 'data-testid': 'game-over' }, h('h2', {}, SAY.aborted)));
  }
  const reason = t.outcome ? text.endReason(view, t.outcome, t.resigned) : null;
  const scores = view.seats.map((s) => [text.whoText(view, s.seat), view.scores[s.seat]]);
  const teams = view.team_scores ? text.teamScoresText(view) : null;
  const data = [text.gameOverTitle(view), reason, scores, teams, t.rematchState, view.next_game_id, Boolean(t.token)];
  return piece('over', data, () => h('section', { class: 'card game-over', 'data-testid': 'game-over', role: 'status' },
    h('h2', {}, text.gameOverTitle(view)),
    reason ? h('p', { 'data-testid': 'end-reason' }, reason) : null,
    h('ul', { class: 'final-scores' }, scores.map(([who, score], seat) => h('li', {},
      `${who}: `, h('strong', { 'data-testid': `final-score-${seat}` }, String(score))))),
    teams ? h('p', { 'data-testid': 'team-scores' }, teams) : null,
    h('p', {},
      t.replaying ? null : [h('a', { href: replayHref(view.id, 0), 'data-testid': 'replay-link' }, SAY.replay), ' · '],
      h('a', { href: historyHref(view.id) }, SAY.history), SAY.historyWhat, h('a', { href: '#new' }, SAY.newGameLink)),
    again(t)));
}

/** A seat offers (or accepts) the same table again; anyone follows the table once it has a next game. */
function again(t) {
  const view = t.view;
  if (view.next_game_id) {
    const where = t.token ? `#game=${view.next_game_id}` : `#watch=${view.next_game_id}`;
    return h('p', {}, h('a', { href: where, 'data-testid': 'next-game' }, SAY.nextGame));
  }
  if (!t.token) return null;
  if (t.rematchState) return h('p', { 'data-testid': 'rematch-status' }, SAY.rematchWaiting);
  return h('p', {}, h('button', { type: 'button', id: 'rematch', class: 'primary', onclick: () => t.actions.rematch() }, SAY.playAgain));
}

function handTileItem(t, tile, state) {
  const [a, b] = parseTile(tile);
  return {
    key: `tile:${tile}`,
    sig: maxPips(t.view),
    make: () => h('button', { type: 'button', 'data-key': `tile:${tile}`, 'data-tile': tile, onclick: () => t.actions.select(tile) },
      tileSvg(a, b, { upright: true, max: maxPips(t.view) })),
    update: (el) => {
      const playable = state === 'your-turn' && legalPlays(t.view, tile).length > 0;
      const selected = t.selected === tile;
      attr(el, 'class', `hand-tile ${playable ? 'playable' : ''} ${selected ? 'selected' : ''}`.trim());
      attr(el, 'aria-label', `${tile}${playable ? ', playable' : ''}`);
      attr(el, 'aria-pressed', playable ? String(selected) : null);
      attr(el, 'disabled', !playable || t.busy);
    },
  };
}

function actionItem(t, key, label, cls, onclick, testid) {
  return {
    ...piece(`action:${key}`, [label, cls], () => h('button', {
      type: 'button', class: cls, 'data-key': `action:${key}`, 'data-testid': testid, onclick,
    }, label)),
    update: (el) => attr(el, 'disabled', cls === 'primary' && t.busy),
  };
}

function handItem(t) {
  const view = t.view;
  if (!Array.isArray(view.hand)) return null;
  const state = turnState(view);
  const { draw, pass } = turnActions(view);
  return part('hand', () => h('section', { class: 'hand', 'aria-labelledby': 'hand-title' },
    h('h2', { id: 'hand-title' }, SAY.yourHand),
    h('p', { class: 'hint', 'data-testid': 'hint' }),
    h('div', { class: 'hand-tiles', role: 'group', 'aria-label': SAY.yourTiles }),
    h('div', { class: 'actions' })), (el) => {
    const [, hint, tiles, actions] = el.children;
    setText(hint, text.handHint(view, state, t.selected));
    keyed(tiles, view.hand.map((tile) => handTileItem(t, tile, state)));
    keyed(actions, [
      // The move is looked up when clicked: the button is kept from one view to the next.
      draw ? actionItem(t, 'draw', SAY.draw(view.boneyard_count), 'primary', () => t.actions.play(turnActions(t.view).draw), 'draw') : null,
      pass ? actionItem(t, 'pass', SAY.pass, 'primary', () => t.actions.play(turnActions(t.view).pass), 'pass') : null,
      t.selected ? actionItem(t, 'cancel', SAY.cancel, 'link', () => t.actions.select(null)) : null,
    ]);
  });
}

function seatItem(view, s) {
  const turn = view.status === 'playing' && view.turn === s.seat;
  const me = view.seat === s.seat;
  const data = [text.seatName(view, s.seat), me, turn, view.winners.includes(s.seat), s.kind, s.name, view.scores[s.seat], s.hand_count];
  return piece(`seat:${s.seat}`, data, () => {
    const backs = h('span', { class: 'backs', 'aria-hidden': 'true' });
    for (let i = 0; i < Math.min(s.hand_count || 0, 15); i++) backs.append(tileBack());
    const cls = `seat-card ${turn ? 'turn' : ''} ${me ? 'me' : ''} ${data[3] ? 'winner' : ''}`.trim();
    return h('li', { class: cls, 'aria-current': turn ? 'true' : null },
      h('div', { class: 'seat-head' },
        h('span', { class: 'seat-name' }, data[0], me && s.name !== SAY.you ? SAY.youMark : ''),
        turn ? h('span', { class: 'turn-flag' }, me ? SAY.yourTurn : SAY.toPlay) : null,
        h('span', { class: `kind ${s.kind}` }, s.kind === 'bot' ? SAY.computerKind : s.kind)),
      h('div', { class: 'seat-body' },
        h('span', { class: 'score' },
          h('span', { class: 'score-value', 'data-testid': `score-${s.seat}` }, String(view.scores[s.seat])), SAY.pts),
        h('span', { class: 'hand-count' }, SAY.tiles(s.hand_count)), backs));
  });
}

function claimItem(t) {
  const view = t.view;
  if (t.watch || view.seat !== null || view.status !== 'waiting') return null;
  const open = view.seats.filter((s) => s.kind === 'open').map((s) => s.seat);
  if (!open.length) return null;
  return piece('claim', open, () => {
    const name = h('input', {
      id: 'claim-name', maxlength: 40, value: '', placeholder: SAY.yourName, required: true, autocomplete: 'nickname',
    });
    return h('section', { class: 'card claim' },
      h('h2', {}, SAY.join),
      h('div', { class: 'field' }, h('label', { for: 'claim-name' }, SAY.yourName), name),
      h('div', { class: 'actions' }, open.map((seat) => h('button', {
        type: 'button', class: 'primary', 'data-testid': `claim-${seat}`, onclick: () => t.actions.claim(seat, name),
      }, SAY.takeSeat(seat)))));
  });
}

function shareItem(t) {
  const view = t.view;
  if (view.seat === null || view.status !== 'waiting') return null;
  const link = `${location.origin}/play#game=${view.id}`;
  return piece('share', link, () => {
    const input = h('input', { id: 'share-link', readonly: true, value: link, onfocus: (e) => e.target.select() });
    return h('section', { class: 'card share' },
      h('h2', {}, SAY.invite),
      h('p', {}, SAY.inviteHow),
      h('div', { class: 'field' }, h('label', { for: 'share-link' }, SAY.link), input),
      h('button', {
        type: 'button', class: 'link',
        onclick: async (e) => {
          try { await navigator.clipboard.writeText(link); e.target.textContent = SAY.copied; } catch { input.select(); }
        },
      }, SAY.copyLink));
  });
}

export function roundResultItem(t) {
  const view = t.view;
  const lr = view.last_round;
  if (!lr) return null;
  const names = view.seats.map((s) => text.whoText(view, s.seat));
  return piece('round', [lr, names], () => h('section', { class: 'card round-result', 'data-testid': 'round-result' },
    h('h2', {}, text.roundTitle(lr)),
    lr.why ? h('p', {}, text.humanWhy(view, lr.why)) : null,
    h('table', {},
      h('thead', {}, h('tr', {}, SAY.roundColumns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, view.seats.map((s) => h('tr', {},
        h('th', { scope: 'row' }, names[s.seat]),
        h('td', { class: 'left-tiles' }, (lr.hands && lr.hands[s.seat] || []).map((tile) => smallTile(view, tile))),
        h('td', {}, lr.pips_left ? String(lr.pips_left[s.seat]) : ''),
        h('td', {}, lr.points ? `+${lr.points[s.seat]}` : '')))))));
}

function logItem(t) {
  const view = t.view;
  const log = view.log || [];
  if (!log.length) return null;
  const shown = log.map((m, i) => [i, m]).slice(-12).reverse();
  return part('log', () => h('section', { class: 'card log' }, h('h2', {}), h('ol', { reversed: true, class: 'plain' })), (el) => {
    setText(el.children[0], over(view) ? SAY.lastRound : SAY.roundSoFar(view.round));
    keyed(el.children[1], shown.map(([i, m]) => {
      const line = text.describeMove(view, m);
      return { key: `${view.round}:${i}`, sig: line, make: () => h('li', {}, line) };
    }));
  });
}

function toolsItem(t) {
  const view = t.view;
  const resignable = view.seat !== null && view.status === 'playing';
  return piece('tools', [view.id, resignable, t.confirmResign], () => {
    const items = [h('a', { href: `/play/watch?game=${view.id}` }, SAY.spectatorLink)];
    if (view.status === 'playing') items.push(h('a', { href: replayHref(view.id), 'data-testid': 'replay-link' }, SAY.replayHere));
    if (resignable) {
      items.push(t.confirmResign
        ? h('span', {}, SAY.resignSure,
          h('button', { type: 'button', class: 'danger', onclick: () => t.actions.resign() }, SAY.resignYes), ' ',
          h('button', { type: 'button', class: 'link', onclick: () => t.actions.confirmResign(false) }, SAY.no))
        : h('button', { type: 'button', class: 'link', onclick: () => t.actions.confirmResign(true) }, SAY.resign));
    }
    return h('p', { class: 'tools muted' }, items.flatMap((x, i) => (i ? [' · ', x] : [x])));
  });
}

/** Draws the table's view into `root` (the table's node, made by makeTable), changing only what changed. */
export function drawTable(t, root) {
  const view = t.view;
  attr(root, 'class', `table ${t.busy ? 'busy' : ''}`.trim());
  attr(root, 'data-turn-state', turnState(view));
  attr(root, 'data-version', view.version);
  attr(root, 'data-seat', view.seat ?? '');
  const [play, side] = root.children;
  const watching = t.watch || view.status !== 'waiting' ? SAY.watching : '';
  keyed(play, [
    statusItem(t),
    gameOverItem(t),
    boardItem(t),
    handItem(t),
    view.seat === null ? piece('watching', watching, () => h('p', { class: 'muted spectating' }, watching)) : null,
  ]);
  keyed(side, [
    part('seats', () => h('ul', { class: 'seats', 'data-testid': 'seats' }), (ul) => keyed(ul, view.seats.map((s) => seatItem(view, s)))),
    view.team_scores ? piece('teams', text.teamScoresText(view), () => h('p', { class: 'teams' }, text.teamScoresText(view))) : null,
    claimItem(t),
    shareItem(t),
    roundResultItem(t),
    logItem(t),
    toolsItem(t),
  ]);
}

export function makeTable() {
  return h('div', { class: 'table', 'data-testid': 'table' }, h('div', { class: 'play-area' }), h('aside', { class: 'side' }));
}
