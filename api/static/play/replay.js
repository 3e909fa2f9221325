// The replay page, /play/replay?game=<id>&v=<version>: a game stepped through commit by commit (buttons,
// the arrow keys, Home and End), every hand shown once the game is over, with the analysis of each move when
// the game has one. The step shown is in the URL (`v`, kept up to date with history.replaceState), so a
// position can be shared. A live game replays what has been played so far, as a spectator sees it: the
// history is always read without a seat's token, so no hidden tile is ever in the page.
//
// replay-state.js computes the positions (pure); replay-view.js draws them.

import * as client from './api.js';
import { ApiError } from './api.js';
import { replaySteps, stepAt } from './replay-state.js';
import { makeReplay, drawReplay } from './replay-view.js';
import { over } from './state.js';
import { SAY } from './text.js';
import { put, h } from './dom.js';
import { showError, clearError } from './notices.js';

// How long one analysis long poll waits: short enough to show its progress as it moves.
const ANALYSIS_WAIT = 3;
// How long one long poll of a live game's events waits (the API's most).
const LIVE_WAIT = 25;

const KEYS = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'first', End: 'last' };

/** Opens the replay of game `id` at `version` (null: the last position). `current()`: still the page shown. */
export async function showReplay($app, id, version, current) {
  document.title = SAY.titleReplay(id);
  put($app, h('p', { class: 'loading' }, SAY.loadingReplay));
  const r = { id, history: null, steps: [], at: 0, live: false, following: false, analysis: null, root: null, current };
  r.actions = {
    go: (i) => go(r, i),
    first: () => go(r, 0),
    back: () => go(r, r.at - 1),
    forward: () => go(r, r.at + 1),
    last: () => go(r, r.steps.length - 1),
    analyse: () => analyse(r),
    catchUp: () => catchUp(r),
  };
  try {
    await load(r);
  } catch (err) {
    if (!current()) return;
    showError(err);
    put($app, h('section', { class: 'card' },
      h('p', {}, err instanceof ApiError && err.status === 404 ? SAY.noSuchGame : SAY.replayFailed),
      h('p', {}, h('a', { href: '/play#new' }, SAY.startNew))));
    return;
  }
  if (!current()) return;
  if (!r.steps.length) {
    put($app, h('section', { class: 'card' }, h('h1', {}, SAY.replayTitle(id)), h('p', {}, SAY.nothingToReplay)));
    return;
  }
  r.root = makeReplay(r);
  put($app, r.root);
  go(r, stepAt(r.steps, version));
  document.addEventListener('keydown', (e) => onKey(r, e));
  if (r.live) followGame(r);
  else followAnalysis(r, false);
}

async function load(r) {
  const history = await client.getHistory(r.id, null);
  r.history = history;
  r.live = !over(history);
  r.steps = replaySteps(history);
}

function go(r, i) {
  if (!r.steps.length || !r.current()) return;
  r.at = Math.max(0, Math.min(r.steps.length - 1, i));
  drawReplay(r, r.root);
  const step = r.steps[r.at];
  history.replaceState(history.state, '', client.replayHref(r.id, step.version));
  showInList(r.root.querySelector(`.step-link[data-step="${r.at}"]`));
}

/** Scrolls the list of moves (only it, never the page) to show the step's entry. */
function showInList(link) {
  const list = link && link.closest('.moves-list');
  if (!list) return;
  const top = link.offsetTop; // the list is the entries' offset parent (position: relative)
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + link.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + link.offsetHeight - list.clientHeight;
}

function onKey(r, e) {
  const action = KEYS[e.key];
  if (!action || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !r.current()) return;
  const target = e.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  e.preventDefault();
  r.actions[action]();
}

/** A live game: read the history again; the page stays on its step unless it showed the last one. Once the
 * game is over, the page is the finished game's (every hand shown) and follows its analysis. */
async function catchUp(r) {
  clearError();
  const atEnd = r.at === r.steps.length - 1;
  try {
    await load(r);
  } catch (err) {
    showError(err);
    return;
  }
  if (!r.current()) return;
  r.root = makeReplay(r);
  put(document.getElementById('app'), r.root);
  go(r, atEnd ? r.steps.length - 1 : r.at);
  if (r.live) followGame(r);
  else followAnalysis(r, false);
}

/** A live game's new commits as they are made (the events' long poll, as a spectator), added to the replay:
 * a page showing the last step moves on with the game. When the game ends, its history is read again. */
async function followGame(r) {
  if (r.following) return;
  r.following = true;
  try {
    while (r.live && r.current()) {
      const page = await client.pollEvents(r.id, null, r.history.version, LIVE_WAIT);
      if (!r.current()) return;
      if (page.ended) {
        r.following = false;
        catchUp(r);
        return;
      }
      const events = page.events.filter((e) => e.type !== 'turn_started'); // the history has none
      r.history = { ...r.history, version: page.last_version, events: [...r.history.events, ...events] };
      if (!events.length) continue;
      const atEnd = r.at === r.steps.length - 1;
      r.steps = replaySteps(r.history);
      go(r, atEnd ? r.steps.length - 1 : r.at);
    }
  } catch (err) {
    if (r.current()) showError(err); // the button loads the latest moves, and follows the game again
  } finally {
    r.following = false;
  }
}

/** Reads the game's analysis, and follows it (long polls) until it is done or failed. */
async function followAnalysis(r, asked) {
  try {
    let a = asked ? await client.requestAnalysis(r.id) : await client.getAnalysis(r.id);
    for (;;) {
      if (!r.current()) return;
      r.analysis = a;
      drawReplay(r, r.root);
      if (a.status === 'done' || a.status === 'failed') return;
      a = await client.getAnalysis(r.id, ANALYSIS_WAIT);
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      r.analysis = { status: 'none' };
      if (r.current()) drawReplay(r, r.root);
    } else if (r.current()) showError(err);
  }
}

function analyse(r) {
  clearError();
  followAnalysis(r, true);
}
