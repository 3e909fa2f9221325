// The domino-service web client: public API only (/v1/...), live updates by Server-Sent Events.
//
// Pages (in the URL fragment, so nothing secret ever reaches a server log):
//   #new            create a game (pick a variant, computer players or open seats)
//   #lobby          games waiting for players
//   #game=<id>      a table: your seat if this browser holds its token, else the spectator's view
//                   (with "take this seat" for open seats: the link to share with a friend)
//   #watch=<id>     the spectator's table (also /play/watch?game=<id>)
// Seat tokens live in localStorage under "domino.seat.<game id>"; they go only in Authorization headers.

import { tileSvg, tileBack, parseTile, isDouble } from './tiles.js';

const EVENT_TYPES = [
  'game_created', 'seat_claimed', 'game_started', 'round_started', 'tile_played', 'tile_drawn', 'passed',
  'round_ended', 'marker_placed', 'marker_removed', 'engine_double_placed', 'resigned', 'game_ended',
  'turn_started',
];
const VARIANT_NAMES = {
  draw: 'Draw', draw_family: 'Draw (family)', block: 'Block', all_fives: 'All Fives (Muggins)',
  mexican_train: 'Mexican Train',
};
const SEAT_KEY = (id) => `domino.seat.${id}`;

// ---------------------------------------------------------------- small helpers

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// replaceChildren() would print null as "null": drop the empty parts.
function put(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class ApiError extends Error {
  constructor(title, detail, status, problem) {
    super(detail ? `${title}: ${detail}` : title);
    this.title = title;
    this.detail = detail;
    this.status = status;
    this.problem = problem;
  }
}

async function api(method, path, { token, body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let resp;
  try {
    resp = await fetch(path, {
      method, headers, signal, cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError('The service could not be reached', 'check your connection; retrying may help.', 0, null);
  }
  const type = resp.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await resp.json().catch(() => null) : null;
  if (!resp.ok) {
    const title = (data && data.title) || `HTTP ${resp.status}`;
    throw new ApiError(title, (data && data.detail) || '', resp.status, data);
  }
  return data;
}

function loadSeat(id) {
  try {
    const raw = localStorage.getItem(SEAT_KEY(id));
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function saveSeat(id, seat, token, name) {
  try {
    localStorage.setItem(SEAT_KEY(id), JSON.stringify({ seat, token, name, saved: Date.now() }));
  } catch { /* private mode: the seat lasts as long as the page */ }
}

function forgetSeat(id) {
  try { localStorage.removeItem(SEAT_KEY(id)); } catch { /* ignore */ }
}

function savedGames() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith('domino.seat.')) {
        const v = JSON.parse(localStorage.getItem(key) || 'null');
        if (v) out.push({ id: key.slice('domino.seat.'.length), ...v });
      }
    }
  } catch { /* ignore */ }
  return out.sort((x, y) => (y.saved || 0) - (x.saved || 0));
}

// ---------------------------------------------------------------- errors shown in words

const $error = document.getElementById('error');

function showError(err) {
  if (err && err.name === 'AbortError') return;
  const title = err instanceof ApiError ? err.title : 'Something went wrong';
  const detail = err instanceof ApiError ? err.detail : String((err && err.message) || err);
  if (err instanceof ApiError && err.status === 0) $error.dataset.network = '1';
  else delete $error.dataset.network;
  put($error, 
    h('strong', { class: 'error-title' }, title),
    detail ? h('span', { class: 'error-detail' }, ' ', detail) : null,
    h('button', { type: 'button', class: 'link', 'aria-label': 'Dismiss the message', onclick: clearError }, 'Dismiss'),
  );
  $error.hidden = false;
}

function clearError() {
  delete $error.dataset.network;
  $error.hidden = true;
  put($error, );
}

// ---------------------------------------------------------------- catalogue (variants and bots)

let catalogue = null;

async function loadCatalogue() {
  if (!catalogue) {
    const [variants, bots] = await Promise.all([api('GET', '/v1/variants'), api('GET', '/v1/bots')]);
    catalogue = { variants: variants.variants, bots };
  }
  return catalogue;
}

function perPlayers(value, players) {
  if (value && typeof value === 'object') return value[String(players)];
  return value;
}

// ---------------------------------------------------------------- router

const $app = document.getElementById('app');
let table = null; // the open table's state (see openTable)

// Bumped on every navigation: a page still loading when the user moved on must not draw over the new one.
let routeSeq = 0;

function route() {
  routeSeq += 1;
  closeTable();
  clearError();
  const params = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  if (location.pathname.replace(/\/$/, '') === '/play/watch' && query.get('game') && !location.hash) {
    return openTable(query.get('game'), { watch: true });
  }
  if (params.get('game')) return openTable(params.get('game'), { watch: false });
  if (params.get('watch')) return openTable(params.get('watch'), { watch: true });
  if (params.has('lobby')) return showLobby();
  return showNewGame();
}

window.addEventListener('hashchange', route);

// ---------------------------------------------------------------- new game

async function showNewGame() {
  document.title = 'New game · Dominoes';
  put($app, h('p', { class: 'loading' }, 'Loading the variants…'));
  const seq = routeSeq;
  let cat;
  try {
    cat = await loadCatalogue();
    if (seq !== routeSeq) return;
  } catch (err) {
    if (seq !== routeSeq) return;
    showError(err);
    put($app, h('p', {}, 'The variants could not be loaded.'));
    return;
  }
  const form = h('form', { class: 'card new-game', 'aria-labelledby': 'new-title' });
  const variantSel = h('select', { id: 'variant', name: 'variant' },
    cat.variants.map((v) => h('option', { value: v.id }, VARIANT_NAMES[v.id] || v.id)));
  variantSel.value = 'draw';
  const playersSel = h('select', { id: 'players', name: 'players' });
  const nameInput = h('input', { id: 'name', name: 'name', value: 'You', maxlength: 40, required: true, autocomplete: 'nickname' });
  const seatsBox = h('fieldset', { class: 'seats-choice' });
  const optionsBox = h('div', { class: 'options' });
  const listed = h('input', { type: 'checkbox', id: 'listed', checked: true });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'start' }, 'Start the game');

  function variant() {
    return cat.variants.find((v) => v.id === variantSel.value);
  }

  function fillPlayers() {
    const v = variant();
    const max = Math.min(v.players.advertised_max || v.players.max, v.players.max);
    const keep = Number(playersSel.value) || 2;
    playersSel.replaceChildren();
    for (let n = v.players.min; n <= max; n++) playersSel.append(h('option', { value: n }, `${n} players`));
    playersSel.value = String(Math.min(Math.max(keep, v.players.min), max));
    fillSeats();
  }

  function seatChoice(i, previous) {
    const options = [
      i === 0 ? h('option', { value: 'me' }, 'You') : null,
      ...cat.bots.map((b) => h('option', { value: `bot:${b.id}` }, `Computer: ${b.id}`)),
      h('option', { value: 'open' }, 'Open seat (invite a friend)'),
    ];
    const sel = h('select', { id: `seat-${i}`, name: `seat-${i}`, 'data-seat': i }, options);
    sel.value = previous || (i === 0 ? 'me' : 'bot:greedy');
    if (!sel.value) sel.selectedIndex = 0;
    return h('div', { class: 'seat-row' }, h('label', { for: `seat-${i}` }, `Seat ${i + 1}`), sel);
  }

  function fillSeats() {
    const n = Number(playersSel.value);
    const previous = [...seatsBox.querySelectorAll('select')].map((s) => s.value);
    seatsBox.replaceChildren(h('legend', {}, 'Who sits at the table'));
    for (let i = 0; i < n; i++) seatsBox.append(seatChoice(i, previous[i]));
    fillOptions();
  }

  function fillOptions() {
    const v = variant();
    const n = Number(playersSel.value);
    optionsBox.replaceChildren();
    if (n === 4 && v.defaults.teams !== undefined) {
      // Seats 1 and 3 play seats 2 and 4 (partners sit opposite).
      optionsBox.append(h('div', { class: 'field check' },
        h('input', { type: 'checkbox', id: 'teams' }),
        h('label', { for: 'teams' }, 'Teams: seats 1 & 3 against 2 & 4')));
    }
    if (v.defaults.match_end === 'fixed_rounds' || v.defaults.rounds !== undefined || v.id === 'mexican_train') {
      optionsBox.append(h('div', { class: 'field' },
        h('label', { for: 'rounds' }, 'Rounds'),
        h('input', { id: 'rounds', type: 'number', min: 1, max: 13, placeholder: 'default', inputmode: 'numeric' })));
    } else {
      const def = perPlayers(v.defaults.target_score, n);
      optionsBox.append(h('div', { class: 'field' },
        h('label', { for: 'target' }, 'Play to'),
        h('input', { id: 'target', type: 'number', min: 1, max: 1000, placeholder: def ? `${def} points` : 'default', inputmode: 'numeric' })));
    }
  }

  variantSel.addEventListener('change', fillPlayers);
  playersSel.addEventListener('change', fillSeats);
  fillPlayers();

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearError();
    const seats = [];
    const selects = [...seatsBox.querySelectorAll('select')];
    let mine = null;
    selects.forEach((sel, i) => {
      if (sel.value === 'me') {
        mine = i;
        seats.push({ name: nameInput.value.trim() || 'You' });
      } else if (sel.value === 'open') seats.push({ open: true });
      else seats.push({ bot: sel.value.slice(4) });
    });
    const rules = {};
    const target = form.querySelector('#target');
    const rounds = form.querySelector('#rounds');
    if (target && target.value) rules.target_score = Number(target.value);
    if (rounds && rounds.value) rules.rounds = Number(rounds.value);
    const teams = form.querySelector('#teams');
    if (teams && teams.checked) rules.teams = 'partners_opposite';
    const body = { variant: variantSel.value, seats, unlisted: !listed.checked };
    if (Object.keys(rules).length) body.rules = rules;
    submit.disabled = true;
    try {
      const created = await api('POST', '/v1/games', { body });
      const id = created.game.id;
      const tok = created.tokens.find((t) => t.seat === mine);
      if (tok) {
        saveSeat(id, tok.seat, tok.token, nameInput.value.trim());
        location.hash = `game=${id}`;
      } else {
        location.hash = `watch=${id}`;
      }
    } catch (err) {
      showError(err);
    } finally {
      submit.disabled = false;
    }
  });

  form.append(
    h('h1', { id: 'new-title' }, 'New game'),
    h('div', { class: 'field' }, h('label', { for: 'variant' }, 'Variant'), variantSel),
    h('div', { class: 'field' }, h('label', { for: 'players' }, 'Players'), playersSel),
    h('div', { class: 'field' }, h('label', { for: 'name' }, 'Your name'), nameInput),
    seatsBox,
    optionsBox,
    h('div', { class: 'field check' }, listed, h('label', { for: 'listed' }, 'List open seats in the lobby')),
    h('p', { class: 'hint' }, 'Choose "Computer" for every seat to watch the computer players.'),
    submit,
  );
  const mine = savedGames().slice(0, 8);
  put($app, 
    form,
    mine.length ? h('section', { class: 'card' }, h('h2', {}, 'Your games'),
      h('ul', { class: 'plain' }, mine.map((g) => h('li', {}, h('a', { href: `#game=${g.id}` }, `${g.id}`), ` · seat ${g.seat + 1}`)))) : null,
  );
}

// ---------------------------------------------------------------- lobby

async function showLobby() {
  document.title = 'Lobby · Dominoes';
  put($app, h('section', { class: 'card' }, h('h1', {}, 'Games waiting for players'), h('p', { class: 'loading' }, 'Loading…')));
  const seq = routeSeq;
  try {
    const page = await api('GET', '/v1/games?status=waiting&limit=50');
    if (seq !== routeSeq) return;
    const rows = page.games.map((g) => h('li', { class: 'lobby-game' },
      h('a', { href: `#game=${g.id}` }, `${VARIANT_NAMES[g.variant] || g.variant}`),
      ` · ${g.seats.length} seats · `,
      g.seats.map((s) => (s.kind === 'open' ? 'open' : s.name || s.kind)).join(', ')));
    put($app, h('section', { class: 'card' },
      h('h1', {}, 'Games waiting for players'),
      rows.length ? h('ul', { class: 'plain' }, rows) : h('p', {}, 'No game is waiting. ', h('a', { href: '#new' }, 'Start one'), '.')));
  } catch (err) {
    if (seq === routeSeq) showError(err);
  }
}

// ---------------------------------------------------------------- the table

function closeTable() {
  if (!table) return;
  table.closed = true;
  if (table.es) table.es.close();
  if (table.poll) table.poll.abort();
  clearInterval(table.clock);
  table = null;
}

async function openTable(id, { watch }) {
  const saved = watch ? null : loadSeat(id);
  table = {
    id, watch,
    token: saved ? saved.token : null,
    view: null, selected: null, busy: false, confirmResign: false,
    es: null, poll: null, opened: false, failures: 0, refreshing: false, dirty: false,
    conn: 'offline', closed: false, clock: null,
  };
  const t = table;
  document.title = `Game ${id} · Dominoes`;
  put($app, h('p', { class: 'loading' }, 'Loading the game…'));
  try {
    await refresh(t);
  } catch (err) {
    if (t.token && err instanceof ApiError && err.status === 401) {
      forgetSeat(id); // the seat's token is no longer valid here (an expired game, another server)
      t.token = null;
      try { await refresh(t); } catch (err2) { return tableFailed(err2); }
    } else {
      return tableFailed(err);
    }
  }
  if (t.closed) return;
  t.clock = setInterval(() => tick(t), 1000);
  connect(t);
}

function tableFailed(err) {
  showError(err);
  put($app, h('section', { class: 'card' },
    h('p', {}, err instanceof ApiError && err.status === 404 ? 'There is no such game (or it has expired).' : 'The game could not be loaded.'),
    h('p', {}, h('a', { href: '#new' }, 'Start a new game'))));
}

const over = (view) => view.status === 'finished' || view.status === 'aborted';

// Fetch the view; concurrent calls coalesce (one more fetch after the one in flight).
async function refresh(t) {
  if (t.refreshing) { t.dirty = true; return; }
  t.refreshing = true;
  try {
    do {
      t.dirty = false;
      const view = await api('GET', `/v1/games/${encodeURIComponent(t.id)}`, { token: t.token });
      if (t.closed) return;
      setView(t, view);
    } while (t.dirty);
  } finally {
    t.refreshing = false;
  }
}

function setView(t, view) {
  // An older answer arriving late (our move's, after the stream already fetched the bot's reply) keeps the
  // newer view, but the table is still drawn again: the move is no longer pending, so its buttons come back.
  if (!t.view || view.version >= t.view.version) {
    t.view = view;
    if (t.selected && !legalPlays(view, t.selected).length) t.selected = null;
  }
  renderTable(t);
  if (over(t.view)) {
    stopStream(t);
    learnOutcome(t);
  }
}

function legalPlays(view, tile) {
  return (view.legal_moves || []).filter((m) => m.type === 'play' && m.tile === tile);
}

// ---------------------------------------------------------------- live updates

function setConn(t, state) {
  t.conn = state;
  const el = document.getElementById('conn');
  if (el) {
    el.textContent = CONN_TEXT[state] || state;
    el.dataset.state = state;
  }
}

const CONN_TEXT = { live: 'live', connecting: 'connecting…', reconnecting: 'reconnecting…', polling: 'live (polling)', offline: 'not live', ended: 'game over' };

function stopStream(t) {
  if (t.es) { t.es.close(); t.es = null; }
  if (t.poll) { t.poll.abort(); t.poll = null; }
  setConn(t, 'ended');
}

// Server-Sent Events: a seat opens the stream with a short-lived ticket (EventSource sends no headers; the
// token never goes in a URL); a spectator opens it as is. EventSource reconnects by itself after a blip,
// sending Last-Event-ID, and we refetch the view when it is back. If the stream cannot be opened again
// (an expired ticket, a restarted server), we get a new ticket; after repeated failures we long-poll.
async function connect(t) {
  if (t.closed || !t.view || over(t.view)) return;
  if (t.es) { t.es.close(); t.es = null; }
  // The long poll is for a network where the stream never opens; after a blip the stream is opened again.
  if (typeof EventSource === 'undefined' || (!t.opened && t.failures >= 4)) return longPoll(t);
  const params = new URLSearchParams({ after: String(t.view.version) });
  setConn(t, t.opened ? 'reconnecting' : 'connecting');
  if (t.token) {
    try {
      const ticket = await api('POST', `/v1/games/${encodeURIComponent(t.id)}/events/ticket`, { token: t.token });
      params.set('ticket', ticket.ticket);
    } catch (err) {
      if (t.closed) return;
      t.failures += 1;
      if (err.status === 401) { showError(err); return; }
      await sleep(Math.min(2000, 250 * 2 ** t.failures));
      return connect(t);
    }
  }
  if (t.closed) return;
  const es = new EventSource(`/v1/games/${encodeURIComponent(t.id)}/events?${params}`);
  t.es = es;
  es.addEventListener('open', () => {
    if (t.es !== es) return;
    const again = t.opened;
    t.opened = true;
    t.failures = 0;
    setConn(t, 'live');
    if ($error.dataset.network) clearError(); // the connection is back: the message about it is past
    if (again) refresh(t).catch(showError); // back after a blip: catch up on anything missed
  });
  const onEvent = (msg) => {
    if (t.es !== es) return;
    let event;
    try { event = JSON.parse(msg.data); } catch { return; }
    t.failures = 0;
    note(t, event);
    if (!t.view || event.version > t.view.version) refresh(t).catch(showError);
    if (event.type === 'game_ended') { es.close(); t.es = null; }
  };
  for (const type of EVENT_TYPES) es.addEventListener(type, onEvent);
  es.addEventListener('message', onEvent);
  es.addEventListener('error', () => {
    if (t.es !== es || t.closed) return;
    t.failures += 1;
    if (es.readyState === EventSource.CLOSED || t.token) {
      // The browser gave up, or would retry a seat's ticket, which is spent once used: start over with a
      // new ticket, soon (a blip is short).
      es.close();
      t.es = null;
      setConn(t, 'reconnecting');
      sleep(Math.min(2000, 250 * 2 ** t.failures)).then(() => {
        if (t.closed) return;
        refresh(t).catch(() => {}).then(() => connect(t));
      });
    } else {
      setConn(t, 'reconnecting'); // a spectator's EventSource retries by itself, with Last-Event-ID
    }
  });
}

// The fallback: the documented long poll (GET .../events?after=V&wait=S), with the Authorization header.
async function longPoll(t) {
  const ctl = new AbortController();
  t.poll = ctl;
  setConn(t, 'polling');
  let after = t.view.version;
  while (!t.closed && t.poll === ctl && !over(t.view)) {
    try {
      const page = await api('GET', `/v1/games/${encodeURIComponent(t.id)}/events?after=${after}&wait=25`, { token: t.token, signal: ctl.signal });
      for (const event of page.events) note(t, event);
      if (page.last_version !== null && page.last_version !== undefined) after = page.last_version;
      if (page.events.length || page.ended) await refresh(t);
      if (page.ended) break;
    } catch (err) {
      if (err.name === 'AbortError') return;
      setConn(t, 'reconnecting');
      await sleep(2000);
      setConn(t, 'polling');
    }
  }
}

// A short human-readable feed of what just happened (the view's log covers the round; this adds round ends).
function note(t, event) {
  t.lastEvent = event;
  if (event.type === 'resigned') t.resigned = event.seat;
  if (event.type === 'game_ended') t.outcome = { reason: event.reason, winners: event.winners };
}

// Why the match ended, for a page opened after the end (the events that said so were not followed): once,
// from the history's outcome and its `resigned` event.
function learnOutcome(t) {
  if (t.outcome !== undefined) return;
  t.outcome = null;
  api('GET', `/v1/games/${encodeURIComponent(t.id)}/history`, { token: t.token }).then((history) => {
    const resigned = history.events.find((e) => e.type === 'resigned');
    if (resigned) t.resigned = resigned.seat;
    t.outcome = history.outcome;
    if (!t.closed) renderTable(t);
  }).catch(() => {});
}

function tick(t) {
  const el = document.getElementById('deadline');
  if (!el || !t.view || !t.view.deadline) return;
  const left = Math.max(0, Math.round(t.view.deadline - Date.now() / 1000));
  el.textContent = `${left} s left`;
}

// ---------------------------------------------------------------- moves

async function sendMove(t, move) {
  if (t.busy || !t.view) return;
  t.busy = true;
  clearError();
  renderTable(t);
  try {
    const view = await api('POST', `/v1/games/${encodeURIComponent(t.id)}/moves`, {
      token: t.token,
      body: { ...move, expected_version: t.view.version },
    });
    t.selected = null;
    t.busy = false;
    if (!t.closed) setView(t, view);
  } catch (err) {
    t.busy = false;
    if (err instanceof ApiError && err.status === 412) {
      showError(new ApiError('The table changed before your move', 'another move was played first; here is the table as it is now.', 412, err.problem));
    } else {
      showError(err);
    }
    if (!t.closed) {
      renderTable(t);
      refresh(t).catch(() => {});
    }
  }
}

async function claimSeat(t, seat, name) {
  clearError();
  try {
    const claimed = await api('POST', `/v1/games/${encodeURIComponent(t.id)}/seats/${seat}`, { body: { name } });
    saveSeat(t.id, claimed.seat, claimed.token, name);
    route(); // reopen the table as that seat
  } catch (err) {
    const taken = err instanceof ApiError && err.problem && err.problem.type === '/problems/seat-taken';
    showError(taken ? new ApiError('Seat taken', `someone took seat ${seat + 1} just before you.`, 409, err.problem) : err);
    refresh(t).catch(() => {});
  }
}

async function resign(t) {
  clearError();
  try {
    const view = await api('POST', `/v1/games/${encodeURIComponent(t.id)}/resign`, { token: t.token });
    t.confirmResign = false;
    setView(t, view);
  } catch (err) {
    showError(err);
  }
}

// ---------------------------------------------------------------- rendering the table

function seatName(view, seat) {
  const s = view.seats[seat];
  if (!s) return `Seat ${seat + 1}`;
  if (s.kind === 'open') return `Seat ${seat + 1} (open)`;
  if (!s.name) return `Seat ${seat + 1}`;
  // Two computer players of one strategy share a name: tell them apart by seat.
  const twin = view.seats.some((o) => o.seat !== seat && o.name === s.name);
  return twin ? `${s.name} (seat ${seat + 1})` : s.name;
}

function whoText(view, seat) {
  return view.seat === seat ? 'You' : seatName(view, seat);
}

function maxPips(view) {
  return (view.rules && view.rules.set_max_pips) || 6;
}

// A tile on the table: lying along the line, doubles crosswise (upright). `along`: 'row' or 'column'.
function boardTile(view, tile, { along = 'row', flip = false, cls = '' } = {}) {
  let [a, b] = parseTile(tile);
  if (flip) [a, b] = [b, a];
  const double = a === b;
  const upright = along === 'row' ? double : !double;
  return h('span', { class: `tile ${double ? 'double' : ''} ${cls}`.trim(), role: 'img', 'aria-label': `${a}-${b}`, title: `${a}-${b}` },
    tileSvg(a, b, { upright, max: maxPips(view) }));
}

// Where the selected tile may go: a button per legal place, showing the tile as it would lie there.
function targetButton(t, move, { along = 'row', touching = null, label }) {
  let [a, b] = parseTile(move.tile);
  // Orient the ghost so the half touching the end faces it.
  if (touching !== null) {
    if (touching.side === 'before' && b !== touching.value) [a, b] = [b, a];
    if (touching.side === 'after' && a !== touching.value) [a, b] = [b, a];
  }
  const double = a === b;
  const upright = along === 'row' ? double : !double;
  const key = `target:${move.end || 'start'}`;
  return h('button', {
    type: 'button', class: 'target', 'data-key': key, 'data-end': move.end || 'start',
    'aria-label': `Play ${move.tile} ${label}`, title: `Play ${move.tile} ${label}`,
    disabled: t.busy, onclick: () => sendMove(t, move),
  }, tileSvg(a, b, { upright, max: maxPips(t.view), cls: 'ghost' }));
}

function targetsFor(t) {
  const out = {};
  if (!t.selected) return out;
  for (const m of legalPlays(t.view, t.selected)) out[m.end || 'start'] = m;
  return out;
}

function renderLineBoard(t) {
  const view = t.view;
  const board = view.board;
  const targets = targetsFor(t);
  const ends = board.ends || {};
  const line = board.line || [];
  const box = h('div', { class: 'board line-board', 'data-testid': 'board' });
  if (!line.length) {
    box.append(h('div', { class: 'line empty' },
      targets.start ? targetButton(t, targets.start, { label: 'to open the round' }) : h('p', { class: 'muted' }, 'The table is empty: the opening tile goes here.')));
    return box;
  }
  if (board.spinner && board.spinner_index !== null && board.spinner_index !== undefined) {
    return renderCross(t, box, targets);
  }
  const row = h('div', { class: 'line', 'data-testid': 'line' });
  if (targets.left) row.append(targetButton(t, targets.left, { touching: { side: 'before', value: ends.left }, label: `on the left end (${ends.left})` }));
  line.forEach((tile) => row.append(boardTile(view, tile)));
  if (targets.right) row.append(targetButton(t, targets.right, { touching: { side: 'after', value: ends.right }, label: `on the right end (${ends.right})` }));
  if (targets.start) row.append(targetButton(t, targets.start, { label: 'here' }));
  box.append(row, endsCaption(ends));
  return box;
}

function endsCaption(ends) {
  const parts = [];
  for (const side of ['left', 'right', 'up', 'down']) {
    if (ends[side] !== null && ends[side] !== undefined) parts.push(`${side} ${ends[side]}`);
  }
  return parts.length ? h('p', { class: 'ends muted' }, `Open ends: ${parts.join(' · ')}`) : null;
}

// All Fives: the spinner in the middle, the line's two wings left and right, its arms up and down.
function renderCross(t, box, targets) {
  const view = t.view;
  const board = view.board;
  const ends = board.ends || {};
  const si = board.spinner_index;
  const line = board.line;
  const arms = board.arms || { up: [], down: [] };
  // The left wing is laid out from the spinner outwards (row-reverse), so its first row meets the spinner.
  const left = h('div', { class: 'wing left' });
  line.slice(0, si).reverse().forEach((tile) => left.append(boardTile(view, tile)));
  if (targets.left) left.append(targetButton(t, targets.left, { touching: { side: 'before', value: ends.left }, label: `on the left end (${ends.left})` }));
  const right = h('div', { class: 'wing right' });
  line.slice(si + 1).forEach((tile) => right.append(boardTile(view, tile)));
  if (targets.right) right.append(targetButton(t, targets.right, { touching: { side: 'after', value: ends.right }, label: `on the right end (${ends.right})` }));
  // Arm tiles are listed from the spinner outwards, the first half touching.
  const up = h('div', { class: 'arm up' });
  arms.up.forEach((tile) => up.append(boardTile(view, tile, { along: 'column', flip: true })));
  if (targets.up) up.append(targetButton(t, targets.up, { along: 'column', touching: { side: 'before', value: ends.up }, label: `on the spinner's upper arm (${ends.up})` }));
  const down = h('div', { class: 'arm down' });
  arms.down.forEach((tile) => down.append(boardTile(view, tile, { along: 'column' })));
  if (targets.down) down.append(targetButton(t, targets.down, { along: 'column', touching: { side: 'after', value: ends.down }, label: `on the spinner's lower arm (${ends.down})` }));
  box.classList.add('cross-board');
  box.append(h('div', { class: 'cross', 'data-testid': 'line' },
    up, left, h('div', { class: 'spin' }, boardTile(view, line[si], { cls: 'spinner' })), right, down));
  if (targets.start) box.append(targetButton(t, targets.start, { label: 'here' }));
  const count = board.count;
  box.append(h('p', { class: 'ends muted' },
    `Spinner ${board.spinner}. `,
    count !== undefined && count !== null ? h('span', { 'data-testid': 'count' }, `Ends count ${count}${count > 0 && count % 5 === 0 ? ' (scores)' : ''}. `) : null,
    endsCaption(ends)?.textContent || ''));
  return box;
}

// Mexican Train: the engine double, then each train as a row: its owner, marker, tiles and open end.
function renderTrains(t) {
  const view = t.view;
  const board = view.board;
  const targets = targetsFor(t);
  const pending = new Set(board.pending_doubles || []);
  const box = h('div', { class: 'board trains-board', 'data-testid': 'board' });
  const engine = board.engine_double;
  box.append(h('div', { class: 'engine' },
    engine ? boardTile(view, engine, { cls: 'engine-double' }) : null,
    h('span', {}, engine ? `Engine ${engine}` : 'No engine yet')));
  if (pending.size && !over(view)) {
    box.append(h('p', { class: 'notice', 'data-testid': 'pending' },
      `Double ${[...pending].join(', ')} must be covered before anything else is played.`));
  }
  if ((board.first_turn_pending || []).length && board.phase === 'first') {
    box.append(h('p', { class: 'muted' },
      `Opening turns still to come: ${board.first_turn_pending.map((s) => whoText(view, s)).join(', ')}.`));
  }
  for (const train of board.trains) {
    const key = train.owner === null ? 'mexican' : `train:${train.owner}`;
    const mine = train.owner !== null && train.owner === view.seat;
    const name = trainName(view, train.owner);
    const tiles = h('div', { class: 'train-tiles' });
    train.tiles.forEach((tile) => tiles.append(boardTile(view, tile, { cls: pending.has(canonical(tile)) ? 'pending' : '' })));
    if (targets[key]) tiles.append(targetButton(t, targets[key], { touching: { side: 'after', value: train.end }, label: `on ${name} (${train.end})` }));
    box.append(h('div', {
      class: `train ${mine ? 'mine' : ''} ${train.marker ? 'marked' : ''}`.trim(),
      'data-testid': `train-${train.owner === null ? 'mexican' : train.owner}`,
    },
    h('div', { class: 'train-label' },
      h('span', { class: 'train-name' }, train.owner === null ? 'Mexican train' : name.replace(/^y/, 'Y')),
      train.marker && train.owner !== null ? h('span', { class: 'marker', title: 'Marker: this train is open to everyone' }, 'marker: open to all') : null,
      h('span', { class: 'train-end muted' }, `end ${train.end}`)),
    tiles));
  }
  return box;
}

function trainName(view, owner) {
  if (owner === null || owner === undefined) return 'the Mexican train';
  return owner === view.seat ? 'your train' : `${seatName(view, owner)}'s train`;
}

function canonical(tile) {
  const [a, b] = parseTile(tile);
  return a >= b ? `${a}-${b}` : `${b}-${a}`;
}

function renderSeats(t) {
  const view = t.view;
  const playing = view.status === 'playing';
  const list = h('ul', { class: 'seats', 'data-testid': 'seats' });
  view.seats.forEach((s) => {
    const turn = playing && view.turn === s.seat;
    const backs = h('span', { class: 'backs', 'aria-hidden': 'true' });
    for (let i = 0; i < Math.min(s.hand_count || 0, 15); i++) backs.append(tileBack());
    list.append(h('li', { class: `seat-card ${turn ? 'turn' : ''} ${view.seat === s.seat ? 'me' : ''} ${view.winners.includes(s.seat) ? 'winner' : ''}`.trim(), 'aria-current': turn ? 'true' : null },
      h('div', { class: 'seat-head' },
        h('span', { class: 'seat-name' }, seatName(view, s.seat), view.seat === s.seat && s.name !== 'You' ? ' (you)' : ''),
        turn ? h('span', { class: 'turn-flag' }, view.seat === s.seat ? 'your turn' : 'to play') : null,
        h('span', { class: `kind ${s.kind}` }, s.kind === 'bot' ? 'computer' : s.kind)),
      h('div', { class: 'seat-body' },
        h('span', { class: 'score' }, h('span', { class: 'score-value', 'data-testid': `score-${s.seat}` }, String(view.scores[s.seat])), ' pts'),
        h('span', { class: 'hand-count' }, `${s.hand_count} tile${s.hand_count === 1 ? '' : 's'}`), backs)));
  });
  return list;
}

function statusLine(t) {
  const view = t.view;
  const rules = view.rules || {};
  const goal = rules.match_end === 'fixed_rounds'
    ? `round ${view.round} of ${rules.rounds}`
    : `round ${view.round} · play to ${rules.target_score}`;
  return h('div', { class: 'status-line' },
    h('span', { class: 'variant' }, VARIANT_NAMES[view.variant] || view.variant),
    h('span', {}, goal),
    h('span', {}, `boneyard ${view.boneyard_count}`),
    h('span', { class: 'status', 'data-testid': 'status', 'data-status': view.status }, view.status),
    h('span', { class: 'conn', id: 'conn', 'data-state': t.conn }, CONN_TEXT[t.conn] || t.conn),
    view.deadline ? h('span', { id: 'deadline', class: 'deadline' }, '') : null);
}

function turnState(t) {
  const view = t.view;
  if (over(view)) return 'over';
  if (view.status === 'waiting') return 'waiting-players';
  if (view.seat === null || view.seat === undefined) return 'spectating';
  if (view.turn === view.seat && (view.legal_moves || []).length) return 'your-turn';
  return 'waiting';
}

function renderHand(t) {
  const view = t.view;
  if (!Array.isArray(view.hand)) return null;
  const state = turnState(t);
  const legal = view.legal_moves || [];
  const tiles = h('div', { class: 'hand-tiles', role: 'group', 'aria-label': 'Your tiles' });
  for (const tile of view.hand) {
    const playable = state === 'your-turn' && legalPlays(view, tile).length > 0;
    const selected = t.selected === tile;
    const [a, b] = parseTile(tile);
    tiles.append(h('button', {
      type: 'button',
      class: `hand-tile ${playable ? 'playable' : ''} ${selected ? 'selected' : ''}`.trim(),
      'data-key': `tile:${tile}`, 'data-tile': tile,
      'aria-label': `${tile}${playable ? ', playable' : ''}`,
      'aria-pressed': playable ? String(selected) : null,
      disabled: !playable || t.busy,
      onclick: () => selectTile(t, tile),
    }, tileSvg(a, b, { upright: true, max: maxPips(view) })));
  }
  const actions = h('div', { class: 'actions' });
  const draw = legal.find((m) => m.type === 'draw');
  const pass = legal.find((m) => m.type === 'pass');
  if (state === 'your-turn' && draw) {
    actions.append(h('button', { type: 'button', class: 'primary', 'data-key': 'action:draw', 'data-testid': 'draw', disabled: t.busy, onclick: () => sendMove(t, draw) }, `Draw (${view.boneyard_count} left)`));
  }
  if (state === 'your-turn' && pass) {
    actions.append(h('button', { type: 'button', class: 'primary', 'data-key': 'action:pass', 'data-testid': 'pass', disabled: t.busy, onclick: () => sendMove(t, pass) }, 'Pass'));
  }
  if (t.selected) {
    actions.append(h('button', { type: 'button', class: 'link', 'data-key': 'action:cancel', onclick: () => selectTile(t, null) }, 'Cancel'));
  }
  let hint;
  if (state === 'your-turn') {
    if (t.selected) hint = `Now pick where ${t.selected} goes on the table.`;
    else if (legal.some((m) => m.type === 'play')) hint = 'Your turn: pick a highlighted tile.';
    else if (draw) hint = 'Your turn: no tile fits, draw from the boneyard.';
    else hint = 'Your turn: no tile fits, pass.';
  } else if (state === 'waiting') {
    hint = `Waiting for ${view.turn !== null ? whoText(view, view.turn) : 'the table'}…`;
  } else if (state === 'waiting-players') {
    hint = 'Waiting for the open seats to be taken.';
  } else {
    hint = '';
  }
  return h('section', { class: 'hand', 'aria-labelledby': 'hand-title' },
    h('h2', { id: 'hand-title' }, 'Your hand'),
    h('p', { class: 'hint', 'data-testid': 'hint' }, hint),
    tiles, actions);
}

function selectTile(t, tile) {
  t.selected = t.selected === tile ? null : tile;
  renderTable(t);
  // Keyboard users: go straight to the first place the tile can go.
  if (t.selected) {
    const first = $app.querySelector('.target');
    if (first && document.activeElement && document.activeElement.classList.contains('hand-tile')) first.focus();
  }
}

function renderRoundResult(t) {
  const view = t.view;
  const lr = view.last_round;
  if (!lr) return null;
  const rows = view.seats.map((s) => h('tr', {},
    h('th', { scope: 'row' }, whoText(view, s.seat)),
    h('td', { class: 'left-tiles' }, (lr.hands && lr.hands[s.seat] || []).map((tile) => boardTile(view, tile, { cls: 'small' }))),
    h('td', {}, lr.pips_left ? String(lr.pips_left[s.seat]) : ''),
    h('td', {}, lr.points ? `+${lr.points[s.seat]}` : '')));
  const endText = { domino: 'went out', blocked: 'blocked', abandoned: 'ended when the target was reached' }[lr.end] || lr.end;
  return h('section', { class: 'card round-result', 'data-testid': 'round-result' },
    h('h2', {}, `Round ${lr.round}: ${endText}`),
    lr.why ? h('p', {}, humanWhy(view, lr.why)) : null,
    h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Tiles left'), h('th', { scope: 'col' }, 'Pips'), h('th', { scope: 'col' }, 'Points'))),
      h('tbody', {}, rows)));
}

function humanWhy(view, why) {
  return String(why).replace(/seat (\d+)/g, (_, n) => whoText(view, Number(n)));
}

function renderGameOver(t) {
  const view = t.view;
  if (!over(view)) return null;
  if (view.status === 'aborted') return h('section', { class: 'card game-over', 'data-testid': 'game-over' }, h('h2', {}, 'The game was aborted.'));
  const winners = view.winners.map((s) => whoText(view, s));
  const youWon = view.seat !== null && view.winners.includes(view.seat);
  return h('section', { class: 'card game-over', 'data-testid': 'game-over', role: 'status' },
    h('h2', {}, youWon ? 'You won!' : `Game over: ${winners.join(' and ') || 'no winner'} ${winners.length > 1 ? 'win' : 'wins'}.`),
    t.outcome ? h('p', { 'data-testid': 'end-reason' }, endReason(t, view)) : null,
    h('ul', { class: 'final-scores' }, view.seats.map((s) => h('li', {},
      `${whoText(view, s.seat)}: `, h('strong', { 'data-testid': `final-score-${s.seat}` }, String(view.scores[s.seat]))))),
    view.team_scores ? h('p', { 'data-testid': 'team-scores' }, `Teams: ${teamText(view, 0)} ${view.team_scores[0]} – ${teamText(view, 1)} ${view.team_scores[1]}`) : null,
    h('p', {}, h('a', { href: `/v1/games/${view.id}/history` }, 'The full history'), ' (every deal and the seed) · ', h('a', { href: '#new' }, 'Play again')));
}

// A team by its partners (seats i and i + 2: partners sit opposite).
function teamText(view, team) {
  return `${whoText(view, team)} & ${whoText(view, team + 2)}`;
}

function endReason(t, view) {
  const reason = t.outcome.reason;
  if (reason === 'resigned') return t.resigned !== undefined ? `${whoText(view, t.resigned)} resigned.` : 'The match ended by resignation.';
  if (reason === 'target_score') return `The target of ${view.rules.target_score} points was reached.`;
  if (reason === 'fixed_rounds') return `All ${view.rules.rounds} rounds were played${view.rules.scoring === 'mexican_penalty' ? ': the fewest points win' : ''}.`;
  return `The match ended (${reason}).`;
}

function renderLog(t) {
  const view = t.view;
  const log = (view.log || []).slice(-12).reverse();
  if (!log.length) return null;
  return h('section', { class: 'card log' },
    h('h2', {}, over(view) ? 'The last round' : `Round ${view.round} so far`),
    h('ol', { reversed: true, class: 'plain' }, log.map((m) => h('li', {}, describeMove(view, m)))));
}

function describeMove(view, m) {
  const who = whoText(view, m.seat);
  if (m.type === 'draw') return `${who} drew`;
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

function renderClaim(t) {
  const view = t.view;
  if (t.watch || view.seat !== null || view.status !== 'waiting') return null;
  const open = view.seats.filter((s) => s.kind === 'open');
  if (!open.length) return null;
  const name = h('input', { id: 'claim-name', maxlength: 40, value: '', placeholder: 'Your name', required: true, autocomplete: 'nickname' });
  return h('section', { class: 'card claim' },
    h('h2', {}, 'Join this game'),
    h('div', { class: 'field' }, h('label', { for: 'claim-name' }, 'Your name'), name),
    h('div', { class: 'actions' }, open.map((s) => h('button', {
      type: 'button', class: 'primary', 'data-testid': `claim-${s.seat}`,
      onclick: () => {
        if (!name.value.trim()) { name.focus(); showError(new ApiError('A name is needed', 'type your name, then take the seat.')); return; }
        claimSeat(t, s.seat, name.value.trim());
      },
    }, `Take seat ${s.seat + 1}`))));
}

function renderShare(t) {
  const view = t.view;
  if (view.seat === null || view.status !== 'waiting') return null;
  const link = `${location.origin}/play#game=${view.id}`;
  const input = h('input', { id: 'share-link', readonly: true, value: link, onfocus: (e) => e.target.select() });
  return h('section', { class: 'card share' },
    h('h2', {}, 'Invite a friend'),
    h('p', {}, 'Send this link; the game starts when every open seat is taken.'),
    h('div', { class: 'field' }, h('label', { for: 'share-link' }, 'Link'), input),
    h('button', {
      type: 'button', class: 'link',
      onclick: async (e) => {
        try { await navigator.clipboard.writeText(link); e.target.textContent = 'Copied'; } catch { input.select(); }
      },
    }, 'Copy the link'));
}

function renderTools(t) {
  const view = t.view;
  const items = [h('a', { href: `/play/watch?game=${view.id}` }, 'Spectator link')];
  if (view.seat !== null && view.status === 'playing') {
    items.push(t.confirmResign
      ? h('span', {}, 'Resign this game? ',
        h('button', { type: 'button', class: 'danger', onclick: () => resign(t) }, 'Yes, resign'), ' ',
        h('button', { type: 'button', class: 'link', onclick: () => { t.confirmResign = false; renderTable(t); } }, 'No'))
      : h('button', { type: 'button', class: 'link', onclick: () => { t.confirmResign = true; renderTable(t); } }, 'Resign'));
  }
  return h('p', { class: 'tools muted' }, items.flatMap((x, i) => (i ? [' · ', x] : [x])));
}

function renderTable(t) {
  if (t.closed || !t.view) return;
  const view = t.view;
  const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  const board = view.variant === 'mexican_train' || (view.board && view.board.trains) ? renderTrains(t) : renderLineBoard(t);
  const state = turnState(t);
  const main = h('div', { class: `table ${t.busy ? 'busy' : ''}`.trim(), 'data-testid': 'table', 'data-turn-state': state, 'data-version': view.version, 'data-seat': view.seat ?? '' },
    h('div', { class: 'play-area' },
      statusLine(t),
      renderGameOver(t),
      board,
      renderHand(t),
      view.seat === null ? h('p', { class: 'muted spectating' }, t.watch || view.status !== 'waiting' ? 'You are watching this game.' : '') : null),
    h('aside', { class: 'side' },
      renderSeats(t),
      view.team_scores ? h('p', { class: 'teams' }, `Teams: ${teamText(view, 0)} ${view.team_scores[0]} – ${teamText(view, 1)} ${view.team_scores[1]}`) : null,
      renderClaim(t),
      renderShare(t),
      renderRoundResult(t),
      renderLog(t),
      renderTools(t)));
  put($app, main);
  tick(t);
  if (focusKey) {
    const again = $app.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus();
    else if (focusKey.startsWith('tile:') || focusKey.startsWith('target:') || focusKey.startsWith('action:')) {
      const next = $app.querySelector('.target, .hand-tile:not([disabled]), .actions button:not([disabled])');
      if (next) next.focus();
    }
  }
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && table && table.selected) {
    const tile = table.selected;
    table.selected = null;
    renderTable(table);
    const el = $app.querySelector(`[data-key="${CSS.escape(`tile:${tile}`)}"]`);
    if (el) el.focus();
  }
});

// For tests and debugging: the open table's state (never holds more than the page already shows).
window.dominoClient = { get table() { return table && { id: table.id, view: table.view, conn: table.conn }; } };

route();
