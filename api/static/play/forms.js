// The pages around the table: the new-game form and the lobby of games waiting for players.

import { h, put } from './dom.js';
import * as client from './api.js';
import { showError, clearError } from './notices.js';
import { SAY, variantName } from './text.js';

let catalogue = null; // the variants and the computer players, fetched once

function perPlayers(value, players) {
  if (value && typeof value === 'object') return value[String(players)];
  return value;
}

/** The seats of the new game from the form's choices; `mine` is the seat "You" took, if any. */
function chosenSeats(selects, name) {
  const seats = [];
  let mine = null;
  selects.forEach((sel, i) => {
    if (sel.value === 'me') {
      mine = i;
      seats.push({ name: name || SAY.you });
    } else if (sel.value === 'open') seats.push({ open: true });
    else seats.push({ bot: sel.value.slice(4) });
  });
  return { seats, mine };
}

function chosenRules(form) {
  const rules = {};
  const target = form.querySelector('#target');
  const rounds = form.querySelector('#rounds');
  if (target && target.value) rules.target_score = Number(target.value);
  if (rounds && rounds.value) rules.rounds = Number(rounds.value);
  const teams = form.querySelector('#teams');
  if (teams && teams.checked) rules.teams = 'partners_opposite';
  return rules;
}

function seatChoice(cat, i, previous) {
  const options = [
    i === 0 ? h('option', { value: 'me' }, SAY.you) : null,
    ...cat.bots.map((b) => h('option', { value: `bot:${b.id}` }, SAY.computer(b.id))),
    h('option', { value: 'open' }, SAY.openSeat),
  ];
  const sel = h('select', { id: `seat-${i}`, name: `seat-${i}`, 'data-seat': i }, options);
  sel.value = previous || (i === 0 ? 'me' : 'bot:greedy');
  if (!sel.value) sel.selectedIndex = 0;
  return h('div', { class: 'seat-row' }, h('label', { for: `seat-${i}` }, SAY.seat(i)), sel);
}

function ruleFields(v, n) {
  const out = [];
  if (n === 4 && v.defaults.teams !== undefined) {
    // Seats 1 and 3 play seats 2 and 4 (partners sit opposite).
    out.push(h('div', { class: 'field check' }, h('input', { type: 'checkbox', id: 'teams' }), h('label', { for: 'teams' }, SAY.teams)));
  }
  if (v.defaults.match_end === 'fixed_rounds' || v.defaults.rounds !== undefined || v.id === 'mexican_train') {
    out.push(h('div', { class: 'field' },
      h('label', { for: 'rounds' }, SAY.rounds),
      h('input', { id: 'rounds', type: 'number', min: 1, max: 13, placeholder: SAY.byDefault, inputmode: 'numeric' })));
  } else {
    const def = perPlayers(v.defaults.target_score, n);
    out.push(h('div', { class: 'field' },
      h('label', { for: 'target' }, SAY.playTo),
      h('input', {
        id: 'target', type: 'number', min: 1, max: 1000, placeholder: def ? SAY.points(def) : SAY.byDefault, inputmode: 'numeric',
      })));
  }
  return out;
}

/** The form's fields; choosing a variant or a number of players fills the fields that depend on it. */
function newGameFields(cat) {
  const f = {
    variant: h('select', { id: 'variant', name: 'variant' }, cat.variants.map((v) => h('option', { value: v.id }, variantName(v.id)))),
    players: h('select', { id: 'players', name: 'players' }),
    name: h('input', { id: 'name', name: 'name', value: SAY.you, maxlength: 40, required: true, autocomplete: 'nickname' }),
    seats: h('fieldset', { class: 'seats-choice' }),
    options: h('div', { class: 'options' }),
    listed: h('input', { type: 'checkbox', id: 'listed', checked: true }),
    submit: h('button', { type: 'submit', class: 'primary', id: 'start' }, SAY.start),
    find: h('button', { type: 'button', id: 'find' }, SAY.find),
  };
  f.variant.value = 'draw';
  const variant = () => cat.variants.find((v) => v.id === f.variant.value);

  function fillSeats() {
    const n = Number(f.players.value);
    const previous = [...f.seats.querySelectorAll('select')].map((s) => s.value);
    f.seats.replaceChildren(h('legend', {}, SAY.whoSits));
    for (let i = 0; i < n; i++) f.seats.append(seatChoice(cat, i, previous[i]));
    f.options.replaceChildren(...ruleFields(variant(), n));
  }

  function fillPlayers() {
    const v = variant();
    const max = Math.min(v.players.advertised_max || v.players.max, v.players.max);
    const keep = Number(f.players.value) || 2;
    f.players.replaceChildren();
    for (let n = v.players.min; n <= max; n++) f.players.append(h('option', { value: n }, SAY.playersCount(n)));
    f.players.value = String(Math.min(Math.max(keep, v.players.min), max));
    fillSeats();
  }

  f.variant.addEventListener('change', fillPlayers);
  f.players.addEventListener('change', fillSeats);
  fillPlayers();
  return f;
}

/** Creates the game; the page opens it as the seat "You" took (or as a spectator of computer players). */
async function startGame(form, f) {
  clearError();
  const name = f.name.value.trim();
  const { seats, mine } = chosenSeats([...f.seats.querySelectorAll('select')], name);
  const rules = chosenRules(form);
  const body = { variant: f.variant.value, seats, unlisted: !f.listed.checked };
  if (Object.keys(rules).length) body.rules = rules;
  f.submit.disabled = true;
  try {
    const created = await client.createGame(body);
    const id = created.game.id;
    const tok = created.tokens.find((t) => t.seat === mine);
    if (tok) {
      client.saveSeat(id, tok.seat, tok.token, name);
      location.hash = `game=${id}`;
    } else {
      location.hash = `watch=${id}`;
    }
  } catch (err) {
    showError(err);
  } finally {
    f.submit.disabled = false;
  }
}

/** Opens a matchmaking ticket for the form's variant, size and rules (computer players after 10 s) and waits
 * for its table; the page then opens the game at the seat it got. Leaving the page stops waiting (the ticket
 * expires unread). */
async function findGame(form, f, status, current) {
  clearError();
  const name = f.name.value.trim();
  const body = { variant: f.variant.value, players: Number(f.players.value), bots_after_s: 10, name: name || SAY.you };
  const rules = chosenRules(form);
  if (Object.keys(rules).length) body.rules = rules;
  f.find.disabled = true;
  try {
    const { ticket, token } = await client.openTicket(body);
    const stop = h('button', { type: 'button', id: 'stop-seeking' }, SAY.cancelSeek);
    stop.addEventListener('click', () => client.cancelTicket(ticket.id, token).catch(showError));
    put(status, h('span', { 'data-testid': 'seeking' }, SAY.seeking), ' ', stop);
    let seen = ticket;
    while (seen.status === 'waiting' && current()) seen = await client.readTicket(ticket.id, token, 25);
    if (seen.status === 'matched') {
      client.saveSeat(seen.game_id, seen.seat, seen.token, name);
      if (current()) location.hash = `game=${seen.game_id}`;
    } else if (current()) put(status, SAY.seekOver(seen.status));
  } catch (err) {
    showError(err);
  } finally {
    f.find.disabled = false;
  }
}

/** `current()` is false once the user has moved on: a late answer must not draw over the page opened since. */
export async function showNewGame($app, current) {
  document.title = SAY.titleNew;
  put($app, h('p', { class: 'loading' }, SAY.loadingVariants));
  try {
    catalogue = catalogue || await client.catalogue();
    if (!current()) return;
  } catch (err) {
    if (!current()) return;
    showError(err);
    put($app, h('p', {}, SAY.variantsFailed));
    return;
  }
  const f = newGameFields(catalogue);
  const form = h('form', { class: 'card new-game', 'aria-labelledby': 'new-title' },
    h('h1', { id: 'new-title' }, SAY.newGame),
    h('div', { class: 'field' }, h('label', { for: 'variant' }, SAY.variant), f.variant),
    h('div', { class: 'field' }, h('label', { for: 'players' }, SAY.players), f.players),
    h('div', { class: 'field' }, h('label', { for: 'name' }, SAY.yourName), f.name),
    f.seats,
    f.options,
    h('div', { class: 'field check' }, f.listed, h('label', { for: 'listed' }, SAY.listed)),
    h('p', { class: 'hint' }, SAY.allComputers),
    f.submit,
    h('p', { class: 'hint' }, SAY.findHint),
    f.find,
    h('p', { id: 'seek-status', role: 'status' }));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    startGame(form, f);
  });
  f.find.addEventListener('click', () => findGame(form, f, form.querySelector('#seek-status'), current));
  const mine = client.savedGames().slice(0, 8);
  put($app,
    form,
    mine.length ? h('section', { class: 'card' }, h('h2', {}, SAY.yourGames),
      h('ul', { class: 'plain' }, mine.map((g) => h('li', {},
        h('a', { href: `#game=${g.id}` }, `${g.id}`), SAY.savedGame(g.seat), ' · ',
        h('a', { href: client.replayHref(g.id) }, SAY.replay))))) : null,
  );
}

export async function showLobby($app, current) {
  document.title = SAY.titleLobby;
  put($app, h('section', { class: 'card' }, h('h1', {}, SAY.lobbyTitle), h('p', { class: 'loading' }, SAY.loading)));
  try {
    const page = await client.waitingGames();
    if (!current()) return;
    const rows = page.games.map((g) => h('li', { class: 'lobby-game' },
      h('a', { href: `#game=${g.id}` }, variantName(g.variant)),
      SAY.lobbyGame(g.seats)));
    put($app, h('section', { class: 'card' },
      h('h1', {}, SAY.lobbyTitle),
      rows.length ? h('ul', { class: 'plain' }, rows) : h('p', {}, SAY.lobbyEmpty, h('a', { href: '#new' }, SAY.startOne), '.')));
  } catch (err) {
    if (current()) showError(err);
  }
}
