// The API client: every call the page makes to the public API (/v1/..., documented in the OpenAPI document),
// and the seats this browser holds. A seat's token goes only in an Authorization header, never in a URL;
// it is kept in localStorage under "domino.seat.<game id>" so a reload keeps the seat.

import { SAY } from './text.js';

const SEAT_PREFIX = 'domino.seat.';

/** A failed call: the problem details' title and detail (status 0: the service could not be reached). */
export class ApiError extends Error {
  constructor(title, detail, status, problem) {
    super(detail ? `${title}: ${detail}` : title);
    this.title = title;
    this.detail = detail;
    this.status = status;
    this.problem = problem;
  }
}

export async function api(method, path, { token, body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const unreachable = (err) => {
    if (err.name === 'AbortError') return err;
    return new ApiError(SAY.unreachable, SAY.unreachableDetail, 0, null);
  };
  let resp;
  let text;
  try {
    resp = await fetch(path, {
      method, headers, signal, cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    text = await resp.text();
  } catch (err) {
    throw unreachable(err); // no answer, or the connection dropped in the middle of its body
  }
  const type = resp.headers.get('Content-Type') || '';
  let data = null;
  if (type.includes('json') && text) {
    try {
      data = JSON.parse(text);
    } catch (err) {
      if (resp.ok) throw unreachable(err); // a success cut short is no answer (never a view of null)
    }
  }
  if (!resp.ok) {
    const title = (data && data.title) || `HTTP ${resp.status}`;
    throw new ApiError(title, (data && data.detail) || '', resp.status, data);
  }
  return data;
}

const game = (id) => encodeURIComponent(id);

// ---------------------------------------------------------------- the operations the page uses

export const catalogue = () => Promise.all([api('GET', '/v1/variants'), api('GET', '/v1/bots')])
  .then(([variants, bots]) => ({ variants: variants.variants, bots }));
export const waitingGames = () => api('GET', '/v1/games?status=waiting&limit=50');
export const createGame = (body) => api('POST', '/v1/games', { body });
export const openTicket = (body) => api('POST', '/v1/matchmaking/tickets', { body });
/** A ticket's long poll: its status once its wait ends, or after `wait` seconds. */
export const readTicket = (id, token, wait, signal) =>
  api('GET', `/v1/matchmaking/tickets/${game(id)}?wait=${wait}`, { token, signal });
export const cancelTicket = (id, token) => api('DELETE', `/v1/matchmaking/tickets/${game(id)}`, { token });
export const offerRematch = (id, token) => api('POST', `/v1/games/${game(id)}/rematch`, { token });
export const getRematch = (id, token) => api('GET', `/v1/games/${game(id)}/rematch`, { token });
export const getView = (id, token) => api('GET', `/v1/games/${game(id)}`, { token });
export const getHistory = (id, token) => api('GET', `/v1/games/${game(id)}/history`, { token });
export const historyHref = (id) => `/v1/games/${game(id)}/history`;
/** A finished game's analysis (404 when none was asked for); with `wait`, a long poll until it is over. */
export const getAnalysis = (id, wait = 0, signal) => api('GET', `/v1/games/${game(id)}/analysis?wait=${wait}`, { signal });
export const requestAnalysis = (id) => api('POST', `/v1/games/${game(id)}/analysis`);
/** The replay page of a game, at a version (the first position when none). */
export const replayHref = (id, version) => `/play/replay?game=${game(id)}${version === undefined ? '' : `&v=${version}`}`;
export const playMove = (id, token, move) => api('POST', `/v1/games/${game(id)}/moves`, { token, body: move });
export const resign = (id, token) => api('POST', `/v1/games/${game(id)}/resign`, { token });
export const claimSeat = (id, seat, name) => api('POST', `/v1/games/${game(id)}/seats/${seat}`, { body: { name } });
export const streamTicket = (id, token) => api('POST', `/v1/games/${game(id)}/events/ticket`, { token });
/** The long poll: the events after `after`, waiting up to `wait` seconds for one. */
export const pollEvents = (id, token, after, wait, signal) =>
  api('GET', `/v1/games/${game(id)}/events?after=${after}&wait=${wait}`, { token, signal });
/** The Server-Sent Events stream's URL (a spectator's as is; a seat's with a single-use ticket). */
export const streamUrl = (id, params) => `/v1/games/${game(id)}/events?${params}`;

// ---------------------------------------------------------------- the seats this browser holds

export function loadSeat(id) {
  try {
    const raw = localStorage.getItem(SEAT_PREFIX + id);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

export function saveSeat(id, seat, token, name) {
  try {
    localStorage.setItem(SEAT_PREFIX + id, JSON.stringify({ seat, token, name, saved: Date.now() }));
  } catch { /* private mode: the seat lasts as long as the page */ }
}

export function forgetSeat(id) {
  try { localStorage.removeItem(SEAT_PREFIX + id); } catch { /* ignore */ }
}

/** The games this browser holds a seat in, the latest first. */
export function savedGames() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(SEAT_PREFIX)) {
        const v = JSON.parse(localStorage.getItem(key) || 'null');
        if (v) out.push({ id: key.slice(SEAT_PREFIX.length), ...v });
      }
    }
  } catch { /* ignore */ }
  return out.sort((x, y) => (y.saved || 0) - (x.saved || 0));
}
