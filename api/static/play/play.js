// The domino-service web client: public API only (/v1/...), live updates by Server-Sent Events.
//
// Pages (in the URL fragment, so nothing secret ever reaches a server log):
//   #new            create a game (pick a variant, computer players or open seats)
//   #lobby          games waiting for players
//   #game=<id>      a table: your seat if this browser holds its token, else the spectator's view
//                   (with "take this seat" for open seats: the link to share with a friend)
//   #watch=<id>     the spectator's table (also /play/watch?game=<id>)
//   /play/replay?game=<id>&v=<version>   a game step by step (replay.js)
//
// The modules: api.js (the API client and the seats held), connection.js (the live connection), state.js
// and layout.js (pure: the table's state, where tiles lie), text.js (every word shown or announced),
// dom.js, board.js and table.js (drawing, only what changed), forms.js (new game, lobby), notices.js (the
// error banner and the live region). This one routes, and holds the open table and its actions.

import * as client from './api.js';
import { ApiError } from './api.js';
import { Connection } from './connection.js';
import { acceptView, legalPlays, over } from './state.js';
import { SAY, announcements } from './text.js';
import { put, h } from './dom.js';
import { drawTable, makeTable, showConn } from './table.js';
import { showNewGame, showLobby } from './forms.js';
import { showReplay } from './replay.js';
import { showError, clearError, clearNetworkError, announce, clearAnnouncements } from './notices.js';

const $app = document.getElementById('app');
let table = null; // the open table (see openTable)

// Bumped on every navigation: a page still loading when the user moved on must not draw over the new one.
let routeSeq = 0;

function route() {
  routeSeq += 1;
  const seq = routeSeq;
  const current = () => seq === routeSeq;
  closeTable();
  clearError();
  const params = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const path = location.pathname.replace(/\/$/, '');
  if (path === '/play/replay' && query.get('game')) {
    return showReplay($app, query.get('game'), query.has('v') ? Number(query.get('v')) : null, current);
  }
  if (path === '/play/watch' && query.get('game') && !location.hash) {
    return openTable(query.get('game'), { watch: true });
  }
  if (params.get('game')) return openTable(params.get('game'), { watch: false });
  if (params.get('watch')) return openTable(params.get('watch'), { watch: true });
  if (params.has('lobby')) return showLobby($app, current);
  return showNewGame($app, current);
}

// The skip link's #app moves the focus only: it is no page of its own.
window.addEventListener('hashchange', () => { if (location.hash !== '#app') route(); });

// ---------------------------------------------------------------- the open table

function closeTable() {
  clearAnnouncements();
  if (!table) return;
  table.closed = true;
  if (table.conn) table.conn.close();
  clearInterval(table.clock);
  table = null;
}

async function openTable(id, { watch }) {
  const saved = watch ? null : client.loadSeat(id);
  const t = {
    id, watch,
    token: saved ? saved.token : null,
    view: null, selected: null, busy: false, confirmResign: false,
    refreshing: false, dirty: false, closed: false, clock: null, root: null, conn: null, rematchState: null,
  };
  t.actions = {
    select: (tile) => selectTile(t, tile),
    play: (move) => sendMove(t, move),
    claim: (seat, input) => claimSeat(t, seat, input),
    resign: () => resign(t),
    rematch: () => rematch(t),
    confirmResign: (yes) => { t.confirmResign = yes; draw(t); },
  };
  table = t;
  document.title = SAY.titleGame(id);
  put($app, h('p', { class: 'loading' }, SAY.loadingGame));
  try {
    await refresh(t);
  } catch (err) {
    if (t.token && err instanceof ApiError && err.status === 401) {
      client.forgetSeat(id); // the seat's token is no longer valid here (an expired game, another server)
      t.token = null;
      try { await refresh(t); } catch (err2) { return tableFailed(err2); }
    } else {
      return tableFailed(err);
    }
  }
  if (t.closed) return;
  t.clock = setInterval(() => tick(t), 1000);
  t.conn = new Connection(id, t.token, {
    version: () => t.view.version,
    over: () => over(t.view),
    event: (event) => note(t, event),
    refresh: () => refresh(t),
    state: (state) => showConn(document.getElementById('conn'), state),
    error: showError,
    back: clearNetworkError,
  });
  if (over(t.view)) t.conn.end();
  else t.conn.connect();
}

function tableFailed(err) {
  showError(err);
  put($app, h('section', { class: 'card' },
    h('p', {}, err instanceof ApiError && err.status === 404 ? SAY.noSuchGame : SAY.gameFailed),
    h('p', {}, h('a', { href: '#new' }, SAY.startNew))));
}

// Fetch the view; concurrent calls coalesce (one more fetch after the one in flight).
async function refresh(t) {
  if (t.refreshing) { t.dirty = true; return; }
  t.refreshing = true;
  try {
    do {
      t.dirty = false;
      const view = await client.getView(t.id, t.token);
      if (t.closed) return;
      setView(t, view);
    } while (t.dirty);
  } finally {
    t.refreshing = false;
  }
}

function setView(t, view) {
  const before = t.view;
  ({ view: t.view, selected: t.selected } = acceptView(t.view, t.selected, view));
  if (t.view !== before) announce(announcements(before, t.view));
  // Drawn again even when an older view was let go: the move is no longer pending, its buttons come back.
  draw(t);
  if (over(t.view)) {
    if (t.conn) t.conn.end();
    learnOutcome(t);
  }
}

// What the events say that the view does not: who resigned, and why the match ended.
function note(t, event) {
  if (event.type === 'resigned') t.resigned = event.seat;
  if (event.type === 'game_ended') t.outcome = { reason: event.reason, winners: event.winners };
}

// Why the match ended, for a page opened after the end (the events that said so were not followed): once,
// from the history's outcome and its `resigned` event.
function learnOutcome(t) {
  if (t.outcome !== undefined) return;
  t.outcome = null;
  client.getHistory(t.id, t.token).then((history) => {
    const resigned = history.events.find((e) => e.type === 'resigned');
    if (resigned) t.resigned = resigned.seat;
    t.outcome = history.outcome;
    if (!t.closed) draw(t);
  }).catch(() => {});
}

function tick(t) {
  const el = document.getElementById('deadline');
  if (!el || !t.view || !t.view.deadline) return;
  const left = Math.max(0, Math.round(t.view.deadline - Date.now() / 1000));
  el.textContent = SAY.secondsLeft(left);
}

// Draws the table, keeping the focus where it was (or on the next thing to do when its button went).
function draw(t) {
  if (t.closed || !t.view) return;
  const focused = document.activeElement;
  const focusKey = focused && focused.dataset ? focused.dataset.key : null;
  if (!t.root || !$app.contains(t.root)) {
    t.root = makeTable();
    put($app, t.root);
  }
  drawTable(t, t.root);
  tick(t);
  if (!focusKey || document.activeElement === focused) return;
  const again = $app.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
  if (again && !again.disabled) again.focus();
  else if (/^(tile|target|action):/.test(focusKey)) {
    const next = $app.querySelector('.target, .hand-tile:not([disabled]), .actions button:not([disabled])');
    if (next) next.focus();
  }
}

// ---------------------------------------------------------------- moves

function selectTile(t, tile) {
  t.selected = t.selected === tile ? null : tile;
  draw(t);
  // Keyboard users: go straight to the first place the tile can go.
  if (t.selected) {
    const first = $app.querySelector('.target');
    if (first && document.activeElement && document.activeElement.classList.contains('hand-tile')) first.focus();
  }
}

async function sendMove(t, move) {
  if (t.busy || !t.view || !move) return;
  t.busy = true;
  clearError();
  draw(t);
  try {
    const view = await client.playMove(t.id, t.token, { ...move, expected_version: t.view.version });
    t.selected = null;
    t.busy = false;
    if (!t.closed) setView(t, view);
  } catch (err) {
    t.busy = false;
    if (err instanceof ApiError && err.status === 412) {
      showError(new ApiError(SAY.staleMove, SAY.staleMoveDetail, 412, err.problem));
    } else {
      showError(err);
    }
    if (!t.closed) {
      draw(t);
      refresh(t).catch(() => {});
    }
  }
}

async function claimSeat(t, seat, input) {
  const name = input.value.trim();
  if (!name) {
    input.focus();
    showError(new ApiError(SAY.nameNeeded, SAY.nameNeededDetail));
    return;
  }
  clearError();
  try {
    const claimed = await client.claimSeat(t.id, seat, name);
    client.saveSeat(t.id, claimed.seat, claimed.token, name);
    route(); // reopen the table as that seat
  } catch (err) {
    const taken = err instanceof ApiError && err.problem && err.problem.type === '/problems/seat-taken';
    showError(taken ? new ApiError(SAY.seatTaken, SAY.seatTakenDetail(seat), 409, err.problem) : err);
    refresh(t).catch(() => {});
  }
}

async function resign(t) {
  clearError();
  try {
    const view = await client.resign(t.id, t.token);
    t.confirmResign = false;
    setView(t, view);
  } catch (err) {
    showError(err);
  }
}

/** Play again: offer or accept the same table; once every seat has accepted, open the new game at this
 * seat (its token comes from the offer). Until then the offer is read every 2 s. */
async function rematch(t) {
  clearError();
  t.rematchState = 'waiting';
  draw(t);
  try {
    const answer = await client.offerRematch(t.id, t.token);
    let next = answer.game ? { id: answer.game.id, seat: answer.game.seat, token: answer.token } : null;
    while (!next && !t.closed) {
      await new Promise((resolve) => { setTimeout(resolve, 2000); });
      const offer = await client.getRematch(t.id, t.token);
      if (offer.status === 'created') next = { id: offer.next_game_id, seat: t.view.seat, token: offer.token };
      else if (offer.status !== 'open' && offer.status !== 'creating') throw new Error(SAY.rematchOver(offer.status));
    }
    if (next && !t.closed) {
      client.saveSeat(next.id, next.seat, next.token, (client.loadSeat(t.id) || {}).name);
      location.hash = `game=${next.id}`;
    }
  } catch (err) {
    t.rematchState = null;
    showError(err);
    if (!t.closed) draw(t);
  }
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && table && table.selected) {
    const tile = table.selected;
    table.selected = null;
    draw(table);
    const el = $app.querySelector(`[data-key="${CSS.escape(`tile:${tile}`)}"]`);
    if (el) el.focus();
  }
});

// For tests and debugging: the open table's state (never holds more than the page already shows).
window.dominoClient = {
  get table() { return table && { id: table.id, view: table.view, conn: table.conn ? table.conn.state : 'offline' }; },
};

route();
